package flow

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// subdivWeights carries skin weights through a subdivision (new vertices
// average their parents).
func subdivWeights(w skel.Weights, sm *mesh.SubdivMap, nj int) skel.Weights {
	dense := make([]float64, w.NumVerts()*nj)
	for v := 0; v < w.NumVerts(); v++ {
		js, ws := w.Influences(v)
		for i := range js {
			dense[v*nj+int(js[i])] += float64(ws[i])
		}
	}
	out := sm.InterpolateFloats(nil, dense, nj)
	lists := make([][]skel.Influence, sm.NumVerts())
	for v := range lists {
		for j := 0; j < nj; j++ {
			if x := out[v*nj+j]; x > 0 {
				lists[v] = append(lists[v], skel.Influence{Joint: int32(j), W: float32(x)})
			}
		}
	}
	return skel.NewWeights(lists)
}

// TestMakeHumanWalk runs the measurement on MakeHuman's male_casualsuit02
// (subdivided twice) on the CMU 02_01 walk, with synthetic wrinkles. It
// needs PLEAT_ASSETS (e.g. /work/shared/assets) and PLEAT_FLOW_BIG=1.
func TestMakeHumanWalk(t *testing.T) {
	dir := assets.Dir()
	if dir == "" || os.Getenv("PLEAT_FLOW_BIG") != "1" {
		t.Skip("set PLEAT_ASSETS and PLEAT_FLOW_BIG=1 for the MakeHuman walk measurement")
	}
	sc, err := scene.Load(scene.Spec{
		Character: filepath.Join(dir, "makehuman"),
		Garments:  []string{"male_casualsuit02"},
		Motion:    filepath.Join(dir, "mocap/cmu/02_01_walk.bvh"),
	})
	if err != nil {
		t.Fatal(err)
	}
	g := sc.Garments[0]
	nj := sc.Character.Skeleton.NumJoints()
	m1, s1 := mesh.Subdivide(g.Mesh)
	w1 := subdivWeights(g.Weights, s1, nj)
	m2, s2 := mesh.Subdivide(m1)
	w2 := subdivWeights(w1, s2, nj)
	w2.Normalize()
	s := synthOn(t, sc, g.Name, m2, w2)
	t.Logf("%d vertices × %d frames", len(m2.Verts), len(s.anim.Frames))
	r, err := Evaluate(s.anim, s.rig, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", md.String())
	out := os.Getenv("PLEAT_FLOW_OUT")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(out, "makehuman-report.md"), md.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.PlotPNG(filepath.Join(out, "makehuman-error-vs-k.png")); err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(s.anim, s.rig, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := a.FlowForError(DefaultMaxError)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := f.GLTF(gltfio.Mesh{Name: "body", Mesh: sc.Character.HiddenBody(g), Skin: anim.Skin(sc.Character.Weights)})
	if err != nil {
		t.Fatal(err)
	}
	glb := filepath.Join(out, "makehuman-walk.glb")
	if err := gltfio.WriteFile(glb, gs); err != nil {
		t.Fatal(err)
	}
	for _, w := range r.Rows {
		if !(w.Flow.RMS < w.PCA.RMS) {
			t.Errorf("k = %d: flow RMS %g not below plain PCA %g", w.K, w.Flow.RMS, w.PCA.RMS)
		}
	}
	gltfcheck.Check(t, "--expect-skin", glb)
}
