package flow

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
)

// TestBigSynthetic is the acceptance measurement on a ≥ 20k-vertex,
// 301-frame synthetic shirt animation. It runs only with PLEAT_FLOW_BIG=1
// (about a minute); PLEAT_FLOW_OUT names a folder for the report, plot,
// .pflow and .glb (default: a temporary folder).
func TestBigSynthetic(t *testing.T) {
	if os.Getenv("PLEAT_FLOW_BIG") != "1" {
		t.Skip("set PLEAT_FLOW_BIG=1 to run the 22k-vertex × 301-frame measurement")
	}
	out := os.Getenv("PLEAT_FLOW_OUT")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	s := newSynth(t, 44000, 10)
	t.Logf("synthetic animation: %d vertices × %d frames in %v", len(s.anim.Rest.Verts), len(s.anim.Frames), time.Since(t0))
	if n := len(s.anim.Rest.Verts); n < 20000 {
		t.Fatalf("only %d vertices", n)
	}
	t1 := time.Now()
	f, err := Compress(s.anim, s.rig, Options{MaxError: 0.002})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Compress (2 mm target): k = %d in %v", f.K, time.Since(t1))
	r, err := Evaluate(s.anim, s.rig, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", md.String())
	if err := os.WriteFile(filepath.Join(out, "report.md"), md.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.PlotPNG(filepath.Join(out, "error-vs-k.png")); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(filepath.Join(out, "shirt.pflow")); err != nil {
		t.Fatal(err)
	}
	body := gltfio.Mesh{Name: "body", Mesh: s.sc.Character.HiddenBody(s.sc.Garments[0]), Skin: anim.Skin(s.sc.Character.Weights)}
	gs, err := f.GLTF(body)
	if err != nil {
		t.Fatal(err)
	}
	glb := filepath.Join(out, "shirt.glb")
	if err := gltfio.WriteFile(glb, gs); err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Rows {
		if !(w.Flow.RMS < w.PCA.RMS) {
			t.Errorf("k = %d: flow RMS %g not below plain PCA %g", w.K, w.Flow.RMS, w.PCA.RMS)
		}
	}
	if c := r.Chosen; c.K < 0 || c.Flow.RMS > 0.002 || c.Ratio < 30 {
		t.Errorf("2 mm target: k = %d, RMS %g, ratio %.1f (want ≥ 30)", c.K, c.Flow.RMS, c.Ratio)
	}
	if c := r.Chosen; !(c.Flow.RMS*5 < r.Skinning.RMS) {
		t.Errorf("flow RMS %g not 5× below skinning alone %g", c.Flow.RMS, r.Skinning.RMS)
	}
	gltfcheck.Check(t, "--expect-skin", glb)
}
