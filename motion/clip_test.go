package motion

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

const tol = 1e-12

func nearVec(a, b geom.Vec3, eps float64) bool { return a.Dist(b) <= eps }

// sameRot compares rotations up to the quaternion sign.
func sameRot(a, b geom.Quat, eps float64) bool { return 1-math.Abs(a.Dot(b)) <= eps }

func randomQuat(rnd *rand.Rand) geom.Quat {
	return geom.Quat{W: rnd.NormFloat64(), X: rnd.NormFloat64(), Y: rnd.NormFloat64(), Z: rnd.NormFloat64()}.Normalize()
}

func TestEulerRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	for o := OrderZYX; o <= OrderYZX; o++ {
		for range 500 {
			q := randomQuat(rnd)
			if got := o.FromEuler(o.Euler(q)); !sameRot(got, q, 1e-14) {
				t.Fatalf("%v: %v -> %v", o, q, got)
			}
		}
		// Angles in the principal range come back unchanged.
		e := [3]float64{0.3, -1.2, 2.5}
		if got := o.Euler(o.FromEuler(e)); math.Abs(got[0]-e[0])+math.Abs(got[1]-e[1])+math.Abs(got[2]-e[2]) > 1e-12 {
			t.Errorf("%v: %v -> %v", o, e, got)
		}
		// Gimbal lock: the middle angle at ±90°.
		for _, b := range []float64{math.Pi / 2, -math.Pi / 2} {
			q := o.FromEuler([3]float64{0.7, b, -0.4})
			if got := o.FromEuler(o.Euler(q)); !sameRot(got, q, 1e-12) {
				t.Errorf("%v gimbal %g: %v -> %v", o, b, q, got)
			}
		}
	}
	if OrderZXY.String() != "ZXY" || OrderZYX.String() != "ZYX" {
		t.Error(OrderZXY.String(), OrderZYX.String())
	}
}

// TestClipChannelOrder checks the intrinsic, listed-order convention with
// hand-computed positions.
func TestClipChannelOrder(t *testing.T) {
	for _, tc := range []struct {
		channels string
		want     geom.Vec3 // world position of the end site (0, 0, 1) under 90°, 90°
	}{
		// Rz·Rx: Rx(90) takes +Z to −Y, then Rz(90) takes −Y to +X.
		{"Zrotation Xrotation", geom.V(1, 0, 0)},
		// Rx·Rz: Rz leaves +Z, Rx(90) takes it to −Y.
		{"Xrotation Zrotation", geom.V(0, -1, 0)},
	} {
		in := "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 " + tc.channels +
			"\n\tEnd Site\n\t{\n\t\tOFFSET 0 0 1\n\t}\n}\nMOTION\nFrames: 1\nFrame Time: 0.5\n90 90\n"
		b, err := Read(strings.NewReader(in), "t.bvh")
		if err != nil {
			t.Fatal(err)
		}
		c, err := b.Clip(1)
		if err != nil {
			t.Fatal(err)
		}
		if c.FPS != 2 || c.Skeleton.NumJoints() != 2 || c.Skeleton.Joint(1).Name != "A_end" {
			t.Fatalf("fps %g, %d joints", c.FPS, c.Skeleton.NumJoints())
		}
		w := skel.FK(c.Skeleton, c.Poses[0], nil)
		if !nearVec(w[1].T, tc.want, tol) {
			t.Errorf("%s: end at %v, want %v", tc.channels, w[1].T, tc.want)
		}
	}
}

func TestClipRootAndScale(t *testing.T) {
	b, err := Read(strings.NewReader(mixed), "mixed.bvh")
	if err != nil {
		t.Fatal(err)
	}
	// Spine's position channels equal its offset: accepted, unless one
	// differs.
	off := b.ChannelOffsets()[2]
	b.Frames[1][off+1] = 1.01
	if _, notes, err := b.clip(0.01); err != nil || len(notes) != 1 || !strings.Contains(notes[0], "mean offset") {
		t.Fatalf("varying non-root translation: %v %q", err, notes)
	}
	b.Frames[1][off+1] = 1 + 1e-5
	c, err := b.Clip(0.01)
	if err != nil {
		t.Fatal(err)
	}
	// Root channels: Zrot Xpos Xrot Ypos Yrot Zpos = 10 1 20 2 30 3 with
	// offset (1, 2, 3): no displacement in frame 0.
	if c.Poses[0].Root != (geom.Vec3{}) {
		t.Errorf("frame 0 root %v", c.Poses[0].Root)
	}
	if want := geom.V(0.5, 0.25, 0.125).Scale(0.01); !nearVec(c.Poses[1].Root, want, tol) {
		t.Errorf("frame 1 root %v, want %v", c.Poses[1].Root, want)
	}
	want := OrderZXY.FromEuler([3]float64{10 * math.Pi / 180, 20 * math.Pi / 180, 30 * math.Pi / 180})
	if q := c.Poses[0].Rot[0]; !sameRot(q, want, tol) {
		t.Errorf("root rotation %v, want %v", q, want)
	}
	names := []string{"Hips", "Left Leg", "Spine", "Fixed", "Left Leg_end", "Fixed_end"}
	for j, n := range names {
		if got := c.Skeleton.Joint(j).Name; got != n {
			t.Errorf("joint %d %q, want %q", j, got, n)
		}
	}
	if got := c.Skeleton.Joint(5).Rest.T; !nearVec(got, geom.V(0, 0.001, 0), tol) {
		t.Errorf("end site rest %v", got)
	}
	if !(math.Abs(c.Duration()-0.08) < tol) {
		t.Errorf("duration %g", c.Duration())
	}
}

// clipBVHRoundTrip converts c to BVH and back and checks FK positions.
func clipBVHRoundTrip(t *testing.T, c *Clip, order EulerOrder, eps float64) *Clip {
	t.Helper()
	b, err := c.BVH(order, CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Clip(CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Poses) != len(c.Poses) || math.Abs(d.FPS-c.FPS) > 1e-9 {
		t.Fatalf("%d frames at %g fps, want %d at %g", len(d.Poses), d.FPS, len(c.Poses), c.FPS)
	}
	for f := range c.Poses {
		wc, wd := skel.FK(c.Skeleton, c.Poses[f], nil), skel.FK(d.Skeleton, d.Poses[f], nil)
		for j := range wc {
			k, ok := d.Skeleton.Index(c.Skeleton.Joint(j).Name)
			if !ok {
				t.Fatalf("joint %q lost", c.Skeleton.Joint(j).Name)
			}
			if !nearVec(wc[j].T, wd[k].T, eps) {
				t.Fatalf("%v frame %d joint %q: %v, want %v", order, f, c.Skeleton.Joint(j).Name, wd[k].T, wc[j].T)
			}
		}
	}
	return d
}

func TestClipBVHRoundTrip(t *testing.T) {
	// A skeleton with non-identity rest rotations (FromBones), random poses.
	sk, err := skel.FromBones([]skel.Bone{
		{Name: "hips", Head: geom.V(0, 1, 0), Tail: geom.V(0, 1.2, 0.05)},
		{Name: "spine", Parent: "hips", Head: geom.V(0, 1.2, 0.05), Tail: geom.V(0, 1.5, 0), Roll: 0.3},
		{Name: "arm", Parent: "spine", Head: geom.V(0.2, 1.45, 0), Tail: geom.V(0.4, 1.2, 0.1), Roll: -1},
		{Name: "leg", Parent: "hips", Head: geom.V(0.1, 1, 0), Tail: geom.V(0.12, 0.5, 0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	c := &Clip{Skeleton: sk, FPS: 30}
	for range 20 {
		p := skel.RestPose(sk)
		p.Root = geom.V(rnd.Float64(), rnd.Float64(), rnd.Float64())
		for j := range p.Rot {
			p.Rot[j] = randomQuat(rnd)
		}
		c.Poses = append(c.Poses, p)
	}
	for o := OrderZYX; o <= OrderYZX; o++ {
		clipBVHRoundTrip(t, c, o, 1e-12)
	}
}

func TestClipBVHWalk(t *testing.T) {
	b := readAsset(t, "02_01_walk.bvh")
	c, err := b.Clip(CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	if c.Skeleton.NumJoints() != 38 || math.Abs(c.FPS-120) > 1e-3 || len(c.Poses) != 344 {
		t.Fatalf("%d joints, %g fps, %d poses", c.Skeleton.NumJoints(), c.FPS, len(c.Poses))
	}
	// Hip height above the toe tip in rest: about 0.95 m for subject 02.
	rw := c.Skeleton.RestWorld()
	toe, _ := c.Skeleton.Index("LeftToeBase_end")
	if h := rw[0].T.Y - rw[toe].T.Y; h < 0.8 || h > 1.1 {
		t.Errorf("hip height %g m", h)
	}
	for _, o := range []EulerOrder{OrderZYX, OrderZXY} {
		d := clipBVHRoundTrip(t, c, o, 1e-11)
		if d.Skeleton.NumJoints() != 38 {
			t.Errorf("%v: %d joints after round trip", o, d.Skeleton.NumJoints())
		}
	}
	// ZYX back to the same channel layout: the BVH values agree with the
	// original (angles to 1e-9 degrees; -180/180 wrap aside).
	b2, err := c.BVH(OrderZYX, CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	if b2.NumChannels() != b.NumChannels() {
		t.Fatalf("%d channels, want %d", b2.NumChannels(), b.NumChannels())
	}
	for f := range b.Frames {
		for i, v := range b.Frames[f] {
			d := math.Abs(b2.Frames[f][i] - v)
			if d > 1e-9 && math.Abs(d-360) > 1e-9 {
				t.Fatalf("frame %d value %d: %g, want %g", f, i, b2.Frames[f][i], v)
			}
		}
	}
}

func TestResampleTrim(t *testing.T) {
	sk, err := skel.NewSkeleton([]skel.Joint{{Name: "a", Parent: -1, Rest: geom.RigidIdentity()}})
	if err != nil {
		t.Fatal(err)
	}
	z := geom.V(0, 0, 1)
	c := &Clip{Skeleton: sk, FPS: 10}
	for f := range 11 { // 1 s, rotating 0.1 rad per frame, moving 1 m/s
		c.Poses = append(c.Poses, skel.Pose{Root: geom.V(float64(f)/10, 0, 0), Rot: []geom.Quat{geom.QuatAxisAngle(z, 0.1*float64(f))}})
	}
	for _, tc := range []struct {
		fps    float64
		frames int
	}{{25, 26}, {30, 31}, {5, 6}, {3, 4}, {10, 11}} {
		r, err := Resample(c, tc.fps)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Poses) != tc.frames || r.FPS != tc.fps {
			t.Errorf("%g fps: %d frames, want %d", tc.fps, len(r.Poses), tc.frames)
			continue
		}
		for i, p := range r.Poses {
			tm := float64(i) / tc.fps
			if !nearVec(p.Root, geom.V(tm, 0, 0), 1e-12) || !sameRot(p.Rot[0], geom.QuatAxisAngle(z, tm), 1e-12) {
				t.Errorf("%g fps frame %d: %v", tc.fps, i, p)
			}
		}
	}
	if _, err := Resample(c, 0); err == nil {
		t.Error("0 fps accepted")
	}
	tr, err := Trim(c, 2, 5)
	if err != nil || len(tr.Poses) != 3 || tr.Poses[0].Root.X != 0.2 {
		t.Errorf("trim: %v", err)
	}
	tr.Poses[0].Rot[0] = geom.Quat{}
	if c.Poses[2].Rot[0] == (geom.Quat{}) {
		t.Error("Trim shares poses")
	}
	if _, err := Trim(c, 5, 12); err == nil {
		t.Error("trim past the end accepted")
	}
	tt, err := TrimTime(c, 0.25, 0.5)
	if err != nil || len(tt.Poses) != 3 || tt.Poses[0].Root.X != 0.3 {
		t.Errorf("trim time: %v %d", err, len(tt.Poses))
	}
	dt, err := DropTPose(c)
	if err != nil || len(dt.Poses) != 10 || dt.Poses[0].Root.X != 0.1 {
		t.Errorf("drop T-pose: %v", err)
	}
}

func TestResampleWalk(t *testing.T) {
	c := walkClip(t)
	// The file's Frame Time .0083333 is 120.0005 fps: resampling to 30 fps
	// lands within 0.0015 frames of every fourth frame.
	r, err := Resample(c, 30)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range r.Poses {
		if d := p.Root.Dist(c.Poses[4*i].Root); d > 1e-4 {
			t.Fatalf("frame %d: root %g m from source frame %d", i, d, 4*i)
		}
	}
	c.FPS = 120
	r, err = Resample(c, 30)
	if err != nil {
		t.Fatal(err)
	}
	// 120 → 30 fps: every fourth frame, copied exactly.
	if len(r.Poses) != 86 {
		t.Fatalf("%d frames, want 86", len(r.Poses))
	}
	for i, p := range r.Poses {
		q := c.Poses[4*i]
		if p.Root != q.Root || p.Rot[5] != q.Rot[5] {
			t.Fatalf("frame %d is not source frame %d", i, 4*i)
		}
	}
	if math.Abs(r.Duration()-c.Duration()) > 1.0/30 {
		t.Errorf("duration %g, want %g", r.Duration(), c.Duration())
	}
}

func walkClip(tb testing.TB) *Clip {
	tb.Helper()
	c, err := readAsset(tb, "02_01_walk.bvh").Clip(CMUUnit)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func BenchmarkClip(b *testing.B) {
	bv := readAsset(b, "02_01_walk.bvh")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bv.Clip(CMUUnit); err != nil {
			b.Fatal(err)
		}
	}
}
