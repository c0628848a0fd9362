package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinySpec = `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 90}},
 {"role": "left_knee", "flex": {"min": 90, "max": 90, "step": 15}}]}`

// TestBuilddbShards builds a three-sample spec on the coarse procedural
// suit as two shards, merges them and inspects the result; then checks
// that a merge missing a shard and a truncated file give errors naming
// what is wrong.
func TestBuilddbShards(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3 samples")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(spec, []byte(tinySpec), 0o644); err != nil {
		t.Fatal(err)
	}
	common := []string{"builddb", "--resolution", "700", "--spec", spec, "--transition", "0.2", "--settle-time", "0.6", "--jobs", "1"}
	var shards []string
	for _, s := range []string{"0/2", "1/2"} {
		out := filepath.Join(dir, "suit-"+s[:1]+".pdb")
		text, err := run(t, append(common, "--shard", s, "--out", out)...)
		if err != nil {
			t.Fatalf("builddb --shard %s: %v\n%s", s, err, text)
		}
		if !strings.Contains(text, "wrote "+out) {
			t.Errorf("builddb --shard %s output:\n%s", s, text)
		}
		if _, err := os.Stat(filepath.Join(dir, "suit-"+s[:1]+".pdj")); !os.IsNotExist(err) {
			t.Errorf("the journal of shard %s is left after a finished build", s)
		}
		shards = append(shards, out)
	}
	merged := filepath.Join(dir, "suit.pdb")
	if text, err := run(t, "builddb", "merge", "--out", merged, shards[1], shards[0]); err != nil {
		t.Fatalf("merge: %v\n%s", err, text)
	}
	text, err := run(t, "db", "inspect", merged)
	if err != nil {
		t.Fatalf("db inspect: %v\n%s", err, text)
	}
	for _, want := range []string{"samples   3 stored of the spec's 3 (whole database)", "left_elbow", "flex 0..90/90", "2/2", "left_knee", `"Transition": 0.2`, "SMPL x3"} {
		if !strings.Contains(text, want) {
			t.Errorf("db inspect lacks %q:\n%s", want, text)
		}
	}

	if _, err := run(t, "builddb", "merge", "--out", filepath.Join(dir, "x.pdb"), shards[0]); err == nil || !strings.Contains(err.Error(), "1 shard files given, the build has 2 shards") {
		t.Errorf("merge of one of two shards: %v", err)
	}
	data, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.pdb")
	if err := os.WriteFile(cut, data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "db", "inspect", cut); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("db inspect of a truncated file: %v", err)
	}
}

// TestBuilddbFlags checks that bad flags are refused before any work.
func TestBuilddbFlags(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.pdb")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "2/2"}, "--shard"},
		{[]string{"--shard", "1"}, "want i/n"},
		{[]string{"--jobs", "-1"}, "--jobs -1"},
		{[]string{"--settle-time", "0"}, "--settle-time 0"},
		{[]string{"--transition", "-1"}, "--transition -1"},
		{[]string{"--verts", "-5"}, "--verts -5"},
		{[]string{"--spec", "/nonexistent/spec.json"}, "--spec"},
	} {
		_, err := run(t, append([]string{"builddb", "--out", out}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("builddb %v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}
