package build

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// FineStageMargin (m) is how far past the vertices a role's samples
// store the fine stage simulates the garment (Options.FullFineStage).
// The margin is counted in rings of triangles, as many as the fine
// garment's median edge takes to cover it.
const FineStageMargin = 0.025

// subStage is the fine stage's garment for one role: the vertices its
// samples store (wrinkle.Build.StoredVerts: those the role's influence
// map reaches, the only ones synthesis reads) and FineStageMargin around
// them. The rest of the garment is left out of the fine stage: its cut is
// held where the coarse stage put it, and the sample takes the coarse
// stage's shape there (it is not stored). On the MakeHuman suit at 25k
// vertices the roles store 8 % (elbows) to 39 % (spine) of the vertices.
type subStage struct {
	once sync.Once
	prep *sim.Prepared // nil: the role stores no vertex
	maps []sim.SubPiece
	err  error
}

// fineRings returns the rings of triangles that make FineStageMargin on
// the fine garment (its median rest edge), at least one.
func (b *Builder) fineRings() int {
	var edges []float64
	for _, pc := range b.prep.Pieces() {
		for _, t := range pc.Mesh.Tris {
			for k := range 3 {
				edges = append(edges, pc.Mesh.Verts[t[k]].Dist(pc.Mesh.Verts[t[(k+1)%3]]))
			}
		}
	}
	if len(edges) == 0 {
		return 1
	}
	slices.Sort(edges)
	med := edges[len(edges)/2]
	if !(med > 0) {
		return 1
	}
	return max(1, int(math.Ceil(FineStageMargin/med)))
}

// subFor returns role r's fine-stage garment, made on first use.
func (b *Builder) subFor(r wrinkle.Role) *subStage {
	st := &b.subs[r]
	st.once.Do(func() {
		if len(b.build.StoredVerts(r)) == 0 {
			return // the role moves none of the garment: the whole fine stage
		}
		pieces := b.prep.Pieces()
		keep := make([][]bool, len(pieces))
		for i, pc := range pieces {
			keep[i] = make([]bool, len(pc.Mesh.Verts))
		}
		for _, v := range b.build.StoredVerts(r) {
			i := 0
			for i+1 < len(b.pieces) && int(v) >= b.pieces[i+1] {
				i++
			}
			keep[i][int(v)-b.pieces[i]] = true
		}
		for range b.fineRings() {
			for i, pc := range pieces {
				grow := make([]bool, len(keep[i]))
				for _, t := range pc.Mesh.Tris {
					if keep[i][t[0]] || keep[i][t[1]] || keep[i][t[2]] {
						grow[t[0]], grow[t[1]], grow[t[2]] = true, true, true
					}
				}
				keep[i] = grow
			}
		}
		st.prep, st.maps, st.err = b.prep.Sub(keep)
	})
	return st
}

// settlePart is settleSample's fine stage on the part st of the garment,
// from the coarse stage's shape from; t0 is when the sample started.
func (b *Builder) settlePart(ctx context.Context, s wrinkle.Sample, st *subStage, pose skel.Pose, settle sim.SettleOptions, from [][]geom.Vec3, res SampleResult, t0 time.Time) ([]geom.Vec3, SampleResult, error) {
	var x [][]geom.Vec3
	var sr sim.SettleResult
	err := st.err
	if err == nil {
		x, sr, err = b.settleSub(ctx, st, pose, settle, from)
	}
	res.Settle = time.Since(t0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, res, ctx.Err()
		}
		return nil, res, &SampleError{s, err}
	}
	return b.finishSample(s, x, sr, res)
}

// settleSub settles a role's part of the garment (st) in pose from the
// coarse stage's shape from, its cut held where from puts it, and returns the
// whole garment: from, with the part's settled positions.
func (b *Builder) settleSub(ctx context.Context, st *subStage, pose skel.Pose, settle sim.SettleOptions, from [][]geom.Vec3) ([][]geom.Vec3, sim.SettleResult, error) {
	sm, err := st.prep.New()
	if err != nil {
		return nil, sim.SettleResult{}, err
	}
	defer sm.Close()
	start := make([][]geom.Vec3, len(st.maps))
	posed := make([][]geom.Vec3, len(st.maps))
	for j, m := range st.maps {
		start[j] = make([]geom.Vec3, len(m.Verts))
		posed[j] = make([]geom.Vec3, len(m.Verts))
		for k, v := range m.Verts {
			start[j][k] = b.start[m.Piece][v]
			posed[j][k] = from[m.Piece][v]
		}
	}
	if err := sm.StartFrom(start); err != nil {
		return nil, sim.SettleResult{}, err
	}
	if err := sm.StartPosed(pose, posed); err != nil {
		return nil, sim.SettleResult{}, err
	}
	for j, m := range st.maps {
		if err := sm.Hold(j, m.Cut); err != nil {
			return nil, sim.SettleResult{}, err
		}
	}
	var fr sim.Frame
	sr, err := sm.SettleTo(ctx, pose, settle, &fr)
	if err != nil {
		return nil, sr, err
	}
	out := make([][]geom.Vec3, len(from))
	for i := range from {
		out[i] = append([]geom.Vec3(nil), from[i]...)
	}
	for j, m := range st.maps {
		for k, v := range m.Verts {
			out[m.Piece][v] = fr.X[j][k]
		}
	}
	return out, sr, nil
}
