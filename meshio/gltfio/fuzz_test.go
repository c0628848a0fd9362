package gltfio

import (
	"bytes"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// tinyScene is a skinned, morphed, animated quad: every feature of the
// format in under 2 KB, so fuzz seeds stay small (the fuzzer minimises
// each new input, which is slow for large ones).
func tinyScene() *Scene {
	m := mesh.Grid(1, 1, 1, 1)
	sk := &Skeleton{Joints: []Joint{
		{Name: "a", Parent: -1, Rest: geom.RigidIdentity()},
		{Name: "b", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 1, 0)}},
	}}
	inf := make([][]Influence, len(m.Verts))
	for v, p := range m.Verts {
		inf[v] = []Influence{{0, 1 - p.Y}, {1, p.Y + 0.1}}
	}
	d := make([]geom.Vec3, len(m.Verts))
	d[3] = geom.V(0, 0, 0.1)
	q := geom.QuatAxisAngle(geom.V(1, 0, 0), 0.5)
	return &Scene{
		Meshes:   []Mesh{{Name: "q", Mesh: m, Skin: &Skin{Influences: inf}, Morph: [][]geom.Vec3{d}}},
		Skeleton: sk,
		Animations: []Animation{{
			Times:          []float64{0, 1},
			JointRotations: [][]geom.Quat{{geom.QuatIdentity(), geom.QuatIdentity()}, {q, q}},
			Morphs:         []MorphTrack{{Mesh: 0, Weights: [][]float64{{0}, {1}}}},
		}},
	}
}

// FuzzDecode feeds arbitrary bytes to the reader, seeded with small files
// the writer makes. decodeBytes has no recover, so any panic is a failure;
// a scene that decodes must also go through the writer without panicking.
func FuzzDecode(f *testing.F) {
	static := &Scene{Meshes: []Mesh{{Mesh: mesh.Grid(1, 1, 1, 1)}}}
	for _, s := range []*Scene{static, tinyScene()} {
		for _, binary := range []bool{true, false} {
			var buf bytes.Buffer
			if err := Encode(&buf, s, binary); err != nil {
				f.Fatal(err)
			}
			f.Add(buf.Bytes())
		}
	}
	f.Add(handGLTF(f, quad, []uint16{0, 1, 2, 3}, 5, nil))
	f.Add([]byte("glTF"))
	var d Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := d.decodeBytes(data, "fuzz.glb")
		if err != nil {
			return
		}
		if len(s.Meshes) == 0 {
			t.Fatal("decoded a scene without meshes")
		}
		_ = Encode(new(bytes.Buffer), s, true)
	})
}
