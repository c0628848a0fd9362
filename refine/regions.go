package refine

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Detector finds wrinkle regions on frames of one coarse piece (chen2015
// §III.A steps 2–3). It keeps its buffers between calls and is not safe for
// concurrent use.
type Detector struct {
	p     Params
	top   *mesh.Topology
	curv  *mesh.Curvature
	m     mesh.Mesh
	h     []float64
	stamp []int32 // per vertex: the peak that last reached it (+1)
	front []int32
	next  []int32
}

// NewDetector prepares region finding on the triangles of m (a piece's
// coarse mesh; its positions are not used).
func NewDetector(m *mesh.Mesh, p Params) (*Detector, error) {
	if err := p.defaults(); err != nil {
		return nil, err
	}
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("refine: %w", err)
	}
	return &Detector{p: p, top: top, curv: mesh.NewCurvature(top), m: mesh.Mesh{Tris: m.Tris},
		stamp: make([]int32, len(m.Verts))}, nil
}

// Topology returns the coarse mesh's topology (shared; read only).
func (d *Detector) Topology() *mesh.Topology { return d.top }

// Curvature returns |H| (m⁻¹) per vertex from the last Mark (shared).
func (d *Detector) Curvature() []float64 { return d.h }

// Mark sets mark[t] for every triangle of a wrinkle region of the frame
// with vertex positions x and returns the number of peaks found. Peaks are
// interior vertices whose |H| is at least Params.Peak and not below any
// 1-ring neighbour's (ties go to the lower id); each region grows from its
// peak ring by ring while |H| ≥ Params.Fraction·|H_peak|, for at most
// Params.Rings rings, and marks every triangle touching a grown vertex.
func (d *Detector) Mark(x []geom.Vec3, mark []bool) (int, error) {
	if len(x) != d.top.NumVerts || len(mark) != d.top.NumTris {
		return 0, fmt.Errorf("refine: Mark: %d positions, %d marks for %d vertices, %d triangles", len(x), len(mark), d.top.NumVerts, d.top.NumTris)
	}
	for i, q := range x {
		if !finite(q) {
			return 0, fmt.Errorf("refine: Mark: vertex %d at %v is not finite", i, q)
		}
	}
	d.m.Verts = x
	d.h = d.curv.Mean(&d.m, d.p.Method, d.h)
	for i, v := range d.h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		d.h[i] = math.Abs(v)
	}
	clear(d.stamp)
	peaks := 0
	for v := int32(0); v < int32(len(x)); v++ {
		hv := d.h[v]
		if hv < d.p.Peak || !d.top.IsInterior(v) || !d.isMax(v) {
			continue
		}
		peaks++
		d.grow(v, int32(peaks), mark)
	}
	return peaks, nil
}

// isMax reports whether v's |H| is not below any neighbour's (ties to the
// lower id).
func (d *Detector) isMax(v int32) bool {
	hv := d.h[v]
	for _, u := range d.top.Neighbors(v) {
		if d.h[u] > hv || d.h[u] == hv && u < v {
			return false
		}
	}
	return true
}

// grow marks the region of peak v (stamp id).
func (d *Detector) grow(v, id int32, mark []bool) {
	lim := d.p.Fraction * d.h[v]
	d.stamp[v] = id
	d.front = append(d.front[:0], v)
	d.markAround(v, mark)
	for r := 0; r < d.p.Rings && len(d.front) > 0; r++ {
		d.next = d.next[:0]
		for _, a := range d.front {
			for _, u := range d.top.Neighbors(a) {
				if d.stamp[u] == id || d.h[u] < lim {
					continue
				}
				d.stamp[u] = id
				d.next = append(d.next, u)
				d.markAround(u, mark)
			}
		}
		d.front, d.next = d.next, d.front
	}
}

func (d *Detector) markAround(v int32, mark []bool) {
	for _, t := range d.top.VertTriangles(v) {
		mark[t] = true
	}
}

func finite(q geom.Vec3) bool {
	return !math.IsNaN(q.X+q.Y+q.Z) && !math.IsInf(q.X+q.Y+q.Z, 0)
}

// Schedule turns per-frame marks into the refined set of each block of
// Params.Every frames, with hysteresis: a triangle marked at frame g is
// active over frames [g − Lead, g + Hold], and a block's set is every
// triangle active in one of its frames. marks[f][t] is frame f's mark of
// triangle t. It returns, per block, the active triangles (ascending).
func Schedule(marks [][]bool, p Params) ([][]int32, error) {
	if err := p.defaults(); err != nil {
		return nil, err
	}
	n := len(marks)
	if n == 0 {
		return nil, nil
	}
	nt := len(marks[0])
	for f, m := range marks {
		if len(m) != nt {
			return nil, fmt.Errorf("refine: Schedule: frame %d has %d marks, frame 0 %d", f, len(m), nt)
		}
	}
	blocks := make([][]int32, (n+p.Every-1)/p.Every)
	seen := make([]bool, nt)
	for b := range blocks {
		blocks[b] = blockSet(marks, b, n, &p, seen)
	}
	return blocks, nil
}

// blockSet returns block b's set (Schedule) of a clip of n frames. A
// triangle marked at frame g is active in one of the block's frames
// [b·Every, (b+1)·Every − 1] when g − Lead is at most the last and
// g + Hold at least the first, so the set is the union of the marks of
// frames [b·Every − Hold, (b+1)·Every − 1 + Lead] ∩ [0, n): marks needs
// only the frames up to there. seen is scratch of at least the triangle
// count, left all false.
func blockSet(marks [][]bool, b, n int, p *Params, seen []bool) []int32 {
	lo, hi := max(b*p.Every-p.Hold, 0), min((b+1)*p.Every-1+p.Lead, n-1)
	for g := lo; g <= hi; g++ {
		for t, m := range marks[g] {
			seen[t] = seen[t] || m
		}
	}
	var set []int32
	for t, s := range seen {
		if s {
			set = append(set, int32(t))
			seen[t] = false
		}
	}
	return set
}
