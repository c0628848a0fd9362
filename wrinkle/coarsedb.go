package wrinkle

import (
	"crypto/sha256"
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// CoarseInfo describes a database's coarse samples (Header.Coarse): the
// coarse garment the online pipeline simulates (NewCoarse of the
// database's garment with Budget and Quadric), settled by the builder in
// the rest pose and in every sample's pose. The online pipeline uses them
// to correct its coarse simulation's bias against the fine garment pose
// by pose (wrinkle/online).
type CoarseInfo struct {
	// Budget and Quadric are the CoarseOptions the coarse garment was
	// made with; Verts is its vertex count.
	Budget  int  `json:"budget"`
	Quadric bool `json:"quadric"`
	Verts   int  `json:"verts"`
	// Hash is the hex SHA-256 of the CRSE section's payload (the kept
	// vertices and the coarse base shape).
	Hash string `json:"hash"`
}

// CoarseInput is what a build records of the coarse garment
// (BuildInput.Coarse).
type CoarseInput struct {
	// Options are the CoarseOptions the coarse garment was made with, and
	// Kept its vertices' fine vertices (Coarse.Kept).
	Options CoarseOptions
	Kept    []int32
	// Base is the coarse garment settled in the rest pose, in Kept's
	// order.
	Base []geom.Vec3
}

// CoarseData is a database's coarse garment as stored (DB.Coarse).
type CoarseData struct {
	Info CoarseInfo
	// Kept[i] is the fine vertex coarse vertex i is, Base the coarse
	// garment settled in the rest pose (as quantised), Weights its skin
	// weights (the fine garment's at Kept).
	Kept    []int32
	Base    []geom.Vec3
	Weights skel.Weights
}

// Options returns the CoarseOptions the coarse garment was made with.
func (c *CoarseData) Options() CoarseOptions {
	return CoarseOptions{Verts: c.Info.Budget, Quadric: c.Info.Quadric}
}

// keptWeights returns the fine weights w at the vertices kept.
func keptWeights(w skel.Weights, kept []int32) skel.Weights {
	out := skel.Weights{Offsets: make([]int32, 1, len(kept)+1)}
	for _, v := range kept {
		js, ws := w.Influences(int(v))
		out.Joints = append(out.Joints, js...)
		out.W = append(out.W, ws...)
		out.Offsets = append(out.Offsets, int32(len(out.Joints)))
	}
	return out
}

// encodeCoarse checks in against the fine garment (n vertices, base
// shape fine quantised) and returns the CRSE payload: n u32, the kept
// vertices as zigzag varints of the difference to the previous one, and
// the coarse base's residuals (length u32, bytes) from the fine base at
// the kept vertices. It also returns the coarse base as quantised.
func encodeCoarse(in *CoarseInput, fine []geom.Vec3, q float64) ([]byte, []geom.Vec3, error) {
	n := len(in.Kept)
	if n < 3 || len(in.Base) != n {
		return nil, nil, fmt.Errorf("wrinkle: BuildInput.Coarse has %d kept vertices and %d base positions: want the same, at least 3", n, len(in.Base))
	}
	if in.Options.Verts < 0 {
		return nil, nil, fmt.Errorf("wrinkle: BuildInput.Coarse.Options.Verts %d is negative", in.Options.Verts)
	}
	pred := make([]geom.Vec3, n)
	seen := make(map[int32]bool, n)
	for i, v := range in.Kept {
		if v < 0 || int(v) >= len(fine) || seen[v] {
			return nil, nil, fmt.Errorf("wrinkle: BuildInput.Coarse.Kept[%d] = %d is out of range [0, %d) or repeated", i, v, len(fine))
		}
		seen[v] = true
		pred[i] = fine[v]
	}
	resid, err := residuals(in.Base, pred, nil, q, "BuildInput.Coarse.Base")
	if err != nil {
		return nil, nil, err
	}
	base := make([]geom.Vec3, n)
	if err := unresiduals(base, pred, nil, q, resid, "coarse base"); err != nil {
		return nil, nil, err
	}
	var e enc
	e.u32(uint32(n))
	prev := int64(0)
	for _, v := range in.Kept {
		e.zigzag(int64(v) - prev)
		prev = int64(v)
	}
	e.u32(uint32(len(resid)))
	e.b = append(e.b, resid...)
	return e.b, base, nil
}

// parseCoarse reads the CRSE section against the header and the fine
// garment already parsed.
func (db *DB) parseCoarse() error {
	info := db.Header.Coarse
	if sum := sha256.Sum256(db.crse); hexHash(sum) != info.Hash {
		return ferr("CRSE", "SHA-256 differs from the header's coarse.hash")
	}
	d := dec{b: db.crse}
	n := d.count("CRSE.verts", len(db.Rest))
	if d.err == nil && (n != info.Verts || n < 3) {
		return ferr("CRSE", "%d coarse vertices, the header says %d", n, info.Verts)
	}
	c := &CoarseData{Info: *info, Kept: make([]int32, n), Base: make([]geom.Vec3, n)}
	prev := int64(0)
	seen := make(map[int64]bool, n)
	for i := 0; i < n && d.err == nil; i++ {
		v := prev + d.zigzag("CRSE.kept")
		if v < 0 || v >= int64(len(db.Rest)) || seen[v] {
			d.fail("CRSE.kept", "vertex %d out of range [0, %d) or repeated", v, len(db.Rest))
		}
		seen[v] = true
		c.Kept[i], prev = int32(v), v
	}
	resid := d.take("CRSE.base", d.count("CRSE.base", len(d.b)))
	d.done("CRSE")
	if d.err != nil {
		return &FormatError{Field: "CRSE", Msg: d.err.Error()}
	}
	pred := make([]geom.Vec3, n)
	for i, v := range c.Kept {
		pred[i] = db.Base[v]
	}
	if err := unresiduals(c.Base, pred, nil, db.Header.Quantum, resid, "CRSE.base"); err != nil {
		return err
	}
	c.Weights = keptWeights(db.Weights, c.Kept)
	db.Coarse = c
	return nil
}

// coarsePredict returns the coarse base skinned with the coarse weights
// by transforms ts (sparseTransforms): what a sample's coarse positions
// are stored as residuals from.
func coarsePredict(base []geom.Vec3, w skel.Weights, ts []*transform) []geom.Vec3 {
	pred := make([]geom.Vec3, len(base))
	predict(pred, base, w, ts)
	return pred
}

// CoarsePositions decodes the coarse garment's settled positions in
// Samples[i]'s pose into dst (reused if large enough) and returns it. It
// returns an error if the database has no coarse samples (Coarse nil) or
// the sample is missing (wrapping ErrMissing).
func (db *DB) CoarsePositions(i int, dst []geom.Vec3) ([]geom.Vec3, error) {
	if db.Coarse == nil {
		return dst, fmt.Errorf("wrinkle: the database has no coarse samples")
	}
	if i < 0 || i >= len(db.Samples) {
		return dst, fmt.Errorf("wrinkle: stored sample %d out of range [0, %d)", i, len(db.Samples))
	}
	ss := &db.Samples[i]
	if ss.Missing != "" {
		return dst, fmt.Errorf("%w: sample %d (%s %v): %s", ErrMissing, ss.Index, ss.Role, ss.Angles, ss.Missing)
	}
	n := len(db.Coarse.Kept)
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	pred := coarsePredict(db.Coarse.Base, db.Coarse.Weights, sparseTransforms(db.Header.Rig.Joints, ss.joints, ss.ts))
	if err := unresiduals(dst, pred, nil, db.Header.Quantum, ss.cresid, fmt.Sprintf("sample %d.coarse", ss.Index)); err != nil {
		return dst, err
	}
	return dst, nil
}
