package ply

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/obj"
)

// bin builds a binary PLY: header text followed by values encoded in order.
func bin(order binary.ByteOrder, hdr string, vals ...any) []byte {
	var b bytes.Buffer
	b.WriteString(hdr)
	for _, v := range vals {
		if err := binary.Write(&b, order, v); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

const quadASCII = `ply
format ascii 1.0
comment a unit square and a pentagon
element vertex 6
property float x
property float y
property float z
property uchar red
property float s
property float t
element face 2
property uchar flags
property list uchar int vertex_index
element edge 2
property int vertex1
property list ushort int extra
end_header
0 0 0 255 0 0
1 0 0 255 1 0
1 1 0 255 1 1
0 1 0 255 0 1
2 0 0 0 0.5 0.5
2 1 0 0 0.5 0.5
7 4 0 1 2 3
0 5 1 4 5 2 3
0 2 5 6
1 0
`

func TestReadTable(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	hdrBin := func(format string) string {
		return "ply\r\nformat " + format + " 1.0\r\nelement vertex 4\r\nproperty double x\r\nproperty float32 y\r\nproperty int16 z\r\nproperty float u\r\nproperty float v\r\n" +
			"element material 2\r\nproperty list uint8 int name\r\nproperty uint8 r\r\n" +
			"element face 1\r\nproperty list uint16 uint32 vertex_indices\r\nproperty list uchar float texcoord\r\nend_header\r\n"
	}
	binVals := []any{
		float64(0), float32(0), int16(0), float32(0), float32(0),
		float64(1), float32(0), int16(0), float32(1), float32(0),
		float64(1), float32(1), int16(-2), float32(1), float32(1),
		float64(0), float32(1), int16(0), float32(0), float32(1),
		uint8(2), int32(7), int32(8), uint8(1), uint8(0), uint8(9),
		uint16(4), uint32(0), uint32(1), uint32(2), uint32(3),
		uint8(8), float32(0), float32(0), float32(.5), float32(0), float32(.5), float32(.5), float32(0), float32(.5),
	}
	tests := []struct {
		name    string
		in      []byte
		verts   []geom.Vec3
		tris    [][3]int32
		uvs     []geom.Vec2 // UVs[UVTris]
		normals bool
	}{
		{
			name:  "ascii quad and pentagon, skipped elements, s t",
			in:    []byte(quadASCII),
			verts: []geom.Vec3{{}, {X: 1}, {X: 1, Y: 1}, {Y: 1}, {X: 2}, {X: 2, Y: 1}},
			tris:  [][3]int32{{0, 1, 2}, {0, 2, 3}, {1, 4, 5}, {1, 5, 2}, {1, 2, 3}},
			// per-vertex s,t seen at each corner of tris
			uvs: []geom.Vec2{{}, {X: 1}, {X: 1, Y: 1}, {}, {X: 1, Y: 1}, {Y: 1}, {X: 1}, {X: .5, Y: .5}, {X: .5, Y: .5},
				{X: 1}, {X: .5, Y: .5}, {X: 1, Y: 1}, {X: 1}, {X: 1, Y: 1}, {Y: 1}},
		},
		{
			name:  "binary little endian mixed types with texcoord",
			in:    bin(le, hdrBin("binary_little_endian"), binVals...),
			verts: []geom.Vec3{{}, {X: 1}, {X: 1, Y: 1, Z: -2}, {Y: 1}},
			tris:  [][3]int32{{0, 1, 2}, {0, 2, 3}},
			uvs:   []geom.Vec2{{}, {X: .5}, {X: .5, Y: .5}, {}, {X: .5, Y: .5}, {Y: .5}},
		},
		{
			name:  "binary big endian",
			in:    bin(be, hdrBin("binary_big_endian"), binVals...),
			verts: []geom.Vec3{{}, {X: 1}, {X: 1, Y: 1, Z: -2}, {Y: 1}},
			tris:  [][3]int32{{0, 1, 2}, {0, 2, 3}},
			uvs:   []geom.Vec2{{}, {X: .5}, {X: .5, Y: .5}, {}, {X: .5, Y: .5}, {Y: .5}},
		},
		{
			name:    "normals, int8 list, no uv",
			in:      []byte("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\nelement face 1\nproperty list char char vertex_indices\nend_header\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n3 0 1 2\n"),
			verts:   []geom.Vec3{{}, {X: 1}, {Y: 1}},
			tris:    [][3]int32{{0, 1, 2}},
			normals: true,
		},
		{
			name:  "face before vertex, texture_u",
			in:    []byte("ply\nformat ascii 1.0\nelement face 1\nproperty list uchar uint vertex_indices\nelement vertex 3\nproperty float texture_u\nproperty float texture_v\nproperty float x\nproperty float y\nproperty float z\nend_header\n3 2 1 0\n\n0.5 0.25 0 0 0\n0 0 1 0 0\n0 0 0 1 0\n"),
			verts: []geom.Vec3{{}, {X: 1}, {Y: 1}},
			tris:  [][3]int32{{2, 1, 0}},
			uvs:   []geom.Vec2{{}, {}, {X: .5, Y: .25}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Read(bytes.NewReader(tc.in), "t.ply")
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Verts, tc.verts) {
				t.Errorf("verts %v, want %v", m.Verts, tc.verts)
			}
			if !reflect.DeepEqual(m.Tris, tc.tris) {
				t.Errorf("tris %v, want %v", m.Tris, tc.tris)
			}
			if tc.uvs == nil {
				if m.UVTris != nil {
					t.Errorf("unexpected UVs")
				}
			} else {
				var got []geom.Vec2
				for _, ut := range m.UVTris {
					for _, k := range ut {
						got = append(got, m.UVs[k])
					}
				}
				if !reflect.DeepEqual(got, tc.uvs) {
					t.Errorf("corner uvs %v, want %v", got, tc.uvs)
				}
			}
			if (m.NormalTris != nil) != tc.normals {
				t.Errorf("normals present = %v, want %v", m.NormalTris != nil, tc.normals)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	const vhdr = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
	const bhdr = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
	le := binary.LittleEndian
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "t.ply:1: empty file"},
		{"not ply", []byte("solid x\n"), "t.ply:1: not a PLY file"},
		{"no end_header", []byte("ply\nformat ascii 1.0\n"), "t.ply:3: header ends without end_header"},
		{"bad format", []byte("ply\nformat binary_middle_endian 1.0\nend_header\n"), "t.ply:2: unknown format"},
		{"no format", []byte("ply\nelement vertex 0\nend_header\n"), "t.ply:3: no format line"},
		{"unknown type", []byte("ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\nend_header\n"), "t.ply:4: unknown type"},
		{"float list count", []byte("ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\nend_header\n"), "t.ply:4: list count type float"},
		{"negative count", []byte("ply\nformat ascii 1.0\nelement vertex -1\nend_header\n"), "t.ply:3: bad element count"},
		{"huge count", []byte("ply\nformat ascii 1.0\nelement vertex 99999999999\nend_header\n"), "t.ply:3: bad element count"},
		{"property first", []byte("ply\nformat ascii 1.0\nproperty float x\nend_header\n"), "t.ply:3: property before any element"},
		{"missing z", []byte("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n0 0\n"), "t.ply:3: vertex element has no scalar property \"z\""},
		{"no face element", []byte("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nend_header\n"), "t.ply: no face element"},
		{"no faces", []byte("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n"), "t.ply: no faces"},
		{"ascii bad number", []byte(vhdr + "0 0 0\n1 0 x\n"), "t.ply:11: vertex 1: bad number \"x\""},
		{"ascii nan", []byte(vhdr + "0 0 0\n1 0 0\n0 nan 0\n3 0 1 2\n"), "t.ply:12: vertex 2: non-finite y"},
		{"ascii truncated", []byte(vhdr + "0 0 0\n1 0 0\n0 1 0\n3 0 1"), "t.ply:13: face 0: unexpected end of data"},
		{"ascii index range", []byte(vhdr + "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n"), "t.ply:13: face 0: vertex index 3 out of range"},
		{"ascii fractional index", []byte(vhdr + "0 0 0\n1 0 0\n0 1 0\n3 0 1 1.5\n"), "t.ply:13: face 0: bad integer"},
		{"ascii two corners", []byte(vhdr + "0 0 0\n1 0 0\n0 1 0\n2 0 1\n"), "t.ply:13: face 0: face has 2 vertices"},
		{"ascii repeated", []byte(vhdr + "0 0 0\n1 0 0\n0 1 0\n3 0 1 1\n"), "t.ply:13: face 0: face repeats vertex 1"},
		{"binary truncated vertex", bin(le, bhdr, float32(0), float32(0), float32(0), float32(1)), "t.ply: vertex 1: unexpected end of data"},
		{"binary truncated face", bin(le, bhdr, make([]float32, 9), uint8(3), int32(0)), "t.ply: face 0: unexpected end of data"},
		{"binary negative index", bin(le, bhdr, make([]float32, 9), uint8(3), int32(0), int32(1), int32(-1)), "t.ply: face 0: vertex index -1 out of range"},
		{"binary inf", bin(le, bhdr, float32(0), float32(math.Inf(1))), "t.ply: vertex 0: non-finite y"},
		{
			"binary huge skipped element",
			bin(le, "ply\nformat binary_little_endian 1.0\nelement junk 2000000000\nproperty double a\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n", float64(1)),
			"t.ply: junk 1: unexpected end of data",
		},
		{
			"binary huge list",
			bin(le, "ply\nformat binary_little_endian 1.0\nelement junk 1\nproperty list uint int a\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nelement face 0\nproperty list uchar int vertex_indices\nend_header\n", uint32(4000000000)),
			"t.ply: junk 0: bad list length",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.in), "t.ply")
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

// testMesh has per-vertex UVs and normals, a float32-exact vertex and one
// that is not.
func testMesh() *mesh.Mesh {
	return &mesh.Mesh{
		Verts:      []geom.Vec3{{X: 0.1, Y: 0.2, Z: 0.3}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: -0.5}, {X: 1.0 / 3, Y: 1e10, Z: -1e-7}},
		Tris:       [][3]int32{{0, 1, 2}, {1, 3, 2}},
		UVs:        []geom.Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0, Y: 1}, {X: 0.3, Y: 0.7}},
		UVTris:     [][3]int32{{0, 1, 2}, {1, 3, 2}},
		Normals:    []geom.Vec3{{Z: 1}, {Z: 1}, {Z: 1}, {Y: 1}},
		NormalTris: [][3]int32{{0, 1, 2}, {1, 3, 2}},
		Groups:     []mesh.Group{{Name: "g", Tris: []int32{0}}},
	}
}

func round32(m *mesh.Mesh) *mesh.Mesh {
	c := m.Clone()
	f := func(x float64) float64 { return float64(float32(x)) }
	for i, v := range c.Verts {
		c.Verts[i] = geom.Vec3{X: f(v.X), Y: f(v.Y), Z: f(v.Z)}
	}
	for i, v := range c.UVs {
		c.UVs[i] = geom.Vec2{X: f(v.X), Y: f(v.Y)}
	}
	for i, v := range c.Normals {
		c.Normals[i] = geom.Vec3{X: f(v.X), Y: f(v.Y), Z: f(v.Z)}
	}
	return c
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		opt  WriteOptions
	}{
		{"ascii float", WriteOptions{}},
		{"binary float", WriteOptions{Binary: true}},
		{"ascii double", WriteOptions{Double: true}},
		{"binary double", WriteOptions{Binary: true, Double: true}},
	}
	for _, tc := range tests {
		opt := tc.opt
		t.Run(tc.name, func(t *testing.T) {
			m := testMesh()
			var buf bytes.Buffer
			if err := WriteWith(&buf, m, opt); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, "rt.ply")
			if err != nil {
				t.Fatal(err)
			}
			want := m.Clone()
			want.Groups = nil
			if !opt.Double {
				want = round32(want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip differs:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestWriteSeamOmitsUVs(t *testing.T) {
	m := testMesh()
	m.UVTris[1] = [3]int32{2, 3, 2} // vertex 1 now has two different UVs
	m.NormalTris = nil
	var buf bytes.Buffer
	if err := Write(&buf, m, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "property float u") || strings.Contains(buf.String(), "nx") {
		t.Errorf("seam UVs or missing normals written:\n%s", buf.String())
	}
	got, err := Read(&buf, "s.ply")
	if err != nil {
		t.Fatal(err)
	}
	if got.UVTris != nil || got.NormalTris != nil {
		t.Error("read back UVs or normals")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	if err := Write(failWriter{}, testMesh(), true); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write error not reported: %v", err)
	}
	big := testMesh()
	big.Verts[0].X = 1e300
	if err := Write(&bytes.Buffer{}, big, false); err == nil || !strings.Contains(err.Error(), "vertex 0") {
		t.Errorf("float overflow not reported: %v", err)
	}
	if err := WriteWith(&bytes.Buffer{}, big, WriteOptions{Double: true}); err != nil {
		t.Errorf("double: %v", err)
	}
	if err := Write(&bytes.Buffer{}, &mesh.Mesh{}, false); err == nil {
		t.Error("empty mesh written without error")
	}
}

func TestGridRoundTripLarge(t *testing.T) {
	m := mesh.Grid(2, 1, 60, 30)
	for _, bin := range []bool{false, true} {
		var buf bytes.Buffer
		if err := Write(&buf, m, bin); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&buf, "g.ply")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Verts) != len(m.Verts) || !reflect.DeepEqual(got.Tris, m.Tris) {
			t.Errorf("binary=%v: %d verts %d tris, want %d %d", bin, len(got.Verts), len(got.Tris), len(m.Verts), len(m.Tris))
		}
	}
}

// TestBaseOBJAsPLY converts the MakeHuman base mesh to PLY and back: a
// real-size mesh through both encodings (there are no PLY assets).
func TestBaseOBJAsPLY(t *testing.T) {
	dir := assets.Dir()
	if dir == "" {
		t.Skip("PLEAT_ASSETS not set (e.g. PLEAT_ASSETS=/work/shared/assets); skipping real-asset test")
	}
	m, err := obj.ReadFile(filepath.Join(dir, "makehuman/body/base.obj"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range []bool{false, true} {
		var buf bytes.Buffer
		if err := Write(&buf, m, bin); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&buf, "base.ply")
		if err != nil {
			t.Fatal(err)
		}
		want := round32(m)
		if !reflect.DeepEqual(got.Verts, want.Verts) || !reflect.DeepEqual(got.Tris, m.Tris) {
			t.Errorf("binary=%v: base mesh differs after PLY round trip", bin)
		}
		if got.UVTris != nil {
			t.Errorf("binary=%v: base.obj has UV seams, yet per-vertex UVs were written", bin)
		}
	}
}
