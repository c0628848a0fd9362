package viewer

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestBrowser serves pleat outputs of three kinds side by side and runs
// tools/browsertest/viewer.test.mjs on them in headless Chromium: no
// console errors, a canvas that is not blank, a frame counter that
// advances while playing, a heat-map toggle that changes pixels, one
// colour per garment name in every panel, a body toggle, and a difference
// view whose per-vertex distances match the fixtures (the shirt in three
// panels: skinned in the glb, the same as OBJ frames, with folds as PC2),
// and an OBJ sequence whose topology changes (three triangle counts) that
// draws every frame with its own triangles; the coarse shirt changes
// topology at seqSplitFrame, after which the difference view finds it no
// partner.
//
// It needs node, tools/browsertest/node_modules (npm ci there) and Debian's
// chromium ($CHROMIUM, default /usr/bin/chromium); without them it skips,
// unless PLEAT_REQUIRE_BROWSER=1 (CI), where it fails. Screenshots go to
// $PLEAT_SCREENSHOTS when set.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	require := os.Getenv("PLEAT_REQUIRE_BROWSER") == "1"
	missing := func(what string) {
		t.Helper()
		msg := "browser test needs " + what + " (CI: apt-get install -y chromium; cd tools/browsertest && npm ci)"
		if require {
			t.Fatal(msg + "; PLEAT_REQUIRE_BROWSER=1")
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node")
	}
	dir, err := filepath.Abs(filepath.Join("..", "tools", "browsertest"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err != nil {
		missing("tools/browsertest/node_modules (npm ci)")
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing(chromium)
	}

	fx := makeFixtures(t)
	args := []string{"skinning=" + fx.glb, "coarse=" + fx.seq, "folds=" + fx.pc2, "refined=" + fx.topo}
	s, err := NewServer(args, Options{})
	if err != nil {
		t.Fatal(err)
	}
	url, err := s.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// The coarse OBJ frames are the skinned shirt of the glb (distances
	// from rounding only) up to seqSplitFrame, then a topology that matches
	// no other panel; the PC2 adds folds up to 3 mm deep.
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "viewer.test.mjs"), url, "--items", strconv.Itoa(len(args)),
		"--expect-diff", "coarse:0:0.05", "--expect-diff", "folds:1:3.2", "--expect-topology", "refined:3",
		"--expect-topology", "coarse:2", "--expect-partner", "coarse:10:1", "--expect-partner", "coarse:"+strconv.Itoa(seqSplitFrame+5)+":0")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("viewer.test.mjs log:\n%s", stderr.String())
	t.Logf("viewer.test.mjs summary:\n%s", stdout.String())
	if err != nil {
		t.Fatalf("browser test failed: %v", err)
	}
}
