package wrinkle

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// TestBodyPushHeld checks the held rule (SetBodyPose) against the walk
// it stands in for and against the exact push-out: on the mannequin
// through the test walk twice over (its jump back from the last pose to
// the first included), with points that ride the body 6 mm inside to
// 25 mm outside it and drift up to 4 mm a frame against it, the walk
// from every held point's triangle ends outside, Thickness or more from
// the body, as the rule's bound says (where it ends at all); and Push
// with the rule moves no point that the exact push-out finds outside to
// inside, finds as many points inside as without it but for at most the
// points it leaves or pushes elsewhere than the exact push-out, the
// points it leaves stay within 0.25% of point-frames (704 here; 673
// without the rule) and those it pushes elsewhere (by their walk:
// TestBodyPushLocal) within 0.3% (582 here).
func TestBodyPushHeld(t *testing.T) {
	s := newPushScene(t, 2, 9, 0.031)
	ex, bp, pts, poses, n := s.ex, s.bp, s.pts, s.poses, len(s.src)
	held, misses, left := 0, 0, 0
	t2 := bp.Thickness * bp.Thickness
	for frame, pose := range poses {
		s.pose(t, frame, pose)
		for i, p := range pts {
			if !bp.heldNow(i, p) {
				continue
			}
			held++
			w, ok := bp.walk(p, bp.hint[i])
			if ok && (w.Dist2 < t2 || p.Sub(w.Point).Dot(bp.pseudoNormal(w.Tri, w.Bary)) < 0) {
				t.Fatalf("frame %d: point %d held, its walk ends at %g m (triangle %d)", frame, i, math.Sqrt(w.Dist2), w.Tri)
			}
		}
		x, y, es, fs := pushBoth(t, ex, bp, pts)
		m := 0
		for i := range y {
			if y[i].Dist2(x[i]) <= 1e-18 {
				continue
			}
			m++
			if y[i] != pts[i] && ex.signedDist(pts[i]) >= 0 && ex.signedDist(y[i]) < 0 {
				t.Fatalf("frame %d: point %d outside at %v pushed inside to %v", frame, i, pts[i], y[i])
			}
			if y[i] == pts[i] {
				left++
			}
		}
		if fs.Inside > es.Inside || es.Inside-fs.Inside > m || es.Deep-fs.Deep > m {
			t.Fatalf("frame %d: %+v, exact %+v, %d misses", frame, fs, es, m)
		}
		misses += m
	}
	if held == 0 {
		t.Fatal("no point held")
	}
	if share := float64(left) / float64(n*len(poses)); share > 0.0025 {
		t.Errorf("%d points left where the exact push-out moves them in %d point-frames (%.3f%%), want at most 0.25%%", left, n*len(poses), 100*share)
	}
	if share := float64(misses-left) / float64(n*len(poses)); share > 0.003 {
		t.Errorf("%d points pushed elsewhere than by the exact push-out in %d point-frames (%.3f%%), want at most 0.3%%", misses-left, n*len(poses), 100*share)
	}
	t.Logf("%d points × %d frames: %d held; %d left where the exact push-out moves them, %d pushed elsewhere", n, len(poses), held, left, misses-left)
}

// TestBodyPushHeldBounds checks the rule's bookkeeping on two spheres:
// a point found 10 mm outside the first is held while it and the
// spheres move rigidly together, but not on its refresh frames, which
// the parts' boxes settle but for every refreshFull-th (the exact
// query); it is not
// held once the first sphere swells towards it by more than its margin,
// nor after a SetBody without transforms, and SetBodyPose refuses
// transforms that miss a part's label.
func TestBodyPushHeldBounds(t *testing.T) {
	m, w := twoSpheres(0.05)
	part, err := BodyParts(m.Tris, w)
	must(t, err)
	bp, err := NewBodyPush(m.Verts, m.Tris, 1, 0, 0)
	must(t, err)
	defer bp.Close()
	bp.Refresh = 4
	must(t, bp.SetParts(part))
	id := []geom.Rigid{geom.RigidIdentity(), geom.RigidIdentity()}
	p := []geom.Vec3{geom.V(-0.11, 0, 0)}
	must(t, bp.SetBodyPose(m.Verts, id))
	st, err := bp.Push(p) // a refresh query (frame 0, point 0)
	must(t, err)
	if st.Exact != 1 || !bp.heldAt(0, p[0]) {
		t.Fatalf("first push: %+v, held %v; want an exact query, then held", st, bp.heldAt(0, p[0]))
	}

	// Both spheres and the point turned and moved together.
	move := geom.Rigid{R: geom.QuatAxisAngle(geom.V(0, 0, 1), 0.3), T: geom.V(0.2, 0.1, 0)}
	moved := make([]geom.Vec3, len(m.Verts))
	for v, x := range m.Verts {
		moved[v] = move.Apply(x)
	}
	full := 4 * refreshFull
	for frame := 1; frame <= full; frame++ {
		must(t, bp.SetBodyPose(moved, []geom.Rigid{move, move}))
		q := []geom.Vec3{move.Apply(p[0])}
		if !bp.heldAt(0, q[0]) {
			t.Fatalf("frame %d, rigidly moved together: not held", frame)
		}
		st, err := bp.Push(q)
		must(t, err)
		// Held but in its refresh frames (multiples of 4): settled by
		// the boxes, the full refresh by the exact query.
		want := PushStats{Held: 1}
		if frame == full {
			want = PushStats{Exact: 1}
		} else if frame%4 == 0 {
			want = PushStats{Apart: 1}
		}
		if q[0] != move.Apply(p[0]) || st != want {
			t.Fatalf("frame %d, rigidly moved together: %+v, point %v", frame, st, q[0])
		}
	}
	// The first sphere swollen by 8 mm: 2 mm from the point.
	swell := append([]geom.Vec3(nil), moved...)
	for v := range len(m.Verts) / 2 {
		c := move.Apply(geom.Vec3{})
		swell[v] = c.Add(moved[v].Sub(c).Scale(0.108 / 0.1))
	}
	must(t, bp.SetBodyPose(swell, []geom.Rigid{move, move}))
	if q := move.Apply(p[0]); bp.heldAt(0, q) {
		t.Fatal("swollen sphere within the margin: held")
	}
	must(t, bp.SetBody(moved))
	if bp.heldAt(0, move.Apply(p[0])) {
		t.Fatal("SetBody without transforms: held")
	}
	if err := bp.SetBodyPose(moved, id[:1]); err == nil || !strings.Contains(err.Error(), "label 1") {
		t.Errorf("one transform for two parts: %v, want an error naming label 1", err)
	}
}

// TestBodyPushLocal checks the points pushed out by their walk
// (pushByWalk) against the exact push-out on the mannequin through the
// test walk twice over, with points that ride the body 6 mm inside to
// 15 mm outside it and drift up to 4 mm a frame against it: each such
// point is outside the body by the exact query too (never pushed to the
// wrong side), and ends where the exact push-out puts it but for at most
// 5% of them (the exact query picks another triangle at a shared edge or
// corner, or the walk's part folds back nearer), none of those more
// than 5 mm from it or inside the body; the rule must push some points.
// Here 64,880 points are pushed by their walk; 1,426 end elsewhere, 462
// of them more than 0.1 mm and none more than 2.3 mm away.
func TestBodyPushLocal(t *testing.T) {
	s := newPushScene(t, 1, 11, 0.021)
	ex, bp, pts, poses, n := s.ex, s.bp, s.pts, s.poses, len(s.src)
	local, total, moved, worst := 0, 0, 0, 0.0
	t2 := bp.Thickness * bp.Thickness
	for frame, pose := range poses {
		s.pose(t, frame, pose)
		// The points Push will push by their walk (pushPoint's order of
		// rules), with the walk's side.
		byWalk := map[int]bool{}
		for i, p := range pts {
			h := bp.hint[i]
			if h < 0 || bp.heldNow(i, p) || (bp.frame+uint64(i))%uint64(DefaultPushRefresh) == 0 {
				continue
			}
			w, ok := bp.walk(p, h)
			if !ok || bp.watch[i] != 0 || bp.face[w.Tri].risk > bp.frame {
				continue
			}
			if w.Dist2 < t2 && p.Sub(w.Point).Dot(bp.pseudoNormal(w.Tri, w.Bary)) >= 0 && bp.pushByWalk(p, w) {
				byWalk[i] = true
			}
		}
		x, y, _, fs := pushBoth(t, ex, bp, pts)
		if fs.Local != len(byWalk) {
			t.Fatalf("frame %d: %d pushed by their walk, predicted %d", frame, fs.Local, len(byWalk))
		}
		for i := range byWalk {
			if d := ex.signedDist(pts[i]); d < 0 {
				t.Fatalf("frame %d: point %d pushed by its walk from outside, at signed distance %g m", frame, i, d)
			}
			if d := y[i].Dist(x[i]); d != 0 {
				moved++
				worst = max(worst, d)
				if ex.signedDist(y[i]) < 0 {
					t.Fatalf("frame %d: point %d pushed by its walk to %v, inside the body", frame, i, y[i])
				}
			}
		}
		local += fs.Local
		total += fs.Pushed
	}
	if local == 0 {
		t.Fatal("no point pushed by its walk")
	}
	if moved > local/20 || worst > 0.005 {
		t.Errorf("%d of %d points pushed by their walk end elsewhere than the exact push-out (at most %g m), want at most 5%% and 5 mm", moved, local, worst)
	}
	t.Logf("%d points × %d frames: %d pushed, %d by their walk, %d elsewhere than the exact push-out (at most %g m)", n, len(poses), total, local, moved, worst)
}

// pushScene is the mannequin through the test walk twice over (its jump
// back from the last pose to the first included), with a point riding
// the skin of every step-th body vertex, -6 mm to -6 mm + span along the
// skinned vertex normal and drifting up to 4 mm a frame against it, and
// two BodyPushes with body parts: ex exact (Refresh 1), bp with the
// default rules.
type pushScene struct {
	f         *fixture
	normals   []geom.Vec3
	poses     []skel.Pose
	src       []int32
	off, amp  []float64
	ex, bp    *BodyPush
	pts       []geom.Vec3
	skin      []geom.Rigid
	bodyX, nx []geom.Vec3
}

func newPushScene(t *testing.T, step int, seed uint64, span float64) *pushScene {
	f := getFixture(t)
	body := f.body.Mesh
	s := &pushScene{f: f, normals: mesh.VertexNormals(body, nil)}
	s.poses = walkPoses(f.rig, 24)
	s.poses = append(s.poses, s.poses...)
	rnd := rand.New(rand.NewPCG(seed, seed+1))
	for v := 0; v < len(body.Verts); v += step {
		s.src = append(s.src, int32(v))
		s.off = append(s.off, -0.006+span*rnd.Float64())
		s.amp = append(s.amp, 0.004*rnd.Float64())
	}
	n := len(s.src)
	parts, err := BodyParts(body.Tris, f.body.Weights)
	must(t, err)
	s.ex, err = NewBodyPush(body.Verts, body.Tris, n, 0, 0)
	must(t, err)
	t.Cleanup(s.ex.Close)
	s.ex.Refresh = 1
	s.bp, err = NewBodyPush(body.Verts, body.Tris, n, 0, 0)
	must(t, err)
	t.Cleanup(s.bp.Close)
	must(t, s.bp.SetParts(parts))
	s.pts = make([]geom.Vec3, n)
	return s
}

// pose moves the body into the frame's pose, the points with it, and
// gives the body to both pushes.
func (s *pushScene) pose(t *testing.T, frame int, pose skel.Pose) {
	w := s.f.body.Weights
	s.skin = skel.SkinMatrices(s.f.rig.Skeleton, pose, s.skin)
	s.bodyX = skel.LBS(s.f.body.Mesh.Verts, w, s.skin, s.bodyX)
	s.nx = skel.LBSNormals(s.normals, w, s.skin, s.nx)
	for i, v := range s.src {
		drift := s.amp[i] * math.Sin(0.9*float64(frame)+float64(i))
		s.pts[i] = s.bodyX[v].AddScaled(s.off[i]+drift, s.nx[v].Unit())
	}
	must(t, s.ex.SetBody(s.bodyX))
	must(t, s.bp.SetBodyPose(s.bodyX, s.skin))
}

// pushBoth pushes a copy of pts with ex (the exact push-out) and another
// with bp (the one under test) and returns both results and statistics.
func pushBoth(t testing.TB, ex, bp *BodyPush, pts []geom.Vec3) (x, y []geom.Vec3, es, fs PushStats) {
	t.Helper()
	x = append([]geom.Vec3(nil), pts...)
	y = append([]geom.Vec3(nil), pts...)
	es, err := ex.Push(x)
	must(t, err)
	fs, err = bp.Push(y)
	must(t, err)
	return x, y, es, fs
}
