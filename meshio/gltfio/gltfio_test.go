package gltfio

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/mesh"
)

// Tolerances: data is stored as float32 (relative rounding 6e-8); 1e-6
// leaves room for a few float32 roundings and the renormalisation of
// weights and quaternions.
const tol = 1e-6

func roundTrip(t *testing.T, s *Scene, binary bool) *Scene {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, s, binary); err != nil {
		t.Fatal(err)
	}
	name := "rt.gltf"
	if binary {
		name = "rt.glb"
	}
	got, err := Decode(bytes.NewReader(buf.Bytes()), name)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// compareMesh checks positions and triangles exactly in order (the writer
// puts each mesh vertex first and the reader welds its copies back) and
// UVs per corner.
func compareMesh(t *testing.T, want, got *mesh.Mesh) {
	t.Helper()
	if len(got.Verts) != len(want.Verts) || len(got.Tris) != len(want.Tris) {
		t.Fatalf("got %d verts %d tris, want %d %d", len(got.Verts), len(got.Tris), len(want.Verts), len(want.Tris))
	}
	for i := range want.Verts {
		if !nearV(want.Verts[i], got.Verts[i], tol) {
			t.Fatalf("vertex %d: got %v want %v", i, got.Verts[i], want.Verts[i])
		}
	}
	for i := range want.Tris {
		if want.Tris[i] != got.Tris[i] {
			t.Fatalf("triangle %d: got %v want %v", i, got.Tris[i], want.Tris[i])
		}
	}
	if want.HasUVs() != got.HasUVs() {
		t.Fatalf("HasUVs: got %v want %v", got.HasUVs(), want.HasUVs())
	}
	if want.HasUVs() {
		for i := range want.Tris {
			for c := 0; c < 3; c++ {
				a, b := want.UVs[want.UVTris[i][c]], got.UVs[got.UVTris[i][c]]
				if !near(a.X, b.X, tol) || !near(a.Y, b.Y, tol) {
					t.Fatalf("triangle %d corner %d: uv %v want %v", i, c, b, a)
				}
			}
		}
	}
	if got.Normals == nil || len(got.NormalTris) != len(got.Tris) {
		t.Fatalf("normals not read back")
	}
}

func TestStaticRoundTrip(t *testing.T) {
	for _, binary := range []bool{true, false} {
		t.Run(fmt.Sprint("binary=", binary), func(t *testing.T) {
			s := staticScene()
			got := roundTrip(t, s, binary)
			if len(got.Meshes) != 1 || got.Skeleton != nil || len(got.Animations) != 0 {
				t.Fatalf("got %d meshes, skeleton %v, %d animations", len(got.Meshes), got.Skeleton, len(got.Animations))
			}
			if got.Meshes[0].Name != "sphere" {
				t.Errorf("name %q", got.Meshes[0].Name)
			}
			compareMesh(t, s.Meshes[0].Mesh, got.Meshes[0].Mesh)
			// Computed normals point outwards on a sphere.
			m := got.Meshes[0].Mesh
			for i, tri := range m.Tris {
				for c := 0; c < 3; c++ {
					n, p := m.Normals[m.NormalTris[i][c]], m.Verts[tri[c]]
					if n.Dot(p.Unit()) < 0.9 {
						t.Fatalf("vertex %d normal %v not outward", tri[c], n)
					}
				}
			}
		})
	}
}

// TestHardEdgeNormals gives a cube per-face normals: 8 positions become 24
// glTF vertices, and the reader welds them back to 8 with the per-corner
// normals kept.
func TestHardEdgeNormals(t *testing.T) {
	m := &mesh.Mesh{}
	for i := 0; i < 8; i++ {
		m.Verts = append(m.Verts, geom.V(float64(i&1), float64(i>>1&1), float64(i>>2&1)))
	}
	quads := [][4]int32{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	normals := []geom.Vec3{{Z: -1}, {Z: 1}, {Y: -1}, {Y: 1}, {X: -1}, {X: 1}}
	m.Normals = normals
	for f, q := range quads {
		m.Tris = append(m.Tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
		k := int32(f)
		m.NormalTris = append(m.NormalTris, [3]int32{k, k, k}, [3]int32{k, k, k})
	}
	src, _ := SplitVertices(m)
	if len(src) != 24 {
		t.Fatalf("split into %d vertices, want 24", len(src))
	}
	got := roundTrip(t, &Scene{Meshes: []Mesh{{Mesh: m}}}, true).Meshes[0].Mesh
	compareMesh(t, m, got)
	for i := range m.Tris {
		for c := 0; c < 3; c++ {
			if a, b := m.Normals[m.NormalTris[i][c]], got.Normals[got.NormalTris[i][c]]; !nearV(a, b, tol) {
				t.Fatalf("triangle %d corner %d: normal %v want %v", i, c, b, a)
			}
		}
	}
}

func TestSplitVertices(t *testing.T) {
	m := mesh.UVSphere(1, 4, 6)
	src, tris := SplitVertices(m)
	nv := len(m.Verts)
	if len(src) <= nv {
		t.Fatalf("no vertex split on a UV sphere: %d glTF vertices for %d", len(src), nv)
	}
	for i := 0; i < nv; i++ {
		if src[i] != int32(i) {
			t.Fatalf("src[%d] = %d", i, src[i])
		}
	}
	// Every corner keeps its position; every (vertex, uv) pair gets one
	// glTF vertex.
	type key struct {
		v    int32
		u, w float32
	}
	seen := map[key]int32{}
	for i, tri := range tris {
		for c := 0; c < 3; c++ {
			g := tri[c]
			if src[g] != m.Tris[i][c] {
				t.Fatalf("triangle %d corner %d: glTF vertex %d copies %d, want %d", i, c, g, src[g], m.Tris[i][c])
			}
			uv := m.UVs[m.UVTris[i][c]]
			k := key{m.Tris[i][c], float32(uv.X), float32(uv.Y)}
			if old, ok := seen[k]; ok && old != g {
				t.Fatalf("pair %v split twice (%d, %d)", k, old, g)
			}
			seen[k] = g
		}
	}
	if len(seen) != len(src) {
		t.Fatalf("%d distinct (vertex, uv) pairs but %d glTF vertices", len(seen), len(src))
	}
}

// TestSplitCarriesSkinAndMorph reads a skinned, morphed sphere without
// welding: every glTF copy of a vertex must carry that vertex's influences
// and displacements.
func TestSplitCarriesSkinAndMorph(t *testing.T) {
	s := skinnedMorphScene()
	var buf bytes.Buffer
	if err := Encode(&buf, s, true); err != nil {
		t.Fatal(err)
	}
	d := Decoder{NoWeld: true}
	got, err := d.Decode(bytes.NewReader(buf.Bytes()), "split.glb")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := SplitVertices(s.Meshes[0].Mesh)
	gm := got.Meshes[0]
	if len(gm.Mesh.Verts) != len(src) || len(src) == len(s.Meshes[0].Mesh.Verts) {
		t.Fatalf("got %d glTF vertices, split gives %d (mesh has %d)", len(gm.Mesh.Verts), len(src), len(s.Meshes[0].Mesh.Verts))
	}
	for g, v := range src {
		want := top4Reference(s.Meshes[0].Skin.Influences[v])
		if !sameInfluences(want, gm.Skin.Influences[g]) {
			t.Fatalf("glTF vertex %d (copy of %d): influences %v want %v", g, v, gm.Skin.Influences[g], want)
		}
		for k := range s.Meshes[0].Morph {
			if !nearV(s.Meshes[0].Morph[k][v], gm.Morph[k][g], tol) {
				t.Fatalf("glTF vertex %d (copy of %d): morph %d", g, v, k)
			}
		}
	}
}

// sameInfluences compares influence sets (order aside: near-equal weights
// may come out in either order after float32 rounding).
func sameInfluences(want, got []Influence) bool {
	if len(want) != len(got) {
		return false
	}
	byJoint := func(l []Influence) []Influence {
		l = append([]Influence(nil), l...)
		sort.Slice(l, func(a, b int) bool { return l[a].Joint < l[b].Joint })
		return l
	}
	want, got = byJoint(want), byJoint(got)
	for k := range want {
		if want[k].Joint != got[k].Joint || !near(want[k].Weight, got[k].Weight, tol) {
			return false
		}
	}
	return true
}

func TestSkinnedRoundTrip(t *testing.T) {
	for _, withMorph := range []bool{false, true} {
		t.Run(fmt.Sprint("morph=", withMorph), func(t *testing.T) {
			s := skinnedScene()
			if withMorph {
				s = skinnedMorphScene()
			}
			got := roundTrip(t, s, true)
			compareMesh(t, s.Meshes[0].Mesh, got.Meshes[0].Mesh)
			sk := got.Skeleton
			if sk == nil || len(sk.Joints) != len(s.Skeleton.Joints) {
				t.Fatalf("skeleton %v", sk)
			}
			for j, want := range s.Skeleton.Joints {
				g := sk.Joints[j]
				if g.Name != want.Name || g.Parent != want.Parent {
					t.Errorf("joint %d: got %q parent %d, want %q parent %d", j, g.Name, g.Parent, want.Name, want.Parent)
				}
				if !nearQ(g.Rest.R, want.Rest.R, tol) || !nearV(g.Rest.T, want.Rest.T, tol) {
					t.Errorf("joint %d rest: got %v want %v", j, g.Rest, want.Rest)
				}
			}
			wr := s.Skeleton.WorldRest()
			gm := got.Meshes[0]
			for j := range wr {
				ib := wr[j].Inverse()
				if !nearQ(gm.Skin.InverseBind[j].R, ib.R, tol) || !nearV(gm.Skin.InverseBind[j].T, ib.T, tol) {
					t.Errorf("inverse bind %d: got %v want %v", j, gm.Skin.InverseBind[j], ib)
				}
			}
			for v, inf := range s.Meshes[0].Skin.Influences {
				if len(inf) != 6 {
					t.Fatalf("test scene should give 6 influences")
				}
				if want := top4Reference(inf); !sameInfluences(want, gm.Skin.Influences[v]) {
					t.Fatalf("vertex %d: influences %v want %v", v, gm.Skin.Influences[v], want)
				}
			}
			if len(got.Animations) != 1 {
				t.Fatalf("%d animations", len(got.Animations))
			}
			wa, ga := s.Animations[0], got.Animations[0]
			if ga.Name != wa.Name || len(ga.Times) != len(wa.Times) {
				t.Fatalf("animation %q with %d keys", ga.Name, len(ga.Times))
			}
			for f := range wa.Times {
				if !near(ga.Times[f], wa.Times[f], tol) {
					t.Fatalf("time %d: %v want %v", f, ga.Times[f], wa.Times[f])
				}
				for j := range wa.JointRotations[f] {
					if !nearQ(ga.JointRotations[f][j], wa.JointRotations[f][j], tol) {
						t.Fatalf("key %d joint %d: rotation %v want %v", f, j, ga.JointRotations[f][j], wa.JointRotations[f][j])
					}
					if !nearV(ga.JointTranslations[f][j], wa.JointTranslations[f][j], tol) {
						t.Fatalf("key %d joint %d: translation %v want %v", f, j, ga.JointTranslations[f][j], wa.JointTranslations[f][j])
					}
				}
			}
			if !withMorph {
				return
			}
			for k := range s.Meshes[0].Morph {
				if gm.MorphNames[k] != s.Meshes[0].MorphNames[k] {
					t.Errorf("morph name %d: %q", k, gm.MorphNames[k])
				}
				for v := range s.Meshes[0].Morph[k] {
					if !nearV(s.Meshes[0].Morph[k][v], gm.Morph[k][v], tol) {
						t.Fatalf("morph %d vertex %d", k, v)
					}
				}
			}
			if len(ga.Morphs) != 1 || ga.Morphs[0].Mesh != 0 {
				t.Fatalf("morph tracks %v", ga.Morphs)
			}
			for f, w := range wa.Morphs[0].Weights {
				for k := range w {
					if !near(w[k], ga.Morphs[0].Weights[f][k], tol) {
						t.Fatalf("key %d weight %d: %v want %v", f, k, ga.Morphs[0].Weights[f][k], w[k])
					}
				}
			}
		})
	}
}

func TestVertexAnimationRoundTrip(t *testing.T) {
	for _, n := range []int{8, 40} { // 40: more morph targets than a rotation has values
		testVertexAnimationRoundTrip(t, n)
	}
}

func testVertexAnimationRoundTrip(t *testing.T, nframes int) {
	base := mesh.Grid(0.4, 0.3, 6, 4)
	frames := waveFrames(base, nframes)
	s, err := VertexAnimation(base, frames, 12)
	if err != nil {
		t.Fatal(err)
	}
	got := roundTrip(t, s, true)
	gm, ga := got.Meshes[0], got.Animations[0]
	if len(gm.Morph) != len(frames) || len(ga.Morphs) != 1 || len(ga.Times) != len(frames) {
		t.Fatalf("%d targets, %d morph tracks, %d keys", len(gm.Morph), len(ga.Morphs), len(ga.Times))
	}
	// Frame f = base + Σ_k w_k(t_f)·target_k.
	for f, fr := range frames {
		if !near(ga.Times[f], float64(f)/12, tol) {
			t.Fatalf("time %d = %v", f, ga.Times[f])
		}
		w := ga.Morphs[0].Weights[f]
		for v, want := range fr {
			p := gm.Mesh.Verts[v]
			for k := range gm.Morph {
				p = p.AddScaled(w[k], gm.Morph[k][v])
			}
			if !nearV(p, want, tol) {
				t.Fatalf("frame %d vertex %d: %v want %v", f, v, p, want)
			}
		}
	}
	if _, err := VertexAnimation(base, [][]geom.Vec3{frames[0][:3]}, 12); err == nil {
		t.Error("short frame accepted")
	}
	if _, err := VertexAnimation(base, frames, 0); err == nil {
		t.Error("fps 0 accepted")
	}
}

func TestDeterministic(t *testing.T) {
	for _, binary := range []bool{true, false} {
		var a, b bytes.Buffer
		if err := Encode(&a, skinnedMorphScene(), binary); err != nil {
			t.Fatal(err)
		}
		if err := Encode(&b, skinnedMorphScene(), binary); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("binary=%v: two encodings differ", binary)
		}
		if !bytes.Contains(a.Bytes(), []byte(`"generator":"pleat"`)) {
			t.Errorf("binary=%v: no generator", binary)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	good := skinnedMorphScene
	cases := []struct {
		name string
		edit func(s *Scene)
	}{
		{"no meshes", func(s *Scene) { s.Meshes = nil }},
		{"bad joint in skin", func(s *Scene) { s.Meshes[0].Skin.Influences[3] = []Influence{{Joint: 99, Weight: 1}} }},
		{"no weights", func(s *Scene) { s.Meshes[0].Skin.Influences[3] = nil }},
		{"short morph", func(s *Scene) { s.Meshes[0].Morph[1] = s.Meshes[0].Morph[1][:5] }},
		{"cyclic skeleton", func(s *Scene) { s.Skeleton.Joints[0].Parent = 4 }},
		{"times not increasing", func(s *Scene) { s.Animations[0].Times[3] = s.Animations[0].Times[2] }},
		{"weights count", func(s *Scene) { s.Animations[0].Morphs[0].Weights[2] = []float64{1} }},
		{"NaN rotation", func(s *Scene) { s.Animations[0].JointRotations[1][2].X = nanf() }},
	}
	for _, c := range cases {
		s := good()
		c.edit(s)
		err := Encode(new(bytes.Buffer), s, true)
		if _, ok := err.(*SceneError); !ok {
			t.Errorf("%s: got %v, want *SceneError", c.name, err)
		}
	}
}

func nanf() float64 { var z float64; return z / z }

// TestWriteOutputs writes the files CI validates (into $PLEAT_GLTF_OUT
// when set) and runs the Khronos validator and three.js on them when
// tools/gltfcheck is installed.
func TestWriteOutputs(t *testing.T) {
	dir := outDir(t)
	files := []string{
		writeOut(t, dir, "static.glb", staticScene()),
		writeOut(t, dir, "static.gltf", staticScene()),
		writeOut(t, dir, "vertexanim.glb", vertexAnimScene(t)),
		writeOut(t, dir, "skinned.glb", skinnedScene()),
		writeOut(t, dir, "skinned_morph.glb", skinnedMorphScene()),
	}
	for _, f := range files {
		if _, err := ReadFile(f); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
	gltfcheck.Check(t, files...)
}

func ExampleVertexAnimation() {
	base := mesh.Grid(1, 1, 2, 2)
	frames := make([][]geom.Vec3, 3)
	for f := range frames {
		frames[f] = make([]geom.Vec3, len(base.Verts))
		for v, p := range base.Verts {
			frames[f][v] = p.Add(geom.V(0, 0, 0.1*float64(f)))
		}
	}
	s, err := VertexAnimation(base, frames, 24)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, s, true); err != nil {
		panic(err)
	}
	got, err := Decode(&buf, "wave.glb")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(got.Meshes[0].Morph), "targets,", len(got.Animations[0].Times), "keys")
	// Output: 3 targets, 3 keys
}
