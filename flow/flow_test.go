package flow

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/skel"
)

var (
	smallOnce sync.Once
	small     synth
)

// smallSynth is a shared ~2000-vertex, 61-frame synthetic animation.
func smallSynth(t testing.TB) synth {
	smallOnce.Do(func() { small = newSynth(t, 4000, 2) })
	if small.anim.Rest == nil {
		t.Fatal("synthetic animation failed")
	}
	return small
}

func TestQuantizeWeights(t *testing.T) {
	w := skel.NewWeights([][]skel.Influence{
		{{Joint: 3, W: 0.5}, {Joint: 1, W: 0.2}, {Joint: 3, W: 0.1}, {Joint: 2, W: 0.1}, {Joint: 4, W: 0.05}, {Joint: 5, W: 0.05}},
		{{Joint: 0, W: 2}},
		{{Joint: 1, W: 0.5}, {Joint: 0, W: 0.5}},
		{{Joint: 1, W: 1}, {Joint: 2, W: 1e-7}},
	})
	q := QuantizeWeights(w)
	want := [][]int32{{3, 1, 2, 4}, {0}, {0, 1}, {1}}
	for v := range want {
		js, ws := q.Influences(v)
		if len(js) != len(want[v]) {
			t.Fatalf("vertex %d: joints %v, want %v", v, js, want[v])
		}
		sum := 0.0
		for i := range js {
			if js[i] != want[v][i] {
				t.Errorf("vertex %d: joints %v, want %v", v, js, want[v])
			}
			sum += float64(ws[i])
		}
		// float32 weights: the sum is 1 to float32 rounding.
		if math.Abs(sum-1) > 3e-7 {
			t.Errorf("vertex %d: sum %v", v, sum)
		}
	}
	// Vertex 0: 0.6, 0.2, 0.1, 0.05 renormalised over 0.95.
	if _, ws := q.Influences(0); math.Abs(float64(ws[1])-0.2/0.95) > 1/65535.0 {
		t.Errorf("vertex 0 weight 1 = %v, want %v", ws[1], 0.2/0.95)
	}
	q2 := QuantizeWeights(q)
	for i := range q.W {
		if q.W[i] != q2.W[i] || q.Joints[i] != q2.Joints[i] {
			t.Fatalf("QuantizeWeights is not idempotent at %d", i)
		}
	}
}

func TestParseLength(t *testing.T) {
	for _, c := range []struct {
		s    string
		want float64
	}{{"2mm", 0.002}, {"2", 0.002}, {"0.5cm", 0.005}, {"0.002m", 0.002}, {" 1.5 MM", 0.0015}} {
		got, err := ParseLength(c.s)
		if err != nil || math.Abs(got-c.want) > 1e-15 {
			t.Errorf("ParseLength(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
	for _, s := range []string{"", "mm", "-2mm", "0", "abc", "NaN"} {
		if _, err := ParseLength(s); err == nil {
			t.Errorf("ParseLength(%q) succeeded", s)
		}
	}
}

// TestResidualIdentity checks x = M·(r + a) exactly: with every component
// and no quantisation the reconstruction is the input.
func TestResidualIdentity(t *testing.T) {
	s := smallSynth(t)
	a, err := Analyze(s.anim, s.rig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := a.NumFrames()
	if a.Rank != m-1 && a.Rank != m {
		t.Errorf("rank %d, want about %d (noise makes it full)", a.Rank, m-1)
	}
	// Components past the rank are below 1e-5·σ_1 each: sub-micron.
	if a.BindRMS(a.Rank) > 1e-6 {
		t.Errorf("BindRMS(rank) = %g", a.BindRMS(a.Rank))
	}
	// Reconstruct frame 7 from the float64 residual: base + d(7).
	const f = 7
	mats, trans := skinMats(a.sk, a.poses[f])
	row := a.d.RawRowView(f)
	worst := 0.0
	for v, b := range a.base {
		A, bb := blend(a.weights, mats, trans, v)
		p := b.Add(geom.Vec3{X: row[3*v], Y: row[3*v+1], Z: row[3*v+2]})
		x := A.MulVec(p).Add(bb)
		worst = max(worst, x.Dist(s.anim.Frames[f][v]))
	}
	if worst > 1e-12 {
		t.Errorf("M·(base + d) differs from x by %g m", worst)
	}
	// With all components, quantised: error well below 0.1 mm.
	fl, err := a.Flow(a.Rank)
	if err != nil {
		t.Fatal(err)
	}
	if e := Compare(fl.Decompress(), s.anim.Frames); e.RMS > 1e-5 {
		t.Errorf("full-rank quantised flow: RMS %g m, max %g m", e.RMS, e.Max)
	}
}

func TestBadInput(t *testing.T) {
	s := smallSynth(t)
	anim, rig := s.anim, s.rig
	short := anim
	short.Frames = anim.Frames[:len(anim.Frames)-1]
	if _, err := Compress(short, rig, Options{K: 4}); !errors.Is(err, ErrFrameCount) {
		t.Errorf("fewer frames than poses: %v", err)
	}
	bad := anim
	bad.Frames = append([][]geom.Vec3(nil), anim.Frames...)
	bad.Frames[3] = bad.Frames[3][:10]
	_, err := Compress(bad, rig, Options{K: 4})
	if !errors.Is(err, ErrVertexCount) || !strings.Contains(err.Error(), "frame 3") {
		t.Errorf("short frame: %v", err)
	}
	r2 := rig
	r2.Weights = skel.NewWeights(make([][]skel.Influence, 5))
	if _, err := Compress(anim, r2, Options{K: 4, Binding: BindGiven}); !errors.Is(err, ErrVertexCount) {
		t.Errorf("weights for another mesh: %v", err)
	}
	a, err := Analyze(anim, rig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Flow(a.Rank + 1)
	if !errors.Is(err, ErrRank) || !strings.Contains(err.Error(), "rank") {
		t.Errorf("k > rank: %v", err)
	}
	if _, err := Compress(anim, rig, Options{K: len(anim.Frames) + 5}); !errors.Is(err, ErrRank) {
		t.Errorf("k > frames: %v", err)
	}
	nan := anim
	nan.Frames = append([][]geom.Vec3(nil), anim.Frames...)
	nan.Frames[2] = append([]geom.Vec3(nil), anim.Frames[2]...)
	nan.Frames[2][5].X = math.NaN()
	if _, err := Compress(nan, rig, Options{K: 2}); !errors.Is(err, ErrInput) {
		t.Errorf("NaN position: %v", err)
	}
	r3 := rig
	r3.Body = nil
	if _, err := Compress(anim, r3, Options{K: 2}); !errors.Is(err, ErrInput) {
		t.Errorf("no body for nearest binding: %v", err)
	}
}

func TestWriteRead(t *testing.T) {
	s := smallSynth(t)
	f, err := Compress(s.anim, s.rig, Options{K: 6})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != f.Size() {
		t.Errorf("Size %d, wrote %d", f.Size(), buf.Len())
	}
	g, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var buf2 bytes.Buffer
	if err := g.Write(&buf2); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Error("re-written file differs")
	}
	a, b := f.Decompress(), g.Decompress()
	for t0 := range a {
		for v := range a[t0] {
			if a[t0][v] != b[t0][v] {
				t.Fatalf("frame %d vertex %d: %v after reading, %v before", t0, v, b[t0][v], a[t0][v])
			}
		}
	}
	if len(g.UVs) != len(f.UVs) || len(g.UVTris) != len(f.UVTris) {
		t.Errorf("UVs not kept")
	}

	data := buf.Bytes()
	mut := func(fn func(b []byte) []byte) []byte { return fn(append([]byte(nil), data...)) }
	for _, c := range []struct {
		name, field string
		data        []byte
	}{
		{"magic", "magic", mut(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"version", "version", mut(func(b []byte) []byte { b[8] = 2; return b })},
		{"codec", "codec", mut(func(b []byte) []byte { b[10] = 9; return b })},
		{"flipped byte", "checksum", mut(func(b []byte) []byte { b[len(b)/2] ^= 1; return b })},
		{"truncated", "checksum", data[:len(data)-2]},
		{"truncated body", "body", data[:headerLen+10]},
		{"header", "header", data[:5]},
	} {
		_, err := Read(bytes.NewReader(c.data))
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Field != c.field || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want a FormatError for field %q", c.name, err, c.field)
		}
	}
}

// TestGLTFMatchesPlayer checks that a glTF player (morph targets, then
// skinning, from the exported float32 data) shows what Decompress computes,
// and runs the Khronos validator and three.js on the file.
func TestGLTFMatchesPlayer(t *testing.T) {
	s := smallSynth(t)
	f, err := Compress(s.anim, s.rig, Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	body := gltfio.Mesh{Name: "body", Mesh: s.sc.Character.HiddenBody(s.sc.Garments[0]), Skin: anim.Skin(s.sc.Character.Weights)}
	gs, err := f.GLTF(body)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "flow.glb")
	if err := gltfio.WriteFile(path, gs); err != nil {
		t.Fatal(err)
	}
	back, err := gltfio.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Read back without welding differences: compare via the in-memory scene
	// (the file's float32 data is what the reader returns).
	p, err := anim.NewPlayer(gs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumFrames() != f.NumFrames() {
		t.Fatalf("player has %d frames, flow %d", p.NumFrames(), f.NumFrames())
	}
	worst := 0.0
	for _, fr := range []int{0, 17, f.NumFrames() - 1} {
		got, err := p.Frame(fr)
		if err != nil {
			t.Fatal(err)
		}
		want := f.Frame(fr, nil)
		for v := range want {
			worst = max(worst, got[0][v].Dist(want[v]))
		}
	}
	// Player weights are the float32 glTF ones (top-4 renormalised): equal to
	// ours up to float32 rounding, ~1e-7 relative over ~1 m.
	if worst > 1e-5 {
		t.Errorf("player and Decompress differ by %g m", worst)
	}
	if len(back.Meshes) != 2 || len(back.Meshes[0].Morph) != 5 || len(back.Animations) != 1 {
		t.Errorf("read back %d meshes, %d targets, %d animations", len(back.Meshes), len(back.Meshes[0].Morph), len(back.Animations))
	}
	gltfcheck.Check(t, "--expect-skin", path)
}

func TestEvaluateSmall(t *testing.T) {
	s := smallSynth(t)
	r, err := Evaluate(s.anim, s.rig, []int{1, 2, 4, 8, 16, 32}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", md.String())
	for _, w := range r.Rows {
		if want := float64(r.ZstdBytes) / float64(w.FlowBytes); w.RatioZstd != want || !(w.RatioZstd > 0) {
			t.Errorf("k = %d: RatioZstd %g, want %g", w.K, w.RatioZstd, want)
		}
		if !(w.Flow.RMS < w.PCA.RMS) {
			t.Errorf("k = %d: wrinkle flow RMS %.3g mm not below plain PCA %.3g mm", w.K, w.Flow.RMS*1000, w.PCA.RMS*1000)
		}
		// World error ≤ bind error up to quantisation (|A_v| ≤ 1).
		if w.Flow.RMS > w.FlowBind*1.01+2e-6 {
			t.Errorf("k = %d: world RMS %g above bind RMS %g", w.K, w.Flow.RMS, w.FlowBind)
		}
	}
	if last := r.Rows[len(r.Rows)-1]; !(last.Flow.RMS*10 < r.Skinning.RMS) {
		t.Errorf("k = %d: flow RMS %g not 10× below skinning %g", last.K, last.Flow.RMS, r.Skinning.RMS)
	}
	if r.Chosen.K < 0 || r.Chosen.Flow.RMS > DefaultMaxError {
		t.Errorf("chosen k %d RMS %g", r.Chosen.K, r.Chosen.Flow.RMS)
	}
	png := filepath.Join(t.TempDir(), "err.png")
	if err := r.PlotPNG(png); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Errorf("plot: %v", err)
	}
}
