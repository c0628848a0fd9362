package character

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
)

// MHClo is a parsed MakeHuman garment or proxy binding (.mhclo, .proxy).
type MHClo struct {
	Name     string
	OBJFile  string // the garment OBJ, relative to the .mhclo file's folder
	Material string // the "material" entry, or ""
	// Binding places each garment vertex on the base mesh, in the garment
	// OBJ's vertex order. Its Unit is MHUnit.
	Binding Binding
	// DeleteVerts are the base-mesh vertices hidden under the garment,
	// sorted and distinct.
	DeleteVerts []int32
}

// MHUnit is the length unit of MakeHuman files in metres: base.obj and
// .mhclo offsets are in decimetres.
const MHUnit = 0.1

// AxisScale is one axis's offset scale of a Binding: the distance between
// base vertices A and B along the axis divided by Dist (the same distance on
// the mesh the garment was fitted to, in the binding's unit). Dist = 0 means
// scale 1.
type AxisScale struct {
	A, B int32
	Dist float64
}

// Binding ties garment vertices to a base mesh (MakeHuman's proxy
// binding). Vertex i sits at
//
//	p_i = Σ_k W[i][k]·base[Refs[i][k]] + (s_x·d_x, s_y·d_y, s_z·d_z)·Unit
//
// with d = Offset[i] and s_axis = |base[A][axis] − base[B][axis]| /
// (Dist·Unit) from Scale[axis], base positions in metres. A vertex copied
// from one base vertex v has Refs {v, v, v}, W {1, 0, 0} and zero Offset.
type Binding struct {
	Refs   [][3]int32
	W      [][3]float64
	Offset []geom.Vec3 // in Unit
	Scale  [3]AxisScale
	// Unit is the length of one offset or Dist unit in metres (MHUnit for
	// MakeHuman files).
	Unit float64

	file  string
	lines []int32 // source line of each vertex, for errors
}

// NumVerts returns the number of bound vertices.
func (b *Binding) NumVerts() int { return len(b.Refs) }

// Check reports the first reference (in Refs or Scale) outside
// [0, numBase), naming the file and line.
func (b *Binding) Check(numBase int) error {
	for i, r := range b.Refs {
		for _, v := range r {
			if v < 0 || int(v) >= numBase {
				line := 0
				if i < len(b.lines) {
					line = int(b.lines[i])
				}
				return perr(b.file, line, "verts", "garment vertex %d: base vertex %d out of range [0,%d)", i, v, numBase)
			}
		}
	}
	for ax, s := range b.Scale {
		if s.Dist == 0 {
			continue
		}
		for _, v := range [2]int32{s.A, s.B} {
			if v < 0 || int(v) >= numBase {
				return perr(b.file, 0, string(rune('x'+ax))+"_scale", "base vertex %d out of range [0,%d)", v, numBase)
			}
		}
	}
	return nil
}

// Scales returns the per-axis offset scales (s_x, s_y, s_z) on base, in
// metres (see Binding). It panics if a scale vertex is out of range.
func (b *Binding) Scales(base []geom.Vec3) geom.Vec3 {
	var s [3]float64
	for ax, sc := range b.Scale {
		s[ax] = 1
		if sc.Dist != 0 {
			s[ax] = math.Abs(base[sc.A].At(ax)-base[sc.B].At(ax)) / (sc.Dist * b.unit())
		}
	}
	return geom.Vec3{X: s[0], Y: s[1], Z: s[2]}
}

func (b *Binding) unit() float64 {
	if b.Unit == 0 {
		return 1
	}
	return b.Unit
}

// Place returns the bound vertex positions on base (metres), in dst when
// its capacity suffices. It panics if a reference is out of range (see
// Check).
func (b *Binding) Place(dst, base []geom.Vec3) []geom.Vec3 {
	n := len(b.Refs)
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	s := b.Scales(base).Scale(b.unit())
	for i, r := range b.Refs {
		w := b.W[i]
		p := base[r[0]].Scale(w[0]).AddScaled(w[1], base[r[1]]).AddScaled(w[2], base[r[2]])
		dst[i] = p.Add(b.Offset[i].Mul(s))
	}
	return dst
}

// ParseMHClo reads a .mhclo (or .proxy) file from r; name is used in
// errors. Header lines are "key value...": name, obj_file, material,
// x_scale/y_scale/z_scale "v1 v2 dist" (a missing axis has scale 1), and
// others (uuid, tag, z_depth, ...) which are ignored. "verts N" starts the
// vertex lines, one per garment vertex: either one base vertex index, or
// "v1 v2 v3 w1 w2 w3 dx dy dz". "delete_verts" is followed by base vertex
// indices and inclusive ranges "a - b" up to the next keyword or the end.
// Base indices are checked against a real mesh by Binding.Check. Errors are
// *ParseError with the line.
func ParseMHClo(r io.Reader, name string) (*MHClo, error) {
	c := &MHClo{}
	b := &c.Binding
	b.Unit = MHUnit
	b.file = name
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxFileBytes)
	const (
		header = iota
		verts
		deletes
	)
	state := header
	var del delList
	line := 0
	for sc.Scan() {
		line++
		s := sc.Bytes()
		if i := bytes.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		f := strings.Fields(string(s))
		if len(f) == 0 {
			continue
		}
		field := f[0]
		bad := func(format string, args ...any) (*MHClo, error) {
			return nil, perr(name, line, field, format, args...)
		}
		// A keyword ends the vertex or delete section.
		if _, err := strconv.ParseFloat(f[0], 64); err != nil && f[0] != "-" {
			if state == deletes && del.dash {
				return bad("range without an end")
			}
			state = header
		}
		switch state {
		case verts:
			field = "verts"
			if len(c.Binding.Refs) >= MaxVerts {
				return bad("more than %d vertices", MaxVerts)
			}
			var refs [3]int32
			var w [3]float64
			var d geom.Vec3
			switch len(f) {
			case 1:
				v, err := parseIndex(f[0])
				if err != nil {
					return bad("%v", err)
				}
				refs, w = [3]int32{v, v, v}, [3]float64{1, 0, 0}
			case 9:
				var x [6]float64
				for k := 0; k < 3; k++ {
					v, err := parseIndex(f[k])
					if err != nil {
						return bad("%v", err)
					}
					refs[k] = v
				}
				for k := 0; k < 6; k++ {
					v, err := parseFinite(f[3+k])
					if err != nil {
						return bad("%v", err)
					}
					x[k] = v
				}
				w = [3]float64{x[0], x[1], x[2]}
				d = geom.Vec3{X: x[3], Y: x[4], Z: x[5]}
			default:
				return bad("vertex line has %d fields, want 1 or 9", len(f))
			}
			b.Refs = append(b.Refs, refs)
			b.W = append(b.W, w)
			b.Offset = append(b.Offset, d)
			b.lines = append(b.lines, int32(min(line, math.MaxInt32)))
			continue
		case deletes:
			field = "delete_verts"
			if err := del.add(f); err != nil {
				return bad("%v", err)
			}
			continue
		}
		key, args := f[0], f[1:]
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(s)), key))
		switch key {
		case "name":
			c.Name = rest
		case "obj_file":
			c.OBJFile = rest
		case "material":
			c.Material = rest
		case "x_scale", "y_scale", "z_scale":
			if len(args) != 3 {
				return bad("want 3 values")
			}
			va, err1 := parseIndex(args[0])
			vb, err2 := parseIndex(args[1])
			dist, err3 := parseFinite(args[2])
			if err := errors.Join(err1, err2, err3); err != nil {
				return bad("%v", err)
			}
			if dist <= 0 {
				return bad("reference distance %v is not positive", dist)
			}
			b.Scale[key[0]-'x'] = AxisScale{A: va, B: vb, Dist: dist}
		case "verts":
			if len(b.Refs) > 0 {
				return bad("second vertex section")
			}
			state = verts
		case "delete_verts":
			state = deletes
			if err := del.add(args); err != nil {
				return bad("%v", err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, perr(name, line+1, "", "%v", err)
	}
	if state == deletes && del.dash {
		return nil, perr(name, line, "delete_verts", "range without an end")
	}
	if len(b.Refs) == 0 {
		return nil, perr(name, 0, "verts", "no vertices")
	}
	c.DeleteVerts = del.verts()
	return c, nil
}

func parseIndex(s string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 0 || v >= MaxVerts {
		return 0, errors.New("bad vertex index " + strconv.Quote(s))
	}
	return int32(v), nil
}

func parseFinite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("bad number " + strconv.Quote(s))
	}
	return v, nil
}

// MaxDeleteVerts bounds the number of indices a delete_verts section may
// name (ranges counted in full).
const MaxDeleteVerts = 1 << 20

// delList collects delete_verts tokens: indices and inclusive "a - b"
// ranges, possibly spanning lines.
type delList struct {
	ranges [][2]int32
	n      int  // total indices named
	dash   bool // the last token was "-"
}

func (d *delList) add(toks []string) error {
	for _, tok := range toks {
		if tok == "-" {
			if d.dash || len(d.ranges) == 0 || d.ranges[len(d.ranges)-1][0] != d.ranges[len(d.ranges)-1][1] {
				return errors.New("misplaced '-'")
			}
			d.dash = true
			continue
		}
		v, err := parseIndex(tok)
		if err != nil {
			return err
		}
		if d.dash {
			r := &d.ranges[len(d.ranges)-1]
			if v < r[0] {
				return fmt.Errorf("range %d - %d runs backwards", r[0], v)
			}
			d.n += int(v - r[1])
			r[1] = v
			d.dash = false
		} else {
			d.ranges = append(d.ranges, [2]int32{v, v})
			d.n++
		}
		if d.n > MaxDeleteVerts {
			return fmt.Errorf("more than %d deleted vertices", MaxDeleteVerts)
		}
	}
	return nil
}

// verts returns the named indices sorted and distinct.
func (d *delList) verts() []int32 {
	if d.n == 0 {
		return nil
	}
	out := make([]int32, 0, d.n)
	for _, r := range d.ranges {
		for v := r[0]; ; v++ {
			out = append(out, v)
			if v == r[1] {
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
