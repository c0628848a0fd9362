package obj

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// maxEarClip is the largest polygon that is ear-clipped; larger ones are
// fanned. Naive ear clipping costs O(n³) in the worst case.
const maxEarClip = 128

// triangulator splits polygons into triangles, reusing its buffers.
type triangulator struct {
	out  [][3]int
	p2   []geom.Vec2
	live []int
}

// newell returns the Newell normal of the polygon pts: a vector along the
// normal of its best-fit plane whose length is twice the polygon's area, and
// which points the way a counter-clockwise outline faces.
func newell(pts []geom.Vec3) geom.Vec3 {
	var n geom.Vec3
	for i, a := range pts {
		b := pts[(i+1)%len(pts)]
		n.X += (a.Y - b.Y) * (a.Z + b.Z)
		n.Y += (a.Z - b.Z) * (a.X + b.X)
		n.Z += (a.X - b.X) * (a.Y + b.Y)
	}
	return n
}

// triangulate returns corner-index triples covering the polygon pts (n >= 3)
// with the polygon's winding. The result is valid until the next call.
func (t *triangulator) triangulate(pts []geom.Vec3) [][3]int {
	t.out = t.out[:0]
	n := len(pts)
	switch {
	case n == 3:
		t.out = append(t.out, [3]int{0, 1, 2})
		return t.out
	case n == 4:
		nrm := newell(pts)
		a := geom.TriangleNormal(pts[0], pts[1], pts[2]).Dot(nrm)
		b := geom.TriangleNormal(pts[0], pts[2], pts[3]).Dot(nrm)
		if a > 0 && b > 0 || !(geom.TriangleNormal(pts[1], pts[2], pts[3]).Dot(nrm) > 0 &&
			geom.TriangleNormal(pts[1], pts[3], pts[0]).Dot(nrm) > 0) {
			t.out = append(t.out, [3]int{0, 1, 2}, [3]int{0, 2, 3})
		} else {
			t.out = append(t.out, [3]int{1, 2, 3}, [3]int{1, 3, 0})
		}
		return t.out
	case n <= maxEarClip:
		if t.earClip(pts) {
			return t.out
		}
	}
	t.out = t.out[:0]
	for i := 1; i+1 < n; i++ {
		t.out = append(t.out, [3]int{0, i, i + 1})
	}
	return t.out
}

// earClip ear-clips pts projected onto the plane of their Newell normal. When
// it finds no ear (degenerate or self-intersecting outline) it fans the
// remaining corners from the first remaining one. It returns false only if
// the polygon has no usable normal.
func (t *triangulator) earClip(pts []geom.Vec3) bool {
	nrm := newell(pts)
	if !(nrm.Len2() > 0) || !nrm.IsFinite() {
		return false
	}
	nrm = nrm.Unit()
	u := nrm.AnyPerp()
	v := nrm.Cross(u) // (u, v, nrm) is right-handed: CCW outlines have positive area
	t.p2 = t.p2[:0]
	t.live = t.live[:0]
	lo, hi := geom.Vec2{X: math.Inf(1), Y: math.Inf(1)}, geom.Vec2{X: math.Inf(-1), Y: math.Inf(-1)}
	for i, p := range pts {
		q := geom.Vec2{X: p.Dot(u), Y: p.Dot(v)}
		lo.X, lo.Y = math.Min(lo.X, q.X), math.Min(lo.Y, q.Y)
		hi.X, hi.Y = math.Max(hi.X, q.X), math.Max(hi.Y, q.Y)
		t.p2 = append(t.p2, q)
		t.live = append(t.live, i)
	}
	// eps is an area tolerance: projection rounding makes points that lie
	// on an edge land a hair to either side, and an ear whose edge passes
	// through another corner would leave a zero-area triangle behind.
	d := hi.Sub(lo)
	eps := 1e-10 * (d.X*d.X + d.Y*d.Y)
	for len(t.live) > 3 {
		m := len(t.live)
		found := false
		for k := 0; k < m; k++ {
			ia, ib, ic := t.live[(k+m-1)%m], t.live[k], t.live[(k+1)%m]
			a, b, c := t.p2[ia], t.p2[ib], t.p2[ic]
			if !(cross2(a, b, c) > eps) {
				continue // reflex or flat corner
			}
			ear := true
			for _, j := range t.live {
				if j == ia || j == ib || j == ic {
					continue
				}
				q := t.p2[j]
				if q == a || q == b || q == c {
					continue
				}
				if cross2(a, b, q) >= -eps && cross2(b, c, q) >= -eps && cross2(c, a, q) >= -eps {
					ear = false
					break
				}
			}
			if !ear {
				continue
			}
			t.out = append(t.out, [3]int{ia, ib, ic})
			t.live = append(t.live[:k], t.live[k+1:]...)
			found = true
			break
		}
		if !found {
			for i := 1; i+1 < len(t.live); i++ {
				t.out = append(t.out, [3]int{t.live[0], t.live[i], t.live[i+1]})
			}
			return true
		}
	}
	t.out = append(t.out, [3]int{t.live[0], t.live[1], t.live[2]})
	return true
}

// cross2 returns (b-a)×(c-a), positive when a, b, c turn counter-clockwise.
func cross2(a, b, c geom.Vec2) float64 {
	return (b.X-a.X)*(c.Y-a.Y) - (b.Y-a.Y)*(c.X-a.X)
}
