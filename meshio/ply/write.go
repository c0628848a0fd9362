package ply

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/pleat-dev/pleat/mesh"
)

// WriteOptions choose the encoding of Write's output. The zero value writes
// ascii with float (float32) coordinates.
type WriteOptions struct {
	// Binary selects binary_little_endian instead of ascii.
	Binary bool
	// Double writes coordinates, texture coordinates and normals as double
	// (float64, lossless) instead of float (float32).
	Double bool
}

// Write writes m to w as PLY, binary_little_endian if binary is true, else
// ascii, with float32 coordinates. See WriteWith.
func Write(w io.Writer, m *mesh.Mesh, binary bool) error {
	return WriteWith(w, m, WriteOptions{Binary: binary})
}

// WriteFile writes m to the file at path (created or truncated) with
// WriteWith.
func WriteFile(path string, m *mesh.Mesh, opt WriteOptions) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WriteWith(f, m, opt); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// perVertex returns, for each vertex, the value every corner of that vertex
// carries (zero for unreferenced vertices), or false if some vertex has two
// different values: then a per-vertex PLY property cannot represent them.
func perVertex[T comparable](m *mesh.Mesh, vals []T, idx [][3]int32) ([]T, bool) {
	if idx == nil || len(idx) != len(m.Tris) {
		return nil, false
	}
	out := make([]T, len(m.Verts))
	set := make([]bool, len(m.Verts))
	for t, tri := range m.Tris {
		for k, v := range tri {
			x := vals[idx[t][k]]
			if set[v] && out[v] != x {
				return nil, false
			}
			out[v], set[v] = x, true
		}
	}
	return out, true
}

// overflows32 reports whether the finite x becomes ±Inf as a float32.
func overflows32(x float64) bool { return math.IsInf(float64(float32(x)), 0) }

// WriteWith writes m to w as PLY with the given options: a vertex element
// with x, y, z (plus u, v and nx, ny, nz when they are per vertex, see the
// package documentation) and a face element of triangles. m must pass
// mesh.Validate.
func WriteWith(w io.Writer, m *mesh.Mesh, opt WriteOptions) error {
	if m == nil {
		return fmt.Errorf("ply: write: nil mesh")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("ply: write: %w", err)
	}
	uvs, hasUV := perVertex(m, m.UVs, m.UVTris)
	nrm, hasN := perVertex(m, m.Normals, m.NormalTris)
	if !opt.Double {
		for i, v := range m.Verts {
			for _, x := range [3]float64{v.X, v.Y, v.Z} {
				if overflows32(x) {
					return fmt.Errorf("ply: write: vertex %d: coordinate %g overflows float; use WriteOptions.Double", i, x)
				}
			}
		}
		for i, t := range uvs {
			if overflows32(t.X) || overflows32(t.Y) {
				return fmt.Errorf("ply: write: vertex %d: texture coordinate %v overflows float; use WriteOptions.Double", i, t)
			}
		}
		for i, n := range nrm {
			if overflows32(n.X) || overflows32(n.Y) || overflows32(n.Z) {
				return fmt.Errorf("ply: write: vertex %d: normal %v overflows float; use WriteOptions.Double", i, n)
			}
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	ftype := "float"
	if opt.Double {
		ftype = "double"
	}
	format := "ascii"
	if opt.Binary {
		format = "binary_little_endian"
	}
	hdr := fmt.Appendf(nil, "ply\nformat %s 1.0\ncomment written by pleat\nelement vertex %d\n", format, len(m.Verts))
	for _, c := range []string{"x", "y", "z"} {
		hdr = fmt.Appendf(hdr, "property %s %s\n", ftype, c)
	}
	if hasN {
		for _, c := range []string{"nx", "ny", "nz"} {
			hdr = fmt.Appendf(hdr, "property %s %s\n", ftype, c)
		}
	}
	if hasUV {
		hdr = fmt.Appendf(hdr, "property %s u\nproperty %s v\n", ftype, ftype)
	}
	hdr = fmt.Appendf(hdr, "element face %d\nproperty list uchar int vertex_indices\nend_header\n", len(m.Tris))
	bw.Write(hdr) //nolint:errcheck // sticky; checked by Flush

	var b []byte
	put := func(x float64) {
		switch {
		case opt.Binary && opt.Double:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		case opt.Binary:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
		case opt.Double:
			b = strconv.AppendFloat(b, x, 'g', -1, 64)
			b = append(b, ' ')
		default:
			b = strconv.AppendFloat(b, float64(float32(x)), 'g', -1, 32)
			b = append(b, ' ')
		}
	}
	endRecord := func() {
		if !opt.Binary {
			b[len(b)-1] = '\n'
		}
		if len(b) >= 32<<10 {
			bw.Write(b) //nolint:errcheck // sticky; checked by Flush
			b = b[:0]
		}
	}
	for i, v := range m.Verts {
		put(v.X)
		put(v.Y)
		put(v.Z)
		if hasN {
			n := nrm[i]
			put(n.X)
			put(n.Y)
			put(n.Z)
		}
		if hasUV {
			t := uvs[i]
			put(t.X)
			put(t.Y)
		}
		endRecord()
	}
	for _, t := range m.Tris {
		if opt.Binary {
			b = append(b, 3)
			for _, v := range t {
				b = binary.LittleEndian.AppendUint32(b, uint32(v))
			}
		} else {
			b = append(b, '3', ' ')
			for _, v := range t {
				b = strconv.AppendInt(b, int64(v), 10)
				b = append(b, ' ')
			}
		}
		endRecord()
	}
	bw.Write(b) //nolint:errcheck // sticky; checked by Flush
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ply: write: %w", err)
	}
	return nil
}
