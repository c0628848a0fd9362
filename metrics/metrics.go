package metrics

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Curvature measures the mean curvature of one mesh's frames. It keeps the
// topology and buffers, so measuring many frames allocates little. Not safe
// for concurrent use.
type Curvature struct {
	m    mesh.Mesh
	top  *mesh.Topology
	c    *mesh.Curvature
	h, a []float64
}

// NewCurvature prepares curvature measurement on m's triangles.
func NewCurvature(m *mesh.Mesh) (*Curvature, error) {
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, err
	}
	return &Curvature{m: mesh.Mesh{Verts: m.Verts, Tris: m.Tris}, top: top, c: mesh.NewCurvature(top)}, nil
}

// Sum returns Σ|H_i|A_i over the interior manifold vertices of the mesh at
// positions verts (cotangent mean curvature, mixed areas).
func (c *Curvature) Sum(verts []geom.Vec3) (float64, error) {
	if len(verts) != len(c.m.Verts) {
		return 0, fmt.Errorf("metrics: %d positions for %d vertices", len(verts), len(c.m.Verts))
	}
	c.m.Verts = verts
	c.h = c.c.Mean(&c.m, mesh.CurvatureCotan, c.h)
	c.a = mesh.MixedAreas(&c.m, c.a)
	return mesh.SummarizeCurvature(c.h, c.a, c.top).AbsSum, nil
}

// SumBy returns Σ|H_i|A_i as Sum does and splits it by vertex group:
// sums[g] becomes the part of the sum over the vertices i with
// group[i] == g (a garment's regions, for the curvature of each). group
// has an entry per vertex, each less than len(sums).
func (c *Curvature) SumBy(verts []geom.Vec3, group []uint8, sums []float64) (float64, error) {
	if len(verts) != len(c.m.Verts) || len(group) != len(verts) {
		return 0, fmt.Errorf("metrics: %d positions and %d groups for %d vertices", len(verts), len(group), len(c.m.Verts))
	}
	for i, g := range group {
		if int(g) >= len(sums) {
			return 0, fmt.Errorf("metrics: vertex %d is in group %d of %d", i, g, len(sums))
		}
	}
	clear(sums)
	total, err := c.Sum(verts)
	if err != nil {
		return 0, err
	}
	for i, h := range c.h {
		if c.top.Flags[i] != 0 || math.IsNaN(h) || math.IsInf(h, 0) {
			continue
		}
		sums[group[i]] += math.Abs(h) * c.a[i]
	}
	return total, nil
}

// Error is a position error between two frames: mean, RMS and maximum
// vertex distance, metres.
type Error struct{ Mean, RMS, Max float64 }

// FrameError compares positions got with want vertex by vertex.
func FrameError(got, want []geom.Vec3) (Error, error) {
	if len(got) != len(want) {
		return Error{}, fmt.Errorf("metrics: %d positions against %d", len(got), len(want))
	}
	var e Error
	if len(got) == 0 {
		return e, nil
	}
	for i := range got {
		d := got[i].Dist(want[i])
		e.Mean += d
		e.RMS += d * d
		e.Max = math.Max(e.Max, d)
	}
	n := float64(len(got))
	e.Mean /= n
	e.RMS = math.Sqrt(e.RMS / n)
	return e, nil
}

// MaxStretch returns the largest edge elongation (l/L − 1) of positions x
// against rest positions on m's edges (0 if no edge is longer).
func MaxStretch(m *mesh.Mesh, x []geom.Vec3) float64 {
	s := 0.0
	for _, t := range m.Tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			L := m.Verts[a].Dist(m.Verts[b])
			if L > 0 {
				s = math.Max(s, x[a].Dist(x[b])/L-1)
			}
		}
	}
	return s
}
