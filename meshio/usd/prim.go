package usd

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// attr is an attribute of a Mesh prim as read: its default value and
// time samples (flat numbers), and its interpolation metadata.
type attr struct {
	def     []float64
	hasDef  bool
	times   []float64
	samples [][]float64
	interp  string
	line    int
}

// meshAttrs are the attributes the reader keeps, with their tuple width.
var meshAttrs = map[string]int{
	"points":              3,
	"normals":             3,
	"faceVertexCounts":    0,
	"faceVertexIndices":   0,
	"primvars:st":         2,
	"primvars:st:indices": 0,
}

// primSpec collects a prim's attributes while parsing.
type primSpec struct {
	typ, name string
	pleatName string
	line      int
	attrs     map[string]*attr
	double    bool
}

func (p *parser) layer() (*Stage, error) {
	if !bytes.HasPrefix(p.src, []byte("#usda ")) {
		return nil, fmt.Errorf("not a usda layer (want a first line #usda 1.0)")
	}
	s := &Stage{}
	var tcps, fps float64
	if p.peek() == '(' {
		err := p.metadata(func(key string, v any) {
			x, isNum := v.(float64)
			str, _ := v.(string)
			switch key {
			case "timeCodesPerSecond":
				tcps = x
			case "framesPerSecond":
				fps = x
			case "startTimeCode":
				s.StartTime = x
			case "metersPerUnit":
				if isNum {
					s.MetersPerUnit = x
				}
			case "upAxis":
				s.UpAxis = str
			case "defaultPrim":
				s.Root = str
			}
		})
		if err != nil {
			return nil, err
		}
	}
	s.FPS = tcps
	if s.FPS == 0 {
		s.FPS = fps
	}
	if !(s.FPS >= 0 && s.FPS <= 1e6) || !finite32(s.StartTime) || !(s.MetersPerUnit >= 0) || math.IsInf(s.MetersPerUnit, 0) {
		return nil, fmt.Errorf("bad layer metadata: frame rate %g, start %g, metersPerUnit %g", s.FPS, s.StartTime, s.MetersPerUnit)
	}
	for p.peek() != 0 {
		if err := p.prim(s); err != nil {
			return nil, err
		}
	}
	if len(s.Meshes) == 0 {
		return nil, fmt.Errorf("no Mesh prims")
	}
	return s, nil
}

// metadata reads '(' entries ')': "doc string", key = value, and list
// edits (prepend key = value); set gets each key and value.
func (p *parser) metadata(set func(key string, v any)) error {
	if err := p.expect('('); err != nil {
		return err
	}
	for {
		c := p.peek()
		switch {
		case c == ')':
			p.pos++
			return nil
		case c == '"' || c == '\'':
			if _, err := p.str(); err != nil {
				return err
			}
			continue
		case !isIdentStart(c):
			if c == 0 {
				return fmt.Errorf("metadata: %w", errEOF)
			}
			return fmt.Errorf("metadata: want a name, found %q", c)
		}
		key, err := p.ident()
		if err != nil {
			return err
		}
		switch key {
		case "prepend", "append", "add", "delete", "reorder":
			if key, err = p.ident(); err != nil {
				return err
			}
		}
		if p.peek() != '=' {
			continue
		}
		p.pos++
		if p.peek() == '{' {
			var sub func(string, any)
			if set != nil {
				sub = func(k string, v any) { set(key+"."+k, v) }
			}
			if err := p.dict(sub); err != nil {
				return err
			}
			continue
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		if set != nil {
			set(key, v)
		}
	}
}

// prim reads a prim spec and, for a Mesh, adds it to s.
func (p *parser) prim(s *Stage) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return fmt.Errorf("prims nested deeper than %d", maxDepth)
	}
	spec := &primSpec{line: p.line, attrs: map[string]*attr{}}
	kw, err := p.ident()
	if err != nil {
		return err
	}
	if kw != "def" && kw != "over" && kw != "class" {
		return fmt.Errorf("want def, over or class, found %q", kw)
	}
	if c := p.peek(); isIdentStart(c) {
		if spec.typ, err = p.ident(); err != nil {
			return err
		}
	}
	if spec.name, err = p.str(); err != nil {
		return err
	}
	if p.peek() == '(' {
		err := p.metadata(func(key string, v any) {
			if str, ok := v.(string); ok && key == "customData.pleatName" {
				spec.pleatName = str
			}
		})
		if err != nil {
			return err
		}
	}
	if err := p.expect('{'); err != nil {
		return err
	}
	for {
		c := p.peek()
		if c == '}' {
			p.pos++
			break
		}
		if c == 0 {
			return fmt.Errorf("prim %q: %w", spec.name, errEOF)
		}
		if err := p.member(s, spec); err != nil {
			return err
		}
	}
	if spec.typ != "Mesh" {
		return nil
	}
	m, err := spec.mesh()
	if err != nil {
		return fmt.Errorf("mesh %q at line %d: %w", spec.name, spec.line, err)
	}
	s.Meshes = append(s.Meshes, *m)
	return nil
}

// member reads one item of a prim's body: a child prim, a relationship or
// an attribute.
func (p *parser) member(s *Stage, spec *primSpec) error {
	save, line := p.pos, p.line
	word, err := p.ident()
	if err != nil {
		return err
	}
	switch word {
	case "def", "over", "class":
		p.pos, p.line = save, line
		return p.prim(s)
	case "variantSet":
		return fmt.Errorf("variant sets are not supported")
	case "reorder":
		if _, err := p.ident(); err != nil {
			return err
		}
		if err := p.expect('='); err != nil {
			return err
		}
		_, err := p.value()
		return err
	}
	if word == "custom" {
		if word, err = p.ident(); err != nil {
			return err
		}
	}
	if word == "uniform" || word == "varying" || word == "config" {
		if word, err = p.ident(); err != nil {
			return err
		}
	}
	typ, isRel := word, word == "rel"
	if !isRel && p.peek() == '[' {
		p.pos++
		if err := p.expect(']'); err != nil {
			return err
		}
		typ += "[]"
	}
	full, err := p.ident()
	if err != nil {
		return err
	}
	prop, suffix, _ := strings.Cut(full, ".")
	width, keep := meshAttrs[prop]
	keep = keep && spec.typ == "Mesh" && !isRel && strings.HasSuffix(typ, "[]")
	a := spec.attrs[prop]
	if keep && a == nil {
		a = &attr{line: line}
		spec.attrs[prop] = a
	}
	bits := 32
	if strings.HasPrefix(typ, "int") {
		bits = 64
	}
	if p.peek() == '=' {
		p.pos++
		switch {
		case keep && suffix == "" && p.peek() == '[':
			if a.def, err = p.numArray(width, bits); err != nil {
				return fmt.Errorf("%s: %w", prop, err)
			}
			a.hasDef = true
		case keep && suffix == "timeSamples":
			if err := p.timeSamples(a, width, bits); err != nil {
				return fmt.Errorf("%s: %w", prop, err)
			}
		case prop == "doubleSided" && suffix == "":
			v, err := p.value()
			if err != nil {
				return err
			}
			spec.double = v == 1.0 || v == name("true")
		default:
			if p.peek() == '{' {
				err = p.dict(nil)
			} else {
				_, err = p.value()
			}
			if err != nil {
				return fmt.Errorf("%s: %w", full, err)
			}
		}
	}
	if p.peek() == '(' {
		return p.metadata(func(key string, v any) {
			if str, ok := v.(string); ok && key == "interpolation" && keep {
				a.interp = str
			}
		})
	}
	return nil
}

// timeSamples reads { t: [...], ... } into a; None samples are skipped.
func (p *parser) timeSamples(a *attr, width, bits int) error {
	if err := p.expect('{'); err != nil {
		return err
	}
	for {
		c := p.peek()
		if c == '}' {
			p.pos++
			return nil
		}
		t, err := p.number(64)
		if err != nil {
			return err
		}
		if err := p.expect(':'); err != nil {
			return err
		}
		if isIdentStart(p.peek()) {
			if w, err := p.ident(); err != nil || w != "None" {
				return fmt.Errorf("time %g: want an array or None, found %q", t, w)
			}
		} else {
			v, err := p.numArray(width, bits)
			if err != nil {
				return fmt.Errorf("time %g: %w", t, err)
			}
			a.times = append(a.times, t)
			a.samples = append(a.samples, v)
		}
		if p.peek() == ',' {
			p.pos++
		}
	}
}

// sorted returns the samples in time order, refusing repeated times.
func (a *attr) sorted() ([]float64, [][]float64, error) {
	idx := make([]int, len(a.times))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return a.times[idx[i]] < a.times[idx[j]] })
	ts := make([]float64, len(idx))
	vs := make([][]float64, len(idx))
	for k, i := range idx {
		ts[k], vs[k] = a.times[i], a.samples[i]
		if k > 0 && ts[k] == ts[k-1] {
			return nil, nil, fmt.Errorf("time %g sampled twice", ts[k])
		}
		if !finite32(ts[k]) {
			return nil, nil, fmt.Errorf("time %g is not a finite float32", ts[k])
		}
	}
	return ts, vs, nil
}

func vecs3(x []float64) []geom.Vec3 {
	out := make([]geom.Vec3, len(x)/3)
	for i := range out {
		out[i] = geom.Vec3{X: x[3*i], Y: x[3*i+1], Z: x[3*i+2]}
	}
	return out
}

// mesh builds a Mesh from the prim's attributes, checking counts and
// index ranges.
func (spec *primSpec) mesh() (*Mesh, error) {
	pts := spec.attrs["points"]
	counts, indices := spec.attrs["faceVertexCounts"], spec.attrs["faceVertexIndices"]
	if pts == nil || counts == nil || indices == nil || !counts.hasDef || !indices.hasDef {
		return nil, fmt.Errorf("want points, faceVertexCounts and faceVertexIndices")
	}
	name := spec.pleatName
	if name == "" {
		name = spec.name
	}
	out := &Mesh{Name: name, Mesh: &mesh.Mesh{}, DoubleSided: spec.double}
	if len(pts.samples) > 0 {
		ts, vs, err := pts.sorted()
		if err != nil {
			return nil, fmt.Errorf("points: %w", err)
		}
		out.Times = ts
		for _, v := range vs {
			out.Frames = append(out.Frames, vecs3(v))
		}
		out.Mesh.Verts = out.Frames[0]
	} else if pts.hasDef {
		out.Mesh.Verts = vecs3(pts.def)
	}
	n := len(out.Mesh.Verts)
	for f, x := range out.Frames {
		if len(x) != n {
			return nil, fmt.Errorf("points at time %g: %d, want %d", out.Times[f], len(x), n)
		}
	}
	corner, err := spec.faces(out.Mesh, counts.def, indices.def, n)
	if err != nil {
		return nil, err
	}
	if err := spec.uvs(out.Mesh, corner, n); err != nil {
		return nil, err
	}
	out.Normals, err = spec.normals(out, n)
	return out, err
}

// faces splits the polygons into triangle fans and returns, for each
// triangle, its corners' face-vertex indices.
func (spec *primSpec) faces(m *mesh.Mesh, counts, indices []float64, n int) ([][3]int32, error) {
	var corner [][3]int32
	k := 0
	for f, c := range counts {
		if c < 3 || c > float64(len(indices)-k) || c != math.Trunc(c) {
			return nil, fmt.Errorf("face %d: %g corners (%d indices left)", f, c, len(indices)-k)
		}
		for j := k; j < k+int(c); j++ {
			if v := indices[j]; v < 0 || v >= float64(n) || v != math.Trunc(v) {
				return nil, fmt.Errorf("face %d: point %g not in [0,%d)", f, v, n)
			}
		}
		for j := 1; j+1 < int(c); j++ {
			m.Tris = append(m.Tris, [3]int32{int32(indices[k]), int32(indices[k+j]), int32(indices[k+j+1])})
			corner = append(corner, [3]int32{int32(k), int32(k + j), int32(k + j + 1)})
		}
		k += int(c)
	}
	if k != len(indices) {
		return nil, fmt.Errorf("faceVertexCounts sum to %d, faceVertexIndices has %d", k, len(indices))
	}
	if len(m.Tris) == 0 {
		return nil, fmt.Errorf("no faces")
	}
	return corner, nil
}

// uvs reads primvars:st: faceVarying (indexed or one per corner) into
// UVTris, vertex into one UV per point.
func (spec *primSpec) uvs(m *mesh.Mesh, corner [][3]int32, n int) error {
	st := spec.attrs["primvars:st"]
	if st == nil || !st.hasDef {
		return nil
	}
	for i := 0; i+1 < len(st.def); i += 2 {
		m.UVs = append(m.UVs, geom.Vec2{X: st.def[i], Y: st.def[i+1]})
	}
	ids := spec.attrs["primvars:st:indices"]
	switch st.interp {
	case "vertex", "varying":
		if ids != nil && ids.hasDef {
			return fmt.Errorf("primvars:st: indexed vertex UVs are not supported")
		}
		if len(m.UVs) != n {
			return fmt.Errorf("primvars:st: %d vertex UVs for %d points", len(m.UVs), n)
		}
		return nil
	case "faceVarying":
	default:
		m.UVs = nil // constant or uniform UVs carry no texture mapping
		return nil
	}
	numCorners := 0
	if len(corner) > 0 {
		numCorners = int(corner[len(corner)-1][2]) + 1
	}
	lookup := func(c int32) (int32, error) { return c, nil }
	if ids != nil && ids.hasDef {
		if len(ids.def) < numCorners {
			return fmt.Errorf("primvars:st:indices: %d for %d face corners", len(ids.def), numCorners)
		}
		lookup = func(c int32) (int32, error) {
			v := ids.def[c]
			if v < 0 || v >= float64(len(m.UVs)) || v != math.Trunc(v) {
				return 0, fmt.Errorf("primvars:st:indices[%d] = %g not in [0,%d)", c, v, len(m.UVs))
			}
			return int32(v), nil
		}
	} else if len(m.UVs) < numCorners {
		return fmt.Errorf("primvars:st: %d faceVarying UVs for %d face corners", len(m.UVs), numCorners)
	}
	m.UVTris = make([][3]int32, len(corner))
	for t, c := range corner {
		for k := range c {
			v, err := lookup(c[k])
			if err != nil {
				return err
			}
			m.UVTris[t][k] = v
		}
	}
	return nil
}

// normals returns vertex normals sampled at the points' times (or static
// with static points); other layouts are left out.
func (spec *primSpec) normals(m *Mesh, n int) ([][]geom.Vec3, error) {
	a := spec.attrs["normals"]
	if a == nil || (a.interp != "vertex" && a.interp != "varying") {
		return nil, nil
	}
	if m.Frames == nil {
		if !a.hasDef || len(a.def) != 3*n {
			return nil, nil
		}
		return [][]geom.Vec3{vecs3(a.def)}, nil
	}
	ts, vs, err := a.sorted()
	if err != nil {
		return nil, fmt.Errorf("normals: %w", err)
	}
	if len(ts) != len(m.Times) {
		return nil, nil
	}
	out := make([][]geom.Vec3, len(vs))
	for f, v := range vs {
		if ts[f] != m.Times[f] || len(v) != 3*n {
			return nil, nil
		}
		out[f] = vecs3(v)
	}
	return out, nil
}

// firstZipFile returns the name and bytes of a zip archive's first file,
// which must be stored uncompressed (usdz).
func firstZipFile(data []byte) (string, []byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", nil, fmt.Errorf("usd: not a usdz (zip) package: %w", err)
	}
	if len(zr.File) == 0 {
		return "", nil, fmt.Errorf("usd: empty usdz package")
	}
	f := zr.File[0]
	if f.Method != zip.Store {
		return "", nil, fmt.Errorf("usd: usdz file %q is compressed (method %d); usdz stores files uncompressed", f.Name, f.Method)
	}
	if f.UncompressedSize64 > uint64(len(data)) {
		return "", nil, fmt.Errorf("usd: usdz file %q claims %d bytes in a %d-byte package", f.Name, f.UncompressedSize64, len(data))
	}
	rc, err := f.Open()
	if err != nil {
		return "", nil, fmt.Errorf("usd: usdz file %q: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return "", nil, fmt.Errorf("usd: usdz file %q: %w", f.Name, err)
	}
	return f.Name, b, nil
}
