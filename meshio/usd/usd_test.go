package usd

import (
	"archive/zip"
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/gltfcheck"
	"github.com/pleat-dev/pleat/mesh"
)

// testStage returns a body (a UV sphere with per-corner UVs and normals)
// and a garment piece (a grid with one UV per vertex, double-sided),
// moved by seeded noise over frames frames at 30 fps.
func testStage(frames int) *Stage {
	rng := rand.New(rand.NewPCG(1, 1))
	body := mesh.UVSphere(0.3, 8, 12)
	grid := mesh.Grid(0.5, 0.4, 6, 5)
	grid.UVTris = nil // one UV per vertex: written with "vertex" interpolation
	anim := func(m *mesh.Mesh) [][]geom.Vec3 {
		out := make([][]geom.Vec3, frames)
		for f := range out {
			out[f] = make([]geom.Vec3, len(m.Verts))
			for v, p := range m.Verts {
				out[f][v] = p.Add(geom.Vec3{X: 0.01 * float64(f), Y: rng.NormFloat64() * 1e-3, Z: rng.Float64() * 1e-7})
			}
		}
		return out
	}
	bf := anim(body)
	return &Stage{
		FPS: 30,
		Meshes: []Mesh{
			{Name: "body", Mesh: body, Frames: bf, Normals: VertexNormals(body, bf)},
			{Name: "male casualsuit:02", Mesh: grid, Frames: anim(grid), DoubleSided: true},
		},
	}
}

// sameFloat32 reports whether got holds exactly the float32 nearest to
// want (the values the writer stores).
func sameFloat32(got, want float64) bool {
	return got == float64(float32(want)) && math.Float32bits(float32(got)) == math.Float32bits(float32(want))
}

func checkRoundTrip(t *testing.T, in, out *Stage) {
	t.Helper()
	if out.FPS != in.FPS || out.StartTime != in.StartTime || out.UpAxis != "Y" || out.MetersPerUnit != 1 || out.Root != "pleat" {
		t.Errorf("layer metadata: fps %g start %g up %q mpu %g root %q", out.FPS, out.StartTime, out.UpAxis, out.MetersPerUnit, out.Root)
	}
	if len(out.Meshes) != len(in.Meshes) {
		t.Fatalf("%d meshes, want %d", len(out.Meshes), len(in.Meshes))
	}
	for i, w := range in.Meshes {
		g := out.Meshes[i]
		if g.Name != w.Name || g.DoubleSided != w.DoubleSided {
			t.Errorf("mesh %d: name %q double %v, want %q %v", i, g.Name, g.DoubleSided, w.Name, w.DoubleSided)
		}
		if len(g.Mesh.Tris) != len(w.Mesh.Tris) {
			t.Fatalf("mesh %d: %d triangles, want %d", i, len(g.Mesh.Tris), len(w.Mesh.Tris))
		}
		for k := range w.Mesh.Tris {
			if g.Mesh.Tris[k] != w.Mesh.Tris[k] {
				t.Fatalf("mesh %d triangle %d: %v, want %v", i, k, g.Mesh.Tris[k], w.Mesh.Tris[k])
			}
		}
		if len(g.Frames) != len(w.Frames) || len(g.Times) != len(w.Frames) {
			t.Fatalf("mesh %d: %d frames (%d times), want %d", i, len(g.Frames), len(g.Times), len(w.Frames))
		}
		samples := 0
		for f := range w.Frames {
			if g.Times[f] != in.StartTime+float64(f) {
				t.Errorf("mesh %d frame %d: time %g", i, f, g.Times[f])
			}
			for v, p := range w.Frames[f] {
				q := g.Frames[f][v]
				if !sameFloat32(q.X, p.X) || !sameFloat32(q.Y, p.Y) || !sameFloat32(q.Z, p.Z) {
					t.Fatalf("mesh %d frame %d point %d: %v, want float32 of %v", i, f, v, q, p)
				}
				samples++
			}
		}
		if (g.Normals == nil) != (w.Normals == nil) {
			t.Fatalf("mesh %d: normals %v, want %v", i, g.Normals != nil, w.Normals != nil)
		}
		for f := range w.Normals {
			for v, p := range w.Normals[f] {
				q := g.Normals[f][v]
				if !sameFloat32(q.X, p.X) || !sameFloat32(q.Y, p.Y) || !sameFloat32(q.Z, p.Z) {
					t.Fatalf("mesh %d frame %d normal %d: %v, want %v", i, f, v, q, p)
				}
			}
		}
		if len(g.Mesh.UVs) != len(w.Mesh.UVs) || (g.Mesh.UVTris == nil) != (w.Mesh.UVTris == nil) {
			t.Fatalf("mesh %d: %d UVs (tris %v), want %d (%v)", i, len(g.Mesh.UVs), g.Mesh.UVTris != nil, len(w.Mesh.UVs), w.Mesh.UVTris != nil)
		}
		for k, p := range w.Mesh.UVs {
			if q := g.Mesh.UVs[k]; !sameFloat32(q.X, p.X) || !sameFloat32(q.Y, p.Y) {
				t.Fatalf("mesh %d uv %d: %v, want %v", i, k, q, p)
			}
		}
		for k := range w.Mesh.UVTris {
			if g.Mesh.UVTris[k] != w.Mesh.UVTris[k] {
				t.Fatalf("mesh %d UV triangle %d: %v, want %v", i, k, g.Mesh.UVTris[k], w.Mesh.UVTris[k])
			}
		}
		t.Logf("mesh %s: %d frames × %d points = %d samples round-trip bit-exactly (float32)", w.Name, len(w.Frames), len(w.Frames[0]), samples)
	}
}

func TestRoundTripUSDA(t *testing.T) {
	in := testStage(5)
	in.StartTime = 3
	var buf bytes.Buffer
	if err := Write(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, in, out)
}

func TestRoundTripUSDZAligned(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "anim.usdz")
	in := testStage(4)
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, in, out)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 1 || zr.File[0].Name != "anim.usda" || zr.File[0].Method != zip.Store {
		t.Fatalf("package: %d files, first %q method %d", len(zr.File), zr.File[0].Name, zr.File[0].Method)
	}
	off, err := zr.File[0].DataOffset()
	if err != nil || off%64 != 0 {
		t.Fatalf("layer data at offset %d (%v): usdz wants a multiple of 64", off, err)
	}
}

// TestStableVertexOrder checks that point i of every prim is vertex i of
// the input: a static mesh written and read keeps Verts in order.
func TestStableVertexOrder(t *testing.T) {
	m := mesh.Grid(1, 1, 3, 2)
	var buf bytes.Buffer
	if err := Write(&buf, &Stage{Meshes: []Mesh{{Name: "g", Mesh: m}}}); err != nil {
		t.Fatal(err)
	}
	out, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	g := out.Meshes[0]
	if g.Frames != nil || len(g.Mesh.Verts) != len(m.Verts) || out.FPS != 24 {
		t.Fatalf("static mesh: frames %v, %d points, fps %g", g.Frames != nil, len(g.Mesh.Verts), out.FPS)
	}
	for v, p := range m.Verts {
		if q := g.Mesh.Verts[v]; !sameFloat32(q.X, p.X) || !sameFloat32(q.Y, p.Y) || !sameFloat32(q.Z, p.Z) {
			t.Fatalf("point %d: %v, want %v", v, q, p)
		}
	}
}

func TestDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteUSDZ(&a, testStage(3), "x.usda"); err != nil {
		t.Fatal(err)
	}
	if err := WriteUSDZ(&b, testStage(3), "x.usda"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two writes of the same stage differ")
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *Stage)
		want string
	}{
		{"nan point", func(s *Stage) { s.Meshes[1].Frames[2][7].Y = math.NaN() }, "mesh 1 (male casualsuit:02): frame 2: point 7"},
		{"beyond float32", func(s *Stage) { s.Meshes[0].Frames[1][3].X = 1e39 }, "frame 1: point 3"},
		{"inf normal", func(s *Stage) { s.Meshes[0].Normals[0][4].Z = math.Inf(1) }, "frame 0: normal 4"},
		{"short frame", func(s *Stage) { s.Meshes[0].Frames[2] = s.Meshes[0].Frames[2][:5] }, "frame 2: 5 points"},
		{"bad triangle", func(s *Stage) { s.Meshes[1].Mesh.Tris[3][1] = 999 }, "triangle 3: vertex 999"},
		{"bad uv triangle", func(s *Stage) { s.Meshes[0].Mesh.UVTris[2][0] = -1 }, "UV triangle 2"},
		{"up axis", func(s *Stage) { s.UpAxis = "X" }, "up axis"},
		{"fps", func(s *Stage) { s.FPS = math.NaN() }, "frame rate"},
		{"no frames", func(s *Stage) { s.Meshes[0].Frames = [][]geom.Vec3{} }, "no frames"},
		{"normal count", func(s *Stage) { s.Meshes[0].Normals = s.Meshes[0].Normals[:1] }, "1 normal sets for 3 frames"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testStage(3)
			s.Meshes[0].Mesh = cloneMesh(s.Meshes[0].Mesh)
			s.Meshes[1].Mesh = cloneMesh(s.Meshes[1].Mesh)
			tc.edit(s)
			err := Write(&bytes.Buffer{}, s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "a.usdc"), testStage(1)); err == nil || !strings.Contains(err.Error(), "a.usdc") {
		t.Errorf(".usdc: %v", err)
	}
}

func cloneMesh(m *mesh.Mesh) *mesh.Mesh {
	c := *m
	c.Tris = append([][3]int32(nil), m.Tris...)
	c.UVTris = append([][3]int32(nil), m.UVTris...)
	if m.UVTris == nil {
		c.UVTris = nil
	}
	return &c
}

func TestPrimNames(t *testing.T) {
	got := primNames([]Mesh{{Name: "body"}, {Name: "male casualsuit:02"}, {Name: "body"}, {Name: "2nd"}, {Name: ""}, {Name: "ñ"}})
	want := []string{"body", "male_casualsuit_02", "body_2", "mesh_2nd", "mesh_", "_"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestReadErrors(t *testing.T) {
	const head = "#usda 1.0\n(\n    timeCodesPerSecond = 30\n)\n"
	mesh := func(body string) string {
		return head + "def Mesh \"m\"\n{\n" + body + "}\n"
	}
	const tri = "    int[] faceVertexCounts = [3]\n    int[] faceVertexIndices = [0, 1, 2]\n"
	tests := []struct {
		name, src, want string
	}{
		{"not usda", "PXR-USDC", "not a usda layer"},
		{"no mesh", head + "def Xform \"x\"\n{\n}\n", "no Mesh prims"},
		{"no points", mesh(tri), "want points"},
		{"index range", mesh(tri + "    point3f[] points = [(0,0,0), (1,0,0)]\n"), "point 2 not in [0,2)"},
		{"count sum", mesh("    int[] faceVertexCounts = [3, 3]\n    int[] faceVertexIndices = [0, 1, 2]\n    point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]\n"), "face 1: 3 corners (0 indices left)"},
		{"nan", mesh(tri + "    point3f[] points = [(0,0,0), (1,nan,0), (0,1,0)]\n"), "line 9: points: want a number"},
		{"float32 overflow", mesh(tri + "    point3f[] points = [(0,0,0), (1,1e39,0), (0,1,0)]\n"), "non-finite number \"1e39\""},
		{"frame size", mesh(tri + "    point3f[] points.timeSamples = {\n 0: [(0,0,0), (1,0,0), (0,1,0)],\n 1: [(0,0,0)],\n}\n"), "points at time 1: 1, want 3"},
		{"twice", mesh(tri + "    point3f[] points.timeSamples = {\n 0: [(0,0,0), (1,0,0), (0,1,0)],\n 0: [(0,0,0), (1,0,0), (0,1,0)],\n}\n"), "time 0 sampled twice"},
		{"unterminated", mesh(tri + "    point3f[] points = [(0,0,0), (1,0,0)"), "line 9: points: array: want ',' or ']'"},
		{"uv indices", mesh(tri + "    point3f[] points = [(0,0,0), (1,0,0), (0,1,0)]\n    texCoord2f[] primvars:st = [(0,0)] (\n interpolation = \"faceVarying\"\n)\n    int[] primvars:st:indices = [0, 0, 5]\n"), "primvars:st:indices[2] = 5"},
		{"deep", head + strings.Repeat("def \"a\" {\n", 100), "nested deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestReadPolygonsAndForeignSyntax reads a hand-written layer in the style
// of other tools: quads, comments, metadata, relationships, other prims.
func TestReadPolygonsAndForeignSyntax(t *testing.T) {
	src := `#usda 1.0
(
    defaultPrim = "World"
    doc = """multi
line"""
    framesPerSecond = 25
    upAxis = "Z"
    metersPerUnit = 0.01
    customLayerData = { string creator = "x"; dictionary d = { int a = 1 } }
)

def Xform "World" (
    kind = "component"
)
{
    def Scope "Looks" {}
    def Mesh "quad" (
        prepend apiSchemas = ["MaterialBindingAPI"]
    )
    {
        float3[] extent = [(0, 0, 0), (1, 1, 0)]
        int[] faceVertexCounts = [4]
        int[] faceVertexIndices = [0, 1, 2, 3]  # a quad
        rel material:binding = </World/Looks/m>
        point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
        texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (
            interpolation = "faceVarying"
        )
        uniform token subdivisionScheme = "none"
        custom string userProperties:note = "hi"
        double3 xformOp:translate = (1, 2, 3)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
`
	s, err := Read(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if s.FPS != 25 || s.UpAxis != "Z" || s.MetersPerUnit != 0.01 || s.Root != "World" {
		t.Errorf("layer: %+v", s)
	}
	m := s.Meshes[0]
	if m.Name != "quad" || len(m.Mesh.Tris) != 2 || m.Mesh.Tris[1] != [3]int32{0, 2, 3} || m.Mesh.UVTris[1] != [3]int32{0, 2, 3} {
		t.Fatalf("quad: %+v", m.Mesh)
	}
}

// TestThreeJSLoadsUSDZ loads the package with three.js' USDLoader and
// checks it built every mesh with the triangles written and the points
// of the first time sample.
func TestThreeJSLoadsUSDZ(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("PLEAT_USD_OUT"); d != "" {
		dir = d
	}
	in := testStage(6)
	var files []string
	for _, name := range []string{"anim.usdz", "anim.usda"} {
		path := filepath.Join(dir, name)
		if err := WriteFile(path, in); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
	}
	res := gltfcheck.LoadUSD(t, files...)
	for _, f := range res {
		checkThreeJS(t, f, in)
	}
}

// BenchmarkWrite writes a body-sized mesh (about 15,000 points and 30,000
// triangles with UVs and normals) for 10 frames as usda.
func BenchmarkWrite(b *testing.B) {
	m := mesh.UVSphere(0.3, 100, 150)
	frames := make([][]geom.Vec3, 10)
	rng := rand.New(rand.NewPCG(1, 1))
	for f := range frames {
		frames[f] = make([]geom.Vec3, len(m.Verts))
		for v, p := range m.Verts {
			frames[f][v] = p.Add(geom.Vec3{X: rng.Float64() * 1e-3, Y: float64(f) * 0.01})
		}
	}
	s := &Stage{FPS: 30, Meshes: []Mesh{{Name: "body", Mesh: m, Frames: frames, Normals: VertexNormals(m, frames)}}}
	var n countWriter
	b.ReportAllocs()
	for b.Loop() {
		n = 0
		if err := Write(&n, s); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(n))
	b.ReportMetric(float64(len(m.Verts)), "points")
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
