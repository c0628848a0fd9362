package wrinkle

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/skel"
)

const deg = math.Pi / 180

// endMove returns how joint moves (world) when the role alone goes from
// angles 0 (the anatomical neutral: arms hanging, legs straight down, the
// straight limb for hinges) to a.
func endMove(t *testing.T, rig *Rig, role Role, a DoFs, joint int) geom.Vec3 {
	t.Helper()
	at := func(a DoFs) geom.Vec3 {
		p := skel.RestPose(rig.Skeleton)
		must(t, rig.SetRole(&p, role, a))
		return skel.FK(rig.Skeleton, p, nil)[joint].T
	}
	return at(a).Sub(at(DoFs{}))
}

// checkAnatomy checks that positive angles move each limb the anatomical
// way on any rig, whatever its rest pose.
func checkAnatomy(t *testing.T, rig *Rig) {
	F, U, L := rig.Forward, rig.Up, rig.Left
	end := func(r Role) int { return rig.Roles[r].End }
	tests := []struct {
		name  string
		role  Role
		a     DoFs
		joint int
		dir   geom.Vec3 // the joint must move this way
	}{
		{"left elbow flexes forward", LeftElbow, DoFs{60 * deg}, end(LeftElbow), F},
		{"right elbow flexes forward", RightElbow, DoFs{60 * deg}, end(RightElbow), F},
		{"left knee flexes backward", LeftKnee, DoFs{60 * deg}, end(LeftKnee), F.Neg()},
		{"right knee flexes backward", RightKnee, DoFs{60 * deg}, end(RightKnee), F.Neg()},
		{"left shoulder flexes forward", LeftShoulder, DoFs{45 * deg, 0, 0}, end(LeftShoulder), F},
		{"right shoulder flexes forward", RightShoulder, DoFs{45 * deg, 0, 0}, end(RightShoulder), F},
		{"left shoulder abducts outward", LeftShoulder, DoFs{0, 30 * deg, 0}, end(LeftShoulder), L},
		{"right shoulder abducts outward", RightShoulder, DoFs{0, 30 * deg, 0}, end(RightShoulder), L.Neg()},
		{"left shoulder abducts up past horizontal", LeftShoulder, DoFs{0, 120 * deg, 0}, end(LeftShoulder), U},
		{"left hip flexes forward", LeftHip, DoFs{45 * deg, 0, 0}, end(LeftHip), F},
		{"left hip abducts outward", LeftHip, DoFs{0, 30 * deg, 0}, end(LeftHip), L},
		{"right hip abducts outward", RightHip, DoFs{0, 30 * deg, 0}, end(RightHip), L.Neg()},
		{"spine flexes forward", Spine, DoFs{30 * deg, 0, 0}, end(Spine), F},
		{"spine bends left", Spine, DoFs{0, 30 * deg, 0}, end(Spine), L},
		{"spine twists left", Spine, DoFs{0, 0, 30 * deg}, rig.Roles[LeftShoulder].Chain[0], F.Neg()},
	}
	for _, tc := range tests {
		d := endMove(t, rig, tc.role, tc.a, tc.joint)
		if d.Len() < 1e-3 || d.Unit().Dot(tc.dir) < 0.5 {
			t.Errorf("%s: joint moved %v, not along %v", tc.name, d, tc.dir)
		}
	}
	// Internal rotation: with the elbow bent 90°, positive shoulder twist
	// turns the forearm towards the body's midline or down.
	for _, side := range []struct{ sh, el Role }{{LeftShoulder, LeftElbow}, {RightShoulder, RightElbow}} {
		p := skel.RestPose(rig.Skeleton)
		must(t, rig.SetRole(&p, side.el, DoFs{90 * deg}))
		before := skel.FK(rig.Skeleton, p, nil)[rig.Roles[side.el].End].T
		must(t, rig.SetRole(&p, side.sh, DoFs{0, 0, 30 * deg}))
		after := skel.FK(rig.Skeleton, p, nil)[rig.Roles[side.el].End].T
		d := after.Sub(before)
		medialOrDown := L.Scale(-side.sh.Side()).Add(U.Neg()).Unit()
		if d.Unit().Dot(medialOrDown) < 0.3 {
			t.Errorf("%s positive twist moves the hand %v, not medially or down", side.sh, d)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRigProcedural(t *testing.T) {
	f := getFixture(t)
	rig := f.rig
	if rig.Names.Name != "cmu" {
		t.Errorf("preset %q, want cmu", rig.Names.Name)
	}
	for _, c := range []struct {
		name      string
		got, want geom.Vec3
	}{{"left", rig.Left, geom.V(1, 0, 0)}, {"up", rig.Up, geom.V(0, 1, 0)}, {"forward", rig.Forward, geom.V(0, 0, 1)}} {
		if c.got.Dot(c.want) < 0.99 {
			t.Errorf("%s axis %v, want about %v", c.name, c.got, c.want)
		}
	}
	if n := len(rig.Roles[Spine].Chain); n != 3 {
		t.Errorf("spine chain of %d joints, want 3", n)
	}
	checkAnatomy(t, rig)
}

func TestRigAnglesRoundTrip(t *testing.T) {
	rig := getFixture(t).rig
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 200; i++ {
		role := Role(r.IntN(int(NumRoles)))
		var a DoFs
		for d := 0; d < role.NumDoF(); d++ {
			a[d] = (r.Float64()*2 - 1) * 80 * deg
		}
		p := skel.RestPose(rig.Skeleton)
		// A moved parent must not change the role's angles.
		if par := rig.Skeleton.Parent(rig.Roles[role].Chain[0]); par >= 0 {
			p.Rot[par] = geom.QuatAxisAngle(geom.V(r.NormFloat64(), r.NormFloat64(), r.NormFloat64()), 0.7)
		}
		p.Root = geom.V(0.1, 0.2, 0.3)
		must(t, rig.SetRole(&p, role, a))
		got, err := rig.Angles(role, p)
		must(t, err)
		for d := range a {
			if math.Abs(got[d]-a[d]) > 1e-9 {
				t.Fatalf("%s: angles %v, set %v", role, got, a)
			}
		}
	}
}

// renamed returns sk with joints renamed by f.
func renamed(t *testing.T, sk *skel.Skeleton, f func(string) string) *skel.Skeleton {
	js := sk.Joints()
	for i := range js {
		js[i].Name = f(js[i].Name)
	}
	out, err := skel.NewSkeleton(js)
	must(t, err)
	return out
}

func TestRigMixamoNames(t *testing.T) {
	f := getFixture(t)
	spine := map[string]string{"LowerBack": "Spine", "Spine": "Spine1", "Spine1": "Spine2"}
	sk := renamed(t, f.body.Skeleton, func(n string) string {
		if s, ok := spine[n]; ok {
			n = s
		}
		return "mixamorig:" + n
	})
	rig, err := Bind(sk, nil)
	must(t, err)
	if rig.Names.Name != "mixamo" || rig.Names.Roles[LeftElbow].Chain[0] != "mixamorig:LeftForeArm" {
		t.Errorf("bound by %q: %v", rig.Names.Name, rig.Names.Roles[LeftElbow])
	}
	for r := range rig.Roles {
		a, b := rig.Roles[r].Axis, f.rig.Roles[r].Axis
		if a[0].Dist(b[0]) > 1e-12 || a[1].Dist(b[1]) > 1e-12 {
			t.Errorf("%s axes differ from the CMU-named rig", Role(r))
		}
	}
}

func TestRigErrors(t *testing.T) {
	f := getFixture(t)
	sk := renamed(t, f.body.Skeleton, func(n string) string {
		if n == "LeftForeArm" {
			return "LeftLowerArm"
		}
		return n
	})
	_, err := Bind(sk, nil)
	var re *RigError
	if !errors.As(err, &re) || re.Role != LeftShoulder {
		t.Errorf("missing LeftForeArm: %v, want a RigError for left_shoulder", err)
	}
	m := Presets[0]
	m.Roles[Spine] = RoleNames{Chain: []string{"Spine1", "LowerBack"}, End: "Neck"}
	if _, err := Bind(f.body.Skeleton, &m); !errors.As(err, &re) || re.Role != Spine {
		t.Errorf("reversed spine chain: %v", err)
	}
	m = Presets[0]
	m.Roles[LeftElbow].End = "RightHand"
	if _, err := Bind(f.body.Skeleton, &m); !errors.As(err, &re) || re.Role != LeftElbow {
		t.Errorf("end outside the chain: %v", err)
	}
	p := skel.RestPose(f.rig.Skeleton)
	if err := f.rig.SetRole(&p, LeftElbow, DoFs{math.NaN()}); err == nil {
		t.Error("NaN angle accepted")
	}
	p.Rot = p.Rot[:3]
	if _, err := f.rig.Angles(LeftElbow, p); err == nil {
		t.Error("short pose accepted")
	}
}

func TestRigMakeHuman(t *testing.T) {
	dir := assetsDir(t)
	for _, rigName := range []string{"cmu_mb", "default"} {
		opt, err := character.FindMakeHuman(dir+"/makehuman", rigName)
		must(t, err)
		ch, err := character.LoadMakeHuman(opt)
		must(t, err)
		rig, err := Bind(ch.Skeleton, nil)
		must(t, err)
		t.Logf("%s: preset %s, left %v up %v forward %v", rigName, rig.Names.Name, rig.Left, rig.Up, rig.Forward)
		if rig.Forward.Dot(geom.V(0, 0, 1)) < 0.99 || rig.Left.Dot(geom.V(1, 0, 0)) < 0.99 {
			t.Errorf("%s: body axes %v %v", rigName, rig.Left, rig.Forward)
		}
		checkAnatomy(t, rig)
		// A-pose: the bent elbow brings the forearm forward and up, from
		// the rest pose as from the straight arm.
		for _, el := range []Role{LeftElbow, RightElbow} {
			rj := rig.Roles[el]
			t.Logf("%s: %s rest flexion %.1f°", rigName, el, rj.RestFlex/deg)
			p := skel.RestPose(rig.Skeleton)
			must(t, rig.SetRole(&p, el, DoFs{rj.RestFlex + 45*deg}))
			d := skel.FK(rig.Skeleton, p, nil)[rj.End].T.Sub(rig.restW[rj.End].T)
			if d.Dot(rig.Forward) <= 0 || d.Dot(rig.Up) <= 0 {
				t.Errorf("%s: %s 45° past rest moves the hand %v, not forward and up", rigName, el, d)
			}
		}
	}
}

// checkNeutral checks that a ball joint's zero angles put its bone along
// the anatomical neutral (arms hanging, legs down, spine up) whatever the
// rig's rest pose, and that the rest pose reads the shoulder abduction
// want (degrees; T-pose 90).
func checkNeutral(t *testing.T, name string, rig *Rig, wantAbduct, tol float64) {
	t.Helper()
	for _, role := range []Role{Spine, LeftShoulder, RightShoulder, LeftHip, RightHip} {
		rj := rig.Roles[role]
		want := rig.Up.Neg()
		if role == Spine {
			want = rig.Up
		}
		p := skel.RestPose(rig.Skeleton)
		must(t, rig.SetRole(&p, role, DoFs{}))
		fk := skel.FK(rig.Skeleton, p, nil)
		if d := fk[rj.End].T.Sub(fk[rj.Chain[0]].T).Unit(); d.Dot(want) < 1-1e-9 {
			t.Errorf("%s: %s at zero angles points %v, want %v", name, role, d, want)
		}
	}
	for _, role := range []Role{LeftShoulder, RightShoulder} {
		a, err := rig.Angles(role, skel.RestPose(rig.Skeleton))
		must(t, err)
		if math.Abs(a[1]/deg-wantAbduct) > tol || math.Abs(a[0]/deg) > tol || math.Abs(a[2]/deg) > tol {
			t.Errorf("%s: %s rest angles %.1f°, want abduction %.0f±%.0f°", name, role, []float64{a[0] / deg, a[1] / deg, a[2] / deg}, wantAbduct, tol)
		}
	}
}

func TestRigNeutral(t *testing.T) {
	checkNeutral(t, "mannequin (T-pose)", getFixture(t).rig, 90, 1)
	if assets.Dir() == "" {
		t.Skip("PLEAT_ASSETS is not set: skipping the MakeHuman A-pose")
	}
	opt, err := character.FindMakeHuman(assets.Dir()+"/makehuman", "cmu_mb")
	must(t, err)
	ch, err := character.LoadMakeHuman(opt)
	must(t, err)
	rig, err := Bind(ch.Skeleton, nil)
	must(t, err)
	checkNeutral(t, "MakeHuman (A-pose)", rig, 40, 3)
}
