package wrinkle

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// TestBodyPushWorkers checks that Push in chunks gives bit-identical
// points and stats for any worker count, over frames (the hints carry
// over), with points inside, near and outside a sphere.
func TestBodyPushWorkers(t *testing.T) {
	body := mesh.UVSphere(0.1, 30, 40)
	rnd := rand.New(rand.NewPCG(1, 1))
	pts := make([]geom.Vec3, 3000)
	for i := range pts {
		d := geom.V(rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64())
		pts[i] = d.Scale((0.09 + 0.04*rnd.Float64()) / d.Len())
	}
	moved := make([]geom.Vec3, len(body.Verts))
	defer func(n int) { transferSerialBelow = n }(transferSerialBelow)
	transferSerialBelow = 0
	var ref [][]geom.Vec3
	var refSt []PushStats
	for _, workers := range []int{1, 2, 3} {
		bp, err := NewBodyPush(body.Verts, body.Tris, len(pts), 0, 0)
		must(t, err)
		bp.Workers = workers
		for frame := 0; frame < 3; frame++ {
			for v, p := range body.Verts {
				moved[v] = p.Add(geom.V(0.01*float64(frame), 0, 0))
			}
			must(t, bp.SetBody(moved))
			x := append([]geom.Vec3(nil), pts...)
			st, err := bp.Push(x)
			must(t, err)
			if workers == 1 {
				if st.Pushed == 0 || st.Inside == 0 || st.Pushed == len(pts) {
					t.Fatalf("frame %d: %+v: want some points pushed, some not", frame, st)
				}
				ref, refSt = append(ref, x), append(refSt, st)
				continue
			}
			if st != refSt[frame] {
				t.Errorf("%d workers, frame %d: %+v, with 1 worker %+v", workers, frame, st, refSt[frame])
			}
			for i := range x {
				if x[i] != ref[frame][i] {
					t.Fatalf("%d workers, frame %d: point %d at %v, with 1 worker %v", workers, frame, i, x[i], ref[frame][i])
				}
			}
		}
		bp.Close()
	}
}

// TestBodyPushFast compares Push's walk (Refresh > 1) with the exact
// push-out (Refresh = 1) on the mannequin through a walk of 48 frames,
// with points that ride the body 6 mm inside to 15 mm outside it (along
// the skinned vertex normals) and drift 2 mm a frame against it. With
// Refresh = 1 the two are the same BodyPush; otherwise a point may differ
// from the exact result only where the exact one moved it and the walk
// did not, or pushed it off another part (a miss: a bounded share), the counts of points inside and deep
// may fall only by the misses, and no point the exact test finds outside
// is moved inside. With body parts (SetParts) the same bounds hold, and a
// bounded share of points is pushed elsewhere than by the exact
// push-out (by the walk's closest point: pushByWalk, TestBodyPushLocal).
func TestBodyPushFast(t *testing.T) {
	f := getFixture(t)
	body := f.body.Mesh
	normals := mesh.VertexNormals(body, nil)
	poses := walkPoses(f.rig, 48)
	rnd := rand.New(rand.NewPCG(5, 6))
	var src []int32
	var off []float64
	for v := 0; v < len(body.Verts); v += 2 {
		src = append(src, int32(v))
		off = append(off, -0.006+0.021*rnd.Float64())
	}
	n := len(src)
	parts, err := BodyParts(body.Tris, f.body.Weights)
	must(t, err)
	for _, tc := range []struct {
		name     string
		refresh  int
		maxMiss  float64 // share of point-frames
		identity bool
		parts    bool
		// maxElsewhere is the share of point-frames pushed elsewhere
		// than by the exact push-out (by their walk: pushByWalk).
		maxElsewhere float64
	}{
		{"exact", 1, 0, true, false, 0},
		{"exact parts", 1, 0, true, true, 0},
		{"refresh 4", 4, 0.001, false, false, 0},
		{"default", 0, 0.002, false, false, 0},
		{"default parts", 0, 0.002, false, true, 0.003},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := NewBodyPush(body.Verts, body.Tris, n, 0, 0)
			must(t, err)
			defer ex.Close()
			ex.Refresh = 1
			bp, err := NewBodyPush(body.Verts, body.Tris, n, 0, 0)
			must(t, err)
			defer bp.Close()
			bp.Refresh = tc.refresh
			if tc.parts {
				must(t, bp.SetParts(parts))
			}
			pts := make([]geom.Vec3, n)
			var skin []geom.Rigid
			var bodyX, nx []geom.Vec3
			misses, inside, deep, elsewhere := 0, 0, 0, 0
			for frame, pose := range poses {
				skin = skel.SkinMatrices(f.rig.Skeleton, pose, skin)
				bodyX = skel.LBS(body.Verts, f.body.Weights, skin, bodyX)
				nx = skel.LBSNormals(normals, f.body.Weights, skin, nx)
				for i, v := range src {
					drift := 0.002 * math.Sin(0.7*float64(frame)+float64(i))
					pts[i] = bodyX[v].AddScaled(off[i]+drift, nx[v].Unit())
				}
				must(t, ex.SetBody(bodyX))
				must(t, bp.SetBody(bodyX))
				x, y, es, fs := pushBoth(t, ex, bp, pts)
				inside += es.Inside
				deep += es.Deep
				if tc.identity && es != fs {
					t.Fatalf("frame %d: stats %+v, exact %+v", frame, fs, es)
				}
				m := 0
				for i := range y {
					if y[i].Dist2(x[i]) <= 1e-18 { // the same point to rounding (another triangle at a shared edge or corner)
						continue
					}
					if tc.identity {
						t.Fatalf("frame %d: point %d at %v, exact %v", frame, i, y[i], x[i])
					}
					m++
					if y[i] != pts[i] && ex.signedDist(pts[i]) >= 0 && ex.signedDist(y[i]) < 0 {
						t.Fatalf("frame %d: point %d outside at %v pushed inside to %v", frame, i, pts[i], y[i])
					}
					if y[i] != pts[i] && x[i] != pts[i] {
						elsewhere++
					}
				}
				misses += m
				if fs.Inside > es.Inside || fs.Deep > es.Deep || es.Inside-fs.Inside > m || es.Deep-fs.Deep > m {
					t.Fatalf("frame %d: %+v, exact %+v, %d misses", frame, fs, es, m)
				}
			}
			if inside == 0 || deep == 0 {
				t.Fatalf("%d inside, %d deep: want points inside to push", inside, deep)
			}
			if share := float64(misses-elsewhere) / float64(n*len(poses)); share > tc.maxMiss {
				t.Errorf("%d misses in %d point-frames (%.3f%%), want at most %.3f%%", misses-elsewhere, n*len(poses), 100*share, 100*tc.maxMiss)
			}
			if share := float64(elsewhere) / float64(n*len(poses)); share > tc.maxElsewhere {
				t.Errorf("%d points pushed elsewhere than by the exact push-out in %d point-frames (%.3f%%), want at most %.3f%%", elsewhere, n*len(poses), 100*share, 100*tc.maxElsewhere)
			}
			t.Logf("%d points × %d frames: %d inside, %d deep (exact), %d misses, %d pushed elsewhere", n, len(poses), inside, deep, misses-elsewhere, elsewhere)
		})
	}
}

// signedDist returns p's exact distance to the body, negative inside.
func (b *BodyPush) signedDist(p geom.Vec3) float64 {
	h := b.bvh.ClosestPoint(p)
	d := p.Sub(h.Point)
	if d.Dot(b.pseudoNormal(h.Tri, h.Bary)) < 0 {
		return -d.Len()
	}
	return d.Len()
}

// TestBodyPushWalk checks the walk on a sphere from a triangle next to
// the closest one (sharing a corner with it). Outside a convex body the
// distance has one local minimum on the surface, so the walk must settle
// (but for a few points by the poles' 40-triangle fans, where it may run
// out of steps) at the BVH's distance; inside, every face over which the
// point lies is a local minimum, and the walk's end must be no nearer
// than the closest point and no farther than where it started. The point
// returned must be on the triangle named.
func TestBodyPushWalk(t *testing.T) {
	body := mesh.UVSphere(0.1, 30, 40)
	bp, err := NewBodyPush(body.Verts, body.Tris, 1, 0, 0)
	must(t, err)
	rnd := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name    string
		lo, hi  float64 // distance from the centre
		outside bool
	}{
		{"outside", 0.1, 0.13, true},
		{"just outside", 0.1, 0.101, true},
		{"inside", 0.07, 0.1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 2000
			unsettled := 0
			for range n {
				d := geom.V(rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64())
				p := d.Scale((tc.lo + (tc.hi-tc.lo)*rnd.Float64()) / d.Len())
				want := bp.bvh.ClosestPoint(p)
				fan := bp.top.VertTriangles(body.Tris[want.Tri][rnd.IntN(3)])
				start := fan[rnd.IntN(len(fan))]
				got, ok := bp.walk(p, start)
				if !ok {
					unsettled++
					continue
				}
				tr := body.Tris[got.Tri]
				if q, _ := mesh.ClosestOnTriangle(p, body.Verts[tr[0]], body.Verts[tr[1]], body.Verts[tr[2]]); q != got.Point || q.Dist2(p) != got.Dist2 {
					t.Fatalf("p %v: point %v not the closest on triangle %d (%v)", p, got.Point, got.Tri, q)
				}
				if tc.outside && math.Abs(got.Dist2-want.Dist2) > 1e-15 ||
					got.Dist2 < want.Dist2-1e-15 || got.Dist2 > bp.onTri(p, start).Dist2 {
					t.Fatalf("p %v from triangle %d: %+v, closest %+v", p, start, got, want)
				}
			}
			if unsettled > n/100 {
				t.Errorf("%d of %d walks did not settle", unsettled, n)
			}
		})
	}
}
