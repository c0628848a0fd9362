package obj

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Write writes m to w as OBJ: v lines for every vertex, vt lines when m has
// per-corner UVs, vn lines when it has per-corner normals, then f lines
// (v, v/vt, v//vn or v/vt/vn) with ungrouped triangles first and each
// group's triangles after a g line. Numbers use the shortest form that reads
// back to the same float64. Group names have line breaks, '#' and a trailing
// '\' replaced by '_' so that they survive a round trip; an empty name is
// written as "default". m must pass mesh.Validate.
func Write(w io.Writer, m *mesh.Mesh) error {
	if m == nil {
		return fmt.Errorf("obj: write: nil mesh")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("obj: write: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	hasUV := m.HasUVs()
	hasN := m.NormalTris != nil && len(m.NormalTris) == len(m.Tris)
	var b []byte
	b = fmt.Appendf(b, "# pleat: %d vertices, %d triangles\n", len(m.Verts), len(m.Tris))
	for _, v := range m.Verts {
		b = flush(bw, appendVec3(append(b, 'v', ' '), v))
	}
	if hasUV {
		for _, t := range m.UVs {
			b = append(b, 'v', 't', ' ')
			b = strconv.AppendFloat(b, t.X, 'g', -1, 64)
			b = append(b, ' ')
			b = strconv.AppendFloat(b, t.Y, 'g', -1, 64)
			b = append(b, '\n')
			b = flush(bw, b)
		}
	}
	if hasN {
		for _, n := range m.Normals {
			b = flush(bw, appendVec3(append(b, 'v', 'n', ' '), n))
		}
	}
	// owner[t] = 1 + index of the first group holding triangle t, 0 if none.
	owner := make([]int32, len(m.Tris))
	for gi := len(m.Groups) - 1; gi >= 0; gi-- {
		for _, t := range m.Groups[gi].Tris {
			owner[t] = int32(gi + 1)
		}
	}
	face := func(t int) {
		b = append(b, 'f')
		for k := range 3 {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(m.Tris[t][k])+1, 10)
			if hasUV || hasN {
				b = append(b, '/')
			}
			if hasUV {
				b = strconv.AppendInt(b, int64(m.UVTris[t][k])+1, 10)
			}
			if hasN {
				b = append(b, '/')
				b = strconv.AppendInt(b, int64(m.NormalTris[t][k])+1, 10)
			}
		}
		b = append(b, '\n')
		b = flush(bw, b)
	}
	for t := range m.Tris {
		if owner[t] == 0 {
			face(t)
		}
	}
	for gi, g := range m.Groups {
		wrote := false
		for _, t := range g.Tris {
			if owner[t] != int32(gi+1) {
				continue
			}
			if !wrote {
				b = append(b, "g "...)
				b = append(b, groupName(g.Name)...)
				b = append(b, '\n')
				wrote = true
			}
			owner[t] = -1 // written; a duplicate within the group is skipped
			face(int(t))
		}
	}
	if _, err := bw.Write(b); err != nil {
		return fmt.Errorf("obj: write: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("obj: write: %w", err)
	}
	return nil
}

// flush hands b to bw once it is large; bufio keeps the first error, which
// Write reports at the end.
func flush(bw *bufio.Writer, b []byte) []byte {
	if len(b) >= 32<<10 {
		bw.Write(b) //nolint:errcheck // sticky error checked by Flush
		return b[:0]
	}
	return b
}

// groupName makes name safe for a g line.
func groupName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '#' || r < ' ' {
			return '_'
		}
		return r
	}, strings.TrimSpace(name))
	if strings.HasSuffix(name, "\\") {
		name = name[:len(name)-1] + "_"
	}
	if name == "" {
		name = defaultGroup
	}
	return name
}

// WriteFile writes m to the file at path (created or truncated) with Write.
func WriteFile(path string, m *mesh.Mesh) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, m); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// appendVec3 appends "x y z\n" with the shortest exact float64 forms.
func appendVec3(b []byte, v geom.Vec3) []byte {
	b = strconv.AppendFloat(b, v.X, 'g', -1, 64)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, v.Y, 'g', -1, 64)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, v.Z, 'g', -1, 64)
	return append(b, '\n')
}
