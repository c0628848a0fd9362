package layers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

func TestClosestOnTri(t *testing.T) {
	a, b, c := geom.Vec3{}, geom.Vec3{X: 1}, geom.Vec3{Y: 1}
	for _, tc := range []struct {
		name    string
		p, want geom.Vec3
		feat    int
	}{
		{"face", geom.Vec3{X: 0.25, Y: 0.25, Z: 1}, geom.Vec3{X: 0.25, Y: 0.25}, featFace},
		{"corner a", geom.Vec3{X: -1, Y: -1, Z: 0.5}, a, featA},
		{"corner b", geom.Vec3{X: 2, Y: -0.5}, b, featB},
		{"corner c", geom.Vec3{X: -0.5, Y: 2}, c, featC},
		{"edge ab", geom.Vec3{X: 0.5, Y: -1}, geom.Vec3{X: 0.5}, featAB},
		{"edge ac", geom.Vec3{X: -1, Y: 0.5}, geom.Vec3{Y: 0.5}, featAC},
		{"edge bc", geom.Vec3{X: 1, Y: 1, Z: -2}, geom.Vec3{X: 0.5, Y: 0.5}, featBC},
	} {
		if got, f := closestOnTri(tc.p, a, b, c); got.Dist(tc.want) > 1e-12 || f != tc.feat {
			t.Errorf("%s: closestOnTri(%v) = %v, feature %d, want %v, %d", tc.name, tc.p, got, f, tc.want, tc.feat)
		}
	}
}

// TestExactPlaneSign: on a closed octahedron with one corner pushed in (a
// dent: concave edges and a concave corner), the sign of (q − p)·n from
// exactPlane (closest point and angle-weighted pseudo-normal) tells inside
// from outside (the winding number) for points near faces, edges and
// corners, where one face's normal would not; also where the mesh is
// posed by an affine map that changes its corner angles (skinning changes
// them much less) while the weights are the rest pose's.
func TestExactPlaneSign(t *testing.T) {
	for _, tc := range []struct {
		name string
		pose func(geom.Vec3) geom.Vec3
	}{
		{"rest", func(p geom.Vec3) geom.Vec3 { return p }},
		{"sheared", func(p geom.Vec3) geom.Vec3 { return geom.V(1.3*p.X+0.4*p.Y, 0.8*p.Y, p.Z+0.3*p.X) }},
		{"squashed", func(p geom.Vec3) geom.Vec3 { return geom.V(0.5*p.X, p.Y, 1.5*p.Z) }},
	} {
		t.Run(tc.name, func(t *testing.T) { exactPlaneSign(t, tc.pose) })
	}
}

func exactPlaneSign(t *testing.T, pose func(geom.Vec3) geom.Vec3) {
	v := []geom.Vec3{geom.V(1, 0, 0), geom.V(-1, 0, 0), geom.V(0, 1, 0), geom.V(0, -1, 0), geom.V(0, 0, 1), geom.V(0, 0, -1)}
	var tris [][3]int32
	for _, sx := range []int32{0, 1} {
		for _, sy := range []int32{2, 3} {
			for _, sz := range []int32{4, 5} {
				t := [3]int32{sx, sy, sz}
				// counter-clockwise seen from outside
				if geom.TriangleNormal(v[t[0]], v[t[1]], v[t[2]]).Dot(v[sx].Add(v[sy]).Add(v[sz])) < 0 {
					t[1], t[2] = t[2], t[1]
				}
				tris = append(tris, t)
			}
		}
	}
	v[0] = geom.V(0.3, 0, 0) // the dent
	body := &mesh.Mesh{Verts: v, Tris: tris}
	sb := &surfaceBinding{posed: v, ctris: tris, cent: make([]geom.Vec3, len(tris))}
	ctBody := make([]int32, len(tris))
	ctID := map[int32]int32{}
	for k, tr := range tris {
		ctBody[k], ctID[int32(k)] = int32(k), int32(k)
		sb.cent[k] = v[tr[0]].Add(v[tr[1]]).Add(v[tr[2]]).Scale(1.0 / 3)
	}
	sb.rings(body, ctBody, make([]int, len(tris)), ctID, func(u int32) int32 { return u })
	// posed after the rings took the rest pose's corner angles
	rest := v
	v = make([]geom.Vec3, len(rest))
	for i, p := range rest {
		v[i] = pose(p)
	}
	sb.posed = v
	for k, tr := range tris {
		sb.cent[k] = v[tr[0]].Add(v[tr[1]]).Add(v[tr[2]]).Scale(1.0 / 3)
	}
	// winding number: the solid angles of the triangles seen from q
	// (Van Oosterom and Strackee 1983) over 4π
	inside := func(q geom.Vec3) bool {
		w := 0.0
		for _, tr := range tris {
			a, b, c := v[tr[0]].Sub(q), v[tr[1]].Sub(q), v[tr[2]].Sub(q)
			la, lb, lc := a.Len(), b.Len(), c.Len()
			w += 2 * math.Atan2(a.Dot(b.Cross(c)), la*lb*lc+a.Dot(b)*lc+a.Dot(c)*lb+b.Dot(c)*la)
		}
		return w > 2*math.Pi
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		// a point on a face, an edge or a corner, moved a little
		tr := tris[rng.IntN(len(tris))]
		b := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
		switch i % 3 {
		case 1:
			b[rng.IntN(3)] = 0
		case 2:
			b = [3]float64{1, 0, 0}
		}
		sum := b[0] + b[1] + b[2]
		q := v[tr[0]].Scale(b[0]/sum).AddScaled(b[1]/sum, v[tr[1]]).AddScaled(b[2]/sum, v[tr[2]])
		q = q.Add(geom.V(rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()).Scale(0.03))
		cb := &crossBind{best: 0}
		for k := range tris {
			if sb.cent[k].Dist2(q) < sb.cent[cb.best].Dist2(q) {
				cb.best = int32(k)
			}
		}
		p, n, ok := sb.exactPlane(cb, q)
		if !ok {
			t.Fatalf("%v: no answer", q)
		}
		if s := q.Sub(p).Dot(n); (s < 0) != inside(q) && math.Abs(s) > 1e-9 {
			t.Errorf("%v: (q−p)·n = %.3g, inside %v", q, s, inside(q))
		}
	}
}
