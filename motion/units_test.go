package motion

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// synthClip is a short random clip on the cmuMB skeleton (1.42 m tall).
func synthClip(tb testing.TB) *Clip {
	sk := cmuSkeleton(tb, func(s string) string { return s })
	rnd := rand.New(rand.NewPCG(3, 4))
	c := &Clip{Skeleton: sk, FPS: 30}
	for f := range 6 {
		p := skel.RestPose(sk)
		p.Root = geom.V(0.1*float64(f), 0.01*rnd.NormFloat64(), 0.05*float64(f))
		for j := range p.Rot {
			p.Rot[j] = geom.QuatAxisAngle(geom.V(rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64()).Unit(), 0.5*rnd.Float64())
		}
		c.Poses = append(c.Poses, p)
	}
	return c
}

// sameWorld compares the FK joint positions of clips a and b frame by
// frame; b's joint j+shift corresponds to a's joint j.
func sameWorld(tb testing.TB, a, b *Clip, shift int, eps float64) {
	tb.Helper()
	if len(a.Poses) != len(b.Poses) {
		tb.Fatalf("%d frames vs %d", len(a.Poses), len(b.Poses))
	}
	var wa, wb []geom.Rigid
	for f := range a.Poses {
		wa = skel.FK(a.Skeleton, a.Poses[f], wa)
		wb = skel.FK(b.Skeleton, b.Poses[f], wb)
		for j := range wa {
			if j+shift >= len(wb) {
				break
			}
			if d := wa[j].T.Dist(wb[j+shift].T); !(d <= eps) {
				tb.Fatalf("frame %d joint %s: %v vs %v (%.3g m apart)", f, a.Skeleton.Joint(j).Name, wa[j].T, wb[j+shift].T, d)
			}
		}
	}
}

func TestParseUnitUp(t *testing.T) {
	for in, want := range map[string]float64{"": 0, "auto": 0, "cm": 0.01, "Centimetres": 0.01, "inches": 0.0254, "m": 1, "cmu": CMUUnit, "0.056444": 0.056444, "mm": 0.001} {
		if got, err := ParseUnit(in); err != nil || got != want {
			t.Errorf("ParseUnit(%q) = %g, %v; want %g", in, got, err, want)
		}
	}
	for _, in := range []string{"furlong", "-1", "0", "NaN", "Inf", "1e9"} {
		if _, err := ParseUnit(in); err == nil {
			t.Errorf("ParseUnit(%q): no error", in)
		}
	}
	for in, want := range map[string]Up{"": UpAuto, "Y": UpY, "+z": UpZ, "auto": UpAuto} {
		if got, err := ParseUp(in); err != nil || got != want {
			t.Errorf("ParseUp(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseUp("x"); err == nil {
		t.Error("ParseUp(x): no error")
	}
}

func TestDetectUnit(t *testing.T) {
	c := synthClip(t)
	for _, u := range Units {
		b, err := c.BVH(OrderZYX, u.Metres)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := DetectUnit(b, UpY)
		if !ok || got != u {
			t.Errorf("unit %s: detected %v (height %g units)", u.Name, got, b.Height(UpY))
		}
		c2, info, err := b.ClipWith(ClipOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if info.UnitName != u.Name || info.Up != UpY || math.Abs(info.Height-1.42) > 0.01 {
			t.Errorf("unit %s: info %+v", u.Name, info)
		}
		sameWorld(t, c, c2, 0, 1e-9)
	}
}

// TestClipWithZUp writes the clip Z-up (as Blender and 3ds Max do) and
// reads it back with the axis detected.
func TestClipWithZUp(t *testing.T) {
	c := synthClip(t)
	zc, err := c.Rotated(geom.QuatAxisAngle(geom.V(1, 0, 0), math.Pi/2))
	if err != nil {
		t.Fatal(err)
	}
	b, err := zc.BVH(OrderXYZ, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if up, ok := DetectUp(b); !ok || up != UpZ {
		t.Fatalf("detected up %v, %v", up, ok)
	}
	got, info, err := b.ClipWith(ClipOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Up != UpZ || info.UnitName != "cm" {
		t.Errorf("info %+v", info)
	}
	sameWorld(t, c, got, 0, 1e-9)
	// Unrecognisable names: the skeleton's extent says Z.
	anon := b.Clone()
	for j := range anon.Joints {
		anon.Joints[j].Name = "bone" + itoa(j)
	}
	if up, ok := DetectUp(anon); !ok || up != UpZ {
		t.Errorf("anonymous joints: detected up %v, %v", up, ok)
	}
	// Forced Y up: the skeleton lies on its back.
	flat, _, err := b.ClipWith(ClipOptions{Up: UpY, Unit: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	w := flat.Skeleton.RestWorld()
	head, _ := flat.Skeleton.Index("Head")
	if w[head].T.Y > 0.1 {
		t.Errorf("--up y on a Z-up file: head at %v", w[head].T)
	}
}

// sixChannels gives every joint of b position channels holding its
// offset, and sets the OFFSETs to zero (as some exporters do).
func sixChannels(b *BVH) *BVH {
	out := b.Clone()
	off := b.ChannelOffsets()
	for j := range out.Joints {
		jt := &out.Joints[j]
		if j == 0 {
			continue
		}
		jt.Channels = append([]Channel{Xposition, Yposition, Zposition}, jt.Channels...)
		jt.Offset = geom.Vec3{}
	}
	for f, fr := range b.Frames {
		var nf []float64
		for j, jt := range b.Joints {
			vals := fr[off[j] : off[j]+len(jt.Channels)]
			if j > 0 {
				nf = append(nf, jt.Offset.X, jt.Offset.Y, jt.Offset.Z)
			}
			nf = append(nf, vals...)
		}
		out.Frames[f] = nf
	}
	return out
}

func TestClipSixChannels(t *testing.T) {
	c := synthClip(t)
	b, err := c.BVH(OrderYXZ, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	b6 := sixChannels(b)
	if err := b6.Validate(); err != nil {
		t.Fatal(err)
	}
	got, info, err := b6.ClipWith(ClipOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.UnitName != "cm" || info.Up != UpY {
		t.Errorf("info %+v", info)
	}
	for _, n := range info.Notes {
		if strings.Contains(n, "translates") {
			t.Errorf("note on constant translations: %s", n)
		}
	}
	sameWorld(t, c, got, 0, 1e-9)
}

// TestClipStaticRoot puts a static "Reference" root above the moving hips:
// the hips' translation channels move the whole skeleton.
func TestClipStaticRoot(t *testing.T) {
	c := synthClip(t)
	b, err := c.BVH(OrderZYX, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	r := &BVH{FrameTime: b.FrameTime, Joints: []BVHJoint{{Name: "Reference", Parent: -1, Offset: geom.V(0, 0, 0), Channels: []Channel{}}}}
	for _, jt := range b.Joints {
		jt.Parent++
		r.Joints = append(r.Joints, jt)
	}
	r.Frames = b.Frames
	got, info, err := r.ClipWith(ClipOptions{Unit: 0.01, Up: UpY})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Notes) != 1 || !strings.Contains(info.Notes[0], `"Hips" translates over the clip: the whole skeleton follows it`) {
		t.Errorf("notes %q", info.Notes)
	}
	sameWorld(t, c, got, 1, 1e-9)
}

// TestRetargetARest retargets the clip and the same motion stored with an
// A-pose rest (the left arm's rest turned down 45°, its rotations
// compensated) onto another rig: the rig's joints land in the same places.
func TestRetargetARest(t *testing.T) {
	c := synthClip(t)
	sk := c.Skeleton
	arm, _ := sk.Index("LeftArm")
	q := geom.QuatAxisAngle(geom.V(0, 0, 1), -math.Pi/4)
	under := make([]bool, sk.NumJoints())
	joints := sk.Joints()
	for j := range joints {
		if p := joints[j].Parent; p == arm || (p >= 0 && under[p]) {
			under[j] = true
			joints[j].Rest.T = q.Rotate(joints[j].Rest.T)
		}
	}
	ask, err := skel.NewSkeleton(joints)
	if err != nil {
		t.Fatal(err)
	}
	a := &Clip{Skeleton: ask, FPS: c.FPS}
	for _, p := range c.Poses {
		p = p.Clone()
		for j := range p.Rot {
			switch {
			case j == arm:
				p.Rot[j] = p.Rot[j].Mul(q.Conj())
			case under[j]:
				p.Rot[j] = q.Mul(p.Rot[j]).Mul(q.Conj())
			}
		}
		a.Poses = append(a.Poses, p)
	}
	sameWorld(t, c, a, 0, 1e-12)
	dst := cmuSkeleton(t, func(s string) string { return "mixamorig:" + s })
	m, _, _ := AutoMap(sk, dst)
	opts := RetargetOptions{Names: m}
	rt, err := Retarget(c, dst, opts)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := Retarget(a, dst, opts)
	if err != nil {
		t.Fatal(err)
	}
	sameWorld(t, rt, ra, 0, 1e-9)
}

func TestClipWithWalk(t *testing.T) {
	b := readAsset(t, "02_01_walk.bvh")
	want, err := b.Clip(CMUUnit)
	if err != nil {
		t.Fatal(err)
	}
	got, info, err := b.ClipWith(ClipOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.UnitName != "cmu" || info.Up != UpY {
		t.Errorf("info %+v", info)
	}
	sameWorld(t, want, got, 0, 0)
}

// TestClipWithInvalid: a BVH built by hand with a bad parent or short
// frames is an error, and the detectors do not panic on it.
func TestClipWithInvalid(t *testing.T) {
	c := synthClip(t)
	b, err := c.BVH(OrderZYX, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	bad := b.Clone()
	bad.Joints[3].Parent = 40
	bad.Frames[1] = bad.Frames[1][:5]
	if _, _, err := bad.ClipWith(ClipOptions{}); err == nil {
		t.Error("no error")
	}
	DetectUp(bad)
	DetectUnit(bad, UpZ)
	if h := bad.Height(UpY); !(h > 0) {
		t.Errorf("height %g", h)
	}
}
