package wrinkle

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// DB is a wrinkle database (or one shard of it) read from a .pdb file.
// Positions are decoded on demand. A DB is immutable and safe for
// concurrent use.
type DB struct {
	// Version is the file's format version (Version or an older one it
	// reads).
	Version int
	Header  Header
	Spec    *Spec
	// Rest is the garment's rest shape, Base its settled rest shape (as
	// quantised), Tris its triangles, Weights its skin weights (joint
	// indices of the rig the header names).
	Rest    []geom.Vec3
	Base    []geom.Vec3
	Tris    [][3]int32
	Weights skel.Weights
	Regions *Regions
	// Coarse is the coarse garment of the coarse samples (CoarsePositions),
	// nil when the database has none.
	Coarse *CoarseData
	// Samples are the stored samples in index order (a shard's only).
	Samples []StoredSample

	head, garm, regn, crse []byte
	records                [][]byte
	stored                 [NumRoles][]int32 // vertices each role's samples store
}

// StoredSample is one sample's metadata as stored.
type StoredSample struct {
	Sample
	Stats SampleStats
	// Missing is why the builder stored no positions for the sample (a
	// pose the body cannot take, or a settle that did not come to rest);
	// empty for a stored sample. Positions fails on a missing sample;
	// synthesis fills it in from its valid neighbours.
	Missing string
	joints  []int
	ts      []geom.Rigid
	resid   []byte
	cresid  []byte // coarse positions (DB.Coarse), nil without
}

// ReadFile reads a .pdb file (see Read).
func ReadFile(path string) (*DB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads and verifies a whole .pdb file: magic, version, every
// section's checksum, the trailing SHA-256, the header, the garment's and
// regions' recorded hashes and every sample record. A truncated, corrupt
// or inconsistent file gives a *FormatError naming the section or sample.
// It does not check the file against a garment or rig: see CheckGarment,
// CheckRig and CheckSpec.
func Read(r io.Reader) (*DB, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFileBytes {
		return nil, ferr("(file)", "larger than %d bytes", int64(maxFileBytes))
	}
	return parseDB(b)
}

func parseDB(b []byte) (*DB, error) {
	if len(b) < 12 {
		return nil, ferr("magic", "file of %d bytes is truncated", len(b))
	}
	switch string(b[:8]) {
	case magicDB:
	case magicJournal:
		return nil, ferr("magic", "this is a build journal (.pdj), not a database: finish the build first")
	default:
		return nil, ferr("magic", "not a pleat wrinkle database (magic %q)", b[:8])
	}
	if v := uint32(b[8]) | uint32(b[9])<<8 | uint32(b[10])<<16 | uint32(b[11])<<24; v < oldestVersion || v > Version {
		if v < oldestVersion {
			return nil, ferr("version", "%d is an older format than this build's version %d: rebuild the database with pleat builddb", v, Version)
		}
		return nil, ferr("version", "%d, this build reads version %d: the file is from a newer pleat", v, Version)
	}
	rest := b[12:]
	db := &DB{Version: int(b[8]) | int(b[9])<<8 | int(b[10])<<16 | int(b[11])<<24}
	for _, s := range []struct {
		tag [4]byte
		dst *[]byte
	}{{tagHead, &db.head}, {tagGarm, &db.garm}, {tagRegn, &db.regn}} {
		tag, payload, next, err := readSection(rest, string(s.tag[:]))
		if err != nil {
			return nil, err
		}
		if tag != s.tag {
			return nil, ferr(string(s.tag[:]), "found section %q instead", tag[:])
		}
		*s.dst, rest = payload, next
	}
	if err := db.parseHeader(); err != nil {
		return nil, err
	}
	if err := db.parseGarment(); err != nil {
		return nil, err
	}
	if err := db.parseRegions(); err != nil {
		return nil, err
	}
	if db.Header.Coarse != nil {
		tag, payload, next, err := readSection(rest, "CRSE")
		if err != nil {
			return nil, err
		}
		if tag != tagCrse {
			return nil, ferr("CRSE", "found section %q instead", tag[:])
		}
		db.crse, rest = payload, next
		if err := db.parseCoarse(); err != nil {
			return nil, err
		}
	}
	want := 0
	for k := db.Header.Shard; k < db.Header.Samples; k += db.Header.Shards {
		want++
	}
	for {
		name := fmt.Sprintf("sample record %d", len(db.records))
		if len(rest) == 0 {
			return nil, ferr("END", "missing: the file is truncated after %d of %d sample records", len(db.records), want)
		}
		start := len(b) - len(rest)
		if len(rest) >= 4 && [4]byte(rest[:4]) == tagEnd {
			name = "END"
		}
		tag, payload, next, err := readSection(rest, name)
		if err != nil {
			return nil, err
		}
		if tag == tagEnd {
			if len(db.records) != want {
				return nil, ferr("END", "after %d sample records, the shard has %d", len(db.records), want)
			}
			sum := sha256.Sum256(b[:start])
			if !bytes.Equal(payload, sum[:]) {
				return nil, ferr("END", "SHA-256 of the file does not match (corrupt)")
			}
			if len(next) != 0 {
				return nil, ferr("END", "%d bytes after the end of the file", len(next))
			}
			break
		}
		if tag != tagSmpl {
			return nil, ferr(name, "found section %q instead of SMPL", tag[:])
		}
		if len(db.records) >= want {
			return nil, ferr(name, "more sample records than the shard's %d", want)
		}
		k := db.Header.Shard + len(db.records)*db.Header.Shards
		ss, err := db.parseRecord(payload, k)
		if err != nil {
			return nil, err
		}
		db.Samples = append(db.Samples, ss)
		db.records = append(db.records, rest[:len(rest)-len(next)])
		rest = next
	}
	return db, nil
}

func (db *DB) parseHeader() error {
	dec := json.NewDecoder(bytes.NewReader(db.head))
	dec.DisallowUnknownFields()
	h := &db.Header
	if err := dec.Decode(h); err != nil {
		return ferr("HEAD", "bad JSON: %v", err)
	}
	if h.Format != headerFormat {
		return ferr("HEAD.format", "%q, want %q", h.Format, headerFormat)
	}
	spec, err := ParseSpec(h.Spec)
	if err != nil {
		return ferr("HEAD.spec", "%v", err)
	}
	if hexHash(spec.Hash()) != h.SpecHash {
		return ferr("HEAD.spec_hash", "does not match the recorded spec")
	}
	db.Spec = spec
	switch {
	case !(h.Quantum >= 1e-6 && h.Quantum <= 1e-3):
		return ferr("HEAD.quantum_m", "%g outside [1e-6, 1e-3]", h.Quantum)
	case h.Samples != spec.NumSamples():
		return ferr("HEAD.samples", "%d, the spec has %d", h.Samples, spec.NumSamples())
	case h.Shards < 1 || h.Shards > h.Samples+1 || h.Shard < 0 || h.Shard >= h.Shards:
		return ferr("HEAD.shard", "%d of %d shards is out of range", h.Shard, h.Shards)
	case h.Garment.Verts < 1 || h.Garment.Verts > maxVerts:
		return ferr("HEAD.garment.verts", "%d out of range", h.Garment.Verts)
	case h.Garment.Tris < 0 || h.Garment.Tris > maxTris:
		return ferr("HEAD.garment.tris", "%d out of range", h.Garment.Tris)
	case h.Rig.Joints < 1 || h.Rig.Joints > maxJoints:
		return ferr("HEAD.rig.joints", "%d out of range", h.Rig.Joints)
	case !json.Valid(h.Settings):
		return ferr("HEAD.settings", "not valid JSON")
	}
	return nil
}

func (db *DB) parseGarment() error {
	raw, err := decompress("GARM", db.garm)
	if err != nil {
		return err
	}
	h := &db.Header
	d := dec{b: raw}
	n, nt, nj := d.count("GARM.verts", maxVerts), d.count("GARM.tris", maxTris), d.count("GARM.joints", maxJoints)
	if d.err == nil && (n != h.Garment.Verts || nt != h.Garment.Tris || nj != h.Rig.Joints) {
		return ferr("GARM", "counts %d vertices, %d triangles, %d joints differ from the header's", n, nt, nj)
	}
	if d.err == nil && len(d.b) < 24*n {
		return ferr("GARM.rest", "truncated")
	}
	db.Rest = make([]geom.Vec3, n)
	for c := 0; c < 3 && d.err == nil; c++ {
		for v := range db.Rest {
			x := d.f64("GARM.rest")
			switch c {
			case 0:
				db.Rest[v].X = x
			case 1:
				db.Rest[v].Y = x
			default:
				db.Rest[v].Z = x
			}
		}
	}
	baseResid := d.take("GARM.base", d.count("GARM.base", len(d.b)))
	db.Tris = make([][3]int32, nt)
	prev := int64(0)
	for t := 0; t < nt && d.err == nil; t++ {
		for c := 0; c < 3; c++ {
			x := prev + d.zigzag("GARM.tris")
			if x < 0 || x >= int64(n) {
				d.fail("GARM.tris", "triangle %d has vertex %d out of range", t, x)
			}
			db.Tris[t][c], prev = int32(x), x
		}
	}
	w := skel.Weights{Offsets: make([]int32, n+1)}
	for v := 0; v < n && d.err == nil; v++ {
		c := d.uvarint("GARM.weights")
		if c > 64 {
			d.fail("GARM.weights", "vertex %d has %d influences", v, c)
		}
		w.Offsets[v+1] = w.Offsets[v] + int32(c)
	}
	if d.err != nil {
		return &FormatError{Field: "GARM", Msg: d.err.Error()}
	}
	m := int(w.Offsets[n])
	if len(d.b) < m*5 {
		return ferr("GARM.weights", "truncated")
	}
	w.Joints, w.W = make([]int32, m), make([]float32, m)
	for i := range w.Joints {
		j := d.uvarint("GARM.weights")
		if j >= uint64(nj) {
			d.fail("GARM.weights", "joint %d out of range", j)
		}
		w.Joints[i] = int32(j)
	}
	for i := range w.W {
		w.W[i] = d.f32("GARM.weights")
	}
	d.done("GARM")
	if d.err != nil {
		return &FormatError{Field: "GARM", Msg: d.err.Error()}
	}
	if err := w.Validate(nj); err != nil {
		return ferr("GARM.weights", "%v", err)
	}
	db.Weights = w
	m2 := &mesh.Mesh{Verts: db.Rest, Tris: db.Tris}
	if hexHash(GarmentHash(m2, w)) != h.Garment.Hash {
		return ferr("GARM", "garment data does not match the header's garment hash")
	}
	if hexHash(sha256.Sum256(baseResid)) != h.Garment.BaseHash {
		return ferr("GARM.base", "does not match the header's base hash")
	}
	db.Base = make([]geom.Vec3, n)
	return unresiduals(db.Base, db.Rest, nil, h.Quantum, baseResid, "GARM.base")
}

func (db *DB) parseRegions() error {
	if hexHash(sha256.Sum256(db.regn)) != db.Header.Garment.RegionsHash {
		return ferr("REGN", "does not match the header's regions hash")
	}
	raw, err := decompress("REGN", db.regn)
	if err != nil {
		return err
	}
	n := db.Header.Garment.Verts
	d := dec{b: raw}
	g := &Regions{Region: append([]uint8(nil), d.take("REGN.region", n)...), Offsets: make([]int32, n+1)}
	counts := d.take("REGN.counts", n)
	for v, c := range counts {
		g.Offsets[v+1] = g.Offsets[v] + int32(c)
	}
	m := int(g.Offsets[n])
	roles := d.take("REGN.roles", m)
	g.Roles = make([]Role, len(roles))
	for i, r := range roles {
		g.Roles[i] = Role(r)
	}
	if d.err == nil && len(d.b) < 4*m {
		d.fail("REGN.weights", "truncated")
	}
	if d.err == nil {
		g.W = make([]float32, m)
		for i := range g.W {
			g.W[i] = d.f32("REGN.weights")
		}
	}
	d.done("REGN")
	if d.err != nil {
		return &FormatError{Field: "REGN", Msg: d.err.Error()}
	}
	if err := g.validate(n); err != nil {
		return ferr("REGN", "%v", err)
	}
	db.Regions = g
	db.stored = storedVerts(g)
	return nil
}

// StoredVerts returns the vertices a sample of role r stores, in index
// order (shared: do not modify); Positions gives the others as the base
// shape skinned into the sample's pose.
func (db *DB) StoredVerts(r Role) []int32 {
	if r >= NumRoles {
		return nil
	}
	return db.stored[r]
}

func (db *DB) parseRecord(payload []byte, k int) (StoredSample, error) {
	name := fmt.Sprintf("sample %d", k)
	d := dec{b: payload}
	var ss StoredSample
	idx := int(d.u32(name + ".index"))
	role := Role(d.u8(name + ".role"))
	var ang DoFs
	for i := range ang {
		ang[i] = d.f64(name + ".angles")
	}
	if d.err != nil {
		return ss, &FormatError{Field: name, Msg: d.err.Error()}
	}
	s, err := db.Spec.Sample(k)
	if err != nil || idx != k || role != s.Role || ang != s.Angles {
		return ss, ferr(name, "record is for sample %d (%s %v), the spec's sample %d is %s %v", idx, role, ang, k, s.Role, s.Angles)
	}
	ss.Sample = s
	flags := d.u8(name + ".flags")
	if flags&^(flagConverged|flagMissing) != 0 {
		d.fail(name+".flags", "unknown flags %#x", flags)
	}
	ss.Stats.Converged = flags&flagConverged != 0
	ss.Stats.Steps = int(d.u32(name + ".steps"))
	ss.Stats.Residual = d.f64(name + ".residual")
	ss.Stats.MaxStrain = d.f64(name + ".max_strain")
	ss.Stats.MaxPenetration = d.f64(name + ".max_penetration")
	ss.Stats.Penetrating = int(d.u32(name + ".penetrating"))
	if flags&flagMissing != 0 {
		reason := d.take(name+".reason", d.count(name+".reason", maxReason))
		if d.err == nil && (len(reason) == 0 || !utf8.Valid(reason)) {
			d.fail(name+".reason", "empty or not UTF-8")
		}
		ss.Missing = string(reason)
	}
	nt := d.count(name+".transforms", db.Header.Rig.Joints)
	for i := 0; i < nt && d.err == nil; i++ {
		j := int(d.u32(name + ".transforms"))
		if j >= db.Header.Rig.Joints || (i > 0 && j <= ss.joints[i-1]) {
			d.fail(name+".transforms", "joint %d out of range or out of order", j)
		}
		var x [7]float64
		for c := range x {
			x[c] = d.f64(name + ".transforms")
		}
		q := geom.Quat{W: x[0], X: x[1], Y: x[2], Z: x[3]}
		if math.Abs(q.Len()-1) > 1e-6 {
			d.fail(name+".transforms", "joint %d rotation is not a unit quaternion", j)
		}
		ss.joints = append(ss.joints, j)
		ss.ts = append(ss.ts, geom.Rigid{R: q, T: geom.V(x[4], x[5], x[6])})
	}
	if ss.Missing == "" {
		ss.resid = d.take(name+".positions", d.count(name+".positions", len(d.b)))
		if db.Coarse != nil {
			ss.cresid = d.take(name+".coarse", d.count(name+".coarse", len(d.b)))
		}
	}
	d.done(name)
	if d.err != nil {
		return ss, &FormatError{Field: name, Msg: d.err.Error()}
	}
	return ss, nil
}

// ErrMissing is wrapped by the error Stored returns for a missing sample.
var ErrMissing = errors.New("wrinkle: sample is missing")

// Stored decodes the settled positions of Samples[i] into dst (reused if
// large enough) and returns it: within Header.Quantum/2 of the builder's
// positions per coordinate at the vertices its role stores (StoredVerts),
// the base skinned into the sample's pose elsewhere. A missing sample gives
// an error wrapping ErrMissing.
func (db *DB) Stored(i int, dst []geom.Vec3) ([]geom.Vec3, error) {
	if i < 0 || i >= len(db.Samples) {
		return dst, fmt.Errorf("wrinkle: stored sample %d out of range [0, %d)", i, len(db.Samples))
	}
	ss := &db.Samples[i]
	if ss.Missing != "" {
		return dst, fmt.Errorf("%w: sample %d (%s %v): %s", ErrMissing, ss.Index, ss.Role, ss.Angles, ss.Missing)
	}
	n := len(db.Rest)
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	pred := db.predicted(i)
	if err := unresiduals(dst, pred, db.stored[ss.Role], db.Header.Quantum, ss.resid, fmt.Sprintf("sample %d.positions", ss.Index)); err != nil {
		return dst, err
	}
	return dst, nil
}

// predicted returns Samples[i]'s predicted shape: the base skinned by
// its recorded transforms into its pose.
func (db *DB) predicted(i int) []geom.Vec3 {
	ss := &db.Samples[i]
	pred := make([]geom.Vec3, len(db.Rest))
	predict(pred, db.Base, db.Weights, sparseTransforms(db.Header.Rig.Joints, ss.joints, ss.ts))
	return pred
}

// Positions returns the positions of Samples[i] as synthesis uses them: a
// stored sample's as Stored decodes them, a missing one's filled in (see
// FillIn). dst is reused if large enough.
func (db *DB) Positions(i int, dst []geom.Vec3) ([]geom.Vec3, error) {
	if i >= 0 && i < len(db.Samples) && db.Samples[i].Missing != "" {
		return db.FillIn(i, dst)
	}
	return db.Stored(i, dst)
}

// Mesh returns the garment's rest mesh as stored (positions and triangles).
func (db *DB) Mesh() *mesh.Mesh {
	return &mesh.Mesh{Verts: append([]geom.Vec3(nil), db.Rest...), Tris: append([][3]int32(nil), db.Tris...)}
}

// CheckGarment returns a *MismatchError if the database was built for
// another garment (rest shape, triangles or skin weights).
func (db *DB) CheckGarment(m *mesh.Mesh, w skel.Weights) error {
	if got := hexHash(GarmentHash(m, w)); got != db.Header.Garment.Hash {
		h := db.Header.Garment
		return &MismatchError{What: "garment",
			Want: fmt.Sprintf("%q (%d vertices, %d triangles, hash %.12s)", h.Name, h.Verts, h.Tris, h.Hash),
			Got:  fmt.Sprintf("a garment of %d vertices, %d triangles, hash %.12s", len(m.Verts), len(m.Tris), got)}
	}
	return nil
}

// CheckRig returns a *MismatchError if the database was built for another
// rig (skeleton or role binding).
func (db *DB) CheckRig(r *Rig) error {
	if got := hexHash(r.Hash()); got != db.Header.Rig.Hash {
		return &MismatchError{What: "rig",
			Want: fmt.Sprintf("%d joints bound by %q (hash %.12s)", db.Header.Rig.Joints, db.Header.Rig.Names.Name, db.Header.Rig.Hash),
			Got:  fmt.Sprintf("%d joints bound by %q (hash %.12s)", r.Skeleton.NumJoints(), r.Names.Name, got)}
	}
	return nil
}

// CheckSpec returns a *MismatchError if the database was built from
// another sampling spec.
func (db *DB) CheckSpec(s *Spec) error {
	if got := hexHash(s.Hash()); got != db.Header.SpecHash {
		return &MismatchError{What: "spec",
			Want: fmt.Sprintf("%d samples (hash %.12s)", db.Header.Samples, db.Header.SpecHash),
			Got:  fmt.Sprintf("%d samples (hash %.12s)", s.NumSamples(), got)}
	}
	return nil
}

// FillIn returns the positions of Samples[i] filled in from the stored
// samples of its joint nearest on the grid, whether or not it is itself
// stored (Positions uses it for missing samples). Per DoF, it takes the
// nearest stored samples below and above along that axis (the other DoFs'
// cells fixed), interpolated linearly in the cell index, or the one found;
// the axes' estimates are averaged with weights 1/(grid distance to the
// nearer one). Without any along the axes, the nearest stored sample of
// the joint (grid L1 distance, then index) stands in. What is interpolated
// are the samples' residuals over their predicted shapes (settled minus
// the base skinned into their poses), added to this sample's predicted
// shape: the limb's rotation is the skinning's, the wrinkles the
// neighbours'. A joint without any stored sample gives the predicted
// shape. dst is reused if large enough.
func (db *DB) FillIn(i int, dst []geom.Vec3) ([]geom.Vec3, error) {
	if i < 0 || i >= len(db.Samples) {
		return dst, fmt.Errorf("wrinkle: stored sample %d out of range [0, %d)", i, len(db.Samples))
	}
	n := len(db.Rest)
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	copy(dst, db.predicted(i))
	verts := db.stored[db.Samples[i].Role]
	srcs, ws := db.fillSources(i)
	var nb []geom.Vec3
	for k, j := range srcs {
		var err error
		if nb, err = db.Stored(j, nb); err != nil {
			return dst, err
		}
		pj := db.predicted(j)
		for _, v := range verts {
			dst[v] = dst[v].Add(nb[v].Sub(pj[v]).Scale(ws[k]))
		}
	}
	return dst, nil
}

// fillSources returns the stored samples (indices into Samples, ascending)
// FillIn interpolates Samples[i] from, and their weights (summing to 1).
func (db *DB) fillSources(i int) ([]int, []float64) {
	ss := &db.Samples[i]
	js := db.Spec.JointSpec(ss.Joint)
	g := js.Grid()
	first := db.Spec.FirstSample(ss.Joint)
	h := &db.Header
	at := func(c [3]int) int { // the stored sample at cell c, or −1
		k := first + (c[0]*g[1]+c[1])*g[2] + c[2]
		if k < h.Shard || (k-h.Shard)%h.Shards != 0 {
			return -1
		}
		j := (k - h.Shard) / h.Shards
		if j == i || j >= len(db.Samples) || db.Samples[j].Missing != "" {
			return -1
		}
		return j
	}
	acc := map[int]float64{}
	total := 0.0
	for d := 0; d < 3; d++ {
		near := func(step int) (int, int) {
			c := ss.Cell
			for dist := 1; ; dist++ {
				c[d] += step
				if c[d] < 0 || c[d] >= g[d] {
					return -1, 0
				}
				if j := at(c); j >= 0 {
					return j, dist
				}
			}
		}
		lo, dlo := near(-1)
		hi, dhi := near(+1)
		switch {
		case lo >= 0 && hi >= 0:
			w := 1 / float64(min(dlo, dhi))
			t := float64(dlo) / float64(dlo+dhi)
			acc[lo] += w * (1 - t)
			acc[hi] += w * t
			total += w
		case lo >= 0:
			acc[lo] += 1 / float64(dlo)
			total += 1 / float64(dlo)
		case hi >= 0:
			acc[hi] += 1 / float64(dhi)
			total += 1 / float64(dhi)
		}
	}
	if total == 0 {
		best, bestD := -1, 0
		for c0 := 0; c0 < g[0]; c0++ {
			for c1 := 0; c1 < g[1]; c1++ {
				for c2 := 0; c2 < g[2]; c2++ {
					j := at([3]int{c0, c1, c2})
					dist := abs(c0-ss.Cell[0]) + abs(c1-ss.Cell[1]) + abs(c2-ss.Cell[2])
					if j >= 0 && (best < 0 || dist < bestD) {
						best, bestD = j, dist
					}
				}
			}
		}
		if best < 0 {
			return nil, nil
		}
		return []int{best}, []float64{1}
	}
	srcs := make([]int, 0, len(acc))
	for j := range acc {
		srcs = append(srcs, j)
	}
	slices.Sort(srcs)
	ws := make([]float64, len(srcs))
	for k, j := range srcs {
		ws[k] = acc[j] / total
	}
	return srcs, ws
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
