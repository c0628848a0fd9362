package mesh

import (
	"reflect"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func TestExtract(t *testing.T) {
	// Two quads side by side (four triangles over six vertices) with UVs
	// and groups; triangle 2 and 3 form the right quad.
	m := &Mesh{
		Verts:  []geom.Vec3{{X: 0}, {X: 1}, {X: 2}, {Y: 1}, {X: 1, Y: 1}, {X: 2, Y: 1}},
		Tris:   [][3]int32{{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}},
		UVs:    []geom.Vec2{{X: 0}, {X: 1}, {X: 2}, {Y: 1}, {X: 1, Y: 1}, {X: 2, Y: 1}},
		UVTris: [][3]int32{{0, 1, 4}, {0, 4, 3}, {1, 2, 5}, {1, 5, 4}},
		Groups: []Group{{Name: "left", Tris: []int32{0, 1}}, {Name: "right", Tris: []int32{2, 3, 9}}},
	}
	tests := []struct {
		name   string
		keep   []bool
		tris   [][3]int32
		src    []int32
		tmap   []int32
		groups []Group
	}{
		{"all", []bool{true, true, true, true},
			[][3]int32{{0, 1, 2}, {0, 2, 3}, {1, 4, 5}, {1, 5, 2}}, []int32{0, 1, 4, 3, 2, 5}, []int32{0, 1, 2, 3},
			[]Group{{Name: "left", Tris: []int32{0, 1}}, {Name: "right", Tris: []int32{2, 3}}}},
		{"right quad", []bool{false, false, true, true},
			[][3]int32{{0, 1, 2}, {0, 2, 3}}, []int32{1, 2, 5, 4}, []int32{-1, -1, 0, 1},
			[]Group{{Name: "right", Tris: []int32{0, 1}}}},
		{"one triangle", []bool{false, true, false, false},
			[][3]int32{{0, 1, 2}}, []int32{0, 4, 3}, []int32{-1, 0, -1, -1},
			[]Group{{Name: "left", Tris: []int32{0}}}},
		{"none", []bool{false, false, false, false}, nil, nil, []int32{-1, -1, -1, -1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, src, tmap := Extract(m, func(t int) bool { return tc.keep[t] })
			if !reflect.DeepEqual(out.Tris, tc.tris) || !reflect.DeepEqual(src, tc.src) || !reflect.DeepEqual(tmap, tc.tmap) {
				t.Fatalf("tris %v src %v tmap %v, want %v %v %v", out.Tris, src, tmap, tc.tris, tc.src, tc.tmap)
			}
			if !reflect.DeepEqual(out.Groups, tc.groups) {
				t.Errorf("groups %v, want %v", out.Groups, tc.groups)
			}
			for i, v := range src {
				if out.Verts[i] != m.Verts[v] {
					t.Errorf("vertex %d at %v, want m's vertex %d at %v", i, out.Verts[i], v, m.Verts[v])
				}
			}
			// Every corner keeps its UV: here UV u sits at vertex u.
			for nt, tr := range out.Tris {
				for k := range tr {
					if got, want := out.UVs[out.UVTris[nt][k]], m.UVs[src[tr[k]]]; got != want {
						t.Errorf("triangle %d corner %d: uv %v, want %v", nt, k, got, want)
					}
				}
			}
			if len(out.Tris) > 0 {
				if err := out.Validate(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
