package scene

import "testing"

// TestOutputBodyWhole: the body exported with the MakeHuman suit keeps the
// skin under it (no holes where cloth lifts off) unless HideCovered asks to
// drop the triangles under the suit's delete_verts; vertex ids stay, so
// the skin weights still apply.
func TestOutputBodyWhole(t *testing.T) {
	spec := walkSpec(assets(t))
	spec.End = 2
	s, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	all := len(s.Character.Body.Tris)
	for _, hide := range []bool{false, true} {
		s.HideCovered = hide
		gs, err := s.GLTF("walk")
		if err != nil {
			t.Fatal(err)
		}
		body := gs.Meshes[0].Mesh
		if len(body.Verts) != len(s.Character.Body.Verts) {
			t.Errorf("HideCovered %v: %d body vertices, want %d", hide, len(body.Verts), len(s.Character.Body.Verts))
		}
		n := len(body.Tris)
		switch {
		case !hide && n != all:
			t.Errorf("body written with %d of its %d triangles; want it whole", n, all)
		case hide && n >= all:
			t.Errorf("HideCovered: body written with %d of its %d triangles; want the covered ones dropped", n, all)
		}
		t.Logf("HideCovered %v: %d of %d body triangles", hide, n, all)
	}
}
