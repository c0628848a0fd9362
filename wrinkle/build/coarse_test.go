package build

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/wrinkle"
)

// elbowSpecJSON has three samples: the left elbow at 0, 45 and 90 degrees.
const elbowSpecJSON = `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 45}}]}`

// coarseOptions refine the 700-vertex procedural suit to 2000 vertices and
// settle each sample on the suit as given (Coarse 500 does not refine it)
// first.
func coarseOptions(jobs, shard, shards int) Options {
	return Options{Sim: sim.Options{TargetVerts: 2000}, Coarse: 500, Settle: quickSettle, Jobs: jobs, Shard: shard, Shards: shards}
}

// buildCoarse builds elbowSpecJSON with opt in dir and returns the database
// bytes and the run's summary.
func buildCoarse(t *testing.T, dir string, opt Options) ([]byte, Summary) {
	t.Helper()
	return buildSpec(t, dir, elbowSpecJSON, opt)
}

// TestCoarseToFine builds a small spec with the coarse-to-fine settle on
// one machine (two jobs) and as two shards (one and two jobs): the merged
// shards must equal the one-machine build byte for byte, every sample must
// have run both stages and stay within the strain limit's reach, and the
// header must record the coarse stage.
func TestCoarseToFine(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 6 samples twice")
	}
	dir := t.TempDir()
	one, sum := buildCoarse(t, dir, coarseOptions(2, 0, 1))
	for _, r := range sum.Samples {
		if r.CoarseSteps == 0 || r.Stats.Steps == 0 {
			t.Errorf("sample %d: %d coarse and %d fine frames, want both", r.Sample.Index, r.CoarseSteps, r.Stats.Steps)
		}
		// The build's strain limit is 10 %; the worst edge settles near it.
		if !(r.Stats.MaxStrain > 0 && r.Stats.MaxStrain < 0.2) {
			t.Errorf("sample %d: max strain %g, want within (0, 0.2)", r.Sample.Index, r.Stats.MaxStrain)
		}
	}
	var shards []*bytes.Reader
	for i, jobs := range []int{1, 2} {
		sub := filepath.Join(dir, "shard", string(rune('0'+i)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		data, _ := buildCoarse(t, sub, coarseOptions(jobs, i, 2))
		shards = append(shards, bytes.NewReader(data))
	}
	var merged bytes.Buffer
	if err := wrinkle.Merge(&merged, shards[1], shards[0]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(merged.Bytes(), one) {
		t.Fatalf("merged shards (%d bytes) differ from the one-machine build (%d bytes)", merged.Len(), len(one))
	}
	db, err := wrinkle.Read(bytes.NewReader(one))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		CoarseVerts int    `json:"coarse_verts"`
		Start       string `json:"start"`
	}
	if err := json.Unmarshal(db.Header.Settings, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.CoarseVerts != 500 || !strings.Contains(rec.Start, "carried over") {
		t.Errorf("header settings %s do not record the coarse stage", db.Header.Settings)
	}
	for i := range db.Samples {
		x, err := db.Positions(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		for v, p := range x {
			if !p.IsFinite() {
				t.Fatalf("sample %d vertex %d: %v", i, v, p)
			}
		}
	}
}

// TestCoarseOff checks when the coarse stage is off: by default without
// refinement or below DefaultCoarseMinVerts, for CoarseAuto without
// refinement, and when asked for one not coarser than the samples'.
func TestCoarseOff(t *testing.T) {
	sc := coarseScene(t)
	spec := parseSpec(t, elbowSpecJSON)
	b, err := New(sc.Character, sc.Garments, spec, Options{Settle: quickSettle})
	if err != nil {
		t.Fatal(err)
	}
	if b.coarse != nil || strings.Contains(string(b.Build().Header().Settings), "coarse_verts") {
		t.Errorf("coarse stage without refinement: settings %s", b.Build().Header().Settings)
	}
	for _, opt := range []Options{{Sim: sim.Options{TargetVerts: 2000}}, {Coarse: CoarseAuto}} {
		opt.Settle = quickSettle
		b, err := New(sc.Character, sc.Garments, spec, opt)
		if err != nil {
			t.Fatal(err)
		}
		if b.coarse != nil {
			t.Errorf("Coarse %d, TargetVerts %d: coarse stage of %d vertices, want none", opt.Coarse, opt.Sim.TargetVerts, b.coarse.verts)
		}
	}
	_, err = New(sc.Character, sc.Garments, spec, Options{Sim: sim.Options{TargetVerts: 1000}, Coarse: 900, Settle: quickSettle})
	if err == nil || !strings.Contains(err.Error(), "not at most half as fine") {
		t.Errorf("coarse stage as fine as the samples: %v", err)
	}
}

// TestStartPosed checks StartPosed's refusals and that a simulator started
// posed settles in place.
func TestStartPosed(t *testing.T) {
	sc := coarseScene(t)
	b, err := New(sc.Character, sc.Garments, parseSpec(t, elbowSpecJSON), Options{Settle: quickSettle})
	if err != nil {
		t.Fatal(err)
	}
	pose, err := b.Build().SamplePose(2)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := b.Settle(context.Background(), 2)
	if err != nil {
		t.Fatal(err)
	}
	posed := make([][]geom.Vec3, len(b.pieces))
	for i, off := range b.pieces {
		end := b.verts
		if i+1 < len(b.pieces) {
			end = b.pieces[i+1]
		}
		posed[i] = x[off:end]
	}
	sm, err := b.prep.New()
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	if err := sm.StartPosed(pose, posed[:len(posed)-1]); err == nil || !strings.Contains(err.Error(), "pieces") {
		t.Errorf("StartPosed with a piece short: %v", err)
	}
	bad := make([][]geom.Vec3, len(posed))
	for i, p := range posed {
		bad[i] = slices.Clone(p)
	}
	bad[0][5].Y = math.Inf(1)
	if err := sm.StartPosed(pose, bad); err == nil || !strings.Contains(err.Error(), "vertex 5 is not finite") {
		t.Errorf("StartPosed with Inf: %v", err)
	}
	if err := sm.StartFrom(b.start); err != nil {
		t.Fatal(err)
	}
	if err := sm.StartPosed(pose, posed); err != nil {
		t.Fatal(err)
	}
	opt := quickSettle
	opt.Transition = 1e-9
	var fr sim.Frame
	sr, err := sm.SettleTo(context.Background(), pose, opt, &fr)
	if err != nil {
		t.Fatal(err)
	}
	// Started from its own settled shape, the garment stays there: within
	// the contacts' buzz and the settle's drift (a few millimetres).
	worst := 0.0
	for i, p := range fr.X {
		for v, q := range p {
			worst = max(worst, q.Dist(posed[i][v]))
		}
	}
	t.Logf("moved up to %.2f mm, depth %.2f mm, %d frames", worst*1000, sr.Stats.MaxDepth*1000, sr.Frames)
	if worst > 0.02 || sr.Stats.MaxDepth > 0.002 {
		t.Errorf("settled from its own shape: moved up to %.1f mm, depth %.1f mm", worst*1000, sr.Stats.MaxDepth*1000)
	}
	if err := sm.StartPosed(pose, posed); err == nil || !strings.Contains(err.Error(), "after the simulation started") {
		t.Errorf("StartPosed after SettleTo: %v", err)
	}
}

// TestCoarseVerts checks which coarse stage the options ask for: by
// default a quarter of the refinement from DefaultCoarseMinVerts up and
// none below, CoarseAuto a quarter of any refinement, an explicit count
// as given, and none with NoCoarse whatever else is set.
func TestCoarseVerts(t *testing.T) {
	big, small := DefaultCoarseMinVerts, DefaultCoarseMinVerts-1
	for _, c := range []struct {
		name string
		opt  Options
		want int
	}{
		{"default, refined from the threshold", Options{Sim: sim.Options{TargetVerts: big}}, big / DefaultCoarseRatio},
		{"default, 25k", Options{Sim: sim.Options{TargetVerts: 25000}}, 6250},
		{"default, below the threshold", Options{Sim: sim.Options{TargetVerts: small}}, 0},
		{"default, not refined", Options{}, 0},
		{"auto below the threshold", Options{Sim: sim.Options{TargetVerts: 6000}, Coarse: CoarseAuto}, 1500},
		{"auto, not refined", Options{Coarse: CoarseAuto}, 0},
		{"explicit", Options{Sim: sim.Options{TargetVerts: 6000}, Coarse: 2000}, 2000},
		{"off", Options{Sim: sim.Options{TargetVerts: 25000}, NoCoarse: true}, 0},
		{"off beats explicit", Options{Sim: sim.Options{TargetVerts: 25000}, Coarse: 5000, NoCoarse: true}, 0},
	} {
		if got := coarseVerts(c.opt); got != c.want {
			t.Errorf("%s: coarse stage of %d vertices, want %d", c.name, got, c.want)
		}
	}
}
