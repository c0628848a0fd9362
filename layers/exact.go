package layers

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// closestOnTri returns the point of triangle abc closest to p (Ericson,
// Real-Time Collision Detection §5.1.5).
func closestOnTri(p, a, b, c geom.Vec3) geom.Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.AddScaled(d1/(d1-d3), ab)
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.AddScaled(d2/(d2-d6), ac)
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.AddScaled((d4-d3)/((d4-d3)+(d5-d6)), c.Sub(b))
	}
	den := va + vb + vc
	if den <= 0 {
		return a
	}
	return a.AddScaled(vb/den, ab).AddScaled(vc/den, ac)
}

// crossTriR (m) bounds the body triangles' centroid-to-corner distance.
const crossTriR = 0.02

// exactPlane returns the closest point to q on cb's candidate triangles
// (as posed by the last place) and the mean normal of the candidates that
// share it (a corner's or an edge's triangles: the pseudo-normal's
// direction), ok false when there are none.
func (sb *surfaceBinding) exactPlane(cb *crossBind, q geom.Vec3) (p, n geom.Vec3, ok bool) {
	x := sb.posed
	cands := sb.cand[cb.c0:cb.c1]
	// the closest triangle's centroid lies within its circumradius
	// (< crossTriR) of the closest point
	r := math.Sqrt(sb.cent[cb.best].Dist2(q)) + crossTriR
	r *= r
	best := math.Inf(1)
	var ties [4]int32
	nt := 0
	for _, t := range cands {
		if sb.cent[t].Dist2(q) > r {
			continue
		}
		tc := sb.ctris[t]
		c := closestOnTri(q, x[tc[0]], x[tc[1]], x[tc[2]])
		d := c.Dist2(q)
		switch {
		case d < best-1e-12:
			best, p, nt = d, c, 1
			ties[0] = t
		case d <= best+1e-12 && nt < len(ties):
			ties[nt] = t
			nt++
		}
	}
	if nt == 0 {
		return p, n, false
	}
	for _, t := range ties[:nt] {
		tc := sb.ctris[t]
		n = n.Add(geom.TriangleNormal(x[tc[0]], x[tc[1]], x[tc[2]]).Unit())
	}
	return p, n.Unit(), true
}
