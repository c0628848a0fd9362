package wrinkle

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// BuildInput is what a database is built from. The zero values of the
// optional fields give the documented defaults.
type BuildInput struct {
	Rig  *Rig
	Spec *Spec
	// Name is the garment's name (recorded, not checked).
	Name string
	// Garment is the garment's rest shape, fitted to the rig's rest pose.
	Garment *mesh.Mesh
	// Weights are the garment's skin weights for the rig's skeleton.
	Weights skel.Weights
	// Base is the garment settled in the rest pose, the shape residuals
	// are predicted from; nil means the rest shape.
	Base []geom.Vec3
	// Regions are the regions and influence maps; nil means NewRegions
	// with the default options.
	Regions *Regions
	// Settings are the simulator settings as JSON, recorded verbatim
	// (compacted); nil records null.
	Settings json.RawMessage
	// Quantum is the quantisation step in metres; 0 means DefaultQuantum.
	// Valid range 1e-6 to 1e-3.
	Quantum float64
	// Shard and Shards select the interleaved subset this build makes:
	// samples k with k mod Shards = Shard. Shards 0 means 1.
	Shard, Shards int
	// Coarse, if not nil, is the coarse garment whose settled positions
	// every stored sample also records (EncodeSampleCoarse).
	Coarse *CoarseInput
}

// Build encodes the samples of one database (or shard) as a builder hands
// them over, and writes the file. Build it with NewBuild; it is immutable
// and its methods are safe for concurrent use.
type Build struct {
	rig     *Rig
	spec    *Spec
	weights skel.Weights
	header  Header
	head    []byte // HEAD payload
	garm    []byte // GARM payload
	regn    []byte // REGN payload
	crse    []byte // CRSE payload (nil: no coarse samples)
	base    []geom.Vec3
	// cbase and cweights are the coarse garment's base shape (as
	// quantised) and skin weights, when Coarse was given.
	cbase    []geom.Vec3
	cweights skel.Weights
	subtree  [NumRoles][]int   // joints moved by each role: its chain base and descendants
	stored   [NumRoles][]int32 // vertices a sample of each role stores (storedVerts)
}

// Record is one encoded sample, ready to be written.
type Record struct {
	Index int
	data  []byte
}

// NewBuild validates in and prepares the header, garment and region
// sections. Errors name the bad field.
func NewBuild(in BuildInput) (*Build, error) {
	if in.Rig == nil || in.Spec == nil || in.Garment == nil {
		return nil, fmt.Errorf("wrinkle: BuildInput needs Rig, Spec and Garment")
	}
	if err := checkGarment(in.Rig, in.Garment, in.Weights); err != nil {
		return nil, err
	}
	n := len(in.Garment.Verts)
	if n > maxVerts || len(in.Garment.Tris) > maxTris {
		return nil, fmt.Errorf("wrinkle: garment of %d vertices, %d triangles is beyond the format's limits", n, len(in.Garment.Tris))
	}
	q := in.Quantum
	if q == 0 {
		q = DefaultQuantum
	}
	if !(q >= 1e-6 && q <= 1e-3) {
		return nil, fmt.Errorf("wrinkle: BuildInput.Quantum %g m outside [1e-6, 1e-3]", in.Quantum)
	}
	shards := in.Shards
	if shards == 0 {
		shards = 1
	}
	if shards < 1 || in.Shard < 0 || in.Shard >= shards {
		return nil, fmt.Errorf("wrinkle: BuildInput.Shard %d of %d shards is out of range", in.Shard, in.Shards)
	}
	settings := json.RawMessage("null")
	if in.Settings != nil {
		var buf bytes.Buffer
		if err := json.Compact(&buf, in.Settings); err != nil {
			return nil, fmt.Errorf("wrinkle: BuildInput.Settings is not valid JSON: %v", err)
		}
		settings = buf.Bytes()
	}
	base := in.Base
	if base == nil {
		base = in.Garment.Verts
	}
	if len(base) != n {
		return nil, fmt.Errorf("wrinkle: BuildInput.Base has %d vertices, the garment %d", len(base), n)
	}
	regions := in.Regions
	if regions == nil {
		var err error
		if regions, err = NewRegions(in.Rig, in.Spec, in.Garment, in.Weights, RegionOptions{}); err != nil {
			return nil, err
		}
	} else if err := regions.validate(n); err != nil {
		return nil, fmt.Errorf("wrinkle: BuildInput.Regions: %v", err)
	}
	b := &Build{rig: in.Rig, spec: in.Spec, weights: in.Weights, base: make([]geom.Vec3, n)}
	b.stored = storedVerts(regions)
	resid, err := residuals(base, in.Garment.Verts, nil, q, "BuildInput.Base")
	if err != nil {
		return nil, err
	}
	if err := unresiduals(b.base, in.Garment.Verts, nil, q, resid, "base"); err != nil {
		return nil, err
	}
	b.garm = encodeGarment(in.Garment, in.Weights, in.Rig.Skeleton.NumJoints(), resid)
	b.regn = encodeRegions(regions)
	var coarse *CoarseInfo
	if in.Coarse != nil {
		if b.crse, b.cbase, err = encodeCoarse(in.Coarse, b.base, q); err != nil {
			return nil, err
		}
		b.cweights = keptWeights(in.Weights, in.Coarse.Kept)
		coarse = &CoarseInfo{Budget: in.Coarse.Options.Verts, Quadric: in.Coarse.Options.Quadric, Verts: len(in.Coarse.Kept), Hash: hexHash(sha256.Sum256(b.crse))}
	}
	specJSON, _ := in.Spec.MarshalJSON()
	b.header = Header{
		Format: headerFormat,
		Garment: GarmentInfo{Name: in.Name, Verts: n, Tris: len(in.Garment.Tris),
			Hash:        hexHash(GarmentHash(in.Garment, in.Weights)),
			BaseHash:    hexHash(sha256.Sum256(resid)),
			RegionsHash: hexHash(sha256.Sum256(b.regn))},
		Rig:      RigInfo{Joints: in.Rig.Skeleton.NumJoints(), Hash: hexHash(in.Rig.Hash()), Names: in.Rig.Names},
		Spec:     specJSON,
		SpecHash: hexHash(in.Spec.Hash()),
		Settings: settings,
		Quantum:  q,
		Samples:  in.Spec.NumSamples(),
		Shard:    in.Shard,
		Shards:   shards,
		Coarse:   coarse,
	}
	if b.head, err = json.Marshal(b.header); err != nil {
		return nil, err
	}
	sk := in.Rig.Skeleton
	for r := range b.subtree {
		c := in.Rig.Roles[r].Chain[0]
		for j := 0; j < sk.NumJoints(); j++ {
			if j == c || sk.IsAncestor(c, j) {
				b.subtree[r] = append(b.subtree[r], j)
			}
		}
	}
	return b, nil
}

func encodeGarment(m *mesh.Mesh, w skel.Weights, joints int, baseResid []byte) []byte {
	var e enc
	e.u32(uint32(len(m.Verts)))
	e.u32(uint32(len(m.Tris)))
	e.u32(uint32(joints))
	for c := 0; c < 3; c++ {
		for _, p := range m.Verts {
			e.f64(p.At(c))
		}
	}
	e.u32(uint32(len(baseResid)))
	e.b = append(e.b, baseResid...)
	prev := int64(0)
	for _, t := range m.Tris {
		for _, x := range t {
			e.zigzag(int64(x) - prev)
			prev = int64(x)
		}
	}
	for v := 0; v < w.NumVerts(); v++ {
		e.uvarint(uint64(w.Offsets[v+1] - w.Offsets[v]))
	}
	for _, j := range w.Joints {
		e.uvarint(uint64(j))
	}
	for _, x := range w.W {
		e.f32(x)
	}
	return compress(e.b)
}

func encodeRegions(g *Regions) []byte {
	var e enc
	e.b = append(e.b, g.Region...)
	for v := 0; v < len(g.Region); v++ {
		e.u8(uint8(g.Offsets[v+1] - g.Offsets[v]))
	}
	for _, r := range g.Roles {
		e.u8(uint8(r))
	}
	for _, x := range g.W {
		e.f32(x)
	}
	return compress(e.b)
}

// Header returns the header the build writes.
func (b *Build) Header() Header { return b.header }

// ShardSamples returns the indices of the samples this build makes, in
// order: k = Shard, Shard+Shards, ...
func (b *Build) ShardSamples() []int {
	var ks []int
	for k := b.header.Shard; k < b.header.Samples; k += b.header.Shards {
		ks = append(ks, k)
	}
	return ks
}

// StoredVerts returns the vertices a sample of role r stores (see
// DB.StoredVerts; shared: do not modify).
func (b *Build) StoredVerts(r Role) []int32 {
	if r >= NumRoles {
		return nil
	}
	return b.stored[r]
}

// Spec returns the build's spec.
func (b *Build) Spec() *Spec { return b.spec }

// Rig returns the build's rig.
func (b *Build) Rig() *Rig { return b.rig }

// SamplePose returns the pose sample k is settled into (Rig.SamplePose).
func (b *Build) SamplePose(k int) (skel.Pose, error) {
	s, err := b.spec.Sample(k)
	if err != nil {
		return skel.Pose{}, err
	}
	return b.rig.SamplePose(s)
}

// sampleTransforms returns sample s's skinning transforms for the joints
// its role moves (all others are the identity), computed from the pose.
func (b *Build) sampleTransforms(s Sample) ([]int, []geom.Rigid, error) {
	p, err := b.rig.SamplePose(s)
	if err != nil {
		return nil, nil, err
	}
	skin := skel.SkinMatrices(b.rig.Skeleton, p, nil)
	js := b.subtree[s.Role]
	ts := make([]geom.Rigid, len(js))
	for i, j := range js {
		ts[i] = skin[j]
	}
	return js, ts, nil
}

// EncodeSample encodes sample k's settled positions (metres, in the
// garment's vertex order, in the sample's pose) and stats. Only the
// vertices the sample's role influences are stored (see the layout). It
// returns an error naming the sample and the field if k is not in this
// build's shard, pos has the wrong length, or a stored position or a stat
// is not finite (or more than 1 km from the skinned shape: the sample
// exploded).
func (b *Build) EncodeSample(k int, pos []geom.Vec3, st SampleStats) (Record, error) {
	return b.EncodeSampleCoarse(k, pos, nil, st)
}

// EncodeSampleCoarse is EncodeSample with the coarse garment's settled
// positions in the sample's pose (in the order of BuildInput.Coarse.Kept),
// which a build with a coarse garment needs and one without refuses.
func (b *Build) EncodeSampleCoarse(k int, pos, coarse []geom.Vec3, st SampleStats) (Record, error) {
	h := &b.header
	if (coarse != nil) != (b.crse != nil) || (coarse != nil && len(coarse) != len(b.cbase)) {
		return Record{}, fmt.Errorf("wrinkle: sample %d has %d coarse positions, the build's coarse garment %d vertices", k, len(coarse), len(b.cbase))
	}
	if err := b.checkRecord(k, st); err != nil {
		return Record{}, err
	}
	if len(pos) != h.Garment.Verts {
		return Record{}, fmt.Errorf("wrinkle: sample %d has %d positions, the garment %d vertices", k, len(pos), h.Garment.Verts)
	}
	s, _ := b.spec.Sample(k)
	js, ts, err := b.sampleTransforms(s)
	if err != nil {
		return Record{}, err
	}
	pred := make([]geom.Vec3, len(pos))
	predict(pred, b.base, b.weights, sparseTransforms(h.Rig.Joints, js, ts))
	resid, err := residuals(pos, pred, b.stored[s.Role], h.Quantum, fmt.Sprintf("sample %d", k))
	if err != nil {
		return Record{}, err
	}
	e := encodeRecordHead(s, st, "", js, ts)
	e.u32(uint32(len(resid)))
	e.b = append(e.b, resid...)
	if coarse != nil {
		pred := coarsePredict(b.cbase, b.cweights, sparseTransforms(h.Rig.Joints, js, ts))
		cresid, err := residuals(coarse, pred, nil, h.Quantum, fmt.Sprintf("sample %d coarse", k))
		if err != nil {
			return Record{}, err
		}
		e.u32(uint32(len(cresid)))
		e.b = append(e.b, cresid...)
	}
	return Record{Index: k, data: appendSection(nil, tagSmpl, e.b)}, nil
}

// EncodeMissing encodes sample k as missing: no positions, the reason
// (non-empty, at most 4096 bytes of UTF-8: "pose: ...", "did not settle")
// and whatever stats there are (zero for a sample not simulated).
// Synthesis fills a missing sample in from its valid neighbours.
func (b *Build) EncodeMissing(k int, reason string, st SampleStats) (Record, error) {
	if err := b.checkRecord(k, st); err != nil {
		return Record{}, err
	}
	if reason == "" || len(reason) > maxReason || !utf8.ValidString(reason) {
		return Record{}, fmt.Errorf("wrinkle: sample %d: missing sample reason must be 1 to %d bytes of UTF-8", k, maxReason)
	}
	s, _ := b.spec.Sample(k)
	js, ts, err := b.sampleTransforms(s)
	if err != nil {
		return Record{}, err
	}
	e := encodeRecordHead(s, st, reason, js, ts)
	return Record{Index: k, data: appendSection(nil, tagSmpl, e.b)}, nil
}

// encodeRecordHead writes a record's sample, flags and stats, for a
// missing sample (reason not empty) the reason, and the skinning
// transforms: all but the positions.
func encodeRecordHead(s Sample, st SampleStats, reason string, js []int, ts []geom.Rigid) *enc {
	e := &enc{}
	e.u32(uint32(s.Index))
	e.u8(uint8(s.Role))
	for _, a := range s.Angles {
		e.f64(a)
	}
	flags := uint8(0)
	if st.Converged {
		flags |= flagConverged
	}
	if reason != "" {
		flags |= flagMissing
	}
	e.u8(flags)
	e.u32(uint32(st.Steps))
	e.f64(st.Residual)
	e.f64(st.MaxStrain)
	e.f64(st.MaxPenetration)
	e.u32(uint32(st.Penetrating))
	if reason != "" {
		e.u32(uint32(len(reason)))
		e.b = append(e.b, reason...)
	}
	e.u32(uint32(len(js)))
	for i, j := range js {
		t := ts[i]
		e.u32(uint32(j))
		for _, x := range [7]float64{t.R.W, t.R.X, t.R.Y, t.R.Z, t.T.X, t.T.Y, t.T.Z} {
			e.f64(x)
		}
	}
	return e
}

// checkRecord checks that sample k is in the shard and its stats can be
// stored.
func (b *Build) checkRecord(k int, st SampleStats) error {
	h := &b.header
	if k < 0 || k >= h.Samples || k%h.Shards != h.Shard {
		return fmt.Errorf("wrinkle: sample %d is not in shard %d/%d of %d samples", k, h.Shard, h.Shards, h.Samples)
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"Residual", st.Residual}, {"MaxStrain", st.MaxStrain}, {"MaxPenetration", st.MaxPenetration}} {
		if !finite(x.v) {
			return fmt.Errorf("wrinkle: sample %d: SampleStats.%s is not finite", k, x.name)
		}
	}
	if st.Steps < 0 || int64(st.Steps) > math.MaxUint32 || st.Penetrating < 0 || int64(st.Penetrating) > math.MaxUint32 {
		return fmt.Errorf("wrinkle: sample %d: SampleStats.Steps or Penetrating out of range", k)
	}
	return nil
}

func sparseTransforms(joints int, js []int, ts []geom.Rigid) []*transform {
	out := make([]*transform, joints)
	for i, j := range js {
		t := affineOf(ts[i])
		out[j] = &t
	}
	return out
}

// WriteDB writes the database (or shard) file with the given records,
// which must be exactly this build's ShardSamples (in any order; they are
// written in index order). The output depends only on the build's inputs
// and the samples' positions and stats, so a merge of shards equals a
// one-machine build byte for byte.
func (b *Build) WriteDB(w io.Writer, recs []Record) error {
	want := b.ShardSamples()
	byIndex := make(map[int][]byte, len(recs))
	for _, r := range recs {
		if _, dup := byIndex[r.Index]; dup {
			return fmt.Errorf("wrinkle: sample %d given twice", r.Index)
		}
		byIndex[r.Index] = r.data
	}
	ordered := make([][]byte, 0, len(want))
	for _, k := range want {
		d, ok := byIndex[k]
		if !ok {
			return fmt.Errorf("wrinkle: sample %d of shard %d/%d is missing (%d of %d done)", k, b.header.Shard, b.header.Shards, len(recs), len(want))
		}
		ordered = append(ordered, d)
	}
	if len(byIndex) != len(want) {
		return fmt.Errorf("wrinkle: %d records given, shard %d/%d has %d samples", len(recs), b.header.Shard, b.header.Shards, len(want))
	}
	return writeFile(w, b.head, b.garm, b.regn, b.crse, ordered)
}

// writeFile writes a .pdb: magic, version, sections and the END hash.
func writeFile(w io.Writer, head, garm, regn, crse []byte, records [][]byte) error {
	h := sha256.New()
	var e enc
	e.b = append(e.b, magicDB...)
	e.u32(Version)
	e.b = appendSection(e.b, tagHead, head)
	e.b = appendSection(e.b, tagGarm, garm)
	e.b = appendSection(e.b, tagRegn, regn)
	if crse != nil {
		e.b = appendSection(e.b, tagCrse, crse)
	}
	h.Write(e.b)
	if _, err := w.Write(e.b); err != nil {
		return err
	}
	for _, r := range records {
		h.Write(r)
		if _, err := w.Write(r); err != nil {
			return err
		}
	}
	_, err := w.Write(appendSection(nil, tagEnd, h.Sum(nil)))
	return err
}
