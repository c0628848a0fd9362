package online

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// poseCal removes the coarse simulation's bias against the fine garment
// pose by pose, from the database's coarse samples (wrinkle.DB.Coarse).
//
// The coarse garment does not hang where the fine one does, and by how
// much depends on the pose: on the CMU walk, male_casualsuit04's coarse
// trousers are 21 mm from the reference at the right knee right after
// the first settle, while the rest-pose bias (calibration) is 6 to 9 mm.
// The builder settled the coarse garment, as this pipeline simulates it,
// into every sample's pose from its own rest settle, as it settled the
// fine garment from the fine rest settle. Those coarse samples are synthesized like the fine ones (the
// same interpolation, Eqs. 1–3, and influence maps, Eq. 4, at the coarse
// vertices), giving c_P, where the coarse garment comes to rest in pose
// P; the fine synthesis gives y_P. Every Step moves coarse vertex i by
//
//	y_P(k_i) − c_P(i),
//
// k_i its fine vertex: a coarse simulation at rest in P then sits on the
// synthesized fine garment, and its motion about that rest (swing,
// sliding) is kept. Near the rest pose, where y_P and c_P come close to
// the two rest settles, it comes close to the rest-pose calibration.
type poseCal struct {
	synth *wrinkle.Synthesizer
	x     []geom.Vec3 // c_P
	kept  []int32
	// base is the coarse rest settle the samples started from, with the
	// rest pose's root at root.
	base []geom.Vec3
	root geom.Vec3
}

// newPoseCal returns the pose calibration from db's coarse samples, or nil
// with the reason when they do not fit the pipeline's coarse garment.
func (p *Pipeline) newPoseCal() (*poseCal, string, error) {
	dc := p.db.Coarse
	if dc == nil {
		return nil, "the database has no coarse samples (built without them, or by an older pleat)", nil
	}
	if !slices.Equal(dc.Kept, p.coarse.Kept) {
		return nil, fmt.Sprintf("the database's coarse samples are of a coarse garment of %d vertices (budget %d, quadric %v), this one has %d", dc.Info.Verts, dc.Info.Budget, dc.Info.Quadric, len(p.coarse.Kept)), nil
	}
	regions, err := keptRegions(p.db.Regions, dc.Kept)
	if err != nil {
		return nil, "", err
	}
	rec, err := recordedSim(p.db)
	if err != nil {
		return nil, "", err
	}
	b, err := wrinkle.NewBuild(wrinkle.BuildInput{Rig: p.rig, Spec: p.db.Spec, Name: "coarse", Garment: p.coarse.Mesh,
		Weights: p.coarse.Weights, Base: dc.Base, Regions: regions, Quantum: p.db.Header.Quantum})
	if err != nil {
		return nil, "", fmt.Errorf("online: coarse samples: %w", err)
	}
	recs := make([]wrinkle.Record, 0, len(p.db.Samples))
	var x []geom.Vec3
	for i, s := range p.db.Samples {
		var r wrinkle.Record
		if s.Missing != "" {
			r, err = b.EncodeMissing(s.Index, s.Missing, s.Stats)
		} else if x, err = p.db.CoarsePositions(i, x); err == nil {
			r, err = b.EncodeSample(s.Index, x, s.Stats)
		}
		if err != nil {
			return nil, "", fmt.Errorf("online: coarse samples: %w", err)
		}
		recs = append(recs, r)
	}
	var buf bytes.Buffer
	if err := b.WriteDB(&buf, recs); err != nil {
		return nil, "", fmt.Errorf("online: coarse samples: %w", err)
	}
	cdb, err := wrinkle.Read(&buf)
	if err != nil {
		return nil, "", fmt.Errorf("online: coarse samples: %w", err)
	}
	syn, err := wrinkle.NewSynthesizer(cdb, p.rig, wrinkle.SynthOptions{Workers: 1})
	if err != nil {
		return nil, "", fmt.Errorf("online: coarse samples: %w", err)
	}
	return &poseCal{synth: syn, x: make([]geom.Vec3, len(dc.Kept)), kept: dc.Kept, base: dc.Base, root: rec.Root}, "", nil
}

// start returns where the coarse simulation starts with its rest pose at
// root, per piece of cmap: the coarse rest settle the samples started
// from, moved with the root.
func (c *poseCal) start(cmap [][]int32, root geom.Vec3) [][]geom.Vec3 {
	d := root.Sub(c.root)
	x := make([][]geom.Vec3, len(cmap))
	for pc, m := range cmap {
		x[pc] = make([]geom.Vec3, len(m))
		for k, v := range m {
			x[pc][k] = c.base[v].Add(d)
		}
	}
	return x
}

// keptRegions returns the regions and influence maps g at the vertices
// kept, in that order.
func keptRegions(g *wrinkle.Regions, kept []int32) (*wrinkle.Regions, error) {
	if g == nil {
		return nil, errors.New("online: the database has no regions")
	}
	r := &wrinkle.Regions{Region: make([]uint8, len(kept)), Offsets: make([]int32, 1, len(kept)+1)}
	for i, v := range kept {
		r.Region[i] = g.Region[v]
		roles, w := g.Influences(int(v))
		r.Roles = append(r.Roles, roles...)
		r.W = append(r.W, w...)
		r.Offsets = append(r.Offsets, int32(len(r.Roles)))
	}
	return r, nil
}

// apply moves the coarse positions x (pose p) by y_P − c_P at each coarse
// vertex, fine the synthesized fine garment of p.
func (c *poseCal) apply(p skel.Pose, fine, x []geom.Vec3) error {
	if _, err := c.synth.Synthesize(p, c.x); err != nil {
		return err
	}
	for i := range x {
		x[i] = x[i].Add(fine[c.kept[i]].Sub(c.x[i]))
	}
	return nil
}

func (c *poseCal) close() { c.synth.Close() }

// CoarseSettler settles the coarse garment this package simulates for a
// database's garment, as the database builder records it
// (wrinkle.CoarseInput): in the rest pose, then, from there, in each
// sample's pose. It is safe for concurrent use.
type CoarseSettler struct {
	coarse *wrinkle.Coarse
	opt    wrinkle.CoarseOptions
	prep   *sim.Prepared
	cmap   [][]int32
	root   geom.Vec3
	start  [][]geom.Vec3
	base   []geom.Vec3
}

// NewCoarseSettler decimates the fine garment (rest mesh, skin weights w,
// pieces named by name split at "+") as New does with Options.Coarse
// opt (Verts 0: DefaultCoarseVerts), prepares its simulator from the
// database's recorded settings (wrinkle.Header.Settings) as New does,
// and settles it in the rest pose.
func NewCoarseSettler(ctx context.Context, ch *character.Character, name string, fine *mesh.Mesh, w skel.Weights, settings json.RawMessage, opt wrinkle.CoarseOptions) (*CoarseSettler, error) {
	rec, err := settingsSim(settings)
	if err != nil {
		return nil, err
	}
	if opt.Verts == 0 {
		opt.Verts = wrinkle.DefaultCoarseVerts
	}
	coarse, err := wrinkle.NewCoarse(fine, w, opt)
	if err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	so := coarseSimOptions(rec, 30, 1)
	so.Root = rec.Root
	prep, err := sim.Prepare(ch, coarseGarments(coarse, splitNames(name, len(coarse.Pieces))), so)
	if err != nil {
		return nil, fmt.Errorf("online: coarse simulation: %w", err)
	}
	cmap, err := coarseMap(prep.Pieces(), coarse)
	if err != nil {
		return nil, err
	}
	c := &CoarseSettler{coarse: coarse, opt: opt, prep: prep, cmap: cmap, root: rec.Root}
	rest := skel.RestPose(ch.Skeleton)
	s, err := prep.New()
	if err != nil {
		return nil, fmt.Errorf("online: coarse simulation: %w", err)
	}
	defer s.Close()
	var fr sim.Frame
	if _, err := s.SettleTo(ctx, c.posed(rest), sim.SettleOptions{Transition: 1e-9}, &fr); err != nil {
		return nil, fmt.Errorf("online: coarse garment in the rest pose: %w", err)
	}
	c.start = fr.X
	c.base = c.gather(fr.X)
	return c, nil
}

// posed returns p with its root where the simulator's rest pose is.
func (c *CoarseSettler) posed(p skel.Pose) skel.Pose {
	p.Root = c.root
	return p
}

// gather returns the pieces' positions x in the coarse garment's order.
func (c *CoarseSettler) gather(x [][]geom.Vec3) []geom.Vec3 {
	out := make([]geom.Vec3, len(c.coarse.Kept))
	for pc, xs := range x {
		for k, v := range c.cmap[pc] {
			out[v] = xs[k]
		}
	}
	return out
}

// Input returns what the builder records: the coarse options, the kept
// vertices and the rest settle.
func (c *CoarseSettler) Input() *wrinkle.CoarseInput {
	return &wrinkle.CoarseInput{Options: c.opt, Kept: c.coarse.Kept, Base: c.base}
}

// Settle settles the coarse garment from its rest settle into pose (a
// sample's pose, as the builder settles the fine garment into it) and
// returns its positions in the coarse garment's order.
func (c *CoarseSettler) Settle(ctx context.Context, pose skel.Pose) ([]geom.Vec3, sim.SettleResult, error) {
	s, err := c.prep.New()
	if err != nil {
		return nil, sim.SettleResult{}, fmt.Errorf("online: coarse simulation: %w", err)
	}
	defer s.Close()
	if err := s.StartFrom(c.start); err != nil {
		return nil, sim.SettleResult{}, fmt.Errorf("online: coarse simulation: %w", err)
	}
	var fr sim.Frame
	res, err := s.SettleTo(ctx, pose, sim.SettleOptions{}, &fr)
	if err != nil {
		return nil, res, fmt.Errorf("online: coarse garment: %w", err)
	}
	return c.gather(fr.X), res, nil
}

// splitNames returns the pieces' names: name split at "+", or piece0,
// piece1, ... when that does not give n names.
func splitNames(name string, n int) []string {
	names := strings.Split(name, "+")
	if len(names) == n {
		return names
	}
	names = names[:0]
	for i := range n {
		names = append(names, fmt.Sprintf("piece%d", i))
	}
	return names
}
