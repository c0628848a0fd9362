package ply

import (
	"bufio"
	"encoding/binary"
	"errors"
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

// Header limits: a PLY header longer than these is rejected.
const (
	maxHeaderLines = 4096
	maxHeaderLine  = 4096
	maxProps       = 1024
	// MaxListLen caps the length of one list property (a face's corners).
	MaxListLen = 1 << 20
)

// Format is a PLY body encoding.
type Format int

// The PLY encodings.
const (
	ASCII Format = iota
	BinaryLittleEndian
	BinaryBigEndian
)

// String returns the format's name as written in a PLY header.
func (f Format) String() string {
	switch f {
	case ASCII:
		return "ascii"
	case BinaryLittleEndian:
		return "binary_little_endian"
	case BinaryBigEndian:
		return "binary_big_endian"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Error is a problem in a PLY file. Line is the 1-based line for header
// problems and ascii bodies (0 for binary bodies); Element and Index name the
// element record being read, when there is one. Err, when non-nil, is an
// underlying I/O error.
type Error struct {
	File    string
	Line    int
	Element string
	Index   int
	Msg     string
	Err     error
}

// Error formats e as "file:line: element index: message", leaving out the
// parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Element != "" {
		b.WriteString(e.Element + " " + strconv.Itoa(e.Index) + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying I/O error, if any.
func (e *Error) Unwrap() error { return e.Err }

// scalar types.
type kind uint8

const (
	kInt kind = iota
	kUint
	kFloat
)

type ptype struct {
	size int
	kind kind
}

var types = map[string]ptype{
	"char": {1, kInt}, "int8": {1, kInt},
	"uchar": {1, kUint}, "uint8": {1, kUint},
	"short": {2, kInt}, "int16": {2, kInt},
	"ushort": {2, kUint}, "uint16": {2, kUint},
	"int": {4, kInt}, "int32": {4, kInt},
	"uint": {4, kUint}, "uint32": {4, kUint},
	"float": {4, kFloat}, "float32": {4, kFloat},
	"double": {8, kFloat}, "float64": {8, kFloat},
}

type property struct {
	name  string
	list  bool
	count ptype // list count type
	typ   ptype // value type
}

type element struct {
	name  string
	count int
	props []property
	line  int
}

// header is a parsed PLY header.
type header struct {
	format Format
	elems  []element
}

// Read reads a PLY mesh from r; name is used in error messages.
func Read(r io.Reader, name string) (*mesh.Mesh, error) {
	if name == "" {
		name = "ply"
	}
	br := bufio.NewReaderSize(r, 64<<10)
	h, lines, err := readHeader(br, name)
	if err != nil {
		return nil, err
	}
	d := &decoder{name: name, h: h}
	if h.format == ASCII {
		d.src = &asciiSrc{br: br, line: lines + 1}
	} else {
		var order binary.ByteOrder = binary.LittleEndian
		if h.format == BinaryBigEndian {
			order = binary.BigEndian
		}
		d.src = &binSrc{br: br, order: order}
	}
	return d.decode()
}

// ReadFile reads the PLY file at path; errors name its base name.
func ReadFile(path string) (*mesh.Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, filepath.Base(path))
}

func readHeader(br *bufio.Reader, name string) (*header, int, error) {
	h := &header{format: -1}
	line := 0
	herr := func(msg string, args ...any) error {
		return &Error{File: name, Line: line, Msg: fmt.Sprintf(msg, args...)}
	}
	seen := map[string]bool{}
	nprops := 0
	for {
		line++
		if line > maxHeaderLines {
			return nil, 0, herr("header longer than %d lines", maxHeaderLines)
		}
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(raw) > maxHeaderLine {
			return nil, 0, herr("header line longer than %d bytes", maxHeaderLine)
		}
		if err != nil && (err != io.EOF || len(raw) == 0) {
			if err == io.EOF {
				if line == 1 {
					return nil, 0, herr("empty file")
				}
				return nil, 0, herr("header ends without end_header")
			}
			return nil, 0, &Error{File: name, Line: line, Msg: err.Error(), Err: err}
		}
		s := strings.TrimRight(string(raw), "\r\n")
		f := strings.Fields(s)
		if line == 1 {
			if s != "ply" {
				return nil, 0, herr("not a PLY file (first line %q)", clip(s))
			}
			continue
		}
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "comment", "obj_info":
		case "format":
			if h.format >= 0 {
				return nil, 0, herr("second format line")
			}
			if len(f) != 3 || f[2] != "1.0" {
				return nil, 0, herr("bad format line %q", clip(s))
			}
			switch f[1] {
			case "ascii":
				h.format = ASCII
			case "binary_little_endian":
				h.format = BinaryLittleEndian
			case "binary_big_endian":
				h.format = BinaryBigEndian
			default:
				return nil, 0, herr("unknown format %q", clip(f[1]))
			}
		case "element":
			if len(f) != 3 {
				return nil, 0, herr("element line needs a name and a count")
			}
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil || n < 0 || n > math.MaxInt32 {
				return nil, 0, herr("bad element count %q", clip(f[2]))
			}
			if seen[f[1]] {
				return nil, 0, herr("duplicate element %q", clip(f[1]))
			}
			seen[f[1]] = true
			h.elems = append(h.elems, element{name: f[1], count: int(n), line: line})
		case "property":
			if len(h.elems) == 0 {
				return nil, 0, herr("property before any element")
			}
			if nprops++; nprops > maxProps {
				return nil, 0, herr("more than %d properties", maxProps)
			}
			var p property
			if len(f) == 5 && f[1] == "list" {
				ct, ok1 := types[f[2]]
				vt, ok2 := types[f[3]]
				if !ok1 || !ok2 {
					return nil, 0, herr("unknown type in %q", clip(s))
				}
				if ct.kind == kFloat {
					return nil, 0, herr("list count type %s is not an integer type", f[2])
				}
				p = property{name: f[4], list: true, count: ct, typ: vt}
			} else if len(f) == 3 {
				t, ok := types[f[1]]
				if !ok {
					return nil, 0, herr("unknown type %q", clip(f[1]))
				}
				p = property{name: f[2], typ: t}
			} else {
				return nil, 0, herr("bad property line %q", clip(s))
			}
			e := &h.elems[len(h.elems)-1]
			for _, q := range e.props {
				if q.name == p.name {
					return nil, 0, herr("duplicate property %q", clip(p.name))
				}
			}
			e.props = append(e.props, p)
		case "end_header":
			if len(f) != 1 {
				return nil, 0, herr("bad end_header line")
			}
			if h.format < 0 {
				return nil, 0, herr("no format line")
			}
			return h, line, nil
		default:
			return nil, 0, herr("unknown header keyword %q", clip(f[0]))
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// source reads scalar values of the body.
type source interface {
	// value reads one scalar of type t.
	value(t ptype) (float64, error)
	// skip reads past n bytes of fixed-size binary data and returns how
	// many it read; ascii sources never get this call.
	skip(n int) (int, error)
	// lineNo is the current line (ascii) or 0 (binary).
	lineNo() int
}

// errEOF marks truncated data.
var errEOF = errors.New("unexpected end of data")

type binSrc struct {
	br    *bufio.Reader
	order binary.ByteOrder
	buf   [8]byte
}

func (s *binSrc) lineNo() int { return 0 }

func (s *binSrc) skip(n int) (int, error) {
	k, err := s.br.Discard(n)
	if k < n {
		if err == io.EOF || err == nil {
			err = errEOF
		}
		return k, err
	}
	return k, nil
}

func (s *binSrc) value(t ptype) (float64, error) {
	b := s.buf[:t.size]
	if _, err := io.ReadFull(s.br, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return 0, errEOF
		}
		return 0, err
	}
	switch t.size {
	case 1:
		if t.kind == kInt {
			return float64(int8(b[0])), nil
		}
		return float64(b[0]), nil
	case 2:
		u := s.order.Uint16(b)
		if t.kind == kInt {
			return float64(int16(u)), nil
		}
		return float64(u), nil
	case 4:
		u := s.order.Uint32(b)
		switch t.kind {
		case kInt:
			return float64(int32(u)), nil
		case kUint:
			return float64(u), nil
		}
		return float64(math.Float32frombits(u)), nil
	}
	return math.Float64frombits(s.order.Uint64(b)), nil
}

type asciiSrc struct {
	br   *bufio.Reader
	line int
	tok  []byte
}

func (s *asciiSrc) lineNo() int { return s.line }

func (s *asciiSrc) skip(int) (int, error) { return 0, errors.New("ply: internal: skip on ascii") }

func (s *asciiSrc) value(t ptype) (float64, error) {
	s.tok = s.tok[:0]
	for {
		c, err := s.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				if len(s.tok) > 0 {
					break
				}
				return 0, errEOF
			}
			return 0, err
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f' {
			if len(s.tok) > 0 {
				_ = s.br.UnreadByte()
				break
			}
			if c == '\n' {
				s.line++
			}
			continue
		}
		if len(s.tok) >= 64 {
			return 0, perr("token %q... too long", s.tok[:20])
		}
		s.tok = append(s.tok, c)
	}
	x, err := strconv.ParseFloat(string(s.tok), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, perr("bad number %q", s.tok)
	}
	if t.kind != kFloat && x != math.Trunc(x) {
		return 0, perr("bad integer %q", s.tok)
	}
	if t.kind == kFloat && t.size == 4 {
		// A float property holds a float32, as in the binary encodings.
		x = float64(float32(x))
	}
	return x, nil
}

// decoder reads a PLY body into a mesh.
type decoder struct {
	name string
	h    *header
	src  source

	nverts  int
	verts   []geom.Vec3
	uvs     []geom.Vec2
	normals []geom.Vec3
	tris    [][3]int32
	cornUV  []geom.Vec2 // per-corner UVs from face texcoord lists, 3 per triangle
	list    []float64
	tc      []float64
}

// elemErr builds an error about record i of element e.
func (d *decoder) elemErr(e *element, i int, err error) error {
	var ioErr error
	var pe *parseErr
	if err != errEOF && !errors.As(err, &pe) {
		ioErr = err
	}
	return &Error{File: d.name, Line: d.src.lineNo(), Element: e.name, Index: i, Msg: err.Error(), Err: ioErr}
}

// parseErr is a format problem (as opposed to an I/O error).
type parseErr struct{ msg string }

func (p *parseErr) Error() string { return p.msg }

func perr(format string, args ...any) error { return &parseErr{fmt.Sprintf(format, args...)} }

// prealloc bounds an allocation by a count read from the header.
func prealloc(n int) int { return min(n, 1<<16) }

func (d *decoder) decode() (*mesh.Mesh, error) {
	var vertex, face *element
	for i := range d.h.elems {
		e := &d.h.elems[i]
		switch e.name {
		case "vertex":
			vertex = e
		case "face":
			face = e
		}
	}
	if vertex == nil {
		return nil, &Error{File: d.name, Msg: "no vertex element"}
	}
	if face == nil {
		return nil, &Error{File: d.name, Msg: "no face element"}
	}
	d.nverts = vertex.count
	for i := range d.h.elems {
		e := &d.h.elems[i]
		var err error
		switch e {
		case vertex:
			err = d.readVertices(e)
		case face:
			err = d.readFaces(e)
		default:
			err = d.skipElement(e)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(d.tris) == 0 {
		return nil, &Error{File: d.name, Msg: "no faces"}
	}
	m := &mesh.Mesh{Verts: d.verts, Tris: d.tris}
	switch {
	case d.cornUV != nil:
		m.UVs = d.cornUV
		m.UVTris = make([][3]int32, len(d.tris))
		for i := range m.UVTris {
			k := int32(3 * i)
			m.UVTris[i] = [3]int32{k, k + 1, k + 2}
		}
	case d.uvs != nil:
		m.UVs = d.uvs
		m.UVTris = append([][3]int32(nil), d.tris...)
	}
	if d.normals != nil {
		m.Normals = d.normals
		m.NormalTris = append([][3]int32(nil), d.tris...)
	}
	return m, nil
}

// readProp reads property p of the current record: a scalar's value, or a
// list's length with its values left in d.list.
func (d *decoder) readProp(p *property) (float64, error) {
	if !p.list {
		return d.src.value(p.typ)
	}
	c, err := d.src.value(p.count)
	if err != nil {
		return 0, err
	}
	if c < 0 || c > MaxListLen {
		return 0, perr("bad list length %v for %s", c, p.name)
	}
	n := int(c)
	d.list = d.list[:0]
	for range n {
		x, err := d.src.value(p.typ)
		if err != nil {
			return 0, err
		}
		d.list = append(d.list, x)
	}
	return c, nil
}

func (d *decoder) skipElement(e *element) error {
	if len(e.props) == 0 {
		return nil
	}
	if _, ok := d.src.(*binSrc); ok {
		fixed, size := true, 0
		for _, p := range e.props {
			if p.list {
				fixed = false
				break
			}
			size += p.typ.size
		}
		if fixed {
			// Skip in chunks so that a huge count fails at the end of data.
			total := int64(e.count) * int64(size)
			for done := int64(0); done < total; {
				k, err := d.src.skip(int(min(total-done, 1<<20)))
				done += int64(k)
				if err != nil {
					return d.elemErr(e, int(done/int64(size)), err)
				}
			}
			return nil
		}
	}
	for i := range e.count {
		for k := range e.props {
			if _, err := d.readProp(&e.props[k]); err != nil {
				return d.elemErr(e, i, err)
			}
		}
	}
	return nil
}

// vertex property roles.
const (
	roleNone = iota
	roleX
	roleY
	roleZ
	roleU
	roleV
	roleNX
	roleNY
	roleNZ
)

func (d *decoder) readVertices(e *element) error {
	roles := make([]int, len(e.props))
	byName := map[string]int{}
	for i, p := range e.props {
		byName[p.name] = i
	}
	set := func(name string, role int) bool {
		i, ok := byName[name]
		if !ok || e.props[i].list {
			return false
		}
		roles[i] = role
		return true
	}
	for _, c := range []string{"x", "y", "z"} {
		if !set(c, roleX+int(c[0]-'x')) {
			return &Error{File: d.name, Line: e.line, Msg: fmt.Sprintf("vertex element has no scalar property %q", c)}
		}
	}
	hasUV := false
	for _, pair := range [][2]string{{"u", "v"}, {"s", "t"}, {"texture_u", "texture_v"}, {"texture_s", "texture_t"}} {
		_, ok1 := byName[pair[0]]
		_, ok2 := byName[pair[1]]
		if ok1 && ok2 && set(pair[0], roleU) && set(pair[1], roleV) {
			hasUV = true
			break
		}
	}
	hasN := false
	if _, ok := byName["nx"]; ok {
		if _, ok := byName["ny"]; ok {
			if _, ok := byName["nz"]; ok {
				hasN = set("nx", roleNX) && set("ny", roleNY) && set("nz", roleNZ)
			}
		}
	}
	d.verts = make([]geom.Vec3, 0, prealloc(e.count))
	if hasUV {
		d.uvs = make([]geom.Vec2, 0, prealloc(e.count))
	}
	if hasN {
		d.normals = make([]geom.Vec3, 0, prealloc(e.count))
	}
	for i := range e.count {
		var v [9]float64
		for k := range e.props {
			x, err := d.readProp(&e.props[k])
			if err != nil {
				return d.elemErr(e, i, err)
			}
			if r := roles[k]; r != roleNone {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return d.elemErr(e, i, perr("non-finite %s = %v", e.props[k].name, x))
				}
				v[r] = x
			}
		}
		d.verts = append(d.verts, geom.Vec3{X: v[roleX], Y: v[roleY], Z: v[roleZ]})
		if hasUV {
			d.uvs = append(d.uvs, geom.Vec2{X: v[roleU], Y: v[roleV]})
		}
		if hasN {
			d.normals = append(d.normals, geom.Vec3{X: v[roleNX], Y: v[roleNY], Z: v[roleNZ]})
		}
	}
	return nil
}

func (d *decoder) readFaces(e *element) error {
	idx, tc := -1, -1
	for i, p := range e.props {
		switch {
		case p.list && (p.name == "vertex_indices" || p.name == "vertex_index") && idx < 0:
			if p.typ.kind == kFloat {
				return &Error{File: d.name, Line: e.line, Msg: fmt.Sprintf("face property %s has non-integer type", p.name)}
			}
			idx = i
		case p.list && p.name == "texcoord":
			tc = i
		}
	}
	if idx < 0 {
		return &Error{File: d.name, Line: e.line, Msg: "face element has no vertex_indices list"}
	}
	d.tris = make([][3]int32, 0, prealloc(e.count))
	if tc >= 0 {
		d.cornUV = make([]geom.Vec2, 0, prealloc(3*e.count))
	}
	var corners []int32
	for i := range e.count {
		corners = corners[:0]
		d.tc = d.tc[:0]
		for k := range e.props {
			if _, err := d.readProp(&e.props[k]); err != nil {
				return d.elemErr(e, i, err)
			}
			switch k {
			case idx:
				for _, x := range d.list {
					if x < 0 || x >= float64(d.nverts) {
						return d.elemErr(e, i, perr("vertex index %v out of range [0,%d)", x, d.nverts))
					}
					corners = append(corners, int32(x))
				}
			case tc:
				d.tc = append(d.tc, d.list...)
			}
		}
		n := len(corners)
		if n < 3 {
			return d.elemErr(e, i, perr("face has %d vertices, need at least 3", n))
		}
		if v, ok := mesh.RepeatedIndex(corners); ok {
			return d.elemErr(e, i, perr("face repeats vertex %d", v))
		}
		if tc >= 0 && len(d.tc) != 2*n {
			return d.elemErr(e, i, perr("texcoord has %d values for %d corners", len(d.tc), n))
		}
		for _, x := range d.tc {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return d.elemErr(e, i, perr("non-finite texcoord %v", x))
			}
		}
		if len(d.tris)+n-2 > math.MaxInt32/3 {
			return d.elemErr(e, i, perr("too many triangles"))
		}
		for k := 1; k+1 < n; k++ {
			d.tris = append(d.tris, [3]int32{corners[0], corners[k], corners[k+1]})
			if tc >= 0 {
				for _, c := range [3]int{0, k, k + 1} {
					d.cornUV = append(d.cornUV, geom.Vec2{X: d.tc[2*c], Y: d.tc[2*c+1]})
				}
			}
		}
	}
	return nil
}
