package wrinkle

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// DeepPenetration is the depth (m) beyond which a garment vertex counts as
// deep inside the body, as in collide and the quality line.
const DeepPenetration = 0.002

// PushStats reports a PushOut pass: what the points were before it.
type PushStats struct {
	// Inside counts points inside the body, Deep those more than
	// DeepPenetration inside; MaxDepth is the deepest, m.
	Inside, Deep int
	MaxDepth     float64
	// Pushed counts the points moved (inside, or closer than the safety
	// distance).
	Pushed int
}

// Add accumulates o into s (counts summed, depth maximised).
func (s *PushStats) Add(o PushStats) {
	s.Inside += o.Inside
	s.Deep += o.Deep
	s.Pushed += o.Pushed
	s.MaxDepth = math.Max(s.MaxDepth, o.MaxDepth)
}

// BodyPush keeps garment points a safety distance outside a moving body
// (wang2010 §3.4: "a safety buffering distance"). As in the coarse
// simulation of §3.2, inside and outside come from the closest body
// triangle: a point p whose closest point c lies on triangle t (unit
// normal n, pointing out of a counter-clockwise body) is at height
// h = (p − c)·n, inside when h < 0, and is moved to h = Thickness along n.
// Points farther than Reach from the body are not looked at (a point more
// than Reach inside is missed).
//
// Set the body's positions each frame with SetBody; a BodyPush keeps a
// closest-triangle hint per garment point, allocates nothing per frame and
// is not safe for concurrent use.
type BodyPush struct {
	// Thickness is the safety distance, m (NewBodyPush: 0 means 3 mm, the
	// simulator's default); Reach the search distance, m (0 means 5 cm).
	Thickness, Reach float64
	bvh              *mesh.BVH
	tris             [][3]int32
	x                []geom.Vec3
	hint             []int32
}

// NewBodyPush prepares push-out against a body of the given triangles
// with rest positions rest, for n garment points.
func NewBodyPush(rest []geom.Vec3, tris [][3]int32, n int, thickness, reach float64) (*BodyPush, error) {
	for i, t := range tris {
		for _, v := range t {
			if v < 0 || int(v) >= len(rest) {
				return nil, fmt.Errorf("wrinkle: body triangle %d: vertex %d out of range [0, %d)", i, v, len(rest))
			}
		}
	}
	if len(tris) == 0 {
		return nil, fmt.Errorf("wrinkle: body has no triangles")
	}
	if thickness == 0 {
		thickness = 0.003
	}
	if reach == 0 {
		reach = 0.05
	}
	if !(thickness > 0 && thickness < 0.1 && reach >= thickness && reach < 1) {
		return nil, fmt.Errorf("wrinkle: push-out thickness %g m and reach %g m: want 0 < thickness ≤ reach < 1 m", thickness, reach)
	}
	b := &BodyPush{Thickness: thickness, Reach: reach, bvh: mesh.NewBVH(rest, tris), tris: tris,
		x: append([]geom.Vec3(nil), rest...), hint: make([]int32, n)}
	for i := range b.hint {
		b.hint[i] = -1
	}
	return b, nil
}

// SetBody moves the body to positions x (same count as its rest shape).
func (b *BodyPush) SetBody(x []geom.Vec3) error {
	if len(x) != len(b.x) {
		return fmt.Errorf("wrinkle: body has %d vertices, got %d positions", len(b.x), len(x))
	}
	copy(b.x, x)
	b.bvh.Refit(b.x)
	return nil
}

// Push moves the points p (the garment's, in its vertex order: the hints
// follow the index) out of the body and reports what they were before.
func (b *BodyPush) Push(p []geom.Vec3) (PushStats, error) {
	var st PushStats
	if len(p) != len(b.hint) {
		return st, fmt.Errorf("wrinkle: push-out of %d points, prepared for %d", len(p), len(b.hint))
	}
	for i, x := range p {
		h, ok := b.bvh.ClosestPointFrom(x, b.Reach, b.hint[i])
		if !ok {
			continue
		}
		b.hint[i] = h.Tri
		t := b.tris[h.Tri]
		n := b.x[t[1]].Sub(b.x[t[0]]).Cross(b.x[t[2]].Sub(b.x[t[0]]))
		l := n.Len()
		if !(l > 0) {
			continue
		}
		n = n.Scale(1 / l)
		ht := x.Sub(h.Point).Dot(n)
		if ht < 0 {
			st.Inside++
			if -ht > DeepPenetration {
				st.Deep++
			}
			st.MaxDepth = math.Max(st.MaxDepth, -ht)
		}
		if ht < b.Thickness {
			p[i] = x.Add(n.Scale(b.Thickness - ht))
			st.Pushed++
		}
	}
	return st, nil
}
