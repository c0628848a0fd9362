package sim

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// bodies holds the character's body as the simulation meets it: the
// collision proxy the cloth collides with (one copy per piece, so that the
// pieces can be stepped concurrently: Update refits a body's BVH), and the
// full body that penetration is measured on.
type bodies struct {
	full  *mesh.Mesh // the character's body in its rest pose
	fullW skel.Weights
	col   *mesh.Mesh // the collision proxy in the rest pose (collisionProxy)
	colW  skel.Weights
	// colCrease and fullCrease flatten the skinned bodies' creases
	// (Options.Creases; nil without).
	colCrease, fullCrease *skel.Creaser

	skinner skel.Skinner
	// setup is the collision body for the setup's push-outs and the
	// attachments' binding.
	setup *collide.Body
	// copies are the pieces' collision bodies (nil with Options.NoBody);
	// they form a group that refits once per time for all of them (the
	// first piece to get there does it).
	copies []*collide.Body
	group  *collide.BodyGroup
	pen    *collide.Body // the full body, for penetration statistics (built when first needed)
	penX   []geom.Vec3
	// workers is the number of goroutines pen is queried on.
	workers int

	// cur and next are the collision body's vertices at the start and end
	// of the coming frame; pre the ones prepared for the frame after.
	cur, next, pre []geom.Vec3
}

// newBodies builds the collision bodies of a simulator in p's start pose.
func newBodies(p *Prepared, workers int) (*bodies, error) {
	b := &bodies{full: p.ch.Body, fullW: p.ch.Weights, col: p.col, colW: p.colW, colCrease: p.colCrease, fullCrease: p.fullCrease}
	// The collision body is skinned on all workers (bit-identical to the
	// serial skinning for any count): it is the largest serial part of a
	// coarse frame.
	b.skinner = skel.Skinner{Workers: workers, Chunk: max(1024, (len(b.col.Verts)+workers-1)/workers)}
	b.cur = b.skin(skel.SkinMatrices(p.ch.Skeleton, p.pose, nil), nil)
	b.next = make([]geom.Vec3, len(b.cur))
	b.pre = make([]geom.Vec3, len(b.cur))
	rest := slices.Clone(b.cur) // the bodies' own: cur changes
	// The setup body and the pieces' copies are one mesh: its topology
	// and tree are built once (collide.NewBodies).
	nb := 1
	if !p.opt.NoBody {
		nb += len(p.pieces)
	}
	bs, err := collide.NewBodies(&mesh.Mesh{Verts: rest, Tris: b.col.Tris}, nb)
	if err != nil {
		return nil, fmt.Errorf("sim: body: %w", err)
	}
	b.setup = bs[0]
	if !p.opt.NoBody {
		b.copies = bs[1:]
		if b.group, err = collide.NewBodyGroup(b.copies...); err != nil {
			return nil, fmt.Errorf("sim: body: %w", err)
		}
	}
	b.workers = workers
	return b, nil
}

// skin returns the collision body's vertices for skinning transforms skin.
func (b *bodies) skin(skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	dst = b.skinner.LBS(b.col.Verts, b.colW, skin, dst)
	if b.colCrease != nil {
		b.colCrease.Apply(skin, dst)
	}
	return dst
}

// penetration returns the full body skinned by skin. The full body's
// collision structure is built on the first call: a simulator that does
// not measure penetration (Options.NoPenetration) never builds it.
func (b *bodies) penetration(skin []geom.Rigid) (*collide.Body, error) {
	if b.pen == nil {
		pen, err := collide.NewBody(b.full)
		if err != nil {
			return nil, fmt.Errorf("sim: body: %w", err)
		}
		pen.Workers = b.workers
		b.pen = pen
	}
	b.penX = b.skinner.LBS(b.full.Verts, b.fullW, skin, b.penX)
	if b.fullCrease != nil {
		b.fullCrease.Apply(skin, b.penX)
	}
	b.pen.SetFrame(b.penX)
	return b.pen, nil
}

// move moves the pieces' body copies from cur at t0 to next at t1 while
// also (may be nil) runs, on a second goroutine when workers allow.
func (b *bodies) move(t0, t1 float64, workers int, also func()) {
	if b.group == nil || workers <= 1 || also == nil {
		if b.group != nil {
			b.group.SetFrames(b.cur, b.next, t0, t1)
		}
		if also != nil {
			also()
		}
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { b.group.SetFrames(b.cur, b.next, t0, t1) })
	also()
	wg.Wait()
}

// proxySlack is how far (m) a body vertex may stay outside the collision
// proxy.
const proxySlack = 1e-4

// collisionProxy returns the mesh and weights the cloth collides with: the
// body simplified to tolerance tol (see Options.BodyProxy), or the body
// itself, and a note for the report.
func collisionProxy(body *mesh.Mesh, w skel.Weights, pieces []*Piece, tol float64) (*mesh.Mesh, skel.Weights, string, error) {
	if tol < 0 {
		return body, w, "", nil
	}
	if tol == 0 || math.IsNaN(tol) {
		sum, n := 0.0, 0
		for _, p := range pieces {
			for _, t := range p.Mesh.Tris {
				for k := range 3 {
					sum += p.Mesh.Verts[t[k]].Dist(p.Mesh.Verts[t[(k+1)%3]])
					n++
				}
			}
		}
		tol = 0.001
		if n > 0 {
			tol = min(max(0.05*sum/float64(n), 0.001), 0.005)
		}
	}
	pm, kept, err := mesh.Simplify(body, mesh.SimplifyOptions{MaxError: tol})
	if err != nil {
		// A body Simplify cannot take (e.g. non-manifold) is collided
		// with as it is.
		return body, w, fmt.Sprintf("collision proxy: none (%v); the full body is used", err), nil
	}
	// The proxy's triangles cut inside the body where it is convex (its
	// vertices are body vertices): move each proxy vertex out along its
	// normal by the largest distance a body vertex whose closest proxy
	// triangle it corners lies outside the proxy, so that the safety
	// distance is kept from the body itself; a pass or two more mop up
	// what the first one's changed normals left out.
	moved := make([]float64, len(pm.Verts))
	for pass := 0; pass < 4; pass++ {
		pb, err := collide.NewBody(pm)
		if err != nil {
			return body, w, fmt.Sprintf("collision proxy: none (%v); the full body is used", err), nil
		}
		off := make([]float64, len(pm.Verts))
		out := 0.0
		for _, p := range body.Verts {
			c := pb.SignedDistance(p)
			if c.Tri < 0 || !(c.Dist > 0) {
				continue
			}
			out = max(out, c.Dist)
			for _, v := range pm.Tris[c.Tri] {
				off[v] = max(off[v], c.Dist)
			}
		}
		if out <= proxySlack {
			break
		}
		nrm := mesh.VertexNormals(pm, nil)
		for v := range pm.Verts {
			pm.Verts[v] = pm.Verts[v].AddScaled(off[v], nrm[v])
			moved[v] += off[v]
		}
	}
	out := 0.0
	for _, d := range moved {
		out = max(out, d)
	}
	note := fmt.Sprintf("collision proxy: body simplified from %d to %d triangles (tolerance %.1f mm; vertices moved out by up to %.1f mm to enclose the body)", len(body.Tris), len(pm.Tris), tol*1000, out*1000)
	return pm, w.Subset(kept), note, nil
}
