package obj

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// MaxLineBytes is the longest logical line (after joining '\' continuations)
// Read accepts.
const MaxLineBytes = 4 << 20

// MaxElements caps the number of vertices, texture coordinates, normals,
// faces and triangles Read accepts, each counted separately.
const MaxElements = 1 << 27

// defaultGroup names the group of faces read before the first g or o line.
const defaultGroup = "default"

// Options tune ReadDetailed. The zero value reads positions unchanged.
type Options struct {
	// Scale multiplies every position; 0 means 1. Use 0.1 to read a file in
	// decimetres (MakeHuman) as metres. It must be finite and non-negative.
	Scale float64
}

// Result is a mesh read from OBJ together with the polygons it was
// triangulated from.
type Result struct {
	// Mesh is the triangulated mesh.
	Mesh *mesh.Mesh
	// FaceOf maps each triangle of Mesh to the 0-based index of the f line
	// (polygon) it came from, counting f lines in file order.
	FaceOf []int32
	// FaceStart holds len(polygons)+1 offsets into FaceVerts: polygon i has
	// vertex ids FaceVerts[FaceStart[i]:FaceStart[i+1]], in file order, so its
	// corner count is FaceStart[i+1]-FaceStart[i].
	FaceStart []int32
	// FaceVerts holds the 0-based vertex ids of every polygon's corners.
	FaceVerts []int32
}

// NumFaces returns the number of source polygons.
func (r *Result) NumFaces() int { return len(r.FaceStart) - 1 }

// UnusedVerts returns the number of vertices that no face uses. OBJ allows
// them, but a file cut short at a line boundary, in its face section, shows
// as vertices that no remaining face uses; loaders of meshes whose vertices
// must all be used (garments, MakeHuman's base.obj) check it.
func (r *Result) UnusedVerts() int {
	used := make([]bool, len(r.Mesh.Verts))
	n := 0
	for _, v := range r.FaceVerts {
		if !used[v] {
			used[v] = true
			n++
		}
	}
	return len(used) - n
}

// Face returns the vertex ids of source polygon i (a view into FaceVerts).
// It panics if i is out of range.
func (r *Result) Face(i int) []int32 { return r.FaceVerts[r.FaceStart[i]:r.FaceStart[i+1]] }

// Error is a problem in an OBJ file: the file name, the 1-based line where
// the offending statement starts (0 when the problem concerns the whole
// file) and a description. Err, when non-nil, is an underlying I/O error.
type Error struct {
	File string
	Line int
	Msg  string
	Err  error
}

// Error formats e as "file:line: message" (without the line when it is 0).
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap returns the underlying I/O error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Read reads an OBJ mesh from r. name is used in error messages (typically
// the file name); see the package documentation for what is accepted.
func Read(r io.Reader, name string) (*mesh.Mesh, error) {
	res, err := ReadDetailed(r, name, Options{})
	if err != nil {
		return nil, err
	}
	return res.Mesh, nil
}

// ReadFile reads the OBJ file at path. Errors name the file by its base name.
func ReadFile(path string) (*mesh.Mesh, error) {
	res, err := ReadFileDetailed(path, Options{})
	if err != nil {
		return nil, err
	}
	return res.Mesh, nil
}

// ReadFileDetailed is ReadDetailed on the file at path.
func ReadFileDetailed(path string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDetailed(f, filepath.Base(path), opt)
}

// ReadDetailed reads an OBJ mesh from r like Read, applies opt and also
// reports the source polygon of each triangle.
func ReadDetailed(r io.Reader, name string, opt Options) (*Result, error) {
	if name == "" {
		name = "obj"
	}
	scale := opt.Scale
	if scale == 0 {
		scale = 1
	}
	if math.IsNaN(scale) || math.IsInf(scale, 0) || scale < 0 {
		return nil, &Error{File: name, Msg: fmt.Sprintf("bad scale %v", opt.Scale)}
	}
	p := &parser{
		name:   name,
		lr:     lineReader{br: bufio.NewReaderSize(r, 64<<10)},
		scale:  scale,
		groups: map[string]int{},
		cur:    -1,
		allVN:  true,
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.finish()
}

// lineReader yields logical lines: continuations joined, line ends stripped.
type lineReader struct {
	br   *bufio.Reader
	line int // physical lines consumed
	buf  []byte
}

// next returns the next logical line and the 1-based number of its first
// physical line. At end of input it returns io.EOF.
func (lr *lineReader) next() (line []byte, start int, err error) {
	lr.buf = lr.buf[:0]
	start = lr.line + 1
	any := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > MaxLineBytes {
			return nil, start, fmt.Errorf("line longer than %d bytes", MaxLineBytes)
		}
		lr.buf = append(lr.buf, chunk...)
		if err == bufio.ErrBufferFull {
			any = true
			continue
		}
		if err != nil && err != io.EOF {
			return nil, start, err
		}
		eof := err == io.EOF
		if len(chunk) > 0 {
			any = true
		}
		if !any {
			return nil, start, io.EOF
		}
		if !eof || len(chunk) > 0 {
			lr.line++
		}
		b := lr.buf
		for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
			b = b[:len(b)-1]
		}
		t := b
		for len(t) > 0 && isSpace(t[len(t)-1]) {
			t = t[:len(t)-1]
		}
		if len(t) > 0 && t[len(t)-1] == '\\' && !eof {
			lr.buf = append(t[:len(t)-1], ' ')
			continue
		}
		return b, start, nil
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// fields splits s on blanks into dst.
func fields(dst []string, s string) []string {
	dst = dst[:0]
	i := 0
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			dst = append(dst, s[i:j])
		}
		i = j
	}
	return dst
}

type parser struct {
	name  string
	lr    lineReader
	line  int
	scale float64

	verts   []geom.Vec3
	uvs     []geom.Vec2
	normals []geom.Vec3

	tris     [][3]int32
	uvTris   [][3]int32
	nTris    [][3]int32
	anyVT    bool
	allVN    bool
	faceOf   []int32
	faceSt   []int32
	faceVs   []int32
	nFaces   int32
	preTris  []int32 // triangles before any group
	groups   map[string]int
	grpNames []string
	grpTris  [][]int32
	cur      int // current group, -1 before any

	fs     []string
	cv, ct []int32 // corner vertex / uv (-1 none) / normal (-1 none)
	cn     []int32
	pts    []geom.Vec3
	tri    triangulator
}

func (p *parser) errf(format string, args ...any) error {
	return &Error{File: p.name, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) run() error {
	for {
		b, start, err := p.lr.next()
		p.line = start
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return &Error{File: p.name, Line: start, Msg: err.Error(), Err: err}
		}
		if i := indexByte(b, '#'); i >= 0 {
			b = b[:i]
		}
		if err := p.statement(string(b)); err != nil {
			return err
		}
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func (p *parser) statement(s string) error {
	p.fs = fields(p.fs, s)
	if len(p.fs) == 0 {
		return nil
	}
	args := p.fs[1:]
	switch p.fs[0] {
	case "v":
		if len(args) < 3 || len(args) > 7 {
			return p.errf("v needs 3 coordinates (plus optional w or colour), got %d numbers", len(args))
		}
		c, err := p.numbers(args)
		if err != nil {
			return err
		}
		v := geom.Vec3{X: c[0] * p.scale, Y: c[1] * p.scale, Z: c[2] * p.scale}
		if !v.IsFinite() {
			return p.errf("vertex %v overflows after scaling", v)
		}
		if len(p.verts) >= MaxElements {
			return p.errf("more than %d vertices", MaxElements)
		}
		p.verts = append(p.verts, v)
	case "vt":
		if len(args) < 1 || len(args) > 3 {
			return p.errf("vt needs 1 to 3 numbers, got %d", len(args))
		}
		c, err := p.numbers(args)
		if err != nil {
			return err
		}
		if len(p.uvs) >= MaxElements {
			return p.errf("more than %d texture coordinates", MaxElements)
		}
		p.uvs = append(p.uvs, geom.Vec2{X: c[0], Y: c[1]})
	case "vn":
		if len(args) != 3 {
			return p.errf("vn needs 3 numbers, got %d", len(args))
		}
		c, err := p.numbers(args)
		if err != nil {
			return err
		}
		if len(p.normals) >= MaxElements {
			return p.errf("more than %d normals", MaxElements)
		}
		p.normals = append(p.normals, geom.Vec3{X: c[0], Y: c[1], Z: c[2]})
	case "f", "fo":
		return p.face(args)
	case "g", "o":
		name := strings.TrimSpace(s[strings.Index(s, p.fs[0])+len(p.fs[0]):])
		if name == "" {
			name = defaultGroup
		}
		gi, ok := p.groups[name]
		if !ok {
			gi = len(p.grpNames)
			p.groups[name] = gi
			p.grpNames = append(p.grpNames, name)
			p.grpTris = append(p.grpTris, nil)
		}
		p.cur = gi
	}
	return nil
}

// number parses a finite float.
// numbers parses every argument (all must be finite numbers) and returns
// the first three, zero-padded.
func (p *parser) numbers(args []string) ([3]float64, error) {
	var c [3]float64
	for i, a := range args {
		x, err := p.number(a)
		if err != nil {
			return c, err
		}
		if i < 3 {
			c[i] = x
		}
	}
	return c, nil
}

func (p *parser) number(a string) (float64, error) {
	x, err := strconv.ParseFloat(a, 64)
	if err != nil {
		return 0, p.errf("bad number %q", clip(a))
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, p.errf("non-finite number %q", clip(a))
	}
	return x, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// index parses a 1-based or negative OBJ index into a 0-based one given n
// elements read so far.
func (p *parser) index(a, kind string, n int) (int32, error) {
	if a == "" {
		return 0, p.errf("empty %s index", kind)
	}
	neg := false
	s := a
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" {
		return 0, p.errf("bad %s index %q", kind, clip(a))
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, p.errf("bad %s index %q", kind, clip(a))
		}
		v = v*10 + int64(c-'0')
		if v > 1<<40 {
			return 0, p.errf("%s index %q out of range (have %d)", kind, clip(a), n)
		}
	}
	if v == 0 {
		return 0, p.errf("%s index 0 (OBJ indices start at 1)", kind)
	}
	if neg {
		v = int64(n) - v
	} else {
		v--
	}
	if v < 0 || v >= int64(n) {
		return 0, p.errf("%s index %s out of range (have %d)", kind, clip(a), n)
	}
	return int32(v), nil
}

func (p *parser) face(args []string) error {
	n := len(args)
	if n < 3 {
		return p.errf("face needs at least 3 vertices, got %d", n)
	}
	p.cv, p.ct, p.cn = p.cv[:0], p.ct[:0], p.cn[:0]
	for _, a := range args {
		vs, rest, _ := strings.Cut(a, "/")
		ts, ns, hasN := strings.Cut(rest, "/")
		v, err := p.index(vs, "vertex", len(p.verts))
		if err != nil {
			return err
		}
		t, nn := int32(-1), int32(-1)
		if ts != "" {
			if t, err = p.index(ts, "texture", len(p.uvs)); err != nil {
				return err
			}
			p.anyVT = true
		}
		if hasN {
			if nn, err = p.index(ns, "normal", len(p.normals)); err != nil {
				return err
			}
		} else {
			p.allVN = false
		}
		p.cv = append(p.cv, v)
		p.ct = append(p.ct, t)
		p.cn = append(p.cn, nn)
	}
	if d, ok := mesh.RepeatedIndex(p.cv); ok {
		return p.errf("face repeats vertex %d", d+1)
	}
	if int(p.nFaces) >= MaxElements || len(p.tris)+n-2 > MaxElements {
		return p.errf("more than %d faces or triangles", MaxElements)
	}
	p.pts = p.pts[:0]
	for _, v := range p.cv {
		p.pts = append(p.pts, p.verts[v])
	}
	for _, c := range p.tri.triangulate(p.pts) {
		t := int32(len(p.tris))
		p.tris = append(p.tris, [3]int32{p.cv[c[0]], p.cv[c[1]], p.cv[c[2]]})
		p.uvTris = append(p.uvTris, [3]int32{p.ct[c[0]], p.ct[c[1]], p.ct[c[2]]})
		p.nTris = append(p.nTris, [3]int32{p.cn[c[0]], p.cn[c[1]], p.cn[c[2]]})
		p.faceOf = append(p.faceOf, p.nFaces)
		if p.cur < 0 {
			p.preTris = append(p.preTris, t)
		} else {
			p.grpTris[p.cur] = append(p.grpTris[p.cur], t)
		}
	}
	p.faceSt = append(p.faceSt, int32(len(p.faceVs)))
	p.faceVs = append(p.faceVs, p.cv...)
	p.nFaces++
	return nil
}

func (p *parser) finish() (*Result, error) {
	if len(p.tris) == 0 {
		return nil, &Error{File: p.name, Msg: "no faces"}
	}
	m := &mesh.Mesh{Verts: p.verts, Tris: p.tris}
	if p.anyVT {
		m.UVs = p.uvs
		m.UVTris = p.uvTris
		zero := int32(-1)
		for i := range m.UVTris {
			for k := range 3 {
				if m.UVTris[i][k] < 0 {
					if zero < 0 {
						zero = int32(len(m.UVs))
						m.UVs = append(m.UVs, geom.Vec2{})
					}
					m.UVTris[i][k] = zero
				}
			}
		}
	}
	if len(p.normals) > 0 {
		m.Normals = p.normals
		if p.allVN {
			m.NormalTris = p.nTris
		}
	}
	named := false
	for _, t := range p.grpTris {
		if len(t) > 0 {
			named = true
			break
		}
	}
	if named {
		if len(p.preTris) > 0 {
			if gi, ok := p.groups[defaultGroup]; ok {
				p.grpTris[gi] = append(p.preTris, p.grpTris[gi]...)
			} else {
				m.Groups = append(m.Groups, mesh.Group{Name: defaultGroup, Tris: p.preTris})
			}
		}
		for i, name := range p.grpNames {
			if len(p.grpTris[i]) > 0 {
				m.Groups = append(m.Groups, mesh.Group{Name: name, Tris: p.grpTris[i]})
			}
		}
	}
	res := &Result{Mesh: m, FaceOf: p.faceOf, FaceStart: append(p.faceSt, int32(len(p.faceVs))), FaceVerts: p.faceVs}
	return res, nil
}
