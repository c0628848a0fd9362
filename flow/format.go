package flow

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/zstd"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// .pflow layout (little-endian):
//
//	header   magic "PLEATFLW" (8 bytes), version u16 (= Version), codec u16
//	         (1 = zstd), payload size u64, compressed size u64
//	body     the zstd-compressed payload
//	trailer  CRC-32 (IEEE) of header and body, u32
//
// Payload, in order (planar = the bytes of an array of w-byte values
// written as w planes, all first bytes, then all second bytes, ...; this
// groups the slowly varying high bytes for zstd):
//
//	name str (u16 length + bytes); fps f64
//	counts u32: vertices n, triangles, frames m, components k, joints J
//	joints J × {name str, parent i32, rest rotation 4×f64 (w,x,y,z),
//	         rest translation 3×f64, kind u8, axis 3×f64}
//	triangles 3·T indices, each the zigzag varint of its difference to the
//	         previous index
//	uv flag u8; if 1: count u32, UVs planar f32 (u,v), UV triangles as above
//	base     planar f32, 3n (x,y,z per vertex)
//	weights  n × u8 influence counts (1..4); joints planar u16; weights u16
//	         for every influence but the first (first = 1 − the rest)
//	poses    m × (root 3×f32, J × rotation 4×f32 (w,x,y,z)), planar f32
//	scales   k × f32
//	targets  k × 3n int16, each the difference to the same coordinate of
//	         the previous vertex (wrapping), planar
//	weights  m × k int16, each the difference to the same component at the
//	         previous frame (wrapping), planar

// Version is the .pflow format version this package writes and reads.
const Version = 1

const (
	magic     = "PLEATFLW"
	codecZstd = 1
	headerLen = 8 + 2 + 2 + 8 + 8
	// Caps on counts, against absurd allocations from corrupt files.
	maxVerts   = 1 << 26
	maxFrames  = 1 << 24
	maxJoints  = 1 << 16
	maxPayload = 1 << 36
)

// ErrFormat is wrapped by every *FormatError.
var ErrFormat = errors.New("flow: bad .pflow file")

// FormatError reports a .pflow file that cannot be read: the field and what
// is wrong with it.
type FormatError struct {
	Field string
	Msg   string
}

func (e *FormatError) Error() string { return "flow: .pflow field " + e.Field + ": " + e.Msg }

// Unwrap returns ErrFormat.
func (e *FormatError) Unwrap() error { return ErrFormat }

func ferr(field, format string, args ...any) error {
	return &FormatError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// WriteFile writes f to path as a .pflow file.
func (f *Flow) WriteFile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	if err := f.Write(bw); err != nil {
		out.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Write writes f in the .pflow format (see the layout above) and returns
// the first write error.
func (f *Flow) Write(w io.Writer) error {
	payload := f.payload()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	comp := enc.EncodeAll(payload, nil)
	enc.Close()
	hdr := make([]byte, 0, headerLen)
	hdr = append(hdr, magic...)
	hdr = binary.LittleEndian.AppendUint16(hdr, Version)
	hdr = binary.LittleEndian.AppendUint16(hdr, codecZstd)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(payload)))
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(comp)))
	crc := crc32.ChecksumIEEE(hdr)
	crc = crc32.Update(crc, crc32.IEEETable, comp)
	for _, b := range [][]byte{hdr, comp, binary.LittleEndian.AppendUint32(nil, crc)} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Size returns the size in bytes of f's .pflow file.
func (f *Flow) Size() int64 {
	var c countWriter
	if err := f.Write(&c); err != nil {
		panic(err) // countWriter does not fail
	}
	return c.n
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// enc builds the payload.
type enc struct{ b []byte }

func (e *enc) u8(x uint8)   { e.b = append(e.b, x) }
func (e *enc) u16(x uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, x) }
func (e *enc) u32(x uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, x) }
func (e *enc) f64(x float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
}
func (e *enc) str(s string) {
	if len(s) > math.MaxUint16 {
		s = s[:math.MaxUint16]
	}
	e.u16(uint16(len(s)))
	e.b = append(e.b, s...)
}

// planar appends values of width bytes (the low bytes of xs) as planes.
func (e *enc) planar(xs []uint32, width int) {
	for p := 0; p < width; p++ {
		for _, x := range xs {
			e.b = append(e.b, byte(x>>(8*p)))
		}
	}
}

func (e *enc) f32s(xs []float64) {
	u := make([]uint32, len(xs))
	for i, x := range xs {
		u[i] = math.Float32bits(float32(x))
	}
	e.planar(u, 4)
}

// deltaI16 appends int16 values as differences to the value stride
// earlier (wrapping), planar.
func (e *enc) deltaI16(q []int16, stride int) {
	u := make([]uint32, len(q))
	for i, x := range q {
		d := uint16(x)
		if i >= stride {
			d -= uint16(q[i-stride])
		}
		u[i] = uint32(d)
	}
	e.planar(u, 2)
}

func (e *enc) tris(t [][3]int32) {
	prev := int64(0)
	for _, tr := range t {
		for _, x := range tr {
			d := int64(x) - prev
			prev = int64(x)
			e.b = binary.AppendUvarint(e.b, uint64((d<<1)^(d>>63)))
		}
	}
}

func (f *Flow) payload() []byte {
	n, m, k := f.NumVerts(), f.NumFrames(), f.K
	sk := f.Skeleton
	nj := sk.NumJoints()
	e := &enc{b: make([]byte, 0, 16*n+2*3*n*k+2*m*k+m*nj*16+1024)}
	e.str(f.Name)
	e.f64(f.FPS)
	for _, c := range []int{n, len(f.Tris), m, k, nj} {
		e.u32(uint32(c))
	}
	joints := f.joints
	if len(joints) != nj {
		joints = sk.Joints()
	}
	for _, jt := range joints {
		e.str(jt.Name)
		e.u32(uint32(int32(jt.Parent)))
		for _, x := range []float64{jt.Rest.R.W, jt.Rest.R.X, jt.Rest.R.Y, jt.Rest.R.Z, jt.Rest.T.X, jt.Rest.T.Y, jt.Rest.T.Z} {
			e.f64(x)
		}
		e.u8(uint8(jt.Kind))
		for _, x := range []float64{jt.Axis.X, jt.Axis.Y, jt.Axis.Z} {
			e.f64(x)
		}
	}
	e.tris(f.Tris)
	if f.UVTris != nil {
		e.u8(1)
		e.u32(uint32(len(f.UVs)))
		uv := make([]float64, 0, 2*len(f.UVs))
		for _, p := range f.UVs {
			uv = append(uv, p.X, p.Y)
		}
		e.f32s(uv)
		e.tris(f.UVTris)
	} else {
		e.u8(0)
	}
	base := make([]float64, 0, 3*n)
	for _, p := range f.Base {
		base = append(base, p.X, p.Y, p.Z)
	}
	e.f32s(base)
	var js, qs []uint32
	for v := 0; v < n; v++ {
		jv, wv := f.Weights.Influences(v)
		e.u8(uint8(len(jv)))
		for i, j := range jv {
			js = append(js, uint32(j))
			if i > 0 {
				qs = append(qs, uint32(math.Round(float64(wv[i])*weightQ)))
			}
		}
	}
	e.planar(js, 2)
	e.planar(qs, 2)
	ps := make([]float64, 0, m*(3+4*nj))
	for _, p := range f.Poses {
		ps = append(ps, p.Root.X, p.Root.Y, p.Root.Z)
		for _, q := range p.Rot {
			ps = append(ps, q.W, q.X, q.Y, q.Z)
		}
	}
	e.f32s(ps)
	for _, s := range f.Scale {
		e.u32(math.Float32bits(s))
	}
	for _, t := range f.Targets {
		e.deltaI16(t, 3)
	}
	e.deltaI16(f.Coef, max(k, 1))
	return e.b
}

// ReadFile reads a .pflow file.
func ReadFile(path string) (*Flow, error) {
	in, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	f, err := Read(bufio.NewReader(in))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Read reads a .pflow file. Errors in the data are *FormatError values
// naming the field (wrapping ErrFormat); an unknown version or codec, a
// checksum mismatch or truncation are reported, never a panic.
func Read(r io.Reader) (*Flow, error) {
	hdr := make([]byte, headerLen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, ferr("header", "truncated: %v", err)
	}
	if string(hdr[:8]) != magic {
		return nil, ferr("magic", "%q is not a .pflow file", hdr[:8])
	}
	if v := binary.LittleEndian.Uint16(hdr[8:]); v != Version {
		return nil, ferr("version", "%d unsupported (this reader knows version %d)", v, Version)
	}
	if c := binary.LittleEndian.Uint16(hdr[10:]); c != codecZstd {
		return nil, ferr("codec", "%d unsupported (1 = zstd)", c)
	}
	plen := binary.LittleEndian.Uint64(hdr[12:])
	clen := binary.LittleEndian.Uint64(hdr[20:])
	if plen > maxPayload || clen > maxPayload {
		return nil, ferr("payload size", "%d / %d bytes too large", plen, clen)
	}
	comp := make([]byte, 0, min(clen, 1<<24))
	comp, err := readN(r, comp, int64(clen))
	if err != nil {
		return nil, ferr("body", "truncated: %v", err)
	}
	tail := make([]byte, 4)
	if _, err := io.ReadFull(r, tail); err != nil {
		return nil, ferr("checksum", "truncated: %v", err)
	}
	crc := crc32.Update(crc32.ChecksumIEEE(hdr), crc32.IEEETable, comp)
	if got := binary.LittleEndian.Uint32(tail); got != crc {
		return nil, ferr("checksum", "CRC-32 %08x, computed %08x: the file is corrupt", got, crc)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(plen+1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	payload, err := dec.DecodeAll(comp, make([]byte, 0, min(plen, 1<<24)))
	if err != nil {
		return nil, ferr("body", "zstd: %v", err)
	}
	if uint64(len(payload)) != plen {
		return nil, ferr("payload size", "%d bytes, header says %d", len(payload), plen)
	}
	return decodePayload(payload)
}

func readN(r io.Reader, dst []byte, n int64) ([]byte, error) {
	var buf [1 << 16]byte
	for n > 0 {
		c := min(n, int64(len(buf)))
		if _, err := io.ReadFull(r, buf[:c]); err != nil {
			return nil, err
		}
		dst = append(dst, buf[:c]...)
		n -= c
	}
	return dst, nil
}

// dec reads the payload with bounds checks; the first error sticks.
type dec struct {
	b     []byte
	err   error
	field string
}

func (d *dec) need(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = ferr(d.field, "truncated")
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *dec) u8() uint8 {
	if p := d.need(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *dec) u16() uint16 {
	if p := d.need(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (d *dec) u32() uint32 {
	if p := d.need(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *dec) f64() float64 {
	if p := d.need(8); p != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(p))
	}
	return 0
}

func (d *dec) str() string { return string(d.need(int(d.u16()))) }

func (d *dec) planar(cnt, width int) []uint32 {
	p := d.need(cnt * width)
	if p == nil {
		return nil
	}
	out := make([]uint32, cnt)
	for w := 0; w < width; w++ {
		for i := range out {
			out[i] |= uint32(p[w*cnt+i]) << (8 * w)
		}
	}
	return out
}

func (d *dec) f32s(cnt int) []float64 {
	u := d.planar(cnt, 4)
	if u == nil {
		return nil
	}
	out := make([]float64, cnt)
	for i, x := range u {
		out[i] = float64(math.Float32frombits(x))
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			d.err = ferr(d.field, "value %d is not finite", i)
			return nil
		}
	}
	return out
}

func (d *dec) deltaI16(cnt, stride int) []int16 {
	u := d.planar(cnt, 2)
	if u == nil {
		return nil
	}
	out := make([]int16, cnt)
	for i, x := range u {
		v := uint16(x)
		if i >= stride {
			v += uint16(out[i-stride])
		}
		out[i] = int16(v)
	}
	return out
}

func (d *dec) tris(cnt, n int) [][3]int32 {
	if d.err != nil {
		return nil
	}
	if cnt > len(d.b) { // at least one byte per index triple
		d.err = ferr(d.field, "truncated")
		return nil
	}
	out := make([][3]int32, cnt)
	prev := int64(0)
	for t := range out {
		for c := 0; c < 3; c++ {
			u, k := binary.Uvarint(d.b)
			if k <= 0 {
				d.err = ferr(d.field, "truncated varint at triangle %d", t)
				return nil
			}
			d.b = d.b[k:]
			x := prev + (int64(u>>1) ^ -int64(u&1))
			if x < 0 || x >= int64(n) {
				d.err = ferr(d.field, "triangle %d index %d out of range [0,%d)", t, x, n)
				return nil
			}
			out[t][c] = int32(x)
			prev = x
		}
	}
	return out
}

func decodePayload(b []byte) (*Flow, error) {
	d := &dec{b: b, field: "name"}
	f := &Flow{Name: d.str()}
	c, err := d.header(f)
	if err != nil {
		return nil, err
	}
	if err := d.skeleton(f, c.nj); err != nil {
		return nil, err
	}
	d.field = "triangles"
	f.Tris = d.tris(c.nt, c.n)
	if err := d.uvs(f, c.nt); err != nil {
		return nil, err
	}
	d.field = "base"
	if base := d.f32s(3 * c.n); base != nil {
		f.Base = make([]geom.Vec3, c.n)
		for v := range f.Base {
			f.Base[v] = geom.Vec3{X: base[3*v], Y: base[3*v+1], Z: base[3*v+2]}
		}
	}
	if f.Weights, err = d.weights(c.n, c.nj); err != nil {
		return nil, err
	}
	d.field = "poses"
	f.Poses = d.poses(c.m, c.nj)
	if err := d.morphs(f, c); err != nil {
		return nil, err
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, ferr("end", "%d unread bytes after the morph weights", len(d.b))
	}
	return f, nil
}

// payloadCounts are a payload's sizes: vertices, triangles, frames,
// components (morph targets) and joints.
type payloadCounts struct{ n, nt, m, k, nj int }

// header reads the frame rate and the counts into f and checks the counts
// against the limits and the bytes left.
func (d *dec) header(f *Flow) (payloadCounts, error) {
	d.field = "fps"
	f.FPS = d.f64()
	if d.err == nil && (!(f.FPS > 0) || math.IsInf(f.FPS, 0)) {
		return payloadCounts{}, ferr("fps", "%g, want positive", f.FPS)
	}
	d.field = "counts"
	c := payloadCounts{int(d.u32()), int(d.u32()), int(d.u32()), int(d.u32()), int(d.u32())}
	if d.err != nil {
		return c, d.err
	}
	n, nt, m, k, nj := c.n, c.nt, c.m, c.k, c.nj
	switch {
	case n < 1 || n > maxVerts:
		return c, ferr("vertex count", "%d out of range [1,%d]", n, maxVerts)
	case m < 1 || m > maxFrames:
		return c, ferr("frame count", "%d out of range [1,%d]", m, maxFrames)
	case k > m:
		return c, ferr("component count", "%d exceeds the %d frames", k, m)
	case nj < 1 || nj > maxJoints:
		return c, ferr("joint count", "%d out of range [1,%d]", nj, maxJoints)
	case nt < 1 || nt > 4*maxVerts:
		return c, ferr("triangle count", "%d out of range", nt)
	}
	// Every count must fit in what is left: k targets of 6n bytes, etc.
	if need := int64(k)*6*int64(n) + int64(m)*int64(k)*2 + int64(n)*12 + int64(m)*int64(12+16*nj); need > int64(len(d.b)) {
		return c, ferr("counts", "n=%d m=%d k=%d joints=%d need %d bytes, the payload has %d", n, m, k, nj, need, len(d.b))
	}
	return c, nil
}

// skeleton reads the nj joints into f.
func (d *dec) skeleton(f *Flow, nj int) error {
	d.field = "joints"
	joints := make([]skel.Joint, nj)
	for j := range joints {
		jt := &joints[j]
		jt.Name = d.str()
		jt.Parent = int(int32(d.u32()))
		jt.Rest.R = geom.Quat{W: d.f64(), X: d.f64(), Y: d.f64(), Z: d.f64()}
		jt.Rest.T = geom.Vec3{X: d.f64(), Y: d.f64(), Z: d.f64()}
		jt.Kind = skel.JointKind(d.u8())
		jt.Axis = geom.Vec3{X: d.f64(), Y: d.f64(), Z: d.f64()}
	}
	if d.err != nil {
		return d.err
	}
	sk, err := skel.NewSkeleton(joints)
	if err != nil {
		return ferr("joints", "%v", err)
	}
	f.Skeleton, f.joints = sk, joints
	return nil
}

// uvs reads the optional UVs and their nt triangles into f.
func (d *dec) uvs(f *Flow, nt int) error {
	d.field = "uv flag"
	switch flag := d.u8(); flag {
	case 0:
	case 1:
		d.field = "uv count"
		nuv := int(d.u32())
		if d.err == nil && (nuv < 1 || nuv > 4*len(d.b)) {
			return ferr("uv count", "%d out of range", nuv)
		}
		d.field = "uvs"
		uv := d.f32s(2 * nuv)
		if uv != nil {
			f.UVs = make([]geom.Vec2, nuv)
			for i := range f.UVs {
				f.UVs[i] = geom.Vec2{X: uv[2*i], Y: uv[2*i+1]}
			}
		}
		d.field = "uv triangles"
		f.UVTris = d.tris(nt, nuv)
	default:
		if d.err == nil {
			return ferr("uv flag", "%d, want 0 or 1", flag)
		}
	}
	return nil
}

// weights reads the skin weights of n vertices over nj joints: the
// influence counts, the joints and the quantised weights.
func (d *dec) weights(n, nj int) (skel.Weights, error) {
	d.field = "influence counts"
	counts := d.need(n)
	tot := 0
	for v, c := range counts {
		if c < 1 || c > MaxInfluences {
			return skel.Weights{}, ferr("influence counts", "vertex %d has %d, want 1..%d", v, c, MaxInfluences)
		}
		tot += int(c)
	}
	d.field = "influence joints"
	js := d.planar(tot, 2)
	d.field = "influence weights"
	qs := d.planar(tot-n, 2)
	if d.err != nil {
		return skel.Weights{}, d.err
	}
	w := skel.Weights{Offsets: make([]int32, n+1), Joints: make([]int32, 0, tot), W: make([]float32, 0, tot)}
	ji, qi := 0, 0
	for v, c := range counts {
		q := make([]uint16, c)
		for i := 0; i < int(c); i++ {
			j := js[ji]
			ji++
			if int(j) >= nj {
				return skel.Weights{}, ferr("influence joints", "vertex %d: joint %d out of range [0,%d)", v, j, nj)
			}
			w.Joints = append(w.Joints, int32(j))
			if i > 0 {
				q[i] = uint16(qs[qi])
				qi++
			}
		}
		wv := dequantWeights(q)
		if wv[0] < 0 {
			return skel.Weights{}, ferr("influence weights", "vertex %d: weights sum above 1", v)
		}
		w.W = append(w.W, wv...)
		w.Offsets[v+1] = int32(len(w.Joints))
	}
	return w, nil
}

// poses reads m poses of nj joints (nil when the bytes run out).
func (d *dec) poses(m, nj int) []skel.Pose {
	ps := d.f32s(m * (3 + 4*nj))
	if ps == nil {
		return nil
	}
	out := make([]skel.Pose, m)
	i := 0
	for t := range out {
		p := skel.Pose{Root: geom.Vec3{X: ps[i], Y: ps[i+1], Z: ps[i+2]}, Rot: make([]geom.Quat, nj)}
		i += 3
		for j := range p.Rot {
			p.Rot[j] = geom.Quat{W: ps[i], X: ps[i+1], Y: ps[i+2], Z: ps[i+3]}
			i += 4
		}
		out[t] = p
	}
	return out
}

// morphs reads the k targets' scales and offsets and the m frames' morph
// weights into f.
func (d *dec) morphs(f *Flow, c payloadCounts) error {
	d.field = "scales"
	f.K = c.k
	f.Scale = make([]float32, c.k)
	for i := range f.Scale {
		f.Scale[i] = math.Float32frombits(d.u32())
		if s := float64(f.Scale[i]); d.err == nil && (!(s >= 0) || math.IsInf(s, 0)) {
			return ferr("scales", "target %d scale %g", i, s)
		}
	}
	d.field = "targets"
	f.Targets = make([][]int16, c.k)
	for i := range f.Targets {
		f.Targets[i] = d.deltaI16(3*c.n, 3)
	}
	d.field = "morph weights"
	f.Coef = d.deltaI16(c.m*c.k, max(c.k, 1))
	return nil
}
