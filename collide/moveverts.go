package collide

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// MoveVerts moves the vertices idx of a body at rest (SetFrame, then
// Update) to pos (pos[k] for idx[k]), at rest, refitting only the tree
// nodes over them (mesh.BVH.RefitVerts): positions and tree are exactly
// those of SetFrame with the whole moved frame and Update at the same time,
// at the cost of the moved vertices alone. It suits trying many small
// changes of one large body (an arm's abduction moving the skin of the
// armpit). The error names the vertex at fault, or says why the body is not
// at rest (interpolating two frames, following a cloth, sharing a group's
// fit, or not updated since SetFrame); the body is then unchanged.
func (b *Body) MoveVerts(idx []int32, pos []geom.Vec3) error {
	if len(idx) != len(pos) {
		return fmt.Errorf("collide: MoveVerts got %d vertex ids and %d positions", len(idx), len(pos))
	}
	switch {
	case b.follow != nil || b.snap != nil:
		return errors.New("collide: MoveVerts on a body that follows a cloth")
	case b.interp:
		return errors.New("collide: MoveVerts on a body moving between two frames (SetFrames)")
	case b.cur != nil || b.sharedFrames:
		return errors.New("collide: MoveVerts on a body sharing a group's frames")
	case !b.fresh.Load() || !b.fitted:
		return errors.New("collide: MoveVerts before Update placed the body")
	}
	for k, v := range idx {
		if v < 0 || int(v) >= len(b.own) {
			return fmt.Errorf("collide: MoveVerts vertex %d (entry %d) out of range [0,%d)", v, k, len(b.own))
		}
		if !pos[k].IsFinite() {
			return fmt.Errorf("collide: MoveVerts vertex %d (entry %d) to a position not finite", v, k)
		}
	}
	disp2 := 0.0
	for k, v := range idx {
		disp2 = max(disp2, pos[k].Dist2(b.x[v]))
		b.prev[v], b.next[v], b.x[v] = pos[k], pos[k], pos[k]
	}
	b.moved += math.Sqrt(disp2)
	b.bvh.RefitVerts(b.x, idx)
	return nil
}
