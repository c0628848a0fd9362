package usd

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
)

// WriteFile writes s to path as .usda text or a .usdz package, by
// extension. Errors name the file.
func WriteFile(path string, s *Stage) error {
	var write func(io.Writer, *Stage) error
	switch strings.ToLower(filepath.Ext(path)) {
	case ".usda":
		write = Write
	case ".usdz":
		layer := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".usda"
		write = func(w io.Writer, s *Stage) error { return WriteUSDZ(w, s, layer) }
	default:
		return fmt.Errorf("%s: want a .usda or .usdz path", path)
	}
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw, s)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteUSDZ writes s as a usdz package holding one file, the usda layer
// named layer (for example "walk.usda"): a zip archive, stored without
// compression, whose file data starts at a multiple of 64 bytes (the usdz
// specification's alignment; the padding goes in the local header's extra
// field). The layer is built in memory first (the header needs its
// CRC-32 and size).
func WriteUSDZ(w io.Writer, s *Stage, layer string) error {
	if !strings.HasSuffix(strings.ToLower(layer), ".usda") || strings.ContainsAny(layer, "/\\") {
		return fmt.Errorf("usd: usdz layer name %q: want a file name ending in .usda", layer)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s); err != nil {
		return err
	}
	data := buf.Bytes()
	if uint64(len(data)) >= math.MaxUint32 {
		return fmt.Errorf("usd: layer of %d bytes is too large for a usdz package (4 GiB)", len(data))
	}
	zw := zip.NewWriter(w)
	// The local file header is 30 bytes plus the name plus the extra
	// field, and this is the archive's first entry (offset 0).
	const localHeader = 30
	pad := 64 - (localHeader+len(layer)+4)%64
	if pad == 64 {
		pad = 0
	}
	extra := make([]byte, 4+pad)
	binary.LittleEndian.PutUint16(extra[0:], 0x1986) // a private padding block
	binary.LittleEndian.PutUint16(extra[2:], uint16(pad))
	fh := &zip.FileHeader{
		Name:               layer,
		Method:             zip.Store,
		CRC32:              crc32.ChecksumIEEE(data),
		CompressedSize64:   uint64(len(data)),
		UncompressedSize64: uint64(len(data)),
		Extra:              extra,
	}
	fw, err := zw.CreateRaw(fh)
	if err != nil {
		return err
	}
	if _, err := fw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}

// Write writes s as a usda text layer (see the package documentation).
func Write(w io.Writer, s *Stage) error {
	if err := s.Validate(); err != nil {
		return err
	}
	lw := &layerWriter{w: bufio.NewWriterSize(w, 1<<16)}
	end := s.StartTime
	for _, m := range s.Meshes {
		if m.Times != nil {
			end = math.Max(end, m.Times[len(m.Times)-1])
		} else {
			end = math.Max(end, s.StartTime+float64(m.numSamples()-1))
		}
	}
	fps := s.fps()
	lw.printf("#usda 1.0\n(\n")
	lw.printf("    defaultPrim = %s\n", quote(s.root()))
	lw.printf("    doc = \"pleat: body and garments, one time sample per frame\"\n")
	lw.printf("    endTimeCode = %s\n", num64(end))
	lw.printf("    framesPerSecond = %s\n", num64(fps))
	lw.printf("    metersPerUnit = %s\n", num64(s.metersPerUnit()))
	lw.printf("    startTimeCode = %s\n", num64(s.StartTime))
	lw.printf("    timeCodesPerSecond = %s\n", num64(fps))
	lw.printf("    upAxis = %s\n)\n\n", quote(s.upAxis()))
	lw.printf("def Xform %s\n{\n", quote(s.root()))
	names := primNames(s.Meshes)
	for i := range s.Meshes {
		if i > 0 {
			lw.printf("\n")
		}
		lw.mesh(s, &s.Meshes[i], names[i])
	}
	lw.printf("}\n")
	if lw.err != nil {
		return lw.err
	}
	return lw.w.Flush()
}

// layerWriter is a sticky-error text writer.
type layerWriter struct {
	w   *bufio.Writer
	err error
	buf []byte
}

func (lw *layerWriter) printf(format string, a ...any) {
	if lw.err == nil {
		_, lw.err = fmt.Fprintf(lw.w, format, a...)
	}
}

func (lw *layerWriter) flushBuf() {
	if lw.err == nil {
		_, lw.err = lw.w.Write(lw.buf)
	}
	lw.buf = lw.buf[:0]
}

func (lw *layerWriter) mesh(s *Stage, m *Mesh, prim string) {
	const in = "        "
	lw.printf("    def Mesh %s (\n        customData = {\n            string pleatName = %s\n        }\n    )\n    {\n", quote(prim), quote(m.Name))
	if m.DoubleSided {
		lw.printf("%suniform bool doubleSided = 1\n", in)
	}
	// extent: the bounding box of each sample (UsdGeomBoundable).
	lw.samples(s, m, in+"float3[] extent", func(f int) {
		b := geom.BoxOf(m.points(f))
		lw.buf = append(lw.buf, '[')
		lw.buf = appendVec3(lw.buf, b.Min)
		lw.buf = append(lw.buf, ", "...)
		lw.buf = appendVec3(lw.buf, b.Max)
		lw.buf = append(lw.buf, ']')
	})
	lw.buf = append(lw.buf, in+"int[] faceVertexCounts = ["...)
	for t := range m.Mesh.Tris {
		if t > 0 {
			lw.buf = append(lw.buf, ", "...)
		}
		lw.buf = append(lw.buf, '3')
		if len(lw.buf) > 1<<16 {
			lw.flushBuf()
		}
	}
	lw.buf = append(lw.buf, "]\n"...)
	lw.buf = append(lw.buf, in+"int[] faceVertexIndices = "...)
	lw.ints(m.Mesh.Tris)
	lw.buf = append(lw.buf, '\n')
	lw.flushBuf()
	if m.Normals != nil {
		lw.printf("%snormal3f[] normals (\n%s    interpolation = \"vertex\"\n%s)\n", in, in, in)
		lw.samples(s, m, in+"normal3f[] normals", func(f int) { lw.vecs(m.Normals[f]) })
	}
	lw.printf("%suniform token orientation = \"rightHanded\"\n", in)
	lw.samples(s, m, in+"point3f[] points", func(f int) { lw.vecs(m.points(f)) })
	if len(m.Mesh.UVs) > 0 {
		lw.buf = append(lw.buf, in+"texCoord2f[] primvars:st = ["...)
		for i, p := range m.Mesh.UVs {
			if i > 0 {
				lw.buf = append(lw.buf, ", "...)
			}
			lw.buf = append(lw.buf, '(')
			lw.buf = appendNum32(lw.buf, p.X)
			lw.buf = append(lw.buf, ", "...)
			lw.buf = appendNum32(lw.buf, p.Y)
			lw.buf = append(lw.buf, ')')
			if len(lw.buf) > 1<<16 {
				lw.flushBuf()
			}
		}
		interp := "vertex"
		if m.Mesh.UVTris != nil {
			interp = "faceVarying"
		}
		lw.buf = append(lw.buf, "] (\n"+in+"    interpolation = \""+interp+"\"\n"+in+")\n"...)
		if m.Mesh.UVTris != nil {
			lw.buf = append(lw.buf, in+"int[] primvars:st:indices = "...)
			lw.ints(m.Mesh.UVTris)
			lw.buf = append(lw.buf, '\n')
		}
		lw.flushBuf()
	}
	lw.printf("%suniform token subdivisionScheme = \"none\"\n    }\n", in)
}

// samples writes attribute decl as a default value (static mesh) or as
// time samples, one line per frame; value appends sample f to lw.buf.
func (lw *layerWriter) samples(s *Stage, m *Mesh, decl string, value func(f int)) {
	if m.Frames == nil {
		lw.buf = append(lw.buf, decl+" = "...)
		value(0)
		lw.buf = append(lw.buf, '\n')
		lw.flushBuf()
		return
	}
	lw.buf = append(lw.buf, decl+".timeSamples = {\n"...)
	for f := range m.Frames {
		t := s.StartTime + float64(f)
		if m.Times != nil {
			t = m.Times[f]
		}
		lw.buf = append(lw.buf, decl[:strings.IndexFunc(decl, func(r rune) bool { return r != ' ' })]...)
		lw.buf = append(lw.buf, "    "...)
		lw.buf = strconv.AppendFloat(lw.buf, t, 'g', -1, 64)
		lw.buf = append(lw.buf, ": "...)
		value(f)
		lw.buf = append(lw.buf, ",\n"...)
		lw.flushBuf()
	}
	lw.buf = append(lw.buf, decl[:strings.IndexFunc(decl, func(r rune) bool { return r != ' ' })]...)
	lw.buf = append(lw.buf, "}\n"...)
	lw.flushBuf()
}

// vecs appends a float3 array.
func (lw *layerWriter) vecs(x []geom.Vec3) {
	lw.buf = append(lw.buf, '[')
	for i, p := range x {
		if i > 0 {
			lw.buf = append(lw.buf, ", "...)
		}
		lw.buf = appendVec3(lw.buf, p)
		if len(lw.buf) > 1<<16 {
			lw.flushBuf()
		}
	}
	lw.buf = append(lw.buf, ']')
}

// ints appends the corners of tris as one flat int array.
func (lw *layerWriter) ints(tris [][3]int32) {
	lw.buf = append(lw.buf, '[')
	for t, tri := range tris {
		for k, v := range tri {
			if t > 0 || k > 0 {
				lw.buf = append(lw.buf, ", "...)
			}
			lw.buf = strconv.AppendInt(lw.buf, int64(v), 10)
		}
		if len(lw.buf) > 1<<16 {
			lw.flushBuf()
		}
	}
	lw.buf = append(lw.buf, ']')
}

func appendVec3(b []byte, p geom.Vec3) []byte {
	b = append(b, '(')
	b = appendNum32(b, p.X)
	b = append(b, ", "...)
	b = appendNum32(b, p.Y)
	b = append(b, ", "...)
	b = appendNum32(b, p.Z)
	return append(b, ')')
}

// appendNum32 appends x rounded to float32 as the shortest decimal that
// parses back to the same float32.
func appendNum32(b []byte, x float64) []byte {
	return strconv.AppendFloat(b, float64(float32(x)), 'g', -1, 32)
}

func num64(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// quote returns s as a usda string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
