package build

import (
	"context"
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// DefaultCoarseRatio is the ratio of the samples' vertex count to that of
// the coarse refinement each sample settles on first (Options.Coarse 0
// or CoarseAuto).
const DefaultCoarseRatio = 4

// DefaultCoarseMinVerts is the least Sim.TargetVerts for which a build
// settles its samples coarse-to-fine by default (Options.Coarse 0). On
// the MakeHuman suit at 25k vertices (coarse stage 6k) samples take 1.52
// times less CPU; at 6k, where the coarse stage is the 2k-vertex garment
// as given, 1.22 times more (the fine stage needs 20 frames or more). The
// threshold lies between the two measured counts.
const DefaultCoarseMinVerts = 16000

// CoarseAuto as Options.Coarse asks for a coarse stage of
// Sim.TargetVerts/DefaultCoarseRatio vertices whenever Sim.TargetVerts
// refines the garments.
const CoarseAuto = -1

// coarseVerts returns the target vertex count of the coarse stage opt
// asks for, 0 for none.
func coarseVerts(opt Options) int {
	switch {
	case opt.NoCoarse:
		return 0
	case opt.Coarse > 0:
		return opt.Coarse
	case opt.Coarse == CoarseAuto && opt.Sim.TargetVerts > 0,
		opt.Coarse == 0 && opt.Sim.TargetVerts >= DefaultCoarseMinVerts:
		return opt.Sim.TargetVerts / DefaultCoarseRatio
	}
	return 0
}

// coarseStage settles samples on a coarser refinement of the same garments
// first: most of a sample's frames go into the limb's move and into
// sliding the cloth over it, which a refinement with a quarter of the
// vertices does in about a quarter of the time; the fine garment then
// starts from that shape in the pose and only forms its own folds.
type coarseStage struct {
	prep  *sim.Prepared
	start [][]geom.Vec3 // the coarse garments settled in the rest pose
	verts int
	// maps[i][v] places fine piece i's vertex v on coarse piece i: a
	// triangle's corners and barycentric coordinates.
	maps [][]prolong
	// The pieces' skin weights, coarse and fine (own vertex order).
	cw, fw []skel.Weights
}

// prolong is a fine vertex's place on the coarse garment.
type prolong struct {
	tri  [3]int32
	bary [3]float64
}

// newCoarseStage prepares the coarse stage of b's samples with the garments
// refined to about verts vertices; it returns nil when that refinement
// is not at most half as fine as b's (nothing to gain).
func newCoarseStage(ctx context.Context, b *Builder, verts int) (*coarseStage, error) {
	opt := b.opt.Sim
	opt.TargetVerts = verts
	prep, err := sim.Prepare(b.ch, b.garments, opt)
	if err != nil {
		return nil, fmt.Errorf("build: coarse garment: %w", err)
	}
	cp, fp := prep.Pieces(), b.prep.Pieces()
	n := 0
	for _, p := range cp {
		n += len(p.Mesh.Verts)
	}
	if 2*n > b.verts {
		return nil, nil
	}
	if len(cp) != len(fp) {
		return nil, fmt.Errorf("build: coarse garment has %d pieces, the fine one %d", len(cp), len(fp))
	}
	c := &coarseStage{prep: prep, verts: n, maps: make([][]prolong, len(fp))}
	for i := range fp {
		c.cw, c.fw = append(c.cw, cp[i].Weights), append(c.fw, fp[i].Weights)
	}
	for i, f := range fp {
		if cp[i].Name != f.Name {
			return nil, fmt.Errorf("build: coarse piece %d is %s, the fine one %s", i, cp[i].Name, f.Name)
		}
		c.maps[i] = prolongMap(cp[i].Mesh, f.Mesh)
	}
	start, _, err := settleRest(ctx, prep, b.ch.Skeleton, b.opt)
	if err != nil {
		return nil, fmt.Errorf("build: coarse garment: %w", err)
	}
	c.start = start
	return c, nil
}

// prolongMap places each vertex of fine on coarse (both in the rest pose,
// refinements of the same source piece, so that every fine vertex lies on
// a coarse triangle): its closest coarse triangle and barycentric
// coordinates there.
func prolongMap(coarse, fine *mesh.Mesh) []prolong {
	bvh := mesh.NewBVH(coarse.Verts, coarse.Tris)
	out := make([]prolong, len(fine.Verts))
	for v, p := range fine.Verts {
		h := bvh.ClosestPoint(p)
		out[v] = prolong{tri: coarse.Tris[h.Tri], bary: h.Bary}
	}
	return out
}

// carry returns the fine garments' positions for coarse positions x in a
// pose skinned by skin (per piece, own vertex order), given both garments'
// rest settles (fine, and c.start): each fine vertex is its rest settle
// skinned into the pose, moved by the coarse garment's displacement from
// its own skinned rest settle, interpolated at the vertex's barycentric
// place in its coarse triangle:
//
//	x_f = LBS_f(s_f) + Σ_k b_k (x_c[k] − LBS_c(s_c[k])).
//
// Where the cloth follows the body, the displacement field is smooth and
// the skinned fine rest shape keeps the fine vertices on the body's curve
// (interpolated positions alone lie on the coarse triangles' chords, up to
// 5 mm inside the body at 6k vertices); where the cloth slid or folded,
// it is the coarse shape, piecewise linear, which cannot tangle.
func (c *coarseStage) carry(x [][]geom.Vec3, skin []geom.Rigid, fine [][]geom.Vec3) [][]geom.Vec3 {
	out := make([][]geom.Vec3, len(c.maps))
	for i, m := range c.maps {
		d := skel.LBS(c.start[i], c.cw[i], skin, nil)
		for v, p := range x[i] {
			d[v] = p.Sub(d[v])
		}
		out[i] = skel.LBS(fine[i], c.fw[i], skin, nil)
		for v, p := range m {
			a, b, e := d[p.tri[0]], d[p.tri[1]], d[p.tri[2]]
			out[i][v] = out[i][v].Add(a.Scale(p.bary[0])).Add(b.Scale(p.bary[1])).Add(e.Scale(p.bary[2]))
		}
	}
	return out
}

// settle settles a fresh coarse simulator, started from the coarse rest
// settle, into pose and returns its positions per piece (own vertex
// order).
func (c *coarseStage) settle(ctx context.Context, pose skel.Pose, opt sim.SettleOptions) ([][]geom.Vec3, sim.SettleResult, error) {
	sm, err := c.prep.New()
	if err != nil {
		return nil, sim.SettleResult{}, err
	}
	defer sm.Close()
	if err := sm.StartFrom(c.start); err != nil {
		return nil, sim.SettleResult{}, err
	}
	var fr sim.Frame
	sr, err := sm.SettleTo(ctx, pose, opt, &fr)
	if err != nil {
		return nil, sr, err
	}
	for i, x := range fr.X {
		for v, p := range x {
			if !p.IsFinite() {
				return nil, sr, fmt.Errorf("piece %d vertex %d is not finite: the cloth exploded", i, v)
			}
		}
	}
	return fr.X, sr, nil
}
