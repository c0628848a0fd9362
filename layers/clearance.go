package layers

import (
	"github.com/pleat-dev/pleat/geom"
)

// Cloth is kept outside the body at its vertices, but it is flat between
// them: an edge of length L whose ends lie h outside skin that curves
// with normal curvature κ along it dips by about L²κ/8 towards the skin
// (the sagitta of the chord), so the skin shows through the faces unless
// h ≥ thickness + L²κ/8. Each outfit vertex gets that clearance from the
// largest sag of its incident rest edges, κ estimated along each edge
// from the body's smooth normals at its two ends' bound points:
// κ ≈ Δn·Δp/|Δp|² (positive where the skin is convex between them;
// concave skin, as between the legs under a skirt, leaves the chord
// outside it).
const (
	// sagMax (m) caps the sag term (a coarse edge over a sharp fold of
	// the body, where the estimate is far too conservative)
	sagMax = 0.012
	// curvMax (1/m) caps the estimated curvature (radius 2 cm)
	curvMax = 50
)

// sagClearances returns, for each outfit vertex, the largest sag of its
// incident edges (tris, rest positions verts) over the skin: p and n are
// each vertex's bound skin point and the body's smooth normal there
// (valid false for unbound vertices, which get none).
func sagClearances(verts []geom.Vec3, tris [][3]int32, p, n []geom.Vec3, valid []bool) []float64 {
	out := make([]float64, len(verts))
	for _, t := range tris {
		for e := range 3 {
			a, b := t[e], t[(e+1)%3]
			if !valid[a] || !valid[b] {
				continue
			}
			dp := p[b].Sub(p[a])
			d2 := dp.Dot(dp)
			if d2 < 1e-12 {
				continue
			}
			k := min(curvMax, n[b].Sub(n[a]).Dot(dp)/d2)
			if k <= 0 {
				continue
			}
			s := min(sagMax, verts[a].Dist2(verts[b])*k/8)
			out[a], out[b] = max(out[a], s), max(out[b], s)
		}
	}
	return out
}
