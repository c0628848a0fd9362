package procedural

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// MannequinOptions configures Mannequin. The zero value gives the defaults.
type MannequinOptions struct {
	// Height is the standing height in metres; 0 means 1.75. All
	// measurements scale with it.
	Height float64
	// Cell is the polygonisation grid spacing in metres at the reference
	// height (it scales with Height); 0 means 0.0125, about 14.7k vertices.
	// Vertex count grows as 1/Cell²; 0.006 gives about 64k.
	Cell float64
	// Workers bounds the goroutines used to sample the implicit surface;
	// 0 means 8. The result does not depend on it.
	Workers int
}

// Body is the procedural mannequin: a closed, manifold, outward-oriented
// triangle mesh in the T-pose, its skeleton and its skin weights.
type Body struct {
	// Mesh is the body surface (no UVs), metres, +Y up, facing +Z.
	Mesh *mesh.Mesh
	// Skeleton has CMU/MotionBuilder joint names; its rest pose is the
	// T-pose of Mesh.
	Skeleton *skel.Skeleton
	// Weights are the skin weights of Mesh: normalised, at most 4 per vertex.
	Weights skel.Weights
	// Height is the standing height in metres.
	Height float64

	sh  *shape
	bvh *mesh.BVH
}

// ErrPolygonise is returned when no lattice offset gives a manifold body
// surface (only possible for extreme Cell values).
var ErrPolygonise = errors.New("procedural: could not polygonise the body into a manifold mesh")

// Mannequin builds the default body. The rest pose is a T-pose: arms
// horizontal along ±X with palms down, legs slightly apart, feet flat on
// y = 0, facing +Z, the character's left on +X.
//
// The surface is the zero set of a smooth union of tapered capsules and
// ellipsoids placed along the bones (and an elliptic sweep for the torso),
// polygonised by surface nets; the mesh is watertight and two-manifold.
// Skin weights come from the same primitives: each primitive's weight is
// exp(−d/τ) of its distance (τ = 12 mm) and goes to its bone, spine and
// foot primitives being shared among their joints along the bone; the
// four largest joint weights are kept and normalised. Mannequin is
// deterministic.
func Mannequin(opts MannequinOptions) (*Body, error) {
	height := opts.Height
	if height == 0 {
		height = refHeight
	}
	if !(height > 0.3 && height < 3) {
		return nil, fmt.Errorf("procedural: height %g m out of range (0.3, 3)", height)
	}
	cell := opts.Cell
	if cell == 0 {
		cell = 0.0125
	}
	if !(cell >= 0.003 && cell <= 0.05) {
		return nil, fmt.Errorf("procedural: cell %g m out of range [0.003, 0.05]", cell)
	}
	sh, err := newShape(height)
	if err != nil {
		return nil, err
	}
	s := sh.s
	box := geom.Box{Min: geom.V(-0.95, -0.02, -0.2).Scale(s), Max: geom.V(0.95, 1.78, 0.26).Scale(s)}
	shifts := []geom.Vec3{{X: 0.5, Y: 0.5, Z: 0.5}, {X: 0.31, Y: 0.73, Z: 0.17}, {X: 0.83, Y: 0.29, Z: 0.61}, {X: 0.13, Y: 0.41, Z: 0.89}, {X: 0.67, Y: 0.91, Z: 0.37}}
	var m *mesh.Mesh
	for _, sft := range shifts {
		h := cell * s
		far := func(p geom.Vec3) float64 { return sh.evalCap(p, 4*h+2*sh.k) }
		cand, ok := surfaceNets(far, sh.grad, box, h, sft, opts.Workers)
		if !ok {
			continue
		}
		if tp, err := mesh.NewTopology(cand); err == nil && tp.IsManifold() && tp.IsClosed() && tp.NumComps == 1 {
			m = cand
			break
		}
	}
	if m == nil {
		return nil, ErrPolygonise
	}
	m.Groups = []mesh.Group{{Name: "body", Tris: seq(len(m.Tris))}}
	b := &Body{Mesh: m, Skeleton: sh.sk, Weights: sh.weights(m.Verts), Height: height, sh: sh}
	b.bvh = mesh.NewBVH(m.Verts, m.Tris)
	return b, nil
}

func seq(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// Implicit returns the body's implicit function at p (rest pose): an
// approximate signed distance in metres, negative inside. Its zero set is
// the surface Mesh was polygonised from (Mesh lies within a fraction of a
// cell of it).
func (b *Body) Implicit(p geom.Vec3) float64 { return b.sh.eval(p) }

// SignedDistance returns the signed distance in metres from p to the body
// mesh (rest pose), negative inside, and the closest point on the mesh.
// The sign comes from the closest triangle's outward normal.
func (b *Body) SignedDistance(p geom.Vec3) (d float64, closest geom.Vec3) {
	h := b.bvh.ClosestPoint(p)
	t := b.Mesh.Tris[h.Tri]
	n := geom.TriangleNormal(b.Mesh.Verts[t[0]], b.Mesh.Verts[t[1]], b.Mesh.Verts[t[2]])
	d = math.Sqrt(h.Dist2)
	// On an edge or vertex the face normal alone can give the wrong sign;
	// there the implicit function decides.
	const eps = 1e-6
	if h.Bary[0] > eps && h.Bary[1] > eps && h.Bary[2] > eps {
		if p.Sub(h.Point).Dot(n) < 0 {
			d = -d
		}
	} else if b.sh.eval(p) < 0 {
		d = -d
	}
	return d, h.Point
}

// Joint returns the rest (world) position of the named joint and whether it
// exists.
func (b *Body) Joint(name string) (geom.Vec3, bool) {
	p, ok := b.sh.joint[name]
	return p, ok
}

// SkinWeightsAt returns normalised skin weights (at most 4 influences) for
// arbitrary rest-pose points near the body, such as garment vertices,
// computed from the same primitives as the body's own weights.
func (b *Body) SkinWeightsAt(pts []geom.Vec3) skel.Weights { return b.sh.weights(pts) }
