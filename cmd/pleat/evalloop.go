package main

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/metrics"
	"github.com/pleat-dev/pleat/report"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/online"
)

// evalFrames keeps, for pleat eval's and the demo's renders and glTF
// files, what the evaluation computes and would otherwise drop.
type evalFrames struct {
	shown []int // rendered frames: first, middle, last
	// synth is the result and coarse the coarse simulation
	// (Pipeline.Coarse().Mesh's vertices), every frame (the animations);
	// embedded the fine garment on the coarse simulation and skin the
	// skinning baseline at the shown frames (the renders).
	synth, coarse  [][]geom.Vec3
	embedded, skin map[int][]geom.Vec3
}

func newEvalFrames(n int) *evalFrames {
	return &evalFrames{shown: []int{0, n / 2, n - 1}, embedded: map[int][]geom.Vec3{}, skin: map[int][]geom.Vec3{}}
}

// evalLoop steps the pipeline through the clip and measures, per frame,
// every method of evalMethods and diagMethods against the reference
// frames (curvature sum, per-vertex error, by garment region) and the
// result's penetration of the body. With keep it also keeps the frames
// keep holds.
func evalLoop(ctx context.Context, cmd *cobra.Command, db *wrinkle.DB, s *scene.Scene, p *online.Pipeline, refFrames [][]geom.Vec3, keep *evalFrames) (*evalRun, error) {
	n, nv := len(refFrames), p.NumVerts()
	if n != len(s.Clip.Poses) || n == 0 || len(refFrames[0]) != nv {
		return nil, fmt.Errorf("the reference simulation has %d frames of %d vertices, the clip %d frames and the database's garment %d vertices",
			n, len(refFrames[0]), len(s.Clip.Poses), nv)
	}
	ev := &evalRun{nf: nv, curv: make([][]float64, len(evalMethods)), err: make([][]metrics.Error, len(evalMethods)),
		diag: make([][]metrics.Error, len(diagMethods)), diagCurv: make([][]float64, len(diagMethods))}
	kept := p.Coarse().Kept
	var fineReg, coarseReg []uint8
	if db.Regions != nil && len(db.Regions.Region) == nv {
		fineReg = db.Regions.Region
		coarseReg = make([]uint8, len(kept))
		for i, u := range kept {
			coarseReg[i] = fineReg[u]
		}
	}
	cf, err := newCurvMeter(p.Mesh(), fineReg)
	if err != nil {
		return nil, err
	}
	cc, err := newCurvMeter(p.Coarse().Mesh, coarseReg)
	if err != nil {
		return nil, err
	}
	body, err := collide.NewBody(s.Character.Body)
	if err != nil {
		return nil, err
	}
	x, skinX := make([]geom.Vec3, nv), make([]geom.Vec3, nv)
	emb := make([]geom.Vec3, nv)
	refC := make([]geom.Vec3, len(kept))
	diagX := [][]geom.Vec3{make([]geom.Vec3, nv), make([]geom.Vec3, nv)}
	var skin []geom.Rigid
	var bodyX []geom.Vec3
	hint := make([]int32, nv)
	for i := range hint {
		hint[i] = -1
	}
	bar := newBar(cmd.ErrOrStderr(), n, "synthesis")
	defer bar.Finish()
	for fr := 0; fr < n; fr++ {
		pose := s.Clip.Poses[fr]
		if fr+1 < n {
			p.Ahead(s.Clip.Poses[fr+1])
		}
		if keep != nil {
			x = make([]geom.Vec3, nv)
		}
		st, err := p.Step(ctx, pose, x)
		if err != nil {
			return nil, err
		}
		ev.stats = append(ev.stats, st)
		if err := p.Transfer().Embed(p.CoarsePositions(), emb); err != nil {
			return nil, err
		}
		skin = skel.SkinMatrices(s.Character.Skeleton, pose, skin)
		skinX = skel.LBS(db.Rest, db.Weights, skin, skinX)
		if keep != nil {
			keep.synth = append(keep.synth, x)
			keep.coarse = append(keep.coarse, slices.Clone(p.CoarsePositions()))
			if slices.Contains(keep.shown, fr) {
				keep.embedded[fr], keep.skin[fr] = slices.Clone(emb), slices.Clone(skinX)
			}
		}
		fines := [][]geom.Vec3{refFrames[fr], x, p.SynthPositions(), emb, skinX}
		if err := ev.measure(fr, fines, p.CoarsePositions(), refFrames[fr], cf, cc); err != nil {
			return nil, err
		}
		for i, u := range kept {
			refC[i] = refFrames[fr][u]
		}
		if err := p.TransferOnto(refC, diagX[0]); err != nil {
			return nil, err
		}
		if err := p.Transfer().Embed(refC, diagX[1]); err != nil {
			return nil, err
		}
		for d, xs := range diagX {
			e, err := metrics.FrameError(xs, refFrames[fr])
			if err != nil {
				return nil, fmt.Errorf("frame %d: %s: error: %w", fr, diagMethods[d], err)
			}
			ev.diag[d] = append(ev.diag[d], e)
			c, sums, err := cf.sum(xs)
			if err != nil {
				return nil, fmt.Errorf("frame %d: %s: curvature: %w", fr, diagMethods[d], err)
			}
			ev.diagCurv[d] = append(ev.diagCurv[d], c)
			ev.addRegionCurv(len(evalMethods)+d, sums)
		}
		if fineReg != nil {
			ev.addRegionErrors(fineReg, refFrames[fr], append(fines, diagX...))
		}
		bodyX = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, bodyX)
		body.SetFrame(bodyX)
		ps := collide.Penetrations(x, body, 0, hint)
		ev.in += ps.Inside
		ev.deep += ps.Deep
		ev.maxIn = math.Max(ev.maxIn, ps.MaxDepth)
		_ = bar.Set(fr + 1)
	}
	return ev, nil
}

// measure adds frame fr's curvature sum and error against ref of every
// method (fines in evalMethods order; the coarse method's curvature is
// the coarse mesh's, at coarse).
func (ev *evalRun) measure(fr int, fines [][]geom.Vec3, coarse, ref []geom.Vec3, cf, cc *curvMeter) error {
	for m, xs := range fines {
		var c float64
		var sums []float64
		var err error
		if evalMethods[m] == "coarse" {
			c, sums, err = cc.sum(coarse)
		} else {
			c, sums, err = cf.sum(xs)
		}
		if err != nil {
			return fmt.Errorf("frame %d: %s: curvature: %w", fr, evalMethods[m], err)
		}
		ev.addRegionCurv(m, sums)
		e, err := metrics.FrameError(xs, ref)
		if err != nil {
			return fmt.Errorf("frame %d: %s: error: %w", fr, evalMethods[m], err)
		}
		ev.curv[m] = append(ev.curv[m], c)
		ev.err[m] = append(ev.err[m], e)
	}
	return nil
}

// namedFrames is one method's garment positions by frame, for renders.
type namedFrames struct {
	name string
	at   func(f int) []geom.Vec3
}

// addRenders adds to rep every method rendered at each shown frame and,
// at the middle one, coloured by mean curvature (red convex, blue
// concave) on the first method's scale, so wrinkles show as bands whose
// strength compares across methods. garments is the merged garment mesh
// with a group per piece.
func addRenders(rep *report.Report, s *scene.Scene, garments *mesh.Mesh, shown []int, sets []namedFrames) error {
	rep.Heading("Renders")
	for _, f := range shown {
		var cells []report.Cell
		for _, c := range sets {
			img, err := renderGarments(s, garments, c.at(f), f, nil)
			if err != nil {
				return err
			}
			cells = append(cells, report.Cell{Caption: c.name, Image: img})
		}
		if err := rep.Grid(fmt.Sprintf("frame %d", f), cells); err != nil {
			return err
		}
	}
	top, err := mesh.NewTopology(garments)
	if err != nil {
		return err
	}
	f := shown[len(shown)/2]
	scale := 0.0
	var cells []report.Cell
	for _, c := range sets {
		var heat []color.NRGBA
		heat, scale = curvatureHeat(garments, top, c.at(f), scale)
		img, err := renderGarments(s, garments, c.at(f), f, heat)
		if err != nil {
			return err
		}
		cells = append(cells, report.Cell{Caption: c.name, Image: img})
	}
	return rep.Grid(fmt.Sprintf("frame %d, mean curvature (red convex, blue concave; ±%.0f 1/m)", f, scale), cells)
}
