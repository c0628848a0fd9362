package character

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
)

// TestLoadGLTFDressed writes a skinned strip (the body) with three
// garments in the same file, 5 mm in front of it: a skinned one stored in
// the body's bind pose, a skinned one stored 1 m to the side with inverse
// bind matrices that carry it back, and a static one. All are worn, by
// name or with AllGarments, where they were modelled.
func TestLoadGLTFDressed(t *testing.T) {
	body := mesh.Grid(0.4, 1, 4, 10) // XY plane, x in [0, 0.4], y in [0, 1]
	rest := func(y float64) geom.Rigid { return geom.Rigid{R: geom.QuatIdentity(), T: geom.Vec3{Y: y}} }
	sk := &gltfio.Skeleton{Joints: []gltfio.Joint{
		{Name: "Hips", Parent: -1, Rest: rest(0.1)},
		{Name: "Spine", Parent: 0, Rest: rest(0.5)},
	}}
	skin := func(m *mesh.Mesh) [][]gltfio.Influence {
		infl := make([][]gltfio.Influence, len(m.Verts))
		for i, v := range m.Verts {
			j := int32(0)
			if v.Y > 0.6 {
				j = 1
			}
			infl[i] = []gltfio.Influence{{Joint: j, Weight: 1}}
		}
		return infl
	}
	front := func(dx float64) *mesh.Mesh {
		g := mesh.Grid(0.2, 0.4, 2, 4)
		for i := range g.Verts {
			g.Verts[i] = g.Verts[i].Add(geom.V(dx, 0, 0.005))
		}
		return g
	}
	shifted := front(1)
	// Stored 1 m along +X: IB_g[j] = W_j⁻¹·T(−1, 0, 0).
	back := geom.Rigid{R: geom.QuatIdentity(), T: geom.V(-1, 0, 0)}
	w0 := rest(0.1)
	w1 := w0.Mul(rest(0.5))
	ib := []geom.Rigid{w0.Inverse().Mul(back), w1.Inverse().Mul(back)}
	s := &gltfio.Scene{Skeleton: sk, Meshes: []gltfio.Mesh{
		{Name: "body", Mesh: body, Skin: &gltfio.Skin{Influences: skin(body)}},
		{Name: "vest", Mesh: front(0), Skin: &gltfio.Skin{Influences: skin(front(0))}},
		{Name: "apron", Mesh: shifted, Skin: &gltfio.Skin{Influences: skin(shifted), InverseBind: ib}},
		{Name: "badge", Mesh: front(0)},
	}}
	path := filepath.Join(t.TempDir(), "dressed.glb")
	if err := gltfio.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{{AllGarments}, {"vest", "apron", "badge"}, {"apron"}} {
		c, mg, err := LoadGLTFDressed(path, names, GarmentOptions{})
		if err != nil {
			t.Fatalf("%v: %v", names, err)
		}
		if len(c.Body.Verts) != len(body.Verts) {
			t.Errorf("%v: body has %d vertices", names, len(c.Body.Verts))
		}
		want := len(names)
		if names[0] == AllGarments {
			want = 3
		}
		if len(mg.Pieces) != want {
			t.Fatalf("%v: %d pieces, want %d", names, len(mg.Pieces), want)
		}
		for _, g := range mg.Pieces {
			for _, v := range g.Mesh.Verts {
				if d := v.Z - 0.005; d*d > 1e-12 || v.X < -1e-6 || v.X > 0.2+1e-6 {
					t.Fatalf("%v: %s vertex at %v, want within the 5 mm patch", names, g.Name, v)
				}
			}
			if len(g.Weights.Offsets) != len(g.Mesh.Verts)+1 {
				t.Errorf("%s: weights for %d vertices", g.Name, len(g.Weights.Offsets)-1)
			}
		}
	}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"cape"}, `no garment mesh named "cape"; its meshes: "body", "vest", "apron", "badge" (the body is "body")`},
		{[]string{"body", "vest", "apron"}, "no skinned mesh is left for the body"},
		{nil, "no garment meshes named"},
	} {
		if _, _, err := LoadGLTFDressed(path, tc.names, GarmentOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.names, err, tc.want)
		}
	}
}

// TestGLTFDressedOwnWeightsAndBindPose: a skinned garment keeps the
// file's own skin weights (here all on Spine, where the body's are on
// Hips), and a static garment modelled on the file's node rest pose is
// carried into the body's bind pose when the two differ (the body's
// inverse bind matrices put it 1 m along −X of its rest pose).
func TestGLTFDressedOwnWeightsAndBindPose(t *testing.T) {
	body := mesh.Grid(0.4, 1, 4, 10)
	rest := func(y float64) geom.Rigid { return geom.Rigid{R: geom.QuatIdentity(), T: geom.Vec3{Y: y}} }
	sk := &gltfio.Skeleton{Joints: []gltfio.Joint{
		{Name: "Hips", Parent: -1, Rest: rest(0.1)},
		{Name: "Spine", Parent: 0, Rest: rest(0.5)},
	}}
	front := func(dx float64) *mesh.Mesh {
		g := mesh.Grid(0.2, 0.4, 2, 4)
		for i := range g.Verts {
			g.Verts[i] = g.Verts[i].Add(geom.V(dx, 0, 0.005))
		}
		return g
	}
	on := func(m *mesh.Mesh, j int32) [][]gltfio.Influence {
		infl := make([][]gltfio.Influence, len(m.Verts))
		for i := range infl {
			infl[i] = []gltfio.Influence{{Joint: j, Weight: 1}}
		}
		return infl
	}
	left := geom.Rigid{R: geom.QuatIdentity(), T: geom.V(-1, 0, 0)}
	w0 := rest(0.1)
	w1 := w0.Mul(rest(0.5))
	ib := []geom.Rigid{left.Mul(w0).Inverse(), left.Mul(w1).Inverse()}
	vest := front(0)
	s := &gltfio.Scene{Skeleton: sk, Meshes: []gltfio.Mesh{
		{Name: "body", Mesh: body, Skin: &gltfio.Skin{Influences: on(body, 0), InverseBind: ib}},
		{Name: "vest", Mesh: vest, Skin: &gltfio.Skin{Influences: on(vest, 1), InverseBind: ib}},
		{Name: "badge", Mesh: front(1)}, // on the rest-pose body, 1 m to +X of the bind pose
	}}
	path := filepath.Join(t.TempDir(), "bindpose.glb")
	if err := gltfio.WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	c, mg, err := LoadGLTFDressed(path, []string{AllGarments}, GarmentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	si, ok := c.Skeleton.Index("Spine")
	if !ok {
		t.Fatal("no Spine joint")
	}
	spine := int32(si)
	for _, g := range mg.Pieces {
		for v, p := range g.Mesh.Verts {
			if d := p.Z - 0.005; d*d > 1e-12 || p.X < -1e-6 || p.X > 0.2+1e-6 {
				t.Fatalf("%s vertex %d at %v, want within the 5 mm patch in front of the body", g.Name, v, p)
			}
			js, ws := g.Weights.Influences(v)
			switch g.Name {
			case "vest":
				if len(js) != 1 || js[0] != spine || ws[0] != 1 {
					t.Fatalf("vest vertex %d: weights %v %v, want the file's (Spine %d)", v, js, ws, spine)
				}
			case "badge":
				if len(js) != 1 || js[0] == spine {
					t.Fatalf("badge vertex %d: weights %v %v, want the body's (Hips)", v, js, ws)
				}
			}
		}
	}
}
