package character

import (
	"errors"
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

// A tiny "base mesh": a vertical leg of three joints and an arm-like chain.
//
//	v0 (0,2,0)  v1 (0,1,0.05)  v2 (0,0,0)  v3 (0,-0.2,0.3)
var tinyVerts = []geom.Vec3{{Y: 2}, {Y: 1, Z: 0.05}, {}, {Y: -0.2, Z: 0.3}}

const tinySkel = `{
  "name": "tiny",
  "bones": {
    "LeftUpLeg": {"head": "hip", "tail": "knee", "parent": null, "roll": 0.5, "reference": ["upperleg01.L"]},
    "LeftLeg": {"head": "knee", "tail": "ankle", "parent": "LeftUpLeg", "rotation_plane": "legplane",
                "weights_reference": ["lowerleg01.L", "lowerleg02.L", "lowerleg01.L"]},
    "LeftFoot": {"head": "ankle", "tail": "toe", "parent": "LeftLeg", "rotation_plane": [null, null, null]}
  },
  "joints": {"hip": [0], "knee": [1], "ankle": [2], "toe": [3, 3]},
  "planes": {"legplane": ["ankle", "knee", "hip"]},
  "weights_file": "w.mhw"
}`

func TestParseMHSkel(t *testing.T) {
	s, err := ParseMHSkel(strings.NewReader(tinySkel), "tiny.mhskel")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range s.Bones {
		names = append(names, b.Name)
	}
	if !slices.Equal(names, []string{"LeftUpLeg", "LeftLeg", "LeftFoot"}) {
		t.Errorf("bones %v", names)
	}
	if s.WeightsFile != "w.mhw" || s.Bones[0].Roll != 0.5 || !slices.Equal(s.Bones[1].Planes, []string{"legplane"}) || len(s.Bones[2].Planes) != 0 {
		t.Errorf("parsed %+v", s)
	}
	b, _ := s.Bone("LeftLeg")
	if got := b.WeightRefs(); !slices.Equal(got, []string{"lowerleg01.L", "lowerleg02.L"}) {
		t.Errorf("WeightRefs %v", got)
	}
	bones, err := s.SkelBones(tinyVerts, BoneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// LeftLeg: local X is the normal of plane (ankle, knee, hip):
	// n = (hip−knee)×(knee−ankle), unit; here ≈ ±X.
	leg := bones[1]
	q := skel.BoneRotation(leg.Head, leg.Tail, leg.Roll)
	hip, knee, ankle := tinyVerts[0], tinyVerts[1], tinyVerts[2]
	n := hip.Sub(knee).Unit().Cross(knee.Sub(ankle).Unit()).Unit()
	if x := q.Rotate(geom.Vec3{X: 1}); x.Sub(n).Len() > 1e-9 {
		t.Errorf("LeftLeg local X %v, want plane normal %v", x, n)
	}
	// Hinge: flexing LeftLeg moves the ankle backward (−Z).
	if leg.Kind != skel.Hinge {
		t.Fatal("LeftLeg is not a hinge")
	}
	a := q.Rotate(leg.Axis)
	moved := geom.QuatAxisAngle(a, 0.3).Rotate(ankle.Sub(knee))
	if moved.Sub(ankle.Sub(knee)).Z >= 0 {
		t.Errorf("flexion moves the ankle by %v, want −Z", moved.Sub(ankle.Sub(knee)))
	}
	// Numeric roll read in Blender's +Z-up frame: for a bone pointing down
	// (−Y here, −Z in Blender) the two frames differ; YUpRoll passes 0.5.
	yup, _ := s.SkelBones(tinyVerts, BoneOptions{YUpRoll: true, NoHinges: true})
	if yup[0].Roll != 0.5 || yup[1].Kind != skel.Ball {
		t.Errorf("YUpRoll/NoHinges: %+v", yup[0])
	}
	r := toBlender.Conj().Mul(skel.BoneRotation(toBlender.Rotate(hip), toBlender.Rotate(knee), 0.5))
	got := skel.BoneRotation(hip, knee, bones[0].Roll)
	if math.Abs(math.Abs(got.Dot(r))-1) > 1e-12 {
		t.Errorf("Blender-frame roll: got %v want %v", got, r)
	}
	sk, err := s.Skeleton(tinyVerts, 0.1, BoneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w := sk.RestWorld(); w[2].T.Sub(ankle.Scale(0.1)).Len() > 1e-12 {
		t.Errorf("LeftFoot at %v", w[2].T)
	}
	if _, err := s.JointPositions(tinyVerts[:2]); err == nil {
		t.Error("out-of-range joint vertex: no error")
	}
}

func TestParseMHSkelErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"syntax", "{\n\"bones\": {,}}", ":2"},
		{"no bones", `{"bones": {}, "joints": {}}`, "no bones"},
		{"unknown joint", `{"bones": {"a": {"head": "x", "tail": "y"}}, "joints": {"y": [0]}}`, `unknown joint "x"`},
		{"unknown parent", `{"bones": {"a": {"head": "y", "tail": "y", "parent": "b"}}, "joints": {"y": [0]}}`, `unknown bone "b"`},
		{"cycle", `{"bones": {"a": {"head": "y", "tail": "y", "parent": "b"}, "b": {"head": "y", "tail": "y", "parent": "a"}}, "joints": {"y": [0]}}`, "cycle"},
		{"bad index", `{"bones": {"a": {"head": "y", "tail": "y"}}, "joints": {"y": [-1]}}`, "bad vertex index"},
		{"bad plane", `{"bones": {"a": {"head": "y", "tail": "y", "rotation_plane": "p"}}, "joints": {"y": [0]}}`, `unknown plane "p"`},
	} {
		_, err := ParseMHSkel(strings.NewReader(tc.in), "x.mhskel")
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want *ParseError containing %q", tc.name, err, tc.want)
		}
	}
}

const tinyMHW = `{"name": "w", "weights": {
  "upperleg01.L": [[0, 1.0], [1, 0.5]],
  "lowerleg01.L": [[1, 0.3], [2, 0.9]],
  "lowerleg02.L": [[1, 0.2]],
  "toe1-1.L": [[3, 1.0]],
  "orphan": [[3, 1.0], [4, 2.0]]
}}`

type inf = skel.Influence

func iw(j int32, w float32) inf { return inf{Joint: j, W: w} }

func TestRigWeights(t *testing.T) {
	s, err := ParseMHSkel(strings.NewReader(tinySkel), "tiny.mhskel")
	if err != nil {
		t.Fatal(err)
	}
	w, err := ParseMHW(strings.NewReader(tinyMHW), "w.mhw")
	if err != nil {
		t.Fatal(err)
	}
	if w.NumVerts() != 5 {
		t.Errorf("NumVerts %d", w.NumVerts())
	}
	sk, err := s.Skeleton(tinyVerts, 1, BoneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A source rig where toe1-1.L hangs under lowerleg02.L, so the
	// unreferenced toe goes to LeftLeg; "orphan" is unknown: root.
	src := &MHSkel{Bones: []MHBone{{Name: "upperleg01.L"}, {Name: "lowerleg01.L", Parent: "upperleg01.L"},
		{Name: "lowerleg02.L", Parent: "lowerleg01.L"}, {Name: "toe1-1.L", Parent: "lowerleg02.L"}}}
	lists, err := RigWeights(w, src, s, sk, 5)
	if err != nil {
		t.Fatal(err)
	}
	up, leg := int32(0), int32(1)
	want := [][]skel.Influence{
		{iw(up, 1)},
		{iw(up, 0.5), iw(leg, 0.5)},
		{iw(leg, 1)},
		{iw(up, 0.5), iw(leg, 0.5)},
		{iw(up, 1)},
	}
	for v := range want {
		if !slices.EqualFunc(lists[v], want[v], func(a, b skel.Influence) bool {
			return a.Joint == b.Joint && math.Abs(float64(a.W-b.W)) < 1e-6
		}) {
			t.Errorf("vertex %d: %v, want %v", v, lists[v], want[v])
		}
	}
	if _, err := RigWeights(w, src, s, sk, 4); err == nil {
		t.Error("weights past numVerts: no error")
	}
	for _, bad := range []string{`{"weights": {"a": [[0.5, 1]]}}`, `{"weights": {"a": [[0, -1]]}}`, `{"weights": {"a": [[0]]}}`, `{}`, `[`} {
		if _, err := ParseMHW(strings.NewReader(bad), "bad.mhw"); err == nil {
			t.Errorf("ParseMHW(%s): no error", bad)
		}
	}
}

const tinyMHClo = `# comment
name tiny shirt
obj_file tiny.obj
x_scale 0 2 2.0
y_scale 0 2 4.0
material tiny.mhmat
verts 0
1
0 1 2 0.5 0.25 0.25 1 2 3
delete_verts
0 - 2
3
`

func TestParseMHClo(t *testing.T) {
	c, err := ParseMHClo(strings.NewReader(tinyMHClo), "tiny.mhclo")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "tiny shirt" || c.OBJFile != "tiny.obj" || c.Material != "tiny.mhmat" {
		t.Errorf("header %+v", c)
	}
	if !slices.Equal(c.DeleteVerts, []int32{0, 1, 2, 3}) {
		t.Errorf("DeleteVerts %v", c.DeleteVerts)
	}
	b := &c.Binding
	// Base in metres; the file's unit is decimetres. v0 and v2 are
	// 0.2 m = 2 dm apart in x (scale 1) and y (2 dm of 4: scale 0.5); z has
	// no scale line (1).
	base := []geom.Vec3{{X: 0.2, Y: 0.2}, {X: 1}, {}}
	if s := b.Scales(base); s.Sub(geom.Vec3{X: 1, Y: 0.5, Z: 1}).Len() > 1e-12 {
		t.Errorf("scales %v", s)
	}
	p := b.Place(nil, base)
	want := []geom.Vec3{
		base[1],
		base[0].Scale(0.5).Add(base[1].Scale(0.25)).Add(base[2].Scale(0.25)).Add(geom.Vec3{X: 0.1, Y: 0.1, Z: 0.3}),
	}
	for i := range want {
		if p[i].Sub(want[i]).Len() > 1e-12 {
			t.Errorf("vertex %d at %v, want %v", i, p[i], want[i])
		}
	}
	err = b.Check(2)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 9 || pe.File != "tiny.mhclo" {
		t.Errorf("Check: %v, want tiny.mhclo:9", err)
	}
	bw := skel.NewWeights([][]skel.Influence{{iw(0, 1)}, {iw(1, 0.5), iw(2, 0.5)}, {iw(2, 1)}})
	w, err := BlendWeights(b, bw)
	if err != nil {
		t.Fatal(err)
	}
	js, ws := w.Influences(1)
	// 0.5·{0:1} + 0.25·{1:.5,2:.5} + 0.25·{2:1} = {0:.5, 1:.125, 2:.375}
	if !slices.Equal(js, []int32{0, 1, 2}) || math.Abs(float64(ws[0])-0.5) > 1e-7 || math.Abs(float64(ws[2])-0.375) > 1e-7 {
		t.Errorf("blended %v %v", js, ws)
	}
	b.W[1] = [3]float64{0, 0, 0}
	var ve *skel.VertexError
	if _, err := BlendWeights(b, bw); !errors.As(err, &ve) || ve.Vertex != 1 {
		t.Errorf("zero weights: %v", err)
	}
}

func TestParseMHCloErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"fields", "verts 0\n1 2\n", ":2: verts: vertex line has 2 fields"},
		{"number", "verts 0\n1 2 3 a 0 0 0 0 0\n", "bad number"},
		{"nan", "verts 0\n1 2 3 NaN 0 0 0 0 0\n", "bad number"},
		{"index", "verts 0\n-1\n", "bad vertex index"},
		{"novert", "name x\n", "no vertices"},
		{"backwards", "verts 0\n1\ndelete_verts\n5 - 2\n", "runs backwards"},
		{"dangling", "verts 0\n1\ndelete_verts\n5 -\n", "range without an end"},
		{"dash", "verts 0\n1\ndelete_verts\n- 5\n", "misplaced"},
		{"huge", "verts 0\n1\ndelete_verts\n0 - 16000000\n", "more than"},
		{"scale", "x_scale 1 2 0\nverts 0\n1\n", "not positive"},
	} {
		_, err := ParseMHClo(strings.NewReader(tc.in), "x.mhclo")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLoadGarmentErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("tri.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n")
	base := []geom.Vec3{{}, {X: 1}, {Y: 1}, {Z: 1}}
	bw := skel.NewWeights([][]skel.Influence{{iw(0, 1)}, {iw(0, 1)}, {iw(1, 1)}, {iw(1, 1)}})
	ok := write("ok.mhclo", "name tri\nobj_file tri.obj\nverts 0\n0\n1\n2 3 1 0.5 0.5 0 0 0 1\n")
	g, err := LoadGarment(ok, base, bw)
	if err != nil {
		t.Fatal(err)
	}
	if g.Mesh.Verts[2].Sub(geom.Vec3{Y: 0.5, Z: 0.6}).Len() > 1e-12 || !g.Mesh.HasUVs() {
		t.Errorf("placed %v", g.Mesh.Verts)
	}
	for _, tc := range []struct{ file, want string }{
		{write("range.mhclo", "obj_file tri.obj\nverts 0\n0\n1\n9\n"), "range.mhclo:5"},
		{write("count.mhclo", "obj_file tri.obj\nverts 0\n0\n1\n"), "binds 2 vertices but tri.obj has 3"},
		{write("noobj.mhclo", "obj_file missing.obj\nverts 0\n0\n1\n2\n"), "missing.obj"},
		{write("zero.mhclo", "obj_file tri.obj\nverts 0\n0\n1\n2 3 1 0 0 0 0 0 0\n"), "weights sum to zero"},
	} {
		if _, err := LoadGarment(tc.file, base, bw); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", filepath.Base(tc.file), err, tc.want)
		}
	}
}

func TestDropTris(t *testing.T) {
	c := &Character{Body: gridMesh(), Base: &BaseMesh{BodyVert: []int32{0, 1, 2, 3, -1}}}
	c.Body.Groups = nil
	g := &Garment{DeleteVerts: []int32{0, 4}}
	hb := c.HiddenBody(g)
	if len(hb.Verts) != 4 || len(hb.Tris) != 1 || hb.Tris[0] != [3]int32{1, 3, 2} || len(hb.UVTris) != 1 {
		t.Errorf("HiddenBody: %+v", hb)
	}
}

// gridMesh is a unit square of two triangles with UVs and a group.
func gridMesh() *mesh.Mesh {
	return &mesh.Mesh{
		Verts:  []geom.Vec3{{}, {X: 1}, {Y: 1}, {X: 1, Y: 1}},
		Tris:   [][3]int32{{0, 1, 2}, {1, 3, 2}},
		UVs:    []geom.Vec2{{}, {X: 1}, {Y: 1}, {X: 1, Y: 1}},
		UVTris: [][3]int32{{0, 1, 2}, {1, 3, 2}},
	}
}
