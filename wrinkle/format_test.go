package wrinkle

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

var testSettings = json.RawMessage(`{"solver": "fake", "substeps": 4}`)

func shirtInput(t testing.TB, spec *Spec, shard, shards int) BuildInput {
	f := getFixture(t)
	base := fakeSettle(f.rig, f.shirt.Mesh, f.shirt.Weights, Sample{Role: Spine})
	return BuildInput{Rig: f.rig, Spec: spec, Name: "shirt", Garment: f.shirt.Mesh, Weights: f.shirt.Weights,
		Base: base, Settings: testSettings, Shard: shard, Shards: shards}
}

func stats(k int) SampleStats {
	return SampleStats{Converged: k%7 != 3, Steps: 100 + k, Residual: 1e-5 * float64(k), MaxStrain: 0.01 * float64(k%5),
		MaxPenetration: 1e-3 * float64(k%3), Penetrating: k % 4}
}

// buildShard builds one shard through a journal, settling its samples in
// reverse order (as parallel workers might finish them).
func buildShard(t testing.TB, in BuildInput) []byte {
	t.Helper()
	b, err := NewBuild(in)
	must(t, err)
	j, err := OpenJournal(filepath.Join(t.TempDir(), "build.pdj"), b)
	must(t, err)
	defer j.Close()
	ks := j.Pending()
	for i := len(ks) - 1; i >= 0; i-- {
		s, _ := in.Spec.Sample(ks[i])
		pos := fakeSettle(in.Rig, in.Garment, in.Weights, s)
		must(t, j.AddCoarse(ks[i], pos, fakeCoarse(in.Coarse, pos), stats(ks[i])))
	}
	var buf bytes.Buffer
	must(t, j.WriteDB(&buf))
	return buf.Bytes()
}

var oneShardCache []byte

func oneMachine(t testing.TB) []byte {
	if oneShardCache == nil {
		oneShardCache = buildShard(t, shirtInput(t, smallSpec(t), 0, 1))
	}
	return oneShardCache
}

func TestRoundTrip(t *testing.T) {
	f := getFixture(t)
	spec := smallSpec(t)
	data := oneMachine(t)
	db, err := Read(bytes.NewReader(data))
	must(t, err)
	t.Logf("%d samples of %d vertices: %d bytes (%.0f per sample, %.2f per vertex-sample)",
		len(db.Samples), len(db.Rest), len(data), float64(len(data))/float64(len(db.Samples)),
		float64(len(data))/float64(len(db.Samples)*len(db.Rest)))
	if len(db.Samples) != spec.NumSamples() || db.Header.Shards != 1 {
		t.Fatalf("%d samples, shards %d", len(db.Samples), db.Header.Shards)
	}
	must(t, db.CheckGarment(f.shirt.Mesh, f.shirt.Weights))
	must(t, db.CheckRig(f.rig))
	must(t, db.CheckSpec(spec))
	var settings map[string]any
	must(t, json.Unmarshal(db.Header.Settings, &settings))
	if settings["solver"] != "fake" {
		t.Errorf("settings %s", db.Header.Settings)
	}
	q := db.Header.Quantum
	worst := 0.0
	var pos []geom.Vec3
	for i, ss := range db.Samples {
		want := fakeSettle(f.rig, f.shirt.Mesh, f.shirt.Weights, ss.Sample)
		pos, err = db.Positions(i, pos)
		must(t, err)
		for _, v := range db.StoredVerts(ss.Role) {
			for c := 0; c < 3; c++ {
				worst = math.Max(worst, math.Abs(pos[v].At(c)-want[v].At(c)))
			}
		}
		// The vertices the role does not influence are the base skinned
		// into the sample's pose.
		p, _ := f.rig.SamplePose(ss.Sample)
		skinned := skel.LBS(db.Base, db.Weights, skel.SkinMatrices(f.rig.Skeleton, p, nil), nil)
		stored := map[int32]bool{}
		for _, v := range db.StoredVerts(ss.Role) {
			stored[v] = true
		}
		for v := range pos {
			if !stored[int32(v)] && pos[v].Dist(skinned[v]) > 1e-9 {
				t.Fatalf("sample %d vertex %d (not stored) at %v, the skinned base at %v", ss.Index, v, pos[v], skinned[v])
			}
		}
		if len(db.StoredVerts(ss.Role)) == 0 && ss.Role != LeftKnee && ss.Role != RightKnee {
			t.Errorf("sample %d (%s) stores no vertices", ss.Index, ss.Role)
		}
		if ss.Stats != stats(ss.Index) {
			t.Errorf("sample %d stats %+v, want %+v", ss.Index, ss.Stats, stats(ss.Index))
		}
	}
	// Quantisation: at most half a step per coordinate (plus rounding).
	t.Logf("worst coordinate error %.3g m (quantum %g m)", worst, q)
	if worst > q/2*(1+1e-9) || worst > 0.1e-3 {
		t.Errorf("worst coordinate error %g m exceeds Quantum/2 = %g", worst, q/2)
	}
	wantReg, _ := NewRegions(f.rig, spec, f.shirt.Mesh, f.shirt.Weights, RegionOptions{})
	if !equalRegions(db.Regions, wantReg) {
		t.Error("regions differ after the round trip")
	}
	if len(db.Tris) != len(f.shirt.Mesh.Tris) || db.Tris[5] != f.shirt.Mesh.Tris[5] || db.Rest[7] != f.shirt.Mesh.Verts[7] {
		t.Error("garment mesh differs after the round trip")
	}
}

func equalRegions(a, b *Regions) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestShardMergeByteIdentical(t *testing.T) {
	spec := smallSpec(t)
	one := oneMachine(t)
	const n = 3
	shards := make([][]byte, n)
	for i := range shards {
		shards[i] = buildShard(t, shirtInput(t, spec, i, n))
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 0, 1}} {
		var rs []*bytes.Reader
		for _, i := range order {
			rs = append(rs, bytes.NewReader(shards[i]))
		}
		var out bytes.Buffer
		must(t, mergeReaders(&out, rs))
		if !bytes.Equal(out.Bytes(), one) {
			t.Fatalf("merge of shards %v (%d bytes) differs from the one-machine build (%d bytes)", order, out.Len(), len(one))
		}
	}
	// Missing or repeated shards.
	var out bytes.Buffer
	if err := mergeReaders(&out, []*bytes.Reader{bytes.NewReader(shards[0]), bytes.NewReader(shards[1])}); err == nil {
		t.Error("merge of 2 of 3 shards succeeded")
	}
	if err := mergeReaders(&out, []*bytes.Reader{bytes.NewReader(shards[0]), bytes.NewReader(shards[1]), bytes.NewReader(shards[1])}); err == nil {
		t.Error("merge with a repeated shard succeeded")
	}
	other := shirtInput(t, spec, 2, n)
	other.Settings = json.RawMessage(`{"solver": "other"}`)
	odd := buildShard(t, other)
	err := mergeReaders(&out, []*bytes.Reader{bytes.NewReader(shards[0]), bytes.NewReader(shards[1]), bytes.NewReader(odd)})
	var me *MismatchError
	if !errors.As(err, &me) || !strings.Contains(me.What, "settings") {
		t.Errorf("merge with other settings: %v, want a settings mismatch", err)
	}
}

func mergeReaders(w *bytes.Buffer, rs []*bytes.Reader) error {
	w.Reset()
	in := make([]io.Reader, len(rs))
	for i, r := range rs {
		in[i] = r
	}
	return Merge(w, in...)
}

func TestDeterministicBuild(t *testing.T) {
	a := oneMachine(t)
	b := buildShard(t, shirtInput(t, smallSpec(t), 0, 1))
	if !bytes.Equal(a, b) {
		t.Error("two builds of the same inputs differ")
	}
}

func TestJournalResume(t *testing.T) {
	in := shirtInput(t, smallSpec(t), 0, 1)
	b, err := NewBuild(in)
	must(t, err)
	path := filepath.Join(t.TempDir(), "build.pdj")
	j, err := OpenJournal(path, b)
	must(t, err)
	add := func(j *Journal, k int) {
		s, _ := in.Spec.Sample(k)
		must(t, j.Add(k, fakeSettle(in.Rig, in.Garment, in.Weights, s), stats(k)))
	}
	for _, k := range []int{5, 0, 17} {
		add(j, k)
	}
	if err := j.Add(5, in.Garment.Verts, SampleStats{}); err == nil {
		t.Error("adding sample 5 twice succeeded")
	}
	must(t, j.Close())
	// A crash in the middle of writing sample 9: half its record on disk.
	rec, err := b.EncodeSample(9, in.Garment.Verts, SampleStats{})
	must(t, err)
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = fh.Write(rec.data[:len(rec.data)/2])
	must(t, err)
	must(t, fh.Close())

	j, err = OpenJournal(path, b)
	must(t, err)
	pend := j.Pending()
	if len(pend) != in.Spec.NumSamples()-3 || j.Done(9) || !j.Done(17) {
		t.Fatalf("after resume: %d pending, done(9)=%v done(17)=%v", len(pend), j.Done(9), j.Done(17))
	}
	for _, k := range pend {
		add(j, k)
	}
	var buf bytes.Buffer
	must(t, j.WriteDB(&buf))
	must(t, j.Close())
	if !bytes.Equal(buf.Bytes(), oneMachine(t)) {
		t.Error("resumed build differs from an uninterrupted one")
	}

	// The journal of another build is refused, naming what differs.
	other := in
	other.Settings = json.RawMessage(`{"solver": "other"}`)
	b2, err := NewBuild(other)
	must(t, err)
	_, err = OpenJournal(path, b2)
	var me *MismatchError
	if !errors.As(err, &me) || me.What != "journal simulator settings" {
		t.Errorf("journal of another build: %v", err)
	}
}

func TestWriteDBIncomplete(t *testing.T) {
	in := shirtInput(t, smallSpec(t), 0, 1)
	b, err := NewBuild(in)
	must(t, err)
	rec, err := b.EncodeSample(0, in.Garment.Verts, SampleStats{})
	must(t, err)
	if err := b.WriteDB(&bytes.Buffer{}, []Record{rec}); err == nil || !strings.Contains(err.Error(), "sample 1") {
		t.Errorf("incomplete WriteDB: %v", err)
	}
}

func TestEncodeSampleErrors(t *testing.T) {
	in := shirtInput(t, smallSpec(t), 1, 2)
	b, err := NewBuild(in)
	must(t, err)
	good := func() []geom.Vec3 { return append([]geom.Vec3(nil), in.Garment.Verts...) }
	nan := good()
	nan[12].Y = math.NaN()
	far := good()
	far[3].X += 2000
	tests := []struct {
		name string
		k    int
		pos  []geom.Vec3
		st   SampleStats
		want string
	}{
		{"other shard", 2, good(), SampleStats{}, "not in shard"},
		{"out of range", 1001, good(), SampleStats{}, "not in shard"},
		{"short", 1, good()[:10], SampleStats{}, "10 positions"},
		{"nan", 1, nan, SampleStats{}, "vertex 12"},
		{"exploded", 1, far, SampleStats{}, "vertex 3"},
		{"nan stat", 1, good(), SampleStats{MaxStrain: math.Inf(1)}, "MaxStrain"},
		{"negative steps", 1, good(), SampleStats{Steps: -1}, "Steps"},
	}
	for _, tc := range tests {
		_, err := b.EncodeSample(tc.k, tc.pos, tc.st)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
	bad := []struct {
		name string
		mod  func(*BuildInput)
		want string
	}{
		{"quantum", func(in *BuildInput) { in.Quantum = 0.01 }, "Quantum"},
		{"shard", func(in *BuildInput) { in.Shard = 2 }, "Shard"},
		{"settings", func(in *BuildInput) { in.Settings = json.RawMessage(`{`) }, "Settings"},
		{"base", func(in *BuildInput) { in.Base = in.Base[:4] }, "Base"},
		{"weights", func(in *BuildInput) { in.Weights = skel.Weights{} }, "weights"},
	}
	for _, tc := range bad {
		in2 := shirtInput(t, smallSpec(t), 0, 1)
		tc.mod(&in2)
		if _, err := NewBuild(in2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}

func TestReadCorrupt(t *testing.T) {
	data := oneMachine(t)
	db, err := Read(bytes.NewReader(data))
	must(t, err)
	headEnd := 12 + 16 + len(db.head)
	garmEnd := headEnd + 16 + len(db.garm)
	regnEnd := garmEnd + 16 + len(db.regn)
	flip := func(i int) []byte {
		b := append([]byte(nil), data...)
		b[i] ^= 0x40
		return b
	}
	tests := []struct {
		name  string
		data  []byte
		field string
	}{
		{"empty", nil, "magic"},
		{"magic", flip(0), "magic"},
		{"journal", append([]byte(magicJournal), data[8:]...), "magic"},
		{"version", flip(8), "version"},
		{"header byte", flip(12 + 12 + 5), "HEAD"},
		{"garment byte", flip(headEnd + 40), "GARM"},
		{"regions byte", flip(garmEnd + 40), "REGN"},
		{"sample byte", flip(regnEnd + 100), "sample record 0"},
		{"end hash", flip(len(data) - 10), "END"},
		{"truncated in header", data[:headEnd-3], "HEAD"},
		{"truncated in a sample", data[:regnEnd+300], "sample record 0"},
		{"truncated before END", data[:len(data)-48], "END"},
		{"truncated in the last sample", data[:len(data)-52], "sample record 52"},
		{"trailing bytes", append(append([]byte(nil), data...), 0), "END"},
	}
	for _, tc := range tests {
		_, err := Read(bytes.NewReader(tc.data))
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want a *FormatError", tc.name, err)
			continue
		}
		if !strings.HasPrefix(fe.Field, tc.field) {
			t.Errorf("%s: field %q, want %q (%v)", tc.name, fe.Field, tc.field, err)
		}
	}
}

func TestReadMismatch(t *testing.T) {
	f := getFixture(t)
	db, err := Read(bytes.NewReader(oneMachine(t)))
	must(t, err)
	var me *MismatchError
	if err := db.CheckGarment(f.trousers.Mesh, f.trousers.Weights); !errors.As(err, &me) || me.What != "garment" {
		t.Errorf("trousers against a shirt database: %v", err)
	}
	moved := f.shirt.Mesh.Clone()
	moved.Verts[0].X += 1e-9
	if err := db.CheckGarment(moved, f.shirt.Weights); !errors.As(err, &me) {
		t.Errorf("moved vertex: %v", err)
	}
	sk := renamed(t, f.body.Skeleton, func(n string) string { return "mixamorig:" + n })
	rig2, err := Bind(sk, nil)
	must(t, err)
	if err := db.CheckRig(rig2); !errors.As(err, &me) || me.What != "rig" {
		t.Errorf("renamed rig: %v", err)
	}
	if err := db.CheckSpec(DefaultSpec()); !errors.As(err, &me) || me.What != "spec" {
		t.Errorf("default spec against a small-spec database: %v", err)
	}
	t.Log(db.CheckGarment(f.trousers.Mesh, f.trousers.Weights))
}

// tinyDB is a small valid database for the fuzzer's seed corpus, with
// coarse samples of three of its vertices when coarse is set.
func tinyDB(t testing.TB, coarse bool) []byte {
	f := getFixture(t)
	m := &mesh.Mesh{Verts: []geom.Vec3{{X: 0.5, Y: 1.3}, {X: 0.6, Y: 1.3}, {X: 0.55, Y: 1.35}, {X: 0.65, Y: 1.35}},
		Tris: [][3]int32{{0, 1, 2}, {1, 3, 2}}}
	j, _ := f.rig.Skeleton.Index("LeftForeArm")
	a, _ := f.rig.Skeleton.Index("LeftArm")
	w := skel.NewWeights([][]skel.Influence{{{Joint: int32(a), W: 1}}, {{Joint: int32(j), W: 1}},
		{{Joint: int32(a), W: 0.5}, {Joint: int32(j), W: 0.5}}, {{Joint: int32(j), W: 1}}})
	spec, err := ParseSpec([]byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
	 {"role": "left_elbow", "flex": {"min": 0, "max": 30, "step": 30}}]}`))
	must(t, err)
	in := BuildInput{Rig: f.rig, Spec: spec, Garment: m, Weights: w}
	if coarse {
		in.Coarse = &CoarseInput{Kept: []int32{0, 1, 3}, Base: []geom.Vec3{m.Verts[0], m.Verts[1], m.Verts[3]}}
	}
	return buildShard(t, in)
}

func FuzzRead(f *testing.F) {
	seed := tinyDB(f, false)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(tinyDB(f, true))
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Read(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		for i := range db.Samples {
			pos, err := db.Positions(i, nil)
			if err != nil {
				continue
			}
			for v, p := range pos {
				if !p.IsFinite() {
					t.Fatalf("sample %d vertex %d: %v", i, v, p)
				}
			}
			if db.Coarse == nil {
				continue
			}
			if pos, err = db.CoarsePositions(i, nil); err != nil {
				continue
			}
			for v, p := range pos {
				if !p.IsFinite() {
					t.Fatalf("sample %d coarse vertex %d: %v", i, v, p)
				}
			}
		}
	})
}

// TestMissingSample: samples recorded as missing round-trip with their
// reason and stats and store no positions: Stored says why, Positions
// fills them in from their stored neighbours' residuals (interpolated
// between two, the nearer one at the end of the grid).
func TestMissingSample(t *testing.T) {
	in := shirtInput(t, smallSpec(t), 0, 1)
	b, err := NewBuild(in)
	must(t, err)
	j, err := OpenJournal(filepath.Join(t.TempDir(), "build.pdj"), b)
	must(t, err)
	defer j.Close()
	elbow, _ := in.Spec.JointOf(LeftElbow)
	first := in.Spec.FirstSample(elbow)
	mid, end := first+2, first+in.Spec.JointSpec(elbow).NumSamples()-1 // 60 and 120 degrees
	for _, k := range j.Pending() {
		if k == mid || k == end {
			must(t, j.AddMissing(k, "did not settle", stats(k)))
			continue
		}
		s, _ := in.Spec.Sample(k)
		must(t, j.Add(k, fakeSettle(in.Rig, in.Garment, in.Weights, s), stats(k)))
	}
	if _, err := b.EncodeMissing(mid, "", SampleStats{}); err == nil {
		t.Error("EncodeMissing with no reason: no error")
	}
	var buf bytes.Buffer
	must(t, j.WriteDB(&buf))
	db, err := Read(bytes.NewReader(buf.Bytes()))
	must(t, err)
	for i, ss := range db.Samples {
		_, err := db.Stored(i, nil)
		if ss.Index == mid || ss.Index == end {
			if ss.Missing != "did not settle" || ss.Stats != stats(ss.Index) || !errors.Is(err, ErrMissing) {
				t.Errorf("missing sample %d: reason %q stats %+v, Stored error %v", ss.Index, ss.Missing, ss.Stats, err)
			}
			continue
		}
		if ss.Missing != "" || err != nil {
			t.Errorf("sample %d: missing %q, Stored error %v", ss.Index, ss.Missing, err)
		}
	}
	resid := func(k int) []geom.Vec3 {
		x, err := db.Stored(k, nil)
		must(t, err)
		p := db.predicted(k)
		for v := range x {
			x[v] = x[v].Sub(p[v])
		}
		return x
	}
	for _, tc := range []struct {
		k    int
		from []int
		w    []float64
	}{{mid, []int{mid - 1, mid + 1}, []float64{0.5, 0.5}}, {end, []int{end - 1}, []float64{1}}} {
		got, err := db.Positions(tc.k, nil)
		must(t, err)
		want := db.predicted(tc.k)
		for n, k := range tc.from {
			r := resid(k)
			for _, v := range db.StoredVerts(LeftElbow) {
				want[v] = want[v].Add(r[v].Scale(tc.w[n]))
			}
		}
		worst := 0.0
		for v := range got {
			worst = math.Max(worst, got[v].Dist(want[v]))
		}
		if worst > 1e-12 {
			t.Errorf("sample %d filled in %g m from %v weighted %v", tc.k, worst, tc.from, tc.w)
		}
	}
	if _, err := NewSynthesizer(db, in.Rig, SynthOptions{Workers: 1}); err != nil {
		t.Errorf("NewSynthesizer of a database with missing samples: %v", err)
	}
}

// TestOldVersion: a version 1 file or journal gives an error that says to
// rebuild.
func TestOldVersion(t *testing.T) {
	data := bytes.Clone(oneMachine(t))
	data[8] = 1
	_, err := Read(bytes.NewReader(data))
	if err == nil || !strings.Contains(err.Error(), "older format") || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("version 1 file: %v", err)
	}
	b, err := NewBuild(shirtInput(t, smallSpec(t), 0, 1))
	must(t, err)
	path := filepath.Join(t.TempDir(), "old.pdj")
	j, err := OpenJournal(path, b)
	must(t, err)
	must(t, j.Close())
	raw, err := os.ReadFile(path)
	must(t, err)
	raw[8] = 1
	must(t, os.WriteFile(path, raw, 0o644))
	if _, err := OpenJournal(path, b); err == nil || !strings.Contains(err.Error(), "journal version") {
		t.Errorf("version 1 journal: %v", err)
	}
}

// fakeCoarse returns a coarse sample's positions for the fine ones pos:
// the kept vertices moved by a few millimetres (nil without c).
func fakeCoarse(c *CoarseInput, pos []geom.Vec3) []geom.Vec3 {
	if c == nil {
		return nil
	}
	out := make([]geom.Vec3, len(c.Kept))
	for i, v := range c.Kept {
		out[i] = pos[v].Add(geom.V(0.002, -0.003*float64(i%3), 0.001))
	}
	return out
}

// withCoarse adds a coarse garment of every third vertex to in.
func withCoarse(in BuildInput) BuildInput {
	c := &CoarseInput{Options: CoarseOptions{Verts: 700}}
	for v := 0; v < len(in.Garment.Verts); v += 3 {
		c.Kept = append(c.Kept, int32(v))
		c.Base = append(c.Base, in.Base[v].Add(geom.V(0, -0.004, 0.001)))
	}
	in.Coarse = c
	return in
}

// TestCoarseSamples: a build with a coarse garment stores it and every
// stored sample's coarse positions (within half the quantum per
// coordinate); shards merge into the one-machine file byte for byte; a
// mismatched coarse garment is named; version 2 files still read, without
// coarse samples.
func TestCoarseSamples(t *testing.T) {
	spec := smallSpec(t)
	in := withCoarse(shirtInput(t, spec, 0, 1))
	one := buildShard(t, in)
	db, err := Read(bytes.NewReader(one))
	must(t, err)
	if db.Coarse == nil || db.Header.Coarse == nil || db.Version != Version {
		t.Fatalf("coarse %v, header %v, version %d: want coarse samples in a version %d file", db.Coarse, db.Header.Coarse, db.Version, Version)
	}
	if !slices.Equal(db.Coarse.Kept, in.Coarse.Kept) || db.Coarse.Info.Budget != 700 || db.Coarse.Info.Verts != len(in.Coarse.Kept) {
		t.Errorf("coarse garment %+v, kept %d vertices: want budget 700 and the input's %d", db.Coarse.Info, len(db.Coarse.Kept), len(in.Coarse.Kept))
	}
	tol := db.Header.Quantum/2 + 1e-12
	near := func(what string, got, want []geom.Vec3) {
		for i := range want {
			d := got[i].Sub(want[i])
			if math.Abs(d.X) > tol || math.Abs(d.Y) > tol || math.Abs(d.Z) > tol {
				t.Fatalf("%s vertex %d: %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	near("coarse base", db.Coarse.Base, in.Coarse.Base)
	var x []geom.Vec3
	for i, ss := range db.Samples {
		if x, err = db.CoarsePositions(i, x); err != nil {
			t.Fatal(err)
		}
		near(fmt.Sprintf("sample %d coarse", ss.Index), x, fakeCoarse(in.Coarse, fakeSettle(in.Rig, in.Garment, in.Weights, ss.Sample)))
	}
	if _, err := db.CoarsePositions(len(db.Samples), nil); err == nil {
		t.Error("coarse positions of a sample out of range: no error")
	}

	const n = 2
	var rs []*bytes.Reader
	for i := n - 1; i >= 0; i-- {
		rs = append(rs, bytes.NewReader(buildShard(t, withCoarse(shirtInput(t, spec, i, n)))))
	}
	var out bytes.Buffer
	must(t, mergeReaders(&out, rs))
	if !bytes.Equal(out.Bytes(), one) {
		t.Errorf("merge of shards with coarse samples (%d bytes) differs from the one-machine build (%d bytes)", out.Len(), len(one))
	}
	rs = []*bytes.Reader{bytes.NewReader(buildShard(t, withCoarse(shirtInput(t, spec, 0, n)))), bytes.NewReader(buildShard(t, shirtInput(t, spec, 1, n)))}
	var me *MismatchError
	if err := mergeReaders(&out, rs); !errors.As(err, &me) || !strings.Contains(me.What, "coarse samples") {
		t.Errorf("merge of a shard with coarse samples and one without: %v, want a coarse samples mismatch", err)
	}

	b, err := NewBuild(in)
	must(t, err)
	k := b.ShardSamples()[0]
	s, _ := spec.Sample(k)
	pos := fakeSettle(in.Rig, in.Garment, in.Weights, s)
	if _, err := b.EncodeSample(k, pos, stats(k)); err == nil || !strings.Contains(err.Error(), "coarse positions") {
		t.Errorf("sample without coarse positions in a build with a coarse garment: %v", err)
	}
	if _, err := b.EncodeSampleCoarse(k, pos, fakeCoarse(in.Coarse, pos)[1:], stats(k)); err == nil {
		t.Error("coarse positions of the wrong length: no error")
	}
	bad := withCoarse(shirtInput(t, spec, 0, 1))
	bad.Coarse.Kept[1] = bad.Coarse.Kept[0]
	if _, err := NewBuild(bad); err == nil || !strings.Contains(err.Error(), "Coarse.Kept[1]") {
		t.Errorf("repeated kept vertex: %v", err)
	}

	// The CRSE section is checked against the header's hash.
	crseAt := 12 + 16 + len(db.head) + 16 + len(db.garm) + 16 + len(db.regn) + 12
	bad2 := bytes.Clone(one)
	bad2[crseAt+2] ^= 0x10
	if _, err := Read(bytes.NewReader(bad2)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "CRSE") {
		t.Errorf("corrupt CRSE byte: %v", err)
	}

	// A version 2 file: no CRSE, no coarse positions in the records.
	plain := shirtInput(t, spec, 0, 1)
	pb, err := NewBuild(plain)
	must(t, err)
	var recs []Record
	for _, k := range pb.ShardSamples() {
		s, _ := spec.Sample(k)
		r, err := pb.EncodeSample(k, fakeSettle(plain.Rig, plain.Garment, plain.Weights, s), stats(k))
		must(t, err)
		recs = append(recs, r)
	}
	var v2 bytes.Buffer
	must(t, pb.WriteDB(&v2, recs))
	body := v2.Bytes()[:v2.Len()-48] // END: tag, length, SHA-256, CRC
	body[8] = 2
	sum := sha256.Sum256(body)
	old, err := Read(bytes.NewReader(appendSection(body, tagEnd, sum[:])))
	must(t, err)
	if old.Version != 2 || old.Coarse != nil {
		t.Errorf("version 2 file: version %d, coarse %v", old.Version, old.Coarse)
	}
	if _, err := old.CoarsePositions(0, nil); err == nil {
		t.Error("coarse positions of a database without coarse samples: no error")
	}
}
