package layers

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// Features of a triangle abc on which a closest point lies (closestOnTri).
const (
	featFace = iota
	featA    // corners
	featB
	featC
	featAB // edges
	featAC
	featBC
)

// closestOnTri returns the point of triangle abc closest to p and the
// feature it lies on (Ericson, Real-Time Collision Detection §5.1.5).
// Corners are returned exactly, so that the triangles sharing a corner
// find the same point.
func closestOnTri(p, a, b, c geom.Vec3) (geom.Vec3, int) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, featA
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, featB
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.AddScaled(d1/(d1-d3), ab), featAB
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, featC
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.AddScaled(d2/(d2-d6), ac), featAC
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.AddScaled((d4-d3)/((d4-d3)+(d5-d6)), c.Sub(b)), featBC
	}
	den := va + vb + vc
	if den <= 0 {
		return a, featA
	}
	return a.AddScaled(vb/den, ab).AddScaled(vc/den, ac), featFace
}

// cornerAngle is the angle of triangle abc at a.
func cornerAngle(a, b, c geom.Vec3) float64 {
	u, w := b.Sub(a), c.Sub(a)
	return math.Atan2(u.Cross(w).Len(), u.Dot(w))
}

// exactPlane returns the closest point to q on the body triangles around
// cb's chosen candidate (as posed by the last place) and the angle-weighted pseudo-normal of the
// feature it lies on (Bærentzen and Aanæs, IEEE TVCG 11(3), 2005), from
// all the body's triangles there (a candidate patch is one part's, and
// its features on the seam with the next part belong to both): the face
// normal inside a face, the sum of the two faces' normals on an edge, the
// sum of the normals of the faces around a corner weighted by their angles
// there. With it the sign of (q − p)·n tells inside from outside exactly
// for the closed body surface. ok is false where there are no candidates.
func (sb *surfaceBinding) exactPlane(cb *crossBind, q geom.Vec3) (p, n geom.Vec3, ok bool) {
	x := sb.posed
	best := math.Inf(1)
	var tc [3]int32
	feat := -1
	// the triangles around the corners of the chosen candidate (nearest
	// centroid), each once: the closest point lies on one of them
	for _, tr := range sb.patchT[sb.patch[cb.best]:sb.patch[cb.best+1]] {
		c, f := closestOnTri(q, x[tr[0]], x[tr[1]], x[tr[2]])
		if d := c.Dist2(q); d < best {
			best, p, tc, feat = d, c, tr, f
		}
	}
	switch {
	case feat < 0:
		return p, n, false
	case feat == featFace:
		return p, geom.TriangleNormal(x[tc[0]], x[tc[1]], x[tc[2]]).Unit(), true
	case feat >= featAB:
		// the edge's two faces: this one and the one across the edge in
		// the ring of its first corner
		u, w := tc[0], tc[1]
		switch feat {
		case featAC:
			w = tc[2]
		case featBC:
			u, w = tc[1], tc[2]
		}
		n = geom.TriangleNormal(x[tc[0]], x[tc[1]], x[tc[2]]).Unit()
		for _, t := range sb.around(u) {
			if t != tc && slices.Contains(t[:], w) {
				n = n.Add(geom.TriangleNormal(x[t[0]], x[t[1]], x[t[2]]).Unit())
				break
			}
		}
	default:
		v := tc[feat-featA]
		if len(sb.around(v)) == 0 {
			// a corner beyond the rings: the face's normal
			return p, geom.TriangleNormal(x[tc[0]], x[tc[1]], x[tc[2]]).Unit(), true
		}
		// weighted by the rest pose's corner angles (no atan2 per
		// query): skinning blends rigid motions, which keep angles, so
		// they change only where the blend varies across the ring (a few
		// degrees at a bent joint). At a convex (concave) corner whose
		// faces' normals are pairwise less than 90° apart, q − p is a
		// non-negative (non-positive) combination of them, so any
		// positive weights give the sign the exact ones do; only at
		// sharper or saddle corners can the weights' error matter
		i0 := sb.ring[2*v]
		for i, t := range sb.around(v) {
			n = n.AddScaled(sb.ringA[int(i0)+i], geom.TriangleNormal(x[t[0]], x[t[1]], x[t[2]]).Unit())
		}
	}
	if n = n.Unit(); n == (geom.Vec3{}) {
		return p, n, false
	}
	return p, n, true
}

// around returns the body triangles around used vertex u (none where u is
// no candidate's corner).
func (sb *surfaceBinding) around(u int32) [][3]int32 {
	if int(2*u+1) >= len(sb.ring) {
		return nil
	}
	return sb.ringT[sb.ring[2*u]:sb.ring[2*u+1]]
}
