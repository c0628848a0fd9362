package obj

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/geom"
	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/mesh"
)

func TestReadTable(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		verts     int
		tris      [][3]int32
		uvTris    [][3]int32 // nil: expect no UVs
		nUVs      int
		normals   bool // expect NormalTris
		groups    []string
		faceSizes []int32
	}{
		{
			name:      "triangle",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
			verts:     3,
			tris:      [][3]int32{{0, 1, 2}},
			faceSizes: []int32{3},
		},
		{
			name:      "w, colours, unused vertex kept",
			in:        "v 0 0 0 1\nv 1 0 0 1 0 0\nv 0 1 0 0.5 0.5 0.5 1\nv 9 9 9\nf 1 2 3\n",
			verts:     4,
			tris:      [][3]int32{{0, 1, 2}},
			faceSizes: []int32{3},
		},
		{
			name:      "negative indices",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 1 1 0\nf -3 -1 -2\n",
			verts:     4,
			tris:      [][3]int32{{0, 1, 2}, {1, 3, 2}},
			faceSizes: []int32{3, 3},
		},
		{
			name:      "quad fan",
			in:        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
			verts:     4,
			tris:      [][3]int32{{0, 1, 2}, {0, 2, 3}},
			faceSizes: []int32{4},
		},
		{
			name: "dart reflex at 3 uses 1-3 diagonal",
			// corner 3 (0,0.5) is reflex, so the 0-2 diagonal lies outside.
			in:        "v 1 0 0\nv 0 2 0\nv -1 0 0\nv 0 0.5 0\nf 1 2 3 4\n",
			verts:     4,
			tris:      [][3]int32{{1, 2, 3}, {1, 3, 0}},
			faceSizes: []int32{4},
		},
		{
			name:      "concave quad reflex at 2 keeps 0-2 diagonal",
			in:        "v 0 0 0\nv 1 0 0\nv 0.3 0.3 0\nv 0 1 0\nf 1 2 3 4\n",
			verts:     4,
			tris:      [][3]int32{{0, 1, 2}, {0, 2, 3}},
			faceSizes: []int32{4},
		},
		{
			name:      "v/vt, v//vn, v/vt/vn",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1\n",
			verts:     3,
			tris:      [][3]int32{{0, 1, 2}},
			uvTris:    [][3]int32{{0, 1, 2}},
			nUVs:      3,
			normals:   true,
			faceSizes: []int32{3},
		},
		{
			name:      "some faces lack vt: extra (0,0)",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0.5 0.5\nf 1/1 2/1 3/1\nf 2 4 3\n",
			verts:     4,
			tris:      [][3]int32{{0, 1, 2}, {1, 3, 2}},
			uvTris:    [][3]int32{{0, 0, 0}, {1, 1, 1}},
			nUVs:      2,
			faceSizes: []int32{3, 3},
		},
		{
			name:      "groups, default group first, repeated name merges, empty dropped",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\ng a\nf 2 4 3\ng empty\ng b c\nf 1 2 4\no a\nf 1 4 3\n",
			verts:     4,
			tris:      [][3]int32{{0, 1, 2}, {1, 3, 2}, {0, 1, 3}, {0, 3, 2}},
			groups:    []string{"default", "a", "b c"},
			faceSizes: []int32{3, 3, 3, 3},
		},
		{
			name:      "bare g is the default group",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\ng\n\nf 1 2 3\n",
			verts:     3,
			tris:      [][3]int32{{0, 1, 2}},
			groups:    []string{"default"},
			faceSizes: []int32{3},
		},
		{
			name:      "comments, CRLF, continuation, ignored statements",
			in:        "# hi\r\nmtllib x.mtl\r\nv 0 0 0 # c\r\nv 1 \\\r\n 0 0\r\nv 0 1 0\r\nusemtl m\r\ns 1\r\nl 1 2\r\nf 1 \\\n2 3\r\n",
			verts:     3,
			tris:      [][3]int32{{0, 1, 2}},
			faceSizes: []int32{3},
		},
		{
			name:      "no trailing newline",
			in:        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3",
			verts:     3,
			tris:      [][3]int32{{0, 1, 2}},
			faceSizes: []int32{3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ReadDetailed(strings.NewReader(tc.in), "t.obj", Options{})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Mesh
			if err := m.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if len(m.Verts) != tc.verts {
				t.Errorf("verts = %d, want %d", len(m.Verts), tc.verts)
			}
			if !reflect.DeepEqual(m.Tris, tc.tris) {
				t.Errorf("tris = %v, want %v", m.Tris, tc.tris)
			}
			if tc.uvTris == nil {
				if m.UVTris != nil || m.UVs != nil {
					t.Errorf("unexpected UVs %v %v", m.UVs, m.UVTris)
				}
			} else {
				if !reflect.DeepEqual(m.UVTris, tc.uvTris) || len(m.UVs) != tc.nUVs {
					t.Errorf("uvTris = %v (%d uvs), want %v (%d)", m.UVTris, len(m.UVs), tc.uvTris, tc.nUVs)
				}
			}
			if (m.NormalTris != nil) != tc.normals {
				t.Errorf("NormalTris = %v, want present=%v", m.NormalTris, tc.normals)
			}
			var names []string
			for _, g := range m.Groups {
				names = append(names, g.Name)
			}
			if !reflect.DeepEqual(names, tc.groups) {
				t.Errorf("groups = %v, want %v", names, tc.groups)
			}
			var sizes []int32
			for i := range res.NumFaces() {
				sizes = append(sizes, int32(len(res.Face(i))))
			}
			if !reflect.DeepEqual(sizes, tc.faceSizes) {
				t.Errorf("face sizes = %v, want %v", sizes, tc.faceSizes)
			}
			if len(res.FaceOf) != len(m.Tris) {
				t.Errorf("len(FaceOf) = %d, want %d", len(res.FaceOf), len(m.Tris))
			}
		})
	}
}

func TestGroupsContent(t *testing.T) {
	in := "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\ng a\nf 2 4 3\ng b\nf 1 2 4\ng a\nf 1 4 3\n"
	m, err := Read(strings.NewReader(in), "t.obj")
	if err != nil {
		t.Fatal(err)
	}
	want := []mesh.Group{{Name: "default", Tris: []int32{0}}, {Name: "a", Tris: []int32{1, 3}}, {Name: "b", Tris: []int32{2}}}
	if !reflect.DeepEqual(m.Groups, want) {
		t.Errorf("groups = %v, want %v", m.Groups, want)
	}
}

// polyArea returns the signed area of triangles projected on +Z, summed.
func polyArea(m *mesh.Mesh) (sum float64, minSigned float64) {
	minSigned = math.Inf(1)
	for _, t := range m.Tris {
		a := geom.TriangleNormal(m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]).Z / 2
		sum += a
		minSigned = math.Min(minSigned, a)
	}
	return sum, minSigned
}

func TestNgonEarClipping(t *testing.T) {
	tests := []struct {
		name string
		pts  [][2]float64
		area float64
	}{
		{"convex hexagon", [][2]float64{{1, 0}, {0.5, 0.866}, {-0.5, 0.866}, {-1, 0}, {-0.5, -0.866}, {0.5, -0.866}}, 6 * 0.5 * 0.866},
		{"L shape", [][2]float64{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}, 3},
		{"comb", [][2]float64{{0, 0}, {5, 0}, {5, 3}, {4, 3}, {4, 1}, {3, 1}, {3, 3}, {2, 3}, {2, 1}, {1, 1}, {1, 3}, {0, 3}}, 5 + 3*2},
		{"star", [][2]float64{{0, -3}, {1, -1}, {3, 0}, {1, 1}, {0, 3}, {-1, 1}, {-3, 0}, {-1, -1}}, 12},
	}
	for _, tc := range tests {
		for _, tilt := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				var sb strings.Builder
				for _, p := range tc.pts {
					// tilt the plane a little out of z=0 along a line, keeping the
					// xy projection; the best-fit plane must still work.
					z := 0.0
					if tilt {
						z = 0.1*p[0] + 0.05*p[1]
					}
					sb.WriteString("v " + ftoa(p[0]) + " " + ftoa(p[1]) + " " + ftoa(z) + "\n")
				}
				sb.WriteString("f")
				for i := range tc.pts {
					sb.WriteString(" " + itoa(i+1))
				}
				sb.WriteString("\n")
				m, err := Read(strings.NewReader(sb.String()), "n.obj")
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Tris) != len(tc.pts)-2 {
					t.Fatalf("got %d triangles, want %d", len(m.Tris), len(tc.pts)-2)
				}
				sum, minA := polyArea(m)
				if math.Abs(sum-tc.area) > 1e-9 || minA <= 0 {
					t.Errorf("area sum %v (want %v), smallest signed triangle area %v (want > 0)", sum, tc.area, minA)
				}
			})
		}
	}
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func itoa(i int) string { return strconv.Itoa(i) }

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "t.obj: no faces"},
		{"no faces", "v 0 0 0\nv 1 0 0\n", "t.obj: no faces"},
		{"truncated v", "v 0 0\n", "t.obj:1: v needs 3"},
		{"bad number", "v 0 0 0\nv 1 x 0\n", "t.obj:2: bad number \"x\""},
		{"nan", "v 0 nan 0\n", "t.obj:1: non-finite"},
		{"inf", "v 0 0 inf\n", "t.obj:1: non-finite"},
		{"overflow", "v 0 0 1e999\n", "t.obj:1: bad number"},
		{"vt nan", "vt nan 0\n", "t.obj:1: non-finite"},
		{"vn short", "vn 0 0\n", "t.obj:1: vn needs 3"},
		{"index zero", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "t.obj:4: vertex index 0"},
		{"index out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n", "t.obj:5: vertex index 4 out of range"},
		{"negative out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", "t.obj:4: vertex index -4 out of range"},
		{"forward reference", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n", "t.obj:3: vertex index 3"},
		{"uv out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/2 3/1\n", "t.obj:5: texture index 2"},
		{"normal out of range", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//1 2//1 3//1\n", "t.obj:4: normal index 1"},
		{"bad index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", "t.obj:4: bad vertex index \"3x\""},
		{"empty index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 /1\n", "t.obj:4: empty vertex index"},
		{"two corners", "v 0 0 0\nv 1 0 0\nf 1 2\n", "t.obj:3: face needs at least 3"},
		{"repeated vertex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 2\n", "t.obj:4: face repeats vertex 2"},
		{"repeated via negative", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 -3\n", "t.obj:4: face repeats vertex 1"},
		{"continued line keeps first line number", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 \\\n 2 \\\n 9\n", "t.obj:4: vertex index 9"},
		{"huge index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", "t.obj:4: vertex index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "t.obj")
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix %q", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not *Error", err)
			}
		})
	}
}

func TestScale(t *testing.T) {
	in := "v 10 20 30\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
	res, err := ReadDetailed(strings.NewReader(in), "s.obj", Options{Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Mesh.Verts[0], (geom.Vec3{X: 1, Y: 2, Z: 3}); got != want {
		t.Errorf("scaled vertex %v, want %v", got, want)
	}
	for _, s := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := ReadDetailed(strings.NewReader(in), "s.obj", Options{Scale: s}); err == nil {
			t.Errorf("scale %v: no error", s)
		}
	}
}

// testMesh returns a small mesh with UVs (with a seam), normals and groups
// in contiguous runs, and awkward coordinates.
func testMesh() *mesh.Mesh {
	m := &mesh.Mesh{
		Verts: []geom.Vec3{{X: 0.1, Y: 0.2, Z: 0.3}, {X: 1.0 / 3, Y: -1e-300, Z: 1e300}, {X: math.Pi, Y: 0, Z: -0.0}, {X: 1, Y: 1, Z: float64(float32(0.7))}, {X: 5, Y: 6, Z: 7}},
		Tris:  [][3]int32{{0, 1, 2}, {0, 2, 3}, {1, 3, 2}, {3, 1, 4}},
		UVs:   []geom.Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0.5, Y: 1}, {X: 0.25, Y: 0.125}, {X: 2.0 / 3, Y: 0.1}},
		UVTris: [][3]int32{
			{0, 1, 2}, {0, 2, 3}, {4, 3, 2}, {3, 4, 0},
		},
		Normals:    []geom.Vec3{{X: 0, Y: 0, Z: 1}, {X: 0, Y: 1, Z: 0}},
		NormalTris: [][3]int32{{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {1, 0, 1}},
		Groups:     []mesh.Group{{Name: "default", Tris: []int32{0}}, {Name: "front panel", Tris: []int32{1, 2}}, {Name: "b", Tris: []int32{3}}},
	}
	return m
}

func TestRoundTrip(t *testing.T) {
	full := testMesh()
	noNormals := testMesh()
	noNormals.Normals, noNormals.NormalTris = nil, nil
	plain := testMesh()
	plain.Normals, plain.NormalTris, plain.UVs, plain.UVTris, plain.Groups = nil, nil, nil, nil, nil
	tests := []struct {
		name string
		m    *mesh.Mesh
	}{{"uv+normals+groups", full}, {"uv+groups", noNormals}, {"plain", plain}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.m); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, "rt.obj")
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			if !reflect.DeepEqual(got, tc.m) {
				t.Errorf("round trip differs:\n got %+v\nwant %+v", got, tc.m)
			}
		})
	}
}

func TestWriteOrdersGroups(t *testing.T) {
	m := testMesh()
	m.Groups = []mesh.Group{{Name: "x\ny#", Tris: []int32{3, 0}}, {Name: "y\\", Tris: []int32{0, 1}}}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf, "rt.obj")
	if err != nil {
		t.Fatal(err)
	}
	// tri 2 is ungrouped -> first, in "default"; then x_y_ {3,0}; then y_ {1}.
	want := [][3]int32{m.Tris[2], m.Tris[3], m.Tris[0], m.Tris[1]}
	if !reflect.DeepEqual(got.Tris, want) {
		t.Errorf("tris %v, want %v", got.Tris, want)
	}
	wantG := []mesh.Group{{Name: "default", Tris: []int32{0}}, {Name: "x_y_", Tris: []int32{1, 2}}, {Name: "y_", Tris: []int32{3}}}
	if !reflect.DeepEqual(got.Groups, wantG) {
		t.Errorf("groups %v, want %v", got.Groups, wantG)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	return 0, errors.New("disk full")
}

func TestWriteErrors(t *testing.T) {
	if err := Write(&failWriter{}, testMesh()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error not reported: %v", err)
	}
	bad := testMesh()
	bad.Tris[0][0] = 99
	if err := Write(&bytes.Buffer{}, bad); err == nil {
		t.Error("invalid mesh written without error")
	}
	if err := Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil mesh written without error")
	}
}

// assets returns $PLEAT_ASSETS or skips.
func assets(tb testing.TB) string {
	dir := pleatassets.Dir()
	if dir == "" {
		tb.Skip("PLEAT_ASSETS not set (e.g. PLEAT_ASSETS=/work/shared/assets); skipping real-asset test")
	}
	return dir
}

func TestBaseOBJ(t *testing.T) {
	path := filepath.Join(assets(t), "makehuman/body/base.obj")
	start := time.Now()
	res, err := ReadFileDetailed(path, Options{Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("read base.obj in %v", time.Since(start))
	m := res.Mesh
	if len(m.Verts) != 19158 || len(m.Tris) != 36972 {
		t.Errorf("base.obj: %d vertices, %d triangles; want 19158, 36972", len(m.Verts), len(m.Tris))
	}
	if res.NumFaces() != 18486 {
		t.Errorf("base.obj: %d faces, want 18486", res.NumFaces())
	}
	for i, f := range res.FaceOf {
		if int(f) != i/2 || len(res.Face(int(f))) != 4 {
			t.Fatalf("triangle %d comes from face %d (%d corners), want face %d, a quad", i, f, len(res.Face(int(f))), i/2)
		}
	}
	if err := m.Validate(); err != nil {
		t.Error(err)
	}
	if !m.HasUVs() {
		t.Error("base.obj: no UVs")
	}
	for _, name := range []string{"body", "helper-tights"} {
		if m.Group(name) == nil {
			t.Errorf("base.obj: no group %q", name)
		}
	}
	if h := m.Bounds().Size().Y; h < 1.6 || h > 1.8 {
		t.Errorf("base.obj height %.3f m, want about 1.67 (scale 0.1)", h)
	}
	if g := m.Group("body"); g != nil {
		vs := m.GroupVerts(g)
		if vs[0] != 0 || vs[len(vs)-1] != 13379 {
			t.Errorf("body vertices %d..%d, want 0..13379", vs[0], vs[len(vs)-1])
		}
	}
}

func TestClothesOBJ(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(assets(t), "makehuman/clothes/male_casualsuit02/*.obj"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no garment OBJ found: %v", err)
	}
	for _, f := range files {
		res, err := ReadFileDetailed(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Mesh
		if err := m.Validate(); err != nil {
			t.Error(err)
		}
		if len(m.Verts) != 2136 || res.NumFaces() != 2060 || len(m.Tris) != 2*2060 {
			t.Errorf("%s: %d verts %d faces %d tris; want 2136, 2060, 4120", filepath.Base(f), len(m.Verts), res.NumFaces(), len(m.Tris))
		}
	}
}

func BenchmarkReadOBJ(b *testing.B) {
	var data []byte
	if dir := pleatassets.Dir(); dir != "" {
		d, err := os.ReadFile(filepath.Join(dir, "makehuman/body/base.obj"))
		if err == nil {
			data = d
		}
	}
	if data == nil {
		m := mesh.Grid(1, 1, 140, 140)
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			b.Fatal(err)
		}
		data = buf.Bytes()
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.obj"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnusedVerts: vertices no face uses are counted, as a file cut short
// in its faces has them.
func TestUnusedVerts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 0},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\n", 1},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 2 2 0\nf 1 2 3\nf 2 -2 3\n", 1},
	} {
		res, err := ReadDetailed(strings.NewReader(tc.in), "u.obj", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.UnusedVerts(); got != tc.want {
			t.Errorf("%q: %d unused, want %d", tc.in, got, tc.want)
		}
	}
}
