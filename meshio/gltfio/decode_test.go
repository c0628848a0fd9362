package gltfio

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/qmuntal/gltf"
)

// handGLTF builds a one-mesh .gltf by hand: float32 positions, optional
// uint16 indices, the primitive mode, and an edit of the JSON tree before it
// is marshalled. Its buffer is positions then indices.
func handGLTF(t testing.TB, pos []float32, idx []uint16, mode int, edit func(doc map[string]any)) []byte {
	t.Helper()
	var buf []byte
	for _, x := range pos {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	posLen := len(buf)
	for _, i := range idx {
		buf = binary.LittleEndian.AppendUint16(buf, i)
	}
	for len(buf)%4 != 0 {
		buf = append(buf, 0)
	}
	prim := map[string]any{"attributes": map[string]any{"POSITION": 0}, "mode": mode}
	views := []any{map[string]any{"buffer": 0, "byteLength": posLen}}
	accs := []any{map[string]any{"bufferView": 0, "componentType": 5126, "count": len(pos) / 3, "type": "VEC3"}}
	if idx != nil {
		views = append(views, map[string]any{"buffer": 0, "byteOffset": posLen, "byteLength": 2 * len(idx)})
		accs = append(accs, map[string]any{"bufferView": 1, "componentType": 5123, "count": len(idx), "type": "SCALAR"})
		prim["indices"] = 1
	}
	doc := map[string]any{
		"asset":       map[string]any{"version": "2.0"},
		"buffers":     []any{map[string]any{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf)}},
		"bufferViews": views,
		"accessors":   accs,
		"meshes":      []any{map[string]any{"primitives": []any{prim}}},
		"nodes":       []any{map[string]any{"mesh": 0, "name": "n"}},
		"scenes":      []any{map[string]any{"nodes": []any{0}}},
		"scene":       0,
	}
	if edit != nil {
		edit(doc)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var quad = []float32{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}

func TestDecodeModes(t *testing.T) {
	cases := []struct {
		mode int
		idx  []uint16
		want [][3]int32
	}{
		{4, []uint16{0, 1, 2, 2, 1, 3}, [][3]int32{{0, 1, 2}, {2, 1, 3}}},
		{4, nil, [][3]int32{{0, 1, 2}}}, // non-indexed: the 4th vertex is left over
		{5, []uint16{0, 1, 2, 3}, [][3]int32{{0, 1, 2}, {2, 1, 3}}},
		{6, []uint16{0, 1, 3, 2}, [][3]int32{{1, 3, 0}, {3, 2, 0}}},
		{5, []uint16{0, 1, 2, 2, 2, 3}, [][3]int32{{0, 1, 2}}}, // degenerate strip joins dropped
	}
	for _, c := range cases {
		s, err := Decode(bytes.NewReader(handGLTF(t, quad, c.idx, c.mode, nil)), "modes.gltf")
		if err != nil {
			t.Fatalf("mode %d: %v", c.mode, err)
		}
		got := s.Meshes[0].Mesh.Tris
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("mode %d indices %v: got %v want %v", c.mode, c.idx, got, c.want)
		}
	}
	// Points only: no triangle mesh.
	if _, err := Decode(bytes.NewReader(handGLTF(t, quad, nil, 0, nil)), "points.gltf"); err == nil {
		t.Error("points-only file accepted")
	}
}

// TestDecodeNodeTransform applies a node's world transform to a rigid mesh;
// a mirror flips the winding back to counter-clockwise.
func TestDecodeNodeTransform(t *testing.T) {
	data := handGLTF(t, quad, []uint16{0, 1, 2}, 4, func(doc map[string]any) {
		doc["nodes"] = []any{
			map[string]any{"children": []any{1}, "translation": []any{1, 2, 3}},
			map[string]any{"mesh": 0, "scale": []any{-2, 2, 2}},
		}
	})
	s, err := Decode(bytes.NewReader(data), "xf.gltf")
	if err != nil {
		t.Fatal(err)
	}
	m := s.Meshes[0].Mesh
	want := []geom.Vec3{{X: 1, Y: 2, Z: 3}, {X: -1, Y: 2, Z: 3}, {X: 1, Y: 4, Z: 3}}
	for i, w := range want {
		if !nearV(m.Verts[i], w, tol) {
			t.Errorf("vertex %d: %v want %v", i, m.Verts[i], w)
		}
	}
	if m.Tris[0] != [3]int32{0, 2, 1} {
		t.Errorf("mirrored winding not flipped: %v", m.Tris[0])
	}
}

// TestDecodeScaledArmature reads a skin under an "Armature" node scaled
// 0.01 (centimetre joints, as many exporters write): joint translations
// and animation come out in metres and transforms stay rigid.
func TestDecodeScaledArmature(t *testing.T) {
	arm := trs(geom.V(0, 0, 1), geom.QuatAxisAngle(geom.V(1, 0, 0), -math.Pi/2), geom.V(0.01, 0.01, 0.01))
	j0 := arm.mul(trs(geom.V(0, 0, 100), geom.QuatIdentity(), geom.V(1, 1, 1)))
	j1 := j0.mul(trs(geom.V(0, 0, 50), geom.QuatIdentity(), geom.V(1, 1, 1)))
	var ibm []float32
	for _, w := range []mat4{j0, j1} {
		inv, _ := w.inverseAffine()
		for _, x := range inv {
			ibm = append(ibm, float32(x))
		}
	}
	build := func(armScale []any) []byte {
		return handGLTF(t, quad, []uint16{0, 1, 2}, 4, func(doc map[string]any) {
			// Append joints, weights, IBMs and animation data to the buffer.
			b64 := doc["buffers"].([]any)[0].(map[string]any)
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(b64["uri"].(string), "data:application/octet-stream;base64,"))
			add := func(vals []float32) int {
				off := len(raw)
				for _, x := range vals {
					raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
				}
				views := doc["bufferViews"].([]any)
				doc["bufferViews"] = append(views, map[string]any{"buffer": 0, "byteOffset": off, "byteLength": 4 * len(vals)})
				return len(doc["bufferViews"].([]any)) - 1
			}
			acc := func(view, count int, typ string, extra map[string]any) int {
				a := map[string]any{"bufferView": view, "componentType": 5126, "count": count, "type": typ}
				for k, v := range extra {
					a[k] = v
				}
				doc["accessors"] = append(doc["accessors"].([]any), a)
				return len(doc["accessors"].([]any)) - 1
			}
			ubytes := len(raw)
			raw = append(raw, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0) // JOINTS_0 as UNSIGNED_BYTE
			doc["bufferViews"] = append(doc["bufferViews"].([]any), map[string]any{"buffer": 0, "byteOffset": ubytes, "byteLength": 16})
			jv := len(doc["bufferViews"].([]any)) - 1
			doc["accessors"] = append(doc["accessors"].([]any), map[string]any{"bufferView": jv, "componentType": 5121, "count": 4, "type": "VEC4"})
			ja := len(doc["accessors"].([]any)) - 1
			wa := acc(add([]float32{0.5, 0.5, 0, 0, 1, 0, 0, 0, 0.25, 0.75, 0, 0, 1, 0, 0, 0}), 4, "VEC4", nil)
			ia := acc(add(ibm), 2, "MAT4", nil)
			ta := acc(add([]float32{0, 1}), 2, "SCALAR", map[string]any{"min": []any{0}, "max": []any{1}})
			oa := acc(add([]float32{0, 0, 50, 0, 0, 60}), 2, "VEC3", nil)
			b64["uri"] = "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(raw)
			b64["byteLength"] = len(raw)
			prim := doc["meshes"].([]any)[0].(map[string]any)["primitives"].([]any)[0].(map[string]any)
			prim["attributes"].(map[string]any)["JOINTS_0"] = ja
			prim["attributes"].(map[string]any)["WEIGHTS_0"] = wa
			q := geom.QuatAxisAngle(geom.V(1, 0, 0), -math.Pi/2)
			doc["nodes"] = []any{
				map[string]any{"name": "Armature", "children": []any{1, 3}, "translation": []any{0, 0, 1}, "rotation": []any{q.X, q.Y, q.Z, q.W}, "scale": armScale},
				map[string]any{"name": "hip", "children": []any{2}, "translation": []any{0, 0, 100}},
				map[string]any{"name": "spine", "translation": []any{0, 0, 50}},
				map[string]any{"name": "body", "mesh": 0, "skin": 0},
			}
			doc["skins"] = []any{map[string]any{"joints": []any{1, 2}, "inverseBindMatrices": ia, "skeleton": 1}}
			doc["animations"] = []any{map[string]any{
				"samplers": []any{map[string]any{"input": ta, "output": oa}},
				"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 2, "path": "translation"}}},
			}}
		})
	}
	s, err := Decode(bytes.NewReader(build([]any{0.01, 0.01, 0.01})), "arm.gltf")
	if err != nil {
		t.Fatal(err)
	}
	sk := s.Skeleton
	if len(sk.Joints) != 2 || sk.Joints[0].Name != "hip" || sk.Joints[0].Parent != -1 || sk.Joints[1].Parent != 0 {
		t.Fatalf("skeleton %+v", sk)
	}
	// hip: 1 m above the armature along its local +Z, which the armature's
	// -90° turn about X maps to world +Y; armature origin at z = 1.
	if !nearV(sk.Joints[0].Rest.T, geom.V(0, 1, 1), 1e-5) || !nearV(sk.Joints[1].Rest.T, geom.V(0, 0, 0.5), 1e-5) {
		t.Errorf("rests %v %v", sk.Joints[0].Rest, sk.Joints[1].Rest)
	}
	wr := sk.WorldRest()
	for j, ib := range s.Meshes[0].Skin.InverseBind {
		if p := ib.Mul(wr[j]); !nearQ(p.R, geom.QuatIdentity(), 1e-5) || !nearV(p.T, geom.Vec3{}, 1e-5) {
			t.Errorf("joint %d: inverse bind · rest world = %v, want identity", j, p)
		}
	}
	inf := s.Meshes[0].Skin.Influences
	if len(inf[0]) != 2 || len(inf[1]) != 1 || inf[1][0].Joint != 1 {
		t.Errorf("influences %v", inf)
	}
	a := s.Animations[0]
	if len(a.Times) != 2 || !nearV(a.JointTranslations[1][1], geom.V(0, 0, 0.6), 1e-5) || !nearV(a.JointTranslations[1][0], sk.Joints[0].Rest.T, 1e-9) {
		t.Errorf("animation %+v", a)
	}
	_, err = Decode(bytes.NewReader(build([]any{0.01, 0.02, 0.01})), "arm.gltf")
	if err == nil || !strings.Contains(err.Error(), "non-uniform") {
		t.Errorf("non-uniform armature scale: %v", err)
	}
}

func TestDecodeErrors(t *testing.T) {
	var glb bytes.Buffer
	if err := Encode(&glb, skinnedMorphScene(), true); err != nil {
		t.Fatal(err)
	}
	g := glb.Bytes()
	patch := func(off int, v uint32) []byte {
		b := append([]byte(nil), g...)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	nan := float32(math.NaN())
	set := func(path string, v any) func(map[string]any) {
		return func(doc map[string]any) {
			parts := strings.Split(path, ".")
			var cur any = doc
			for _, p := range parts[:len(parts)-1] {
				switch c := cur.(type) {
				case map[string]any:
					cur = c[p]
				case []any:
					var i int
					fmt.Sscan(p, &i)
					cur = c[i]
				}
			}
			cur.(map[string]any)[parts[len(parts)-1]] = v
		}
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad magic"},
		{"text", []byte("solid cube"), "bad magic"},
		{"short header", g[:10], "GLB header"},
		{"truncated", g[:len(g)-40], "truncated"},
		{"version", patch(4, 1), "version 1"},
		{"json chunk overrun", patch(12, 1<<30), "GLB chunk 0"},
		{"bin chunk type", patch(20+int(binary.LittleEndian.Uint32(g[12:]))+4, 7), "BIN chunk"},
		{"count 0", handGLTF(t, quad, []uint16{0, 1, 2}, 4, set("accessors.0.count", 0)), "accessor 0: count 0"},
		{"index range", handGLTF(t, quad, []uint16{0, 1, 7}, 4, nil), "out of range"},
		{"NaN", handGLTF(t, []float32{0, 0, 0, 1, nan, 0, 0, 1, 0}, nil, 4, nil), "non-finite"},
		{"view overrun", handGLTF(t, quad, nil, 4, set("bufferViews.0.byteLength", 1000)), "buffer view 0"},
		{"negative offset", handGLTF(t, quad, nil, 4, set("accessors.0.byteOffset", -4)), "accessor 0"},
		{"accessor overrun", handGLTF(t, quad, nil, 4, set("accessors.0.count", 5)), "accessor 0"},
		{"bad accessor index", handGLTF(t, quad, nil, 4, set("meshes.0.primitives.0.attributes.POSITION", 9)), "accessor 9"},
		{"external", handGLTF(t, quad, nil, 4, set("buffers.0.uri", "x.bin")), "needs a file system"},
		{"cycle", handGLTF(t, quad, nil, 4, set("nodes.0.children", []any{0})), "node 0"},
		{"bad json", []byte(`{"asset": {"version": "2.0"`), "JSON"},
		{"version 1", []byte(`{"asset": {"version": "1.0"}}`), "version"},
	}
	for _, c := range cases {
		_, err := Decode(bytes.NewReader(c.data), "char.glb")
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want *FormatError", c.name, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "char.glb: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q does not name the file and %q", c.name, msg, c.want)
		}
	}
}

// TestCorruptNoPanic truncates and flips bytes of a skinned, morphed GLB:
// every result must be a scene or an error, never a panic (decodeBytes has
// no recover).
func TestCorruptNoPanic(t *testing.T) {
	var glb bytes.Buffer
	if err := Encode(&glb, skinnedMorphScene(), true); err != nil {
		t.Fatal(err)
	}
	g := glb.Bytes()
	var d Decoder
	try := func(what string, b []byte) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s: panic %v", what, p)
			}
		}()
		if s, err := d.decodeBytes(b, "x.glb"); err == nil {
			// Whatever decodes must also survive the writer.
			_ = Encode(new(bytes.Buffer), s, true)
		}
	}
	for n := 0; n < len(g); n += 7 {
		try(fmt.Sprintf("truncated to %d", n), g[:n])
	}
	for i := 0; i < len(g); i += 3 {
		b := append([]byte(nil), g...)
		b[i] ^= 0xA5
		try(fmt.Sprintf("byte %d flipped", i), b)
	}
}

// TestExternalBuffer reads a .gltf whose buffer lives in a side .bin file.
func TestExternalBuffer(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, staticScene(), false); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	b := doc["buffers"].([]any)[0].(map[string]any)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(b["uri"].(string), "data:application/octet-stream;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b["uri"] = "side%20car.bin"
	js, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "side car.bin"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "ext.gltf")
	if err := os.WriteFile(p, js, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	compareMesh(t, staticScene().Meshes[0].Mesh, s.Meshes[0].Mesh)
	b["uri"] = "../escape.bin"
	js, _ = json.Marshal(doc)
	os.WriteFile(p, js, 0o644)
	if _, err := ReadFile(p); err == nil {
		t.Error("uri outside the directory accepted")
	}
}

func TestSample(t *testing.T) {
	in := []float64{0, 1, 3}
	cases := []struct {
		interp gltf.Interpolation
		out    []float64
		t      float64
		want   float64
	}{
		{gltf.InterpolationLinear, []float64{0, 2, 4}, 0.5, 1},
		{gltf.InterpolationLinear, []float64{0, 2, 4}, 2, 3},
		{gltf.InterpolationLinear, []float64{0, 2, 4}, -1, 0},
		{gltf.InterpolationLinear, []float64{0, 2, 4}, 9, 4},
		{gltf.InterpolationStep, []float64{0, 2, 4}, 0.99, 0},
		{gltf.InterpolationStep, []float64{0, 2, 4}, 1, 2},
		// Cubic: (in-tangent, value, out-tangent) per key. Zero tangents
		// give the smoothstep midpoint; tangent 2 on a line of slope 2 is
		// the line itself.
		{gltf.InterpolationCubicSpline, []float64{9, 0, 0, 0, 2, 9, 9, 4, 9}, 0.5, 1},
		{gltf.InterpolationCubicSpline, []float64{9, 0, 2, 2, 2, 9, 9, 4, 9}, 0.25, 0.5},
	}
	for _, c := range cases {
		tr := track{in: in, out: c.out, width: 1, interp: c.interp}
		var got [1]float64
		tr.sample(c.t, got[:])
		if math.Abs(got[0]-c.want) > 1e-12 {
			t.Errorf("%v at %v: got %v want %v", c.interp, c.t, got[0], c.want)
		}
	}
}
