package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// tinySpecJSON has five samples: the left elbow at 0, 45 and 90 degrees
// and the left knee at 0 and 90.
const tinySpecJSON = `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 45}},
 {"role": "left_knee", "flex": {"min": 0, "max": 90, "step": 90}}]}`

// crossedSpecJSON adducts the left hip by 15 degrees: straight, the leg
// passes through the right leg (the procedural mannequin's legs nearly
// touch); flexed 30 degrees, it passes in front of it.
const crossedSpecJSON = `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "left_hip", "flex": {"min": 0, "max": 30, "step": 30}, "abduct": {"min": -15, "max": 0, "step": 15}}]}`

var (
	sceneOnce sync.Once
	tinyScene *scene.Scene
	sceneErr  error
)

// coarseScene is the procedural mannequin with its suit at about 700
// vertices.
func coarseScene(t testing.TB) *scene.Scene {
	t.Helper()
	sceneOnce.Do(func() { tinyScene, sceneErr = scene.Load(scene.Spec{Resolution: 700, Seconds: 0.2}) })
	if sceneErr != nil {
		t.Fatal(sceneErr)
	}
	return tinyScene
}

func parseSpec(t testing.TB, js string) *wrinkle.Spec {
	t.Helper()
	s, err := wrinkle.ParseSpec([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// quickSettle keeps the tests' settles short: 0.2 s into the pose, at most
// 0.6 s in all.
var quickSettle = sim.SettleOptions{Transition: 0.2, MaxTime: 0.6}

// buildFile runs a build (or shard) of tinySpecJSON to completion in dir
// and returns the database bytes.
func buildFile(t *testing.T, dir string, opt Options) []byte {
	t.Helper()
	data, _ := buildSpec(t, dir, tinySpecJSON, opt)
	return data
}

// buildSpec runs a build (or shard) of the spec to completion in dir and
// returns the database bytes and the run's summary.
func buildSpec(t *testing.T, dir, spec string, opt Options) ([]byte, Summary) {
	t.Helper()
	sc := coarseScene(t)
	b, err := New(sc.Character, sc.Garments, parseSpec(t, spec), opt)
	if err != nil {
		t.Fatal(err)
	}
	j, err := wrinkle.OpenJournal(filepath.Join(dir, "build.pdj"), b.Build())
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	sum, err := b.Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := j.WriteDB(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), sum
}

// TestResumeShardMerge builds the tiny spec three ways: on one machine,
// interrupted after its first sample and resumed; and as two shards (one
// and two jobs) merged. The files must be identical byte for byte.
func TestResumeShardMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 10 samples")
	}
	sc := coarseScene(t)
	dir := t.TempDir()
	opt := Options{Settle: quickSettle, Jobs: 2}
	b, err := New(sc.Character, sc.Garments, parseSpec(t, tinySpecJSON), opt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "one.pdj")
	j, err := wrinkle.OpenJournal(path, b.Build())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls []Progress
	b.opt.Progress = func(p Progress) { calls = append(calls, p); cancel() }
	sum, err := b.Run(ctx, j)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err %v, want context.Canceled", err)
	}
	j.Close()
	if len(sum.Samples) == 0 || len(sum.Samples) == 5 {
		t.Fatalf("interrupted run finished %d of 5 samples, want some", len(sum.Samples))
	}
	if p := calls[0]; p.Done != 1 || p.Total != 5 || p.ETA <= 0 {
		t.Errorf("first progress %+v, want 1 of 5 with an ETA", p)
	}

	calls = nil
	b.opt.Progress = func(p Progress) { calls = append(calls, p) }
	if j, err = wrinkle.OpenJournal(path, b.Build()); err != nil {
		t.Fatal(err)
	}
	sum2, err := b.Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Resumed != len(sum.Samples) || sum2.Resumed+len(sum2.Samples) != 5 {
		t.Errorf("resumed run: %d resumed + %d run, first run %d; want 5 in all", sum2.Resumed, len(sum2.Samples), len(sum.Samples))
	}
	if last := calls[len(calls)-1]; last.Done != 5 {
		t.Errorf("last progress %d of %d, want 5", last.Done, last.Total)
	}
	for _, r := range sum2.Samples {
		// The thread's CPU time cannot exceed the wall time it ran for.
		wall := r.Setup + r.Settle + 50*time.Millisecond
		if runtime.GOOS == "linux" && !(r.CPU > 0 && r.CPU <= wall) {
			t.Errorf("sample %d: CPU %v, want more than 0 and at most its wall time %v", r.Sample.Index, r.CPU, wall)
		}
	}
	var one bytes.Buffer
	if err := j.WriteDB(&one); err != nil {
		t.Fatal(err)
	}
	j.Close()

	var shards []*bytes.Reader
	for i, jobs := range []int{1, 2} {
		sub := filepath.Join(dir, "shard", string(rune('0'+i)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, bytes.NewReader(buildFile(t, sub, Options{Settle: quickSettle, Jobs: jobs, Shard: i, Shards: 2})))
	}
	var merged bytes.Buffer
	if err := wrinkle.Merge(&merged, shards[1], shards[0]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(merged.Bytes(), one.Bytes()) {
		t.Fatalf("merged shards (%d bytes) differ from the one-machine build (%d bytes)", merged.Len(), one.Len())
	}
	db, err := wrinkle.Read(&one)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range db.Samples {
		if s.Stats.Steps == 0 || s.Stats.MaxStrain <= 0 {
			t.Errorf("sample %d: stats %+v, want frames and strain", s.Index, s.Stats)
		}
	}
	if !strings.Contains(string(db.Header.Settings), `"settle":{"Transition":0.2`) {
		t.Errorf("header settings %s do not record the settle options", db.Header.Settings)
	}
	if want := fmt.Sprintf(`"Hold":%d`, DefaultHold); !strings.Contains(string(db.Header.Settings), want) {
		t.Errorf("header settings %s do not record the build's hold %s", db.Header.Settings, want)
	}
	var rec struct {
		Sim         sim.Options `json:"sim"`
		StrainRelax float64     `json:"strain_relax"`
		Creases     []string    `json:"creases"`
	}
	if err := json.Unmarshal(db.Header.Settings, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.StrainRelax != DefaultStrainRelax || rec.Sim.StrainLimitRelax != 0 {
		t.Errorf("header settings record strain relaxation %g and sim's %g, want %g beside plain simulator settings",
			rec.StrainRelax, rec.Sim.StrainLimitRelax, DefaultStrainRelax)
	}
	if len(rec.Creases) != 6 || rec.Sim.Creases != nil {
		t.Errorf("header settings record creases %q and sim's %v, want the elbows, knees and hips beside plain simulator settings", rec.Creases, rec.Sim.Creases)
	}
	rig, err := wrinkle.Bind(coarseScene(t).Character.Skeleton, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := SettingsCreases(db, rig.Skeleton); err != nil || !slices.Equal(got, RigCreases(rig)) {
		t.Errorf("SettingsCreases: %v, %v; want the rig's creases %v", got, err, RigCreases(rig))
	}
	if rec.Sim.BodyOverlapMinEdge != DefaultBodyOverlapMinEdge {
		t.Errorf("header settings record a body-overlap edge bound of %g m, want the build's default %g", rec.Sim.BodyOverlapMinEdge, DefaultBodyOverlapMinEdge)
	}
}

// TestPoseCheck checks which samples the pose check finds invalid, before
// any simulation.
func TestPoseCheck(t *testing.T) {
	sc := coarseScene(t)
	for _, tc := range []struct {
		name    string
		spec    string
		tol     float64
		invalid []int
	}{
		{"elbow and knee", tinySpecJSON, 0, nil},
		{"crossed legs", crossedSpecJSON, 0, []int{0}},
		{"crossed legs, check off", crossedSpecJSON, -1, nil},
		{"crossed legs, 10 cm tolerance", crossedSpecJSON, 0.1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(sc.Character, sc.Garments, parseSpec(t, tc.spec), Options{PoseTolerance: tc.tol})
			if err != nil {
				t.Fatal(err)
			}
			reps, err := b.CheckPoses()
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, r := range reps {
				if !r.Valid {
					got = append(got, r.Sample.Index)
				}
			}
			if !equalInts(got, tc.invalid) {
				t.Fatalf("invalid samples %v, want %v", got, tc.invalid)
			}
			if len(tc.invalid) == 0 {
				return
			}
			// Run refuses the spec before simulating, naming the samples.
			j, err := wrinkle.OpenJournal(filepath.Join(t.TempDir(), "x.pdj"), b.Build())
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			_, err = b.Run(context.Background(), j)
			var ip *InvalidPoseError
			if !errors.As(err, &ip) || len(ip.Reports) != len(tc.invalid) || !strings.Contains(err.Error(), "sample 0 (left_hip flex 0° abduct -15°") {
				t.Fatalf("Run: %v, want an InvalidPoseError naming samples %v", err, tc.invalid)
			}
			if len(j.Pending()) != b.Build().Header().Samples {
				t.Errorf("Run simulated samples of a refused spec")
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSampleError checks that a sample the simulator refuses stops the
// build with an error naming it, and that bad options are refused.
func TestSampleError(t *testing.T) {
	sc := coarseScene(t)
	for _, tc := range []struct {
		name string
		opt  Options
		want string // in New's error, or Run's when New succeeds
	}{
		{"settle limit out of range", Options{Settle: sim.SettleOptions{MaxTime: 1e4}}, "build: rest pose: sim: settle time limit"},
		{"negative jobs", Options{Jobs: -1}, "Options.Jobs -1"},
		{"bad shard", Options{Shard: 2, Shards: 2}, "Shard 2 of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(sc.Character, sc.Garments, parseSpec(t, tinySpecJSON), tc.opt)
			if err == nil {
				var j *wrinkle.Journal
				if j, err = wrinkle.OpenJournal(filepath.Join(t.TempDir(), "x.pdj"), b.Build()); err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				b.opt.Jobs = 1
				_, err = b.Run(context.Background(), j)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestSkipMissing: with SkipInvalid the crossed-legs sample is recorded
// as missing without simulation, and with SkipUnsettled a settle cut off
// before it can come to rest is too; the other samples are stored.
func TestSkipMissing(t *testing.T) {
	sc := coarseScene(t)
	for _, tc := range []struct {
		name    string
		spec    string
		opt     Options
		missing []int
	}{
		{"skip invalid", crossedSpecJSON, Options{SkipInvalid: true, Settle: quickSettle}, []int{0}},
		{"skip unsettled", crossedSpecJSON, Options{SkipInvalid: true, SkipUnsettled: true,
			Settle: sim.SettleOptions{Transition: 0.1, MaxTime: 0.1}}, []int{0, 1, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(sc.Character, sc.Garments, parseSpec(t, tc.spec), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "x.pdb")
			sum, err := b.BuildFile(context.Background(), out, filepath.Join(dir, "x.pdj"))
			if err != nil {
				t.Fatal(err)
			}
			if !equalInts(sum.Missing, tc.missing) {
				t.Fatalf("summary missing %v, want %v", sum.Missing, tc.missing)
			}
			db, err := wrinkle.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for i, ss := range db.Samples {
				_, err := db.Stored(i, nil)
				if ss.Missing != "" {
					got = append(got, ss.Index)
					if !errors.Is(err, wrinkle.ErrMissing) {
						t.Errorf("sample %d: Positions error %v", ss.Index, err)
					}
				} else if err != nil {
					t.Errorf("sample %d: %v", ss.Index, err)
				}
			}
			if !equalInts(got, tc.missing) {
				t.Fatalf("database missing %v, want %v", got, tc.missing)
			}
			if !strings.HasPrefix(db.Samples[0].Missing, "pose: sample 0 (left_hip") {
				t.Errorf("reason %q", db.Samples[0].Missing)
			}
		})
	}
}

// TestStartFrom checks that every sample starts from the rest-pose settle
// (a rest-pose sample at once meets the rest criterion again) and that
// sim.Simulator.StartFrom refuses positions that do not fit, or come
// after the simulation started.
func TestStartFrom(t *testing.T) {
	sc := coarseScene(t)
	b, err := New(sc.Character, sc.Garments, parseSpec(t, tinySpecJSON), Options{Settle: quickSettle})
	if err != nil {
		t.Fatal(err)
	}
	if b.RestSettle().Stats.Steps == 0 || len(b.start) == 0 {
		t.Fatalf("no rest settle: %+v", b.RestSettle())
	}
	sm, err := b.prep.New()
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	if err := sm.StartFrom(b.start[:len(b.start)-1]); err == nil || !strings.Contains(err.Error(), "pieces") {
		t.Errorf("StartFrom with a piece short: %v", err)
	}
	bad := make([][]geom.Vec3, len(b.start))
	for i, x := range b.start {
		bad[i] = slices.Clone(x)
	}
	bad[0][3].X = math.NaN()
	if err := sm.StartFrom(bad); err == nil || !strings.Contains(err.Error(), "vertex 3 is not finite") {
		t.Errorf("StartFrom with NaN: %v", err)
	}
	if err := sm.StartFrom(b.start); err != nil {
		t.Fatal(err)
	}
	if _, err := sm.SettleTo(context.Background(), skel.RestPose(sc.Character.Skeleton), quickSettle, nil); err != nil {
		t.Fatal(err)
	}
	if err := sm.StartFrom(b.start); err == nil || !strings.Contains(err.Error(), "after the simulation started") {
		t.Errorf("StartFrom after SettleTo: %v", err)
	}
}

// TestRigCreases checks the creases found on the procedural mannequin's
// rig: each elbow and knee between its shoulder or hip and its wrist or
// ankle, and each hip between the end of the spine and the knee, by the
// rig's roles.
func TestRigCreases(t *testing.T) {
	sc := coarseScene(t)
	rig, err := wrinkle.Bind(sc.Character.Skeleton, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := RigCreases(rig)
	sk := rig.Skeleton
	want := [][3]wrinkle.Role{
		{wrinkle.LeftShoulder, wrinkle.LeftElbow}, {wrinkle.RightShoulder, wrinkle.RightElbow},
		{wrinkle.LeftHip, wrinkle.LeftKnee}, {wrinkle.RightHip, wrinkle.RightKnee},
	}
	if len(got) != len(want)+2 {
		t.Fatalf("%d creases, want %d", len(got), len(want)+2)
	}
	for i, h := range []wrinkle.Role{wrinkle.LeftHip, wrinkle.RightHip} {
		c := got[len(want)+i]
		if c.Proximal != rig.Roles[wrinkle.Spine].End || c.Joint != rig.Roles[h].Chain[0] || c.Distal != rig.Roles[h].End {
			t.Errorf("trunk crease %d: %s/%s/%s, want the end of the spine, the %s and the end of its bone", i,
				sk.Joint(c.Proximal).Name, sk.Joint(c.Joint).Name, sk.Joint(c.Distal).Name, h)
		}
	}
	for i, w := range want {
		c := got[i]
		if c.Proximal != rig.Roles[w[0]].Chain[0] || c.Joint != rig.Roles[w[1]].Chain[0] || c.Distal != rig.Roles[w[1]].End {
			t.Errorf("crease %d: %s/%s/%s, want the %s, %s and the end of its bone", i,
				sk.Joint(c.Proximal).Name, sk.Joint(c.Joint).Name, sk.Joint(c.Distal).Name, w[0], w[1])
		}
	}
	if _, err := skel.NewCreaser(sk, sc.Character.Weights, got); err != nil {
		t.Errorf("the rig's creases: %v", err)
	}
}

// TestCreasesOpenKnee settles the mannequin's left knee bent 150°, where
// its skinned calf passes into its thigh, on the body as skinned and on
// the body flattened at its creases (the default): the trousers caught
// in the overlap come out only on the second.
func TestCreasesOpenKnee(t *testing.T) {
	const spec = `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "left_knee", "flex": {"min": 150, "max": 150, "step": 15}}]}`
	depth := func(noCreases bool) float64 {
		data, _ := buildSpec(t, t.TempDir(), spec, Options{Settle: sim.SettleOptions{Transition: 0.5, MaxTime: 1.5}, NoCreases: noCreases})
		db, err := wrinkle.Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return db.Samples[0].Stats.MaxPenetration
	}
	plain, creased := depth(true), depth(false)
	t.Logf("deepest vertex: %.1f mm on the body as skinned, %.1f mm flattened at its creases", plain*1000, creased*1000)
	if creased > 0.002 || plain < creased+0.003 {
		t.Errorf("deepest vertex %.1f mm on the body as skinned, %.1f mm flattened: want at most 2 mm flattened, 3 mm less than skinned", plain*1000, creased*1000)
	}
}
