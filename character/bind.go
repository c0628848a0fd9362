package character

import (
	"fmt"
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// SurfaceBinding ties garment vertices to the surface of a body mesh, for
// garments that come as plain meshes (no .mhclo). Vertex i sits at
//
//	p_i = Σ_k Bary[i][k]·c_k + o_x·e1 + o_y·e2 + o_z·n
//
// with c_k the corners of body triangle Tri[i], e1 the unit direction of
// its first edge (c_0→c_1), n its unit normal, e2 = n × e1, and
// o = Offset[i] in metres. The frame moves with the triangle, so Place on a
// reshaped body of the same topology carries the garment along. A
// degenerate triangle (no normal) uses the world axes as its frame.
type SurfaceBinding struct {
	Tri    []int32
	Bary   [][3]float64
	Offset []geom.Vec3
}

// NumVerts returns the number of bound vertices.
func (b *SurfaceBinding) NumVerts() int { return len(b.Tri) }

// triFrame returns the orthonormal frame (e1, e2, n) of the triangle a, b,
// c: e1 along a→b, n its normal (counter-clockwise side), e2 = n × e1; the
// world axes when the triangle is degenerate.
func triFrame(a, b, c geom.Vec3) (e1, e2, n geom.Vec3) {
	u := b.Sub(a)
	nn := u.Cross(c.Sub(a))
	lu, ln := u.Len(), nn.Len()
	if !(lu > 0) || !(ln > 1e-12*lu*lu) {
		return geom.V(1, 0, 0), geom.V(0, 1, 0), geom.V(0, 0, 1)
	}
	e1 = u.Scale(1 / lu)
	n = nn.Scale(1 / ln)
	return e1, n.Cross(e1), n
}

// BindSurface binds points to the closest points of body's surface: for
// each point the body triangle holding its closest point, the barycentric
// coordinates of that point, and the point's offset from it in the
// triangle's frame (see SurfaceBinding). body must have triangles.
func BindSurface(body *mesh.Mesh, points []geom.Vec3) SurfaceBinding {
	bvh := mesh.NewBVH(body.Verts, body.Tris)
	hits := bvh.ClosestPoints(nil, points, 0)
	b := SurfaceBinding{
		Tri:    make([]int32, len(points)),
		Bary:   make([][3]float64, len(points)),
		Offset: make([]geom.Vec3, len(points)),
	}
	for i, h := range hits {
		t := body.Tris[h.Tri]
		e1, e2, n := triFrame(body.Verts[t[0]], body.Verts[t[1]], body.Verts[t[2]])
		d := points[i].Sub(h.Point)
		b.Tri[i], b.Bary[i] = h.Tri, h.Bary
		b.Offset[i] = geom.Vec3{X: d.Dot(e1), Y: d.Dot(e2), Z: d.Dot(n)}
	}
	return b
}

// Place returns the bound positions on a body with vertex positions verts
// and triangles tris (the mesh the binding was made on, possibly moved), in
// dst when its capacity suffices. It panics if a triangle is out of range.
func (b *SurfaceBinding) Place(dst, verts []geom.Vec3, tris [][3]int32) []geom.Vec3 {
	n := len(b.Tri)
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	for i, ti := range b.Tri {
		t := tris[ti]
		a, c1, c2 := verts[t[0]], verts[t[1]], verts[t[2]]
		e1, e2, nn := triFrame(a, c1, c2)
		w := b.Bary[i]
		o := b.Offset[i]
		p := a.Scale(w[0]).AddScaled(w[1], c1).AddScaled(w[2], c2)
		dst[i] = p.AddScaled(o.X, e1).AddScaled(o.Y, e2).AddScaled(o.Z, nn)
	}
	return dst
}

// Weights returns skin weights for the bound vertices: the body's weights
// interpolated at each closest point, w_i(j) = Σ_k Bary[i][k]·w(c_k, j),
// renormalised, influences sorted by joint. bodyTris and bodyWeights are
// those of the mesh the binding was made on. A vertex whose interpolated
// weights sum to zero gives a *skel.VertexError wrapping
// skel.ErrZeroWeight.
func (b *SurfaceBinding) Weights(bodyTris [][3]int32, bodyWeights skel.Weights) (skel.Weights, error) {
	lists := make([][]skel.Influence, len(b.Tri))
	var acc []float64
	var touched []int32
	for i, ti := range b.Tri {
		t := bodyTris[ti]
		for k, v := range t {
			wk := b.Bary[i][k]
			if wk == 0 {
				continue
			}
			js, ws := bodyWeights.Influences(int(v))
			for n, j := range js {
				if int(j) >= len(acc) {
					acc = slices.Grow(acc, int(j)+1-len(acc))[:int(j)+1]
				}
				if !slices.Contains(touched, j) {
					touched = append(touched, j)
				}
				acc[j] += wk * float64(ws[n])
			}
		}
		slices.Sort(touched)
		sum := 0.0
		for _, j := range touched {
			sum += max(acc[j], 0)
		}
		if !(sum > 0) || math.IsInf(sum, 0) {
			return skel.Weights{}, &skel.VertexError{Vertex: i, Err: skel.ErrZeroWeight}
		}
		l := make([]skel.Influence, 0, len(touched))
		for _, j := range touched {
			if x := max(acc[j], 0); x > 0 {
				l = append(l, skel.Influence{Joint: j, W: float32(x / sum)})
			}
			acc[j] = 0
		}
		touched = touched[:0]
		lists[i] = l
	}
	return skel.NewWeights(lists), nil
}

// BindMesh fits a garment mesh m, given in c's rest pose in metres, to c's
// body: each vertex is bound to its closest point on the body surface
// (BindSurface) and takes the body's skin weights there. The garment keeps
// m's topology, UVs and groups (its normals are dropped: they belong to
// the source pose); its positions are m's.
func (c *Character) BindMesh(name string, m *mesh.Mesh) (*Garment, error) {
	if len(c.Body.Tris) == 0 {
		return nil, fmt.Errorf("character %q: the body has no triangles to bind a garment to", c.Name)
	}
	if c.Weights.NumVerts() != len(c.Body.Verts) {
		return nil, fmt.Errorf("character %q: %d weight lists for %d body vertices", c.Name, c.Weights.NumVerts(), len(c.Body.Verts))
	}
	sb := BindSurface(c.Body, m.Verts)
	w, err := sb.Weights(c.Body.Tris, c.Weights)
	if err != nil {
		return nil, fmt.Errorf("garment %s: %w", name, err)
	}
	g := m.Clone()
	g.Normals, g.NormalTris = nil, nil
	return &Garment{Name: name, Mesh: g, Weights: w, Surface: &sb}, nil
}
