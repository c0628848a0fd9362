package online

import (
	"context"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// calibration removes the coarse simulation's bias against the fine one.
//
// The coarse garment does not hang where the fine garment does. Both
// start from the same rest shape, but settled in the rest pose the two
// decimated MakeHuman suits' trousers come to rest 6 to 9 mm further down
// the legs than the database's fine rest settle (wrinkle.DB.Base), and
// their shirts 1 to 3 mm higher. The coarse simulation keeps that offset
// through a clip: on the CMU kick, male_casualsuit04's coarse trousers are
// 11 to 14 mm below the reference at the knees on average over the clip.
// It is not stretch: a tighter strain limit leaves it as it is, and a
// coarse rest shape raised by it only sinks further. A likely cause is
// that a coarse triangle spans the curve of the hips and thighs as a
// chord, through the body, where the fine cloth wraps around it, so that
// the coarse cloth slides further before friction holds it.
//
// So New settles a fresh coarse simulator in the rest pose, as the
// database builder settled the fine garment, and keeps per coarse vertex i
// the offset d_i = Base(i) − X_i from where it came to rest to where the
// fine rest settle has that vertex, in the rest frame. Every Step moves
// the coarse positions by the offset skinned with the vertex's weights,
// (Σ_j w_ij R_j) d_i (the linear part of linear blend skinning), before
// the transfer. The simulator itself runs as before: the offset is a
// static correction of its output, like the offsets of the detail
// transfer (§3.4).
type calibration struct {
	rest  []geom.Vec3 // the coarse rest shape
	moved []geom.Vec3 // rest + d
	a, b  []geom.Vec3 // skinned rest and moved (buffers)
}

// calibrate settles a coarse simulator in the rest pose and returns the
// calibration against the database's rest settle, or nil when the
// database has none.
func (p *Pipeline) calibrate() (*calibration, error) {
	base := p.db.Base
	if len(base) != len(p.fine.Verts) {
		p.calNotes = append(p.calNotes, "calibration: the database has no rest settle; the coarse simulation is not corrected")
		return nil, nil
	}
	// The builder settled Base with the rest pose at its simulator's Root.
	rec, err := recordedSim(p.db)
	if err != nil {
		return nil, err
	}
	s, cmap, err := p.newSim(rec.Root)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	opt := p.opt.Settle
	opt.Transition = 1e-9 // the pose does not change
	var fr sim.Frame
	rest := skel.RestPose(p.ch.Skeleton)
	rest.Root = rec.Root
	res, err := s.SettleTo(context.Background(), rest, opt, &fr)
	if err != nil {
		return nil, fmt.Errorf("online: calibration: settling the coarse garment in the rest pose: %w", err)
	}
	n := len(p.coarse.Mesh.Verts)
	c := &calibration{rest: p.coarse.Mesh.Verts, moved: make([]geom.Vec3, n), a: make([]geom.Vec3, n), b: make([]geom.Vec3, n)}
	var sum, worst float64
	for pc, xs := range fr.X {
		for k, v := range cmap[pc] {
			d := base[p.coarse.Kept[v]].Sub(xs[k])
			c.moved[v] = c.rest[v].Add(d)
			l := d.Len()
			sum += l
			worst = math.Max(worst, l)
		}
	}
	state := "at rest"
	if !res.Converged {
		state = "not at rest"
	}
	p.calNotes = append(p.calNotes, fmt.Sprintf("calibration: the coarse garment settled in the rest pose (%s after %d frames) is moved onto the database's rest settle by %.1f mm on average, at most %.1f mm",
		state, res.Frames, 1000*sum/float64(n), 1000*worst))
	return c, nil
}

// apply adds to the coarse positions x their offsets skinned with weights
// w and transforms skin.
func (c *calibration) apply(w skel.Weights, skin []geom.Rigid, x []geom.Vec3) {
	c.a = skel.LBS(c.rest, w, skin, c.a)
	c.b = skel.LBS(c.moved, w, skin, c.b)
	for i := range x {
		x[i] = x[i].Add(c.b[i].Sub(c.a[i]))
	}
}
