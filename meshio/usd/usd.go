package usd

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Stage is one USD layer of meshes.
type Stage struct {
	// FPS is the frame rate (timeCodesPerSecond and framesPerSecond);
	// 0 means 24, USD's fallback.
	FPS float64
	// StartTime is the time code of frame 0 (startTimeCode).
	StartTime float64
	// UpAxis is "Y" or "Z"; empty means "Y".
	UpAxis string
	// MetersPerUnit is the length of one unit in metres; 0 means 1.
	MetersPerUnit float64
	// Root names the default prim, an Xform holding the meshes; empty
	// means "pleat".
	Root string
	// Meshes are written in order.
	Meshes []Mesh
}

// Mesh is one UsdGeomMesh prim.
type Mesh struct {
	// Name is the mesh's name (its prim name after sanitizing).
	Name string
	// Mesh gives the triangles and UVs. Its Verts are the points of a
	// static mesh (no Frames) and are otherwise unused.
	Mesh *mesh.Mesh
	// Frames are the points at each time sample, in Mesh's vertex order.
	Frames [][]geom.Vec3
	// Normals, when non-nil, hold one unit normal per point for every
	// frame (or one set for a static mesh).
	Normals [][]geom.Vec3
	// Times are the time codes of Frames when read; when writing, nil
	// means StartTime+f.
	Times []float64
	// DoubleSided marks a surface seen from both sides (cloth).
	DoubleSided bool
}

// VertexNormals returns the angle-weighted vertex normals of m at each
// frame (mesh.VertexNormals), for Mesh.Normals.
func VertexNormals(m *mesh.Mesh, frames [][]geom.Vec3) [][]geom.Vec3 {
	out := make([][]geom.Vec3, len(frames))
	fm := *m
	for f, x := range frames {
		fm.Verts = x
		out[f] = mesh.VertexNormals(&fm, nil)
	}
	return out
}

func (s *Stage) fps() float64 {
	if s.FPS == 0 {
		return 24
	}
	return s.FPS
}

func (s *Stage) upAxis() string {
	if s.UpAxis == "" {
		return "Y"
	}
	return s.UpAxis
}

func (s *Stage) metersPerUnit() float64 {
	if s.MetersPerUnit == 0 {
		return 1
	}
	return s.MetersPerUnit
}

func (s *Stage) root() string {
	if s.Root == "" {
		return "pleat"
	}
	return s.Root
}

// numSamples returns the number of point samples of m (1 for a static
// mesh).
func (m *Mesh) numSamples() int {
	if m.Frames == nil {
		return 1
	}
	return len(m.Frames)
}

// points returns the points of sample f.
func (m *Mesh) points(f int) []geom.Vec3 {
	if m.Frames == nil {
		return m.Mesh.Verts
	}
	return m.Frames[f]
}

// Validate checks what the writer needs: finite, float32-representable
// values, triangles and UV triangles in range, one point per vertex in
// every frame, normals matching the frames, increasing time codes. Errors
// name the mesh, frame and element.
func (s *Stage) Validate() error {
	if !(s.FPS >= 0 && s.FPS <= 1e6) {
		return fmt.Errorf("usd: frame rate %g: want 0 (24) to 1e6", s.FPS)
	}
	if !finite32(s.StartTime) {
		return fmt.Errorf("usd: start time %g is not a finite float32", s.StartTime)
	}
	if u := s.upAxis(); u != "Y" && u != "Z" {
		return fmt.Errorf("usd: up axis %q: want Y or Z", u)
	}
	if mpu := s.metersPerUnit(); !(mpu > 0) || math.IsInf(mpu, 0) {
		return fmt.Errorf("usd: metersPerUnit %g: want a positive finite number", mpu)
	}
	if !validIdent(s.root()) {
		return fmt.Errorf("usd: root prim name %q is not a USD identifier", s.Root)
	}
	if len(s.Meshes) == 0 {
		return fmt.Errorf("usd: no meshes")
	}
	for i := range s.Meshes {
		if err := s.Meshes[i].validate(); err != nil {
			return fmt.Errorf("usd: mesh %d (%s): %w", i, s.Meshes[i].Name, err)
		}
	}
	return nil
}

func (m *Mesh) validate() error {
	if m.Mesh == nil {
		return fmt.Errorf("no mesh")
	}
	if m.Frames != nil && len(m.Frames) == 0 {
		return fmt.Errorf("no frames")
	}
	n := len(m.points(0))
	if n == 0 || len(m.Mesh.Tris) == 0 {
		return fmt.Errorf("empty mesh (%d points, %d triangles)", n, len(m.Mesh.Tris))
	}
	for t, tri := range m.Mesh.Tris {
		for _, v := range tri {
			if v < 0 || int(v) >= n {
				return fmt.Errorf("triangle %d: vertex %d not in [0,%d)", t, v, n)
			}
		}
	}
	if err := m.validateUVs(n); err != nil {
		return err
	}
	if m.Times != nil && len(m.Times) != m.numSamples() {
		return fmt.Errorf("%d time codes for %d frames", len(m.Times), m.numSamples())
	}
	for f := range m.numSamples() {
		x := m.points(f)
		if len(x) != n {
			return fmt.Errorf("frame %d: %d points, want %d", f, len(x), n)
		}
		if v, ok := badVec(x); !ok {
			return fmt.Errorf("frame %d: point %d %v is not a finite float32", f, v, x[v])
		}
		if m.Times != nil && (!finite32(m.Times[f]) || (f > 0 && !(m.Times[f] > m.Times[f-1]))) {
			return fmt.Errorf("frame %d: time code %g not finite and increasing", f, m.Times[f])
		}
	}
	if m.Normals != nil {
		if len(m.Normals) != m.numSamples() {
			return fmt.Errorf("%d normal sets for %d frames", len(m.Normals), m.numSamples())
		}
		for f, nr := range m.Normals {
			if len(nr) != n {
				return fmt.Errorf("frame %d: %d normals, want %d", f, len(nr), n)
			}
			if v, ok := badVec(nr); !ok {
				return fmt.Errorf("frame %d: normal %d %v is not a finite float32", f, v, nr[v])
			}
		}
	}
	return nil
}

func (m *Mesh) validateUVs(n int) error {
	uv := m.Mesh
	if len(uv.UVs) == 0 {
		return nil
	}
	for i, p := range uv.UVs {
		if !finite32(p.X) || !finite32(p.Y) {
			return fmt.Errorf("uv %d %v is not a finite float32", i, p)
		}
	}
	if uv.UVTris == nil {
		if len(uv.UVs) != n {
			return fmt.Errorf("%d UVs without UV triangles for %d points", len(uv.UVs), n)
		}
		return nil
	}
	if len(uv.UVTris) != len(uv.Tris) {
		return fmt.Errorf("%d UV triangles for %d triangles", len(uv.UVTris), len(uv.Tris))
	}
	for t, tri := range uv.UVTris {
		for _, v := range tri {
			if v < 0 || int(v) >= len(uv.UVs) {
				return fmt.Errorf("UV triangle %d: uv %d not in [0,%d)", t, v, len(uv.UVs))
			}
		}
	}
	return nil
}

// finite32 reports whether x is finite and within float32's range.
func finite32(x float64) bool {
	return !math.IsNaN(x) && math.Abs(x) <= math.MaxFloat32
}

// badVec returns the first vector that is not a finite float32 triple.
func badVec(x []geom.Vec3) (int, bool) {
	for v, p := range x {
		if !finite32(p.X) || !finite32(p.Y) || !finite32(p.Z) {
			return v, false
		}
	}
	return 0, true
}

// validIdent reports whether s is a USD identifier: [A-Za-z_][A-Za-z0-9_]*.
func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// primNames returns valid, unique prim names for the meshes: other
// characters become '_', a leading digit or an empty name gets a prefix,
// and repeats get a suffix _2, _3, ...
func primNames(ms []Mesh) []string {
	out := make([]string, len(ms))
	used := map[string]bool{}
	for i, m := range ms {
		var b strings.Builder
		for _, c := range m.Name {
			if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				b.WriteRune(c)
			} else {
				b.WriteByte('_')
			}
		}
		name := b.String()
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			name = "mesh_" + name
		}
		base := name
		for k := 2; used[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		used[name] = true
		out[i] = name
	}
	return out
}
