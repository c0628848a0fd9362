package collide

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// PenetrationStats summarises the signed distances of cloth vertices to a
// body.
type PenetrationStats struct {
	// Inside counts vertices inside the body (signed distance < 0), Deep
	// those more than DeepPenetration inside; MaxDepth and MeanDepth are
	// the largest and mean depth (−distance, m) over Inside (0 when none).
	Inside, Deep        int
	MaxDepth, MeanDepth float64
	// WithinThickness counts vertices closer than the thickness (including
	// those inside).
	WithinThickness int
}

// DeepPenetration (m) is the depth beyond which PenetrationStats counts a
// vertex as Deep: the 2 mm of the project's penetration goals.
const DeepPenetration = 0.002

// penChunk is the number of points per chunk of Penetrations' queries.
const penChunk = 256

// Penetrations measures how far the points x are inside body at its current
// position (exact closest points; deterministic). hint, if not nil, holds a
// body triangle per point where its search starts (-1: none; see
// QueryHint) and receives the closest triangle found, so that points
// measured frame after frame are searched from where they were. The
// queries run on body.Workers goroutines, in chunks of penChunk points.
func Penetrations(x []geom.Vec3, body *Body, thickness float64, hint []int32) PenetrationStats {
	body.ensure()
	d := make([]float64, len(x))
	each((len(x)+penChunk-1)/penChunk, body.Workers, func(c int) {
		for i := c * penChunk; i < min((c+1)*penChunk, len(x)); i++ {
			h := int32(-1)
			if hint != nil {
				h = hint[i]
			}
			con, _ := body.QueryHint(x[i], math.Inf(1), h) // Tri −1, Dist +Inf for none
			if hint != nil {
				hint[i] = con.Tri
			}
			d[i] = con.Dist
		}
	})
	var s PenetrationStats
	sum := 0.0
	for _, v := range d {
		if v < thickness {
			s.WithinThickness++
		}
		if v < 0 {
			s.Inside++
			if -v > DeepPenetration {
				s.Deep++
			}
			s.MaxDepth = max(s.MaxDepth, -v)
			sum -= v
		}
	}
	if s.Inside > 0 {
		s.MeanDepth = sum / float64(s.Inside)
	}
	return s
}

// ResolveReport tells what ResolveInitial did.
type ResolveReport struct {
	// Inside counts vertices initially closer than the thickness to the body
	// or inside it; MaxDepth is the largest initial penetration depth, m
	// (0 if none was inside).
	Inside   int
	MaxDepth float64
	// Iterations is the number of smoothed push passes run; Projected
	// counts the vertices that still needed the final hard projection.
	Iterations, Projected int
}

// ResolveInitial pushes a garment that starts partly inside a body out of
// it, gently: each iteration computes, for every vertex closer than
// thickness (or inside), the displacement (thickness − d)·n that would put
// it at distance thickness along the contact normal n, smooths that
// displacement field with three passes of uniform Laplacian smoothing over
// the garment's edges (D_i ← ½D_i + ½·mean of the neighbours' D_j), and adds
// it to x, so that neighbours move along and the garment stays smooth.
// After the iterations any vertex still too close is projected to distance
// thickness. x (positions) is updated in place; tris are the garment's
// triangles.
func ResolveInitial(x []geom.Vec3, tris [][3]int32, body *Body, thickness float64, iterations int) (ResolveReport, error) {
	var rep ResolveReport
	top, err := mesh.NewTopology(&mesh.Mesh{Verts: x, Tris: tris})
	if err != nil {
		return rep, err
	}
	body.ensure()
	n := len(x)
	con := make([]Contact, n)
	disp := make([]geom.Vec3, n)
	tmp := make([]geom.Vec3, n)
	measure := func() int {
		parallel(n, 0, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				con[i] = body.SignedDistance(x[i])
			}
		})
		k := 0
		for i := range con {
			disp[i] = geom.Vec3{}
			if d := con[i].Dist; d < thickness {
				k++
				disp[i] = con[i].Normal.Scale(thickness - d)
			}
		}
		return k
	}
	x0 := append([]geom.Vec3(nil), x...)
	project := func() int {
		k := 0
		for i := range x {
			if con[i].Dist < thickness && con[i].Tri >= 0 {
				x[i] = con[i].Point.AddScaled(thickness, con[i].Normal)
				k++
			}
		}
		return k
	}
	rep.Inside = measure()
	for i := range con {
		rep.MaxDepth = max(rep.MaxDepth, -con[i].Dist)
	}
	k := rep.Inside
	for it := 0; it < iterations && k > 0; it++ {
		rep.Iterations++
		for pass := 0; pass < 3; pass++ {
			for i := range disp {
				nb := top.Neighbors(int32(i))
				if len(nb) == 0 {
					tmp[i] = disp[i]
					continue
				}
				var s geom.Vec3
				for _, j := range nb {
					s = s.Add(disp[j])
				}
				tmp[i] = disp[i].Scale(0.5).AddScaled(0.5/float64(len(nb)), s)
			}
			disp, tmp = tmp, disp
		}
		for i := range x {
			x[i] = x[i].Add(disp[i])
		}
		k = measure()
	}
	// Vertices still too close are projected out to the thickness, and the
	// edges relaxed towards their original lengths in between: projecting
	// alone collapses a region that is deep inside (a cuff inside a hand)
	// onto a few surface points, and a garment whose rest shape is then
	// taken from it gets triangles of near-zero size (0.2 mm edges and
	// masses 30 times below their neighbours' on the MakeHuman shirt's
	// cuffs, on which the implicit solve diverged).
	if k > 0 {
		edges := top.Edges
		rest := make([]float64, 0, len(edges))
		for _, e := range edges {
			rest = append(rest, x0[e[0]].Dist(x0[e[1]]))
		}
		for it := 0; it < relaxIterations; it++ {
			project()
			for sweep := 0; sweep < 4; sweep++ {
				for k, e := range edges {
					a, b := e[0], e[1]
					d := x[b].Sub(x[a])
					l := d.Len()
					if l == 0 || rest[k] == 0 {
						continue
					}
					// Each end moves half the way, vertices on the
					// surface only tangentially.
					corr := d.Scale(0.5 * (l - rest[k]) / l)
					x[a] = x[a].Add(tangential(corr, con[a], thickness))
					x[b] = x[b].Sub(tangential(corr, con[b], thickness))
				}
			}
			measure()
		}
	}
	rep.Projected = project()
	return rep, nil
}

// relaxIterations is the number of projection and edge-relaxation rounds
// of ResolveInitial.
const relaxIterations = 30

// tangential removes the inward normal part of a move d of a vertex that
// is within thickness of the surface (contact con).
func tangential(d geom.Vec3, con Contact, thickness float64) geom.Vec3 {
	if con.Dist >= thickness || con.Tri < 0 {
		return d
	}
	if dn := d.Dot(con.Normal); dn < 0 {
		return d.AddScaled(-dn, con.Normal)
	}
	return d
}

// BodyAttachment ties a garment vertex to a point of a body triangle.
type BodyAttachment struct {
	Vertex int
	Tri    int32
	Bary   [3]float64
	// Local is the vertex's offset from the surface point in the triangle's
	// Frame (u, n, w), m.
	Local geom.Vec3
}

// Target returns the attachment's target at time t of the body's current
// motion.
func (a BodyAttachment) Target(b *Body, t float64) geom.Vec3 {
	return b.PointAt(a.Tri, a.Bary, a.Local, t)
}

// AttachToBody finds the garment vertices to tie to the body: the vertices
// of every boundary loop of the garment (a waistband, a collar) of which at
// least half the vertices lie within maxDist (m) of the body, those of its
// vertices that are within maxDist. Each follows its closest body point by
// barycentric coordinates, keeping its offset in the triangle's frame. The
// body is taken at its current position (the time of its last Update).
func AttachToBody(garment *mesh.Mesh, body *Body, maxDist float64) ([]BodyAttachment, error) {
	top, err := mesh.NewTopology(garment)
	if err != nil {
		return nil, err
	}
	body.ensure()
	var out []BodyAttachment
	for _, loop := range top.BoundaryLoops {
		var near []BodyAttachment
		for _, v := range loop {
			p := garment.Verts[v]
			c, ok := body.Query(p, maxDist)
			if !ok {
				continue
			}
			u, nn, w := body.Frame(c.Tri, body.time)
			d := p.Sub(c.Point)
			near = append(near, BodyAttachment{Vertex: int(v), Tri: c.Tri, Bary: c.Bary,
				Local: geom.Vec3{X: d.Dot(u), Y: d.Dot(nn), Z: d.Dot(w)}})
		}
		if 2*len(near) >= len(loop) {
			out = append(out, near...)
		}
	}
	return out, nil
}

// Attach adds atts to cloth c as attachments whose targets follow body:
// Stiffness 0 makes them hard constraints (see cloth.Attachment). Call
// body.SetFrames for the coming Step before stepping c. It returns the
// attachment indices.
func Attach(c *cloth.Cloth, body *Body, atts []BodyAttachment, stiffness, damping float64) []int {
	idx := make([]int, len(atts))
	for k, a := range atts {
		if a.Vertex < 0 || a.Vertex >= c.NumVerts() {
			panic(fmt.Sprintf("collide: attachment vertex %d out of range", a.Vertex))
		}
		a := a
		idx[k] = c.Attach(cloth.Attachment{Vertex: a.Vertex, Stiffness: stiffness, Damping: damping,
			Target: func(t float64) geom.Vec3 { return a.Target(body, t) }})
	}
	return idx
}
