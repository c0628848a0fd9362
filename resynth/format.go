package resynth

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/section"
	"github.com/pleat-dev/pleat/skel"
)

// .prsd layout (little-endian), a sequence of checksummed sections:
//
//	magic    "PLEATRSD" (8 bytes), version u32 (= Version)
//	section  tag [4]byte, length u64, payload, CRC-32C u32 of tag, length
//	         and payload
//
// The sections, in this order:
//
//	HEAD  the header as JSON (format name, counts, clip names)
//	RIG_  zstd of: J u32; per joint name (uvarint length, bytes), parent
//	      i32, rest transform 7 f64 (quaternion w x y z, translation)
//	GARM  zstd of: n u32, T u32; rest 3n f64; triangles 3T u32; skin
//	      weights: n u32 counts, then joint u32 and weight f32 pairs
//	CLIP  one per clip, zstd of: name, fps f64, frames u32; joint
//	      transforms 7 f64 per joint per frame; positions 3n f32 per frame
//	END   SHA-256 of every byte before this section

// Version is the .prsd format version this package writes and reads.
const Version = 1

const (
	magic        = "PLEATRSD"
	headerFormat = "pleat-resynth-db"
	maxSection   = 1 << 36
)

var (
	tagHead = [4]byte{'H', 'E', 'A', 'D'}
	tagRig  = [4]byte{'R', 'I', 'G', '_'}
	tagGarm = [4]byte{'G', 'A', 'R', 'M'}
	tagClip = [4]byte{'C', 'L', 'I', 'P'}
	tagEnd  = [4]byte{'E', 'N', 'D', ' '}
)

// ErrFormat is wrapped by every *FormatError.
var ErrFormat = errors.New("resynth: bad database file")

// FormatError reports a database file that cannot be read: the field
// (section or value) and what is wrong with it.
type FormatError struct {
	Field, Msg string
}

func (e *FormatError) Error() string { return "resynth: database field " + e.Field + ": " + e.Msg }

// Unwrap returns ErrFormat.
func (e *FormatError) Unwrap() error { return ErrFormat }

func ferr(field, format string, args ...any) error {
	return &FormatError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// header is the HEAD section.
type header struct {
	Format  string   `json:"format"`
	Verts   int      `json:"verts"`
	Tris    int      `json:"tris"`
	Joints  int      `json:"joints"`
	Clips   []string `json:"clips"`
	Frames  []int    `json:"frames"`
	Comment string   `json:"comment,omitempty"`
}

var (
	zenc     *zstd.Encoder
	zdec     *zstd.Decoder
	zencOnce sync.Once
)

// zcodecs returns shared zstd codecs (EncodeAll and DecodeAll are safe for
// concurrent use).
func zcodecs() (*zstd.Encoder, *zstd.Decoder) {
	zencOnce.Do(func() {
		var err error
		zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic("resynth: zstd encoder: " + err.Error())
		}
		zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<34))
		if err != nil {
			panic("resynth: zstd decoder: " + err.Error())
		}
	})
	return zenc, zdec
}

// appendSection appends a tagged, checksummed section to b
// (internal/section).
func appendSection(b []byte, tag [4]byte, payload []byte) []byte {
	return section.Append(b, tag, payload)
}

// readSection reads the section at the front of b, which must have tag
// want; name labels errors.
func readSection(b []byte, name string, want [4]byte) (payload, rest []byte, err error) {
	tag, payload, rest, err := section.Read(b, maxSection)
	switch {
	case err != nil:
		return nil, nil, ferr(name, "%v", err)
	case tag != want:
		return nil, nil, ferr(name, "section tag %q, want %q", tag[:], want[:])
	}
	return payload, rest, nil
}

// enc appends little-endian values.
type enc struct{ b []byte }

func (e *enc) u32(x uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, x) }
func (e *enc) f32(x float32) { e.u32(math.Float32bits(x)) }
func (e *enc) f64(x float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x)) }
func (e *enc) str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}
func (e *enc) rigid(r geom.Rigid) {
	for _, x := range [7]float64{r.R.W, r.R.X, r.R.Y, r.R.Z, r.T.X, r.T.Y, r.T.Z} {
		e.f64(x)
	}
}

// dec reads little-endian values with a sticky error naming the field.
type dec struct {
	b     []byte
	field string
	err   error
}

func (d *dec) take(what string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = ferr(d.field, "%s: truncated (need %d bytes, %d left)", what, n, len(d.b))
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *dec) u32(what string) uint32 {
	if b := d.take(what, 4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *dec) f32(what string) float32 { return math.Float32frombits(d.u32(what)) }

func (d *dec) f64(what string) float64 {
	if b := d.take(what, 8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (d *dec) str(what string) string {
	if d.err != nil {
		return ""
	}
	n, k := binary.Uvarint(d.b)
	if k <= 0 || n > 1<<16 {
		d.err = ferr(d.field, "%s: bad string length", what)
		return ""
	}
	d.b = d.b[k:]
	return string(d.take(what, int(n)))
}

func (d *dec) rigid(what string) geom.Rigid {
	var v [7]float64
	for i := range v {
		v[i] = d.f64(what)
	}
	return geom.Rigid{R: geom.Quat{W: v[0], X: v[1], Y: v[2], Z: v[3]}, T: geom.Vec3{X: v[4], Y: v[5], Z: v[6]}}
}

// count reads a u32 count and checks it against max.
func (d *dec) count(what string, max int) int {
	n := d.u32(what)
	if d.err == nil && int64(n) > int64(max) {
		d.err = ferr(d.field, "%s %d exceeds the limit %d", what, n, max)
		return 0
	}
	return int(n)
}

// Encode returns db in the .prsd format. db must be valid (Validate).
func (db *DB) Encode() ([]byte, error) {
	if err := db.Validate(); err != nil {
		return nil, err
	}
	z, _ := zcodecs()
	h := header{Format: headerFormat, Verts: len(db.Garment.Rest), Tris: len(db.Garment.Tris), Joints: db.Rig.NumJoints()}
	for i := range db.Clips {
		h.Clips = append(h.Clips, db.Clips[i].Name)
		h.Frames = append(h.Frames, db.Clips[i].NumFrames())
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = appendSection(b, tagHead, hb)

	var e enc
	e.u32(uint32(db.Rig.NumJoints()))
	for j, name := range db.Rig.Names {
		e.str(name)
		e.u32(uint32(db.Rig.Parents[j]))
		e.rigid(db.Rig.Rest[j])
	}
	b = appendSection(b, tagRig, z.EncodeAll(e.b, nil))

	g := &db.Garment
	e = enc{}
	e.u32(uint32(len(g.Rest)))
	e.u32(uint32(len(g.Tris)))
	for _, p := range g.Rest {
		e.f64(p.X)
		e.f64(p.Y)
		e.f64(p.Z)
	}
	for _, t := range g.Tris {
		e.u32(uint32(t[0]))
		e.u32(uint32(t[1]))
		e.u32(uint32(t[2]))
	}
	for v := 0; v < len(g.Rest); v++ {
		e.u32(uint32(g.Weights.Offsets[v+1] - g.Weights.Offsets[v]))
	}
	for k := range g.Weights.Joints {
		e.u32(uint32(g.Weights.Joints[k]))
		e.f32(g.Weights.W[k])
	}
	b = appendSection(b, tagGarm, z.EncodeAll(e.b, nil))

	for i := range db.Clips {
		c := &db.Clips[i]
		e = enc{}
		e.str(c.Name)
		e.f64(c.FPS)
		e.u32(uint32(c.NumFrames()))
		for _, js := range c.Joints {
			for _, r := range js {
				e.rigid(r)
			}
		}
		for _, x := range c.Pos {
			e.f32(x)
		}
		b = appendSection(b, tagClip, z.EncodeAll(e.b, nil))
	}
	sum := sha256.Sum256(b)
	return appendSection(b, tagEnd, sum[:]), nil
}

// Write writes db to w in the .prsd format.
func (db *DB) Write(w io.Writer) error {
	b, err := db.Encode()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// WriteFile writes db to path.
func (db *DB) WriteFile(path string) error {
	b, err := db.Encode()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadFile reads a .prsd database; errors name the file.
func ReadFile(path string) (*DB, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	db, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// Decode reads a database in the .prsd format. Errors wrap ErrFormat (a
// *FormatError naming the field) or ErrInvalid (a well-formed file holding
// an invalid database).
func Decode(b []byte) (*DB, error) {
	if len(b) < 12 || string(b[:8]) != magic {
		return nil, ferr("magic", "not a pleat resynthesis database (want %q)", magic)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != Version {
		return nil, ferr("version", "version %d, this build reads %d", v, Version)
	}
	rest := b[12:]
	hb, rest, err := readSection(rest, "HEAD", tagHead)
	if err != nil {
		return nil, err
	}
	var h header
	dj := json.NewDecoder(bytes.NewReader(hb))
	dj.DisallowUnknownFields()
	if err := dj.Decode(&h); err != nil {
		return nil, ferr("HEAD", "%v", err)
	}
	if h.Format != headerFormat {
		return nil, ferr("HEAD.format", "%q, want %q", h.Format, headerFormat)
	}
	if len(h.Clips) > maxClips || len(h.Clips) != len(h.Frames) {
		return nil, ferr("HEAD.clips", "%d clips with %d frame counts", len(h.Clips), len(h.Frames))
	}
	db := &DB{}
	if rest, err = db.decodeRig(rest); err != nil {
		return nil, err
	}
	if rest, err = db.decodeGarment(rest); err != nil {
		return nil, err
	}
	for i := range h.Clips {
		if rest, err = db.decodeClip(rest, i); err != nil {
			return nil, err
		}
	}
	end := len(b) - len(rest)
	sum, tail, err := readSection(rest, "END", tagEnd)
	if err != nil {
		return nil, err
	}
	if want := sha256.Sum256(b[:end]); !bytes.Equal(sum, want[:]) {
		return nil, ferr("END", "SHA-256 mismatch (corrupt)")
	}
	if len(tail) != 0 {
		return nil, ferr("END", "%d bytes after the end", len(tail))
	}
	if err := db.Validate(); err != nil {
		return nil, err
	}
	return db, nil
}

func unzip(field string, b []byte) (*dec, error) {
	_, z := zcodecs()
	out, err := z.DecodeAll(b, nil)
	if err != nil {
		return nil, ferr(field, "bad zstd data: %v", err)
	}
	return &dec{b: out, field: field}, nil
}

func (db *DB) decodeRig(b []byte) ([]byte, error) {
	p, rest, err := readSection(b, "RIG_", tagRig)
	if err != nil {
		return nil, err
	}
	d, err := unzip("RIG_", p)
	if err != nil {
		return nil, err
	}
	nj := d.count("joints", maxJoints)
	r := &db.Rig
	for j := 0; j < nj && d.err == nil; j++ {
		r.Names = append(r.Names, d.str("name"))
		r.Parents = append(r.Parents, int32(d.u32("parent")))
		r.Rest = append(r.Rest, d.rigid("rest"))
	}
	return rest, d.err
}

func (db *DB) decodeGarment(b []byte) ([]byte, error) {
	p, rest, err := readSection(b, "GARM", tagGarm)
	if err != nil {
		return nil, err
	}
	d, err := unzip("GARM", p)
	if err != nil {
		return nil, err
	}
	n := d.count("vertices", maxVerts)
	nt := d.count("triangles", maxTris)
	if d.err == nil && len(d.b) < 24*n+12*nt+4*n {
		return nil, ferr("GARM", "%d bytes for %d vertices and %d triangles", len(d.b), n, nt)
	}
	g := &db.Garment
	g.Rest = make([]geom.Vec3, n)
	for v := range g.Rest {
		g.Rest[v] = geom.Vec3{X: d.f64("rest"), Y: d.f64("rest"), Z: d.f64("rest")}
	}
	g.Tris = make([][3]int32, nt)
	for t := range g.Tris {
		g.Tris[t] = [3]int32{int32(d.u32("triangle")), int32(d.u32("triangle")), int32(d.u32("triangle"))}
	}
	w := skel.Weights{Offsets: make([]int32, n+1)}
	for v := 0; v < n && d.err == nil; v++ {
		c := d.count("influences", 64)
		w.Offsets[v+1] = w.Offsets[v] + int32(c)
	}
	if d.err == nil && len(d.b) < 8*int(w.Offsets[n]) {
		return nil, ferr("GARM", "skin weights truncated")
	}
	for k := int32(0); k < w.Offsets[n] && d.err == nil; k++ {
		w.Joints = append(w.Joints, int32(d.u32("joint")))
		w.W = append(w.W, d.f32("weight"))
	}
	g.Weights = w
	return rest, d.err
}

func (db *DB) decodeClip(b []byte, i int) ([]byte, error) {
	field := fmt.Sprintf("CLIP %d", i)
	p, rest, err := readSection(b, field, tagClip)
	if err != nil {
		return nil, err
	}
	d, err := unzip(field, p)
	if err != nil {
		return nil, err
	}
	c := Clip{Name: d.str("name"), FPS: d.f64("fps")}
	nf := d.count("frames", maxFrames)
	nj, n := db.Rig.NumJoints(), len(db.Garment.Rest)
	if d.err == nil && len(d.b) != nf*(56*nj+12*n) {
		return nil, ferr(field, "%d bytes for %d frames of %d joints and %d vertices", len(d.b), nf, nj, n)
	}
	c.Joints = make([][]geom.Rigid, nf)
	for f := range c.Joints {
		c.Joints[f] = make([]geom.Rigid, nj)
		for j := range c.Joints[f] {
			c.Joints[f][j] = d.rigid("joint")
		}
	}
	c.Pos = make([]float32, 3*n*nf)
	for k := range c.Pos {
		c.Pos[k] = d.f32("position")
	}
	db.Clips = append(db.Clips, c)
	return rest, d.err
}
