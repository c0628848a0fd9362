package sim_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// ExampleSimulator feeds poses to a simulator one frame at a time, as a
// game loop or a live mocap stream would: settle into the first pose, then
// one Step per pose.
func ExampleSimulator() {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 10})
	if err != nil {
		panic(err)
	}
	simr, err := sim.New(s.Character, s.Garments, sim.Options{FPS: s.Clip.FPS})
	if err != nil {
		panic(err)
	}
	defer simr.Close()
	ctx := context.Background()
	var frame sim.Frame // reused every frame: Step allocates nothing for it
	if _, err := simr.SettleTo(ctx, s.Clip.Poses[0], sim.SettleOptions{}, &frame); err != nil {
		panic(err)
	}
	for _, pose := range s.Clip.Poses[1:] { // poses as they arrive
		if err := simr.Step(ctx, pose, &frame); err != nil {
			panic(err)
		}
		// Draw frame.X here: one slice of positions per piece.
	}
	fmt.Printf("%d pieces, frame %d, stretch under 10%%: %v\n", len(frame.X), frame.Stats.Frame, frame.Stats.MaxStretch < 0.1)
	// Output: 2 pieces, frame 10, stretch under 10%: true
}

// elbowPose returns the procedural elbow-bend clip's pose with the elbows
// bent by 85° (arms hanging).
func elbowPose(t *testing.T, sk *skel.Skeleton) skel.Pose {
	t.Helper()
	poses := procedural.ElbowBend(sk, 1, 30)
	return poses[9] // (1 − cos(0.6π))/2 · 130°
}

// TestSettleTo settles the coarse procedural suit into bent elbows: the
// garments come to rest, within the strain limit and (nearly all) out of
// the body, and one and two workers give the same positions bit for bit.
func TestSettleTo(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	pose := elbowPose(t, s.Character.Skeleton)
	var runs [2]sim.Frame
	for k := range runs {
		simr, err := sim.New(s.Character, s.Garments, sim.Options{Workers: k + 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := simr.SettleTo(context.Background(), pose, sim.SettleOptions{}, &runs[k])
		simr.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("converged %v after %.2f s (%d frames): %.2g J/kg, fastest %.3f m/s, drift %.4f m/s, stretch %.3f, %d deep", res.Converged, res.Time, res.Frames, res.KineticEnergy, res.MaxSpeed, res.Drift, res.Stats.MaxStretch, res.Stats.Deep)
		if !res.Converged {
			t.Errorf("did not settle in %.1f s", res.Time)
		}
		if res.Stats.MaxStretch > 0.1 {
			t.Errorf("max stretch %.3f > 10 %%", res.Stats.MaxStretch)
		}
		// At most 1 % of the vertices more than 2 mm inside: the coarse
		// sleeve caught in the inner elbow's fold leaves a few (4 of 713
		// at 85°).
		if verts := len(runs[k].X[0]) + len(runs[k].X[1]); res.Stats.Deep > verts/100 {
			t.Errorf("%d of %d vertices more than 2 mm inside the body", res.Stats.Deep, verts)
		}
	}
	for p := range runs[0].X {
		for v, x := range runs[0].X[p] {
			if y := runs[1].X[p][v]; x != y {
				t.Fatalf("piece %d vertex %d: %v with one worker, %v with two", p, v, x, y)
			}
		}
	}
}

// TestStepBadPose checks that Step and SettleTo refuse poses that do not
// fit the skeleton or are not finite, naming what is wrong.
func TestStepBadPose(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	simr, err := sim.New(s.Character, s.Garments, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer simr.Close()
	good := s.Clip.Poses[0]
	short := skel.Pose{Root: good.Root, Rot: good.Rot[:3]}
	nan := skel.Pose{Root: geom.V(math.NaN(), 0, 0), Rot: good.Rot}
	bad := skel.Pose{Root: good.Root, Rot: append([]geom.Quat(nil), good.Rot...)}
	bad.Rot[1] = geom.Quat{W: math.Inf(1)}
	for _, tc := range []struct {
		name string
		pose skel.Pose
	}{{"short", short}, {"nan root", nan}, {"inf rotation", bad}} {
		if err := simr.Step(context.Background(), tc.pose, nil); err == nil {
			t.Errorf("%s: Step accepted it", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
		if _, err := simr.SettleTo(context.Background(), tc.pose, sim.SettleOptions{}, nil); err == nil {
			t.Errorf("%s: SettleTo accepted it", tc.name)
		}
	}
	if _, err := simr.SettleTo(context.Background(), good, sim.SettleOptions{MaxTime: -1}, nil); err == nil {
		t.Error("SettleTo accepted a negative time limit")
	}
}

// TestPreparedShared builds simulators from one Prepared on two goroutines
// at once and settles each: both give the positions a simulator from New
// gives, bit for bit (a Prepared is read-only once made).
func TestPreparedShared(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	pose := elbowPose(t, s.Character.Skeleton)
	so := sim.SettleOptions{MaxTime: 0.4}
	settle := func(simr *sim.Simulator, out *sim.Frame) error {
		defer simr.Close()
		_, err := simr.SettleTo(context.Background(), pose, so, out)
		return err
	}
	var want sim.Frame
	simr, err := sim.New(s.Character, s.Garments, sim.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := settle(simr, &want); err != nil {
		t.Fatal(err)
	}
	p, err := sim.Prepare(s.Character, s.Garments, sim.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got [2]sim.Frame
	errs := make(chan error, 2)
	for k := range got {
		go func() {
			simr, err := p.New()
			if err == nil {
				err = settle(simr, &got[k])
			}
			errs <- err
		}()
	}
	for range got {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for k := range got {
		for i := range want.X {
			for v, x := range want.X[i] {
				if y := got[k].X[i][v]; x != y {
					t.Fatalf("simulator %d, piece %d vertex %d: %v, want %v", k, i, v, y, x)
				}
			}
		}
	}
}

// TestKeepTargets checks that Run records the targets of the attached
// loops and of the user's pins (a patch of the shirt's front) every frame,
// in Piece.Attach then Pins order, and that each held vertex ends its frame
// near its target (the pins are stiff springs).
func TestKeepTargets(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 4})
	if err != nil {
		t.Fatal(err)
	}
	shirt := *s.Garments[0]
	if shirt.Name != "shirt" {
		t.Fatalf("garment 0 is %s", shirt.Name)
	}
	shirt.Pins = nil
	for v, p := range shirt.Mesh.Verts {
		if p.Z > 0 && math.Abs(p.X) < 0.03 && p.Y > 1.1 && p.Y < 1.2 {
			shirt.Pins = append(shirt.Pins, int32(v))
		}
	}
	if len(shirt.Pins) == 0 {
		t.Fatal("no shirt vertices to pin")
	}
	s.Garments[0] = &shirt
	res, err := sim.Run(context.Background(), s, sim.Options{KeepTargets: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Targets) != len(res.Pieces) {
		t.Fatalf("targets of %d pieces, want %d", len(res.Targets), len(res.Pieces))
	}
	worst := 0.0
	for i, p := range res.Pieces {
		if len(res.Targets[i]) != res.NumFrames() {
			t.Fatalf("piece %d: targets of %d frames, want %d", i, len(res.Targets[i]), res.NumFrames())
		}
		for f, tg := range res.Targets[i] {
			held := slices.Concat(p.Attach, p.Pins)
			if len(tg) != len(held) {
				t.Fatalf("piece %d frame %d: %d targets for %d attached vertices", i, f, len(tg), len(held))
			}
			for k, v := range held {
				worst = max(worst, tg[k].Dist(res.Frames[i][f][v]))
			}
		}
	}
	pins := 0
	for _, p := range res.Pieces {
		pins += len(p.Pins)
	}
	if pins != len(shirt.Pins) {
		t.Errorf("%d pinned piece vertices for %d garment pins", pins, len(shirt.Pins))
	}
	t.Logf("attached and %d pinned vertices at most %.2f mm from their targets", pins, worst*1000)
	if worst > 0.01 {
		t.Errorf("an attached vertex ends %.1f mm from its target", worst*1000)
	}
}
