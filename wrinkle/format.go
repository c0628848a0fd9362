package wrinkle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/section"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// .pdb layout (little-endian), a sequence of checksummed sections:
//
//	magic    "PLEATPDB" (8 bytes), version u32 (= Version)
//	section  tag [4]byte, length u64, payload, CRC-32C u32 of tag, length
//	         and payload
//
// The sections, in this order:
//
//	HEAD  the Header as JSON (encoding/json of the struct: fixed field order)
//	GARM  zstd of: vertices n u32, triangles T u32, skeleton joints J u32;
//	      rest positions 3n f64 planar (all x, all y, all z); the base
//	      shape as quantised offsets from the rest shape (see residuals);
//	      triangles 3T zigzag varints of the difference to the previous
//	      index; skin weights: n uvarint counts, joints uvarint, weights f32
//	REGN  zstd of: n region u8, n influence counts u8, roles u8, weights f32
//	CRSE  only when the header has "coarse" (CoarseInfo): coarse vertices
//	      m u32; the fine vertex each is, m zigzag varints of the
//	      difference to the previous one; the coarse garment settled in
//	      the rest pose as residuals (length u32, bytes) from the fine
//	      base shape at those vertices
//	SMPL  one per sample, in index order (see Build.EncodeSample):
//	      index u32, role u8, angles 3 f64, flags u8 (bit 0 converged,
//	      bit 1 missing), steps u32, residual f64, max strain f64, max
//	      penetration f64, penetrating u32; for a missing sample the
//	      reason (u32 length, UTF-8); the skinning transforms of the
//	      joints its role moves (count u32; joint u32, rotation w x y z
//	      and translation x y z f64 each); for a stored sample its
//	      residuals (length u32, bytes) over the role's stored vertices;
//	      with CRSE, then the coarse garment's settled positions as
//	      residuals (length u32, bytes) from the coarse base skinned (with
//	      the fine skin weights of its vertices) into the sample's pose
//	END   SHA-256 of every byte before this section
//
// Residuals: r = round((x − pred)/Quantum) per coordinate, written as three
// planes (x, y, z), each value the zigzag varint of its difference to the
// previous vertex's, the whole zstd-compressed.
//
// A sample stores the vertices its role influences (Regions: those whose
// influences include the role), the only ones synthesis reads from it;
// the others decode as the predicted shape, the base skinned into the
// sample's pose. A missing sample (a pose the body cannot take, or one
// that did not settle, skipped by the builder) stores no positions:
// synthesis fills it in from its valid neighbours on the grid.
//
// A journal (.pdj) is "PLEATPDJ", version u32, the HEAD section, then SMPL
// sections in completion order.

// Version is the .pdb format version this package writes. Version 3 added
// the coarse samples (CRSE, and a stored sample's coarse positions); it
// reads version 2 files, which have none. Version 2 added the
// missing-sample flag and stores only the vertices a sample's role
// influences; version 1 files must be rebuilt.
const Version = 3

// oldestVersion is the oldest .pdb format version this package reads.
const oldestVersion = 2

// DefaultQuantum is the default quantisation step of stored positions in
// metres: the error per coordinate is at most half of it, 0.05 mm, and at
// most √3/2·Quantum ≈ 0.087 mm in distance.
const DefaultQuantum = 1e-4

const (
	magicDB      = "PLEATPDB"
	magicJournal = "PLEATPDJ"
	headerFormat = "pleat-wrinkle-db"
	// Caps against absurd allocations from corrupt files.
	maxVerts     = 1 << 24
	maxTris      = 1 << 25
	maxJoints    = 1 << 16
	maxSection   = 1 << 32
	maxFileBytes = 1 << 36
	// maxOffset bounds |settled − predicted| in metres: more means the
	// sample exploded.
	maxOffset = 1000.0
	// maxReason bounds a missing sample's reason, bytes.
	maxReason = 4096
)

// Sample record flags.
const (
	flagConverged = 1 << 0
	flagMissing   = 1 << 1
)

var (
	tagHead = [4]byte{'H', 'E', 'A', 'D'}
	tagGarm = [4]byte{'G', 'A', 'R', 'M'}
	tagRegn = [4]byte{'R', 'E', 'G', 'N'}
	tagCrse = [4]byte{'C', 'R', 'S', 'E'}
	tagSmpl = [4]byte{'S', 'M', 'P', 'L'}
	tagEnd  = [4]byte{'E', 'N', 'D', ' '}
)

// ErrFormat is wrapped by every *FormatError.
var ErrFormat = errors.New("wrinkle: bad database file")

// FormatError reports a database or journal that cannot be read: the
// field (section, sample or value) and what is wrong with it.
type FormatError struct {
	Field string
	Msg   string
}

func (e *FormatError) Error() string { return "wrinkle: database field " + e.Field + ": " + e.Msg }

// Unwrap returns ErrFormat.
func (e *FormatError) Unwrap() error { return ErrFormat }

func ferr(field, format string, args ...any) error {
	return &FormatError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// ErrMismatch is wrapped by every *MismatchError.
var ErrMismatch = errors.New("wrinkle: database does not match")

// MismatchError reports a database built for another garment, rig, spec
// or build: What does not match, and the recorded and given values.
type MismatchError struct {
	What      string
	Want, Got string // recorded in the file, given by the caller
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("wrinkle: database %s does not match: file has %s, given %s", e.What, e.Want, e.Got)
}

// Unwrap returns ErrMismatch.
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Header is the JSON header of a database or journal.
type Header struct {
	Format  string      `json:"format"`
	Garment GarmentInfo `json:"garment"`
	Rig     RigInfo     `json:"rig"`
	// Spec is the sampling spec's canonical JSON; SpecHash its SHA-256.
	Spec     json.RawMessage `json:"spec"`
	SpecHash string          `json:"spec_hash"`
	// Settings are the simulator settings the builder recorded (opaque
	// JSON, compacted); null when none.
	Settings json.RawMessage `json:"settings"`
	// Quantum is the quantisation step of positions in metres.
	Quantum float64 `json:"quantum_m"`
	// Samples is the number of samples of the spec; a shard file holds
	// those with index k ≡ Shard (mod Shards).
	Samples int `json:"samples"`
	Shard   int `json:"shard"`
	Shards  int `json:"shards"`
	// Coarse describes the coarse samples; nil when the database has
	// none (a version 2 file, or a build without them).
	Coarse *CoarseInfo `json:"coarse,omitempty"`
}

// GarmentInfo identifies the garment a database was built for.
type GarmentInfo struct {
	Name  string `json:"name"`
	Verts int    `json:"verts"`
	Tris  int    `json:"tris"`
	// Hash is the hex SHA-256 of the rest shape, triangles and skin
	// weights (GarmentHash); BaseHash that of the base shape as stored,
	// RegionsHash that of the regions and influence maps.
	Hash        string `json:"hash"`
	BaseHash    string `json:"base_hash"`
	RegionsHash string `json:"regions_hash"`
}

// RigInfo identifies the rig a database was built for.
type RigInfo struct {
	Joints int     `json:"joints"`
	Hash   string  `json:"hash"` // hex Rig.Hash
	Names  NameMap `json:"names"`
}

// SampleStats are a builder's figures for one settled sample.
type SampleStats struct {
	// Converged reports whether the settle met its rest criterion.
	Converged bool
	// Steps is the number of simulator steps taken.
	Steps int
	// Residual is the simulator's final convergence measure (its own units).
	Residual float64
	// MaxStrain is the largest relative edge stretch (0.05 = 5 %).
	MaxStrain float64
	// MaxPenetration is the deepest garment vertex inside the body, metres.
	MaxPenetration float64
	// Penetrating counts garment vertices inside the body beyond the
	// simulator's tolerance.
	Penetrating int
}

// GarmentHash returns the SHA-256 of a garment's rest positions,
// triangles and skin weights, as databases record it.
func GarmentHash(m *mesh.Mesh, w skel.Weights) [32]byte {
	var e enc
	e.u32(uint32(len(m.Verts)))
	e.u32(uint32(len(m.Tris)))
	for _, p := range m.Verts {
		e.f64(p.X)
		e.f64(p.Y)
		e.f64(p.Z)
	}
	for _, t := range m.Tris {
		e.u32(uint32(t[0]))
		e.u32(uint32(t[1]))
		e.u32(uint32(t[2]))
	}
	for _, o := range w.Offsets {
		e.u32(uint32(o))
	}
	for i := range w.Joints {
		e.u32(uint32(w.Joints[i]))
		e.f32(w.W[i])
	}
	return sha256.Sum256(e.b)
}

func hexHash(h [32]byte) string { return hex.EncodeToString(h[:]) }

// appendSection appends a tagged, checksummed section to b
// (internal/section).
func appendSection(b []byte, tag [4]byte, payload []byte) []byte {
	return section.Append(b, tag, payload)
}

// readSection reads one section from the front of b; it returns the tag,
// payload and the bytes after it. name labels errors.
func readSection(b []byte, name string) (tag [4]byte, payload, rest []byte, err error) {
	tag, payload, rest, err = section.Read(b, maxSection)
	if err != nil {
		return tag, nil, nil, ferr(name, "%v", err)
	}
	return tag, payload, rest, nil
}

var (
	zenc     *zstd.Encoder
	zdec     *zstd.Decoder
	zencOnce sync.Once
)

// zcodecs returns shared stateless zstd codecs (EncodeAll and DecodeAll
// are safe for concurrent use).
func zcodecs() (*zstd.Encoder, *zstd.Decoder) {
	zencOnce.Do(func() {
		var err error
		zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic("wrinkle: zstd encoder: " + err.Error())
		}
		zdec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<32))
		if err != nil {
			panic("wrinkle: zstd decoder: " + err.Error())
		}
	})
	return zenc, zdec
}

func compress(b []byte) []byte {
	e, _ := zcodecs()
	return e.EncodeAll(b, nil)
}

func decompress(field string, b []byte) ([]byte, error) {
	_, d := zcodecs()
	out, err := d.DecodeAll(b, nil)
	if err != nil {
		return nil, ferr(field, "bad zstd data: %v", err)
	}
	return out, nil
}

// mul returns the rounded product a·b: the explicit conversion keeps the
// compiler from fusing it into a multiply-add, so the predictor below is
// the same on every platform and shards built on different machines agree
// bit for bit.
func mul(a, b float64) float64 { return float64(a * b) }

// transform is a skinning matrix as a 3×4 affine map, derived from a
// stored rigid transform.
type transform struct{ m [3][4]float64 }

func affineOf(r geom.Rigid) transform {
	q := r.R
	w, x, y, z := q.W, q.X, q.Y, q.Z
	xx, yy, zz := mul(x, x), mul(y, y), mul(z, z)
	xy, xz, yz := mul(x, y), mul(x, z), mul(y, z)
	wx, wy, wz := mul(w, x), mul(w, y), mul(w, z)
	return transform{[3][4]float64{
		{1 - 2*(yy+zz), 2 * (xy - wz), 2 * (xz + wy), r.T.X},
		{2 * (xy + wz), 1 - 2*(xx+zz), 2 * (yz - wx), r.T.Y},
		{2 * (xz - wy), 2 * (yz + wx), 1 - 2*(xx+yy), r.T.Z},
	}}
}

func (t *transform) apply(p geom.Vec3) geom.Vec3 {
	m := &t.m
	return geom.Vec3{
		X: mul(m[0][0], p.X) + mul(m[0][1], p.Y) + mul(m[0][2], p.Z) + m[0][3],
		Y: mul(m[1][0], p.X) + mul(m[1][1], p.Y) + mul(m[1][2], p.Z) + m[1][3],
		Z: mul(m[2][0], p.X) + mul(m[2][1], p.Y) + mul(m[2][2], p.Z) + m[2][3],
	}
}

// predict sets dst to the linear blend skinning of base with the given
// per-joint transforms (nil entries are the identity): the shape stored
// residuals are relative to. It is written without fused multiply-adds.
func predict(dst, base []geom.Vec3, w skel.Weights, ts []*transform) {
	for v, b := range base {
		var p geom.Vec3
		a, e := w.Offsets[v], w.Offsets[v+1]
		for i := a; i < e; i++ {
			q := b
			if t := ts[w.Joints[i]]; t != nil {
				q = t.apply(b)
			}
			wi := float64(w.W[i])
			p.X += mul(wi, q.X)
			p.Y += mul(wi, q.Y)
			p.Z += mul(wi, q.Z)
		}
		dst[v] = p
	}
}

// residuals quantises pos − pred with step q into the plane/delta/varint
// stream (see the layout) and compresses it. field names errors. verts,
// when not nil, lists the vertices written (in order); nil means all.
func residuals(pos, pred []geom.Vec3, verts []int32, q float64, field string) ([]byte, error) {
	var e enc
	n := len(pos)
	if verts != nil {
		n = len(verts)
	}
	for c := 0; c < 3; c++ {
		prev := int64(0)
		for i := 0; i < n; i++ {
			v := i
			if verts != nil {
				v = int(verts[i])
			}
			d := pos[v].At(c) - pred[v].At(c)
			if !finite(d) || math.Abs(d) > maxOffset {
				return nil, fmt.Errorf("wrinkle: %s vertex %d: position %v is not finite or %g m from the skinned shape", field, v, pos[v], d)
			}
			r := int64(math.Round(d / q))
			e.zigzag(r - prev)
			prev = r
		}
	}
	return compress(e.b), nil
}

// unresiduals decodes a residual stream into dst = pred + q·r over verts
// (nil: all vertices); dst's other vertices are set to pred.
func unresiduals(dst, pred []geom.Vec3, verts []int32, q float64, data []byte, field string) error {
	raw, err := decompress(field, data)
	if err != nil {
		return err
	}
	d := dec{b: raw}
	lim := int64(math.Ceil(maxOffset/q)) + 1
	n := len(dst)
	if verts != nil {
		copy(dst, pred)
		n = len(verts)
	}
	for c := 0; c < 3; c++ {
		prev := int64(0)
		for i := 0; i < n; i++ {
			v := i
			if verts != nil {
				v = int(verts[i])
			}
			r := prev + d.zigzag(field)
			if r > lim || r < -lim {
				d.fail(field, "vertex %d offset out of range", v)
			}
			if d.err != nil {
				return &FormatError{Field: field, Msg: d.err.Error()}
			}
			prev = r
			x := pred[v].At(c) + mul(q, float64(r))
			switch c {
			case 0:
				dst[v].X = x
			case 1:
				dst[v].Y = x
			default:
				dst[v].Z = x
			}
		}
	}
	d.done(field)
	if d.err != nil {
		return &FormatError{Field: field, Msg: d.err.Error()}
	}
	return nil
}

// storedVerts returns, per role, the vertices whose influences include
// it, in index order: the vertices a sample of the role stores.
func storedVerts(g *Regions) [NumRoles][]int32 {
	var out [NumRoles][]int32
	for r := range out {
		out[r] = []int32{} // not nil: nil means every vertex to residuals
	}
	for v := 0; v < g.NumVerts(); v++ {
		rs, _ := g.Influences(v)
		for _, r := range rs {
			if r < NumRoles {
				out[r] = append(out[r], int32(v))
			}
		}
	}
	return out
}
