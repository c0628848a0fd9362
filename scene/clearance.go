package scene

import (
	"fmt"
	"math"
	"strings"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// DefaultArmClearance is the default distance (m) kept between the skin of
// the forearms and hands and the skin of the torso and legs (Spec.ArmClearance).
// Two layers of clothing fit in it: a sleeve and the trousers, each with the
// simulator's 3 mm safety distance and its own thickness of ease.
const DefaultArmClearance = 0.02

// armMaxAngle is the largest shoulder abduction (radians) the clearance pass
// applies.
const armMaxAngle = 30 * math.Pi / 180

// armSamples caps the skin vertices tested per arm and pose.
const armSamples = 400

// UpperArmClearance is the largest distance (m) ClearArms keeps between the
// skin of the lower part of the upper arm (from upperArmFrom of the way from
// the shoulder to the elbow) and the torso. Linear blend skinning folds the
// upper arm into the side of the chest whenever the arm hangs close to the
// body (the CMU walk on the MakeHuman body: up to 19 mm inside), and a
// sleeve caught there sinks into the body whatever the solver does: before
// this, sleeve vertices at the armpit were most of the cloth vertices more
// than 2 mm inside the body (61 of 78 vertex-frames on the MakeHuman walk).
// 5 mm took the coarse MakeHuman walk from 0.041–0.056 % to 0.002–0.004 %
// of vertex-frames more than 2 mm inside (4 runs each) for up to 17.8° of
// abduction (7.5° without the upper arm); 8 mm gained nothing more, and
// testing from half-way down the upper arm only halved them.
const UpperArmClearance = 0.005

// upperArmFrom is the fraction of the shoulder–elbow distance from which
// the upper arm's skin is kept UpperArmClearance from the torso (nearer the
// shoulder the arm and torso skins meet at the armpit by construction).
const upperArmFrom = 0.4

// ArmClearanceReport says what ClearArms changed.
type ArmClearanceReport struct {
	// Frames is the number of frames in which an arm was moved.
	Frames int
	// MaxAngle is the largest abduction applied, radians.
	MaxAngle float64
	// WorstBefore and WorstAfter are the smallest signed distances (m;
	// negative inside) of the tested forearm and hand skin to the torso
	// and legs over the clip, before and after.
	WorstBefore, WorstAfter float64
	// UpperBefore and UpperAfter are the same for the tested upper-arm
	// skin (+Inf when the rig has none to test).
	UpperBefore, UpperAfter float64
}

// armSide is one arm of the rig: the upper-arm joint, the tested skin
// vertices (weighted mostly to the joints below it) and the lateral
// reference joint (the nearest ancestor shared with the other arm).
type armSide struct {
	joint   int
	verts   []int32
	upper   []int32 // tested upper-arm skin vertices
	center  int
	subtree []bool
}

// ClearArms abducts the shoulders, frame by frame, by the smallest angle
// that keeps the skin of the forearms and hands at least margin metres
// from the skin of the torso and legs, and the skin of the lower part of
// the upper arms at least min(margin, UpperArmClearance) from them. Mocap
// retargeted onto a body of other proportions often swings the hands
// through the hips and thighs (the CMU walk on the MakeHuman body: up to
// 1,000 hand and forearm vertices 35 mm inside the hips at every arm
// swing), and no garment can be simulated between two intersecting body
// parts: a sleeve cuff there is inside the body whatever the solver does.
//
// The upper-arm joints are found by name (CMU/Mixamo "LeftArm",
// MakeHuman "upperarm01.L", ...: a name containing "arm" but not "fore" or
// "lower", with a side); rigs without two of them are left alone (ok
// false). Each arm is rotated in world space about the shoulder joint,
// about the axis that swings the arm's direction towards the outward
// lateral direction, by the angle found by bisection in [0, 30°]; the
// angles are then dilated over ±0.1 s and smoothed over time so that the
// arm moves without pops.
func (s *Scene) ClearArms(margin float64) (rep ArmClearanceReport, ok bool, err error) {
	c, ok, err := newArmClearer(s, margin)
	if !ok || err != nil {
		return rep, false, err
	}
	rep.WorstBefore, rep.WorstAfter = math.Inf(1), math.Inf(1)
	rep.UpperBefore, rep.UpperAfter = math.Inf(1), math.Inf(1)
	angles := make([][2]float64, len(s.Clip.Poses))
	for f := range s.Clip.Poses {
		c.setFrame(s.Clip.Poses[f])
		for si := range c.sides {
			if angles[f][si], err = c.angle(f, si, &rep); err != nil {
				return rep, false, fmt.Errorf("scene: arm clearance: %w", err)
			}
		}
	}
	smoothAngles(angles, s.Clip.FPS)
	c.apply(angles, &rep)
	return rep, true, nil
}

// armClearer holds what ClearArms tests: the two arms with their tested
// skin, the torso and legs as an obstacle body, and the scratch of the
// pose being tried.
type armClearer struct {
	s                   *Scene
	sides               []armSide
	margin, upperMargin float64
	// body is the skin that no arm moves (torso, legs, head) at the frame
	// being tested, bodyX its positions, with the armpit skin of side
	// movedSide (−1: none) moved by that arm's last tried abduction.
	body      *collide.Body
	bodyX     []geom.Vec3
	moves     [2][]int32 // per side: the obstacle vertices its abduction moves
	movedSide int
	movedX    []geom.Vec3

	pose        skel.Pose
	skin, world []geom.Rigid
}

// armWeights classifies the skin by the arms' weights: per vertex and arm,
// the weight on the arm's subtree below the arm joint (arm), on the arm
// joint itself (joint), and whether any weight is on the arm (onArm: the
// vertex moves when the arm does); outside marks the vertices mostly
// bound to joints off both arms and their parents (the obstacle).
type armWeights struct {
	arm, joint [][2]float64
	onArm      [][2]bool
	outside    []bool
}

// newArmClearer prepares the clearance of s's arms; ok is false for a rig
// or body it does not apply to.
func newArmClearer(s *Scene, margin float64) (*armClearer, bool, error) {
	ch := s.Character
	sides := findArms(ch.Skeleton)
	if len(sides) != 2 {
		return nil, false, nil
	}
	nv := len(ch.Body.Verts)
	if ch.Weights.NumVerts() != nv {
		return nil, false, fmt.Errorf("scene: %d weight lists for %d body vertices", ch.Weights.NumVerts(), nv)
	}
	aw := classifyArms(ch.Skeleton, ch.Weights, sides, nv)
	if !pickTested(ch.Skeleton, ch.Body.Verts, aw, sides) {
		return nil, false, nil
	}
	var obst [][3]int32
	for _, t := range ch.Body.Tris {
		if aw.outside[t[0]] && aw.outside[t[1]] && aw.outside[t[2]] {
			obst = append(obst, t)
		}
	}
	if len(obst) == 0 {
		return nil, false, nil
	}
	body, err := collide.NewBody(&mesh.Mesh{Verts: ch.Body.Verts, Tris: obst})
	if err != nil {
		return nil, false, fmt.Errorf("scene: arm clearance: %w", err)
	}
	c := &armClearer{s: s, sides: sides, margin: margin, upperMargin: math.Min(margin, UpperArmClearance), body: body, movedSide: -1}
	// The obstacle vertices an abduction of each arm moves (some weight on
	// the arm: the side of the chest at the armpit).
	inObst := make([]bool, nv)
	for _, t := range obst {
		inObst[t[0]], inObst[t[1]], inObst[t[2]] = true, true, true
	}
	for v := 0; v < nv; v++ {
		for si := range sides {
			if inObst[v] && aw.onArm[v][si] {
				c.moves[si] = append(c.moves[si], int32(v))
			}
		}
	}
	return c, true, nil
}

// classifyArms computes the armWeights of a body of nv vertices.
func classifyArms(sk *skel.Skeleton, w skel.Weights, sides []armSide, nv int) armWeights {
	aw := armWeights{arm: make([][2]float64, nv), joint: make([][2]float64, nv), onArm: make([][2]bool, nv), outside: make([]bool, nv)}
	excl := make([]bool, sk.NumJoints())
	for _, a := range sides {
		for j, in := range a.subtree {
			if in {
				excl[j] = true
			}
		}
		if p := sk.Joints()[a.joint].Parent; p >= 0 {
			excl[p] = true
		}
	}
	for v := 0; v < nv; v++ {
		js, ws := w.Influences(v)
		inArm, out := [2]float64{}, 0.0
		for k, j := range js {
			for si, a := range sides {
				switch {
				case int(j) == a.joint:
					aw.joint[v][si] += float64(ws[k])
					aw.onArm[v][si] = true
				case a.subtree[j]:
					inArm[si] += float64(ws[k])
					aw.onArm[v][si] = true
				}
			}
			if !excl[j] {
				out += float64(ws[k])
			}
		}
		aw.arm[v] = inArm
		aw.outside[v] = out >= 0.5
	}
	return aw
}

// pickTested fills each side's tested vertices: forearm and hand skin
// (mostly weighted below the arm joint) and the upper arm's skin from
// upperArmFrom of the way to the elbow, each thinned to armSamples. It
// returns false when an arm has no forearm or hand skin.
func pickTested(sk *skel.Skeleton, verts []geom.Vec3, aw armWeights, sides []armSide) bool {
	rest := sk.RestWorld()
	for si := range sides {
		a := &sides[si]
		var all, upper []int32
		// The elbow: the child of the arm joint farthest from it.
		sh, elbow := rest[a.joint].T, rest[a.joint].T
		for j, jt := range sk.Joints() {
			if jt.Parent == a.joint && rest[j].T.Dist(sh) > elbow.Dist(sh) {
				elbow = rest[j].T
			}
		}
		axis := elbow.Sub(sh)
		l2 := axis.Len2()
		for v := range verts {
			if aw.arm[v][si] >= 0.5 {
				all = append(all, int32(v))
				continue
			}
			if l2 > 0 && aw.joint[v][si] >= 0.5 && verts[v].Sub(sh).Dot(axis) >= upperArmFrom*l2 {
				upper = append(upper, int32(v))
			}
		}
		a.verts, a.upper = thin(all), thin(upper)
		if len(a.verts) == 0 {
			return false
		}
	}
	return true
}

// thin keeps at most about armSamples of all, evenly strided.
func thin(all []int32) []int32 {
	var out []int32
	stride := max(1, (len(all)+armSamples-1)/armSamples)
	for k := 0; k < len(all); k += stride {
		out = append(out, all[k])
	}
	return out
}

// setFrame skins the obstacle into pose p, with no arm's abduction tried.
func (c *armClearer) setFrame(p skel.Pose) {
	ch := c.s.Character
	c.bodyX = skel.LBS(ch.Body.Verts, ch.Weights, skel.SkinMatrices(ch.Skeleton, p, c.skin), c.bodyX)
	c.body.SetFrame(c.bodyX)
	c.body.Update(0)
	c.movedSide = -1
}

// worst returns the smallest signed distances to the obstacle of arm a's
// tested vertices (forearm and hand, upper arm) at positions at(v).
func (c *armClearer) worst(a armSide, at func(v int32) geom.Vec3) (fore, upper float64) {
	fore, upper = math.Inf(1), math.Inf(1)
	for _, v := range a.verts {
		if con, ok := c.body.Query(at(v), c.margin+0.05); ok {
			fore = math.Min(fore, con.Dist)
		}
	}
	for _, v := range a.upper {
		if con, ok := c.body.Query(at(v), c.upperMargin+0.05); ok {
			upper = math.Min(upper, con.Dist)
		}
	}
	return fore, upper
}

// restore puts the armpit skin that the other side's abduction moved back
// to bodyX before side si tries its own.
func (c *armClearer) restore(si int) error {
	if c.movedSide < 0 || c.movedSide == si {
		return nil
	}
	ms := c.movedSide
	c.movedX = c.movedX[:0]
	for _, v := range c.moves[ms] {
		c.movedX = append(c.movedX, c.bodyX[v])
	}
	c.movedSide = -1
	return c.body.MoveVerts(c.moves[ms], c.movedX)
}

// slack returns how far side si's tested vertices are beyond their margins
// (negative: closer) at frame f with that arm rotated by angle a, and the
// two distances.
func (c *armClearer) slack(f, si int, a float64) (sl, fore, upper float64, err error) {
	ch := c.s.Character
	sk := ch.Skeleton
	p := c.s.Clip.Poses[f]
	c.pose.Root = p.Root
	c.pose.Rot = append(c.pose.Rot[:0], p.Rot...)
	c.world = skel.FK(sk, p, c.world)
	abduct(sk, &c.pose, c.world, c.sides[si], a)
	c.skin = skel.SkinMatrices(sk, c.pose, c.skin)
	// The torso skin that follows the arm (some weight on it, at the
	// armpit) moves with it; the other arm's armpit goes back.
	if err := c.restore(si); err != nil {
		return 0, 0, 0, err
	}
	c.movedX = c.movedX[:0]
	for _, v := range c.moves[si] {
		c.movedX = append(c.movedX, lbs1(ch.Body.Verts[v], ch.Weights, int(v), c.skin))
	}
	if err := c.body.MoveVerts(c.moves[si], c.movedX); err != nil {
		return 0, 0, 0, err
	}
	c.movedSide = si
	fore, upper = c.worst(c.sides[si], func(v int32) geom.Vec3 { return lbs1(ch.Body.Verts[v], ch.Weights, int(v), c.skin) })
	return math.Min(fore-c.margin, upper-c.upperMargin), fore, upper, nil
}

// angle returns the smallest abduction of side si at frame f (set by
// setFrame) that keeps its margins, by bisection in [0, armMaxAngle] to
// about 0.23°, and armMaxAngle when even that does not; it records the
// distances before in rep.
func (c *armClearer) angle(f, si int, rep *ArmClearanceReport) (float64, error) {
	s0, fore, upper, err := c.slack(f, si, 0)
	if err != nil {
		return 0, err
	}
	rep.WorstBefore = math.Min(rep.WorstBefore, fore)
	rep.UpperBefore = math.Min(rep.UpperBefore, upper)
	if s0 >= 0 {
		return 0, nil
	}
	s1, _, _, err := c.slack(f, si, armMaxAngle)
	if err != nil || s1 < 0 {
		return armMaxAngle, err
	}
	lo, hi := 0.0, armMaxAngle
	for it := 0; it < 7; it++ { // 30°/2⁷ ≈ 0.23°
		mid := (lo + hi) / 2
		sm, _, _, err := c.slack(f, si, mid)
		if err != nil {
			return 0, err
		}
		if sm >= 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// apply abducts the clip's arms by angles and records the result in rep:
// the frames moved, the largest angle and the distances after.
func (c *armClearer) apply(angles [][2]float64, rep *ArmClearanceReport) {
	sk := c.s.Character.Skeleton
	for f := range c.s.Clip.Poses {
		p := &c.s.Clip.Poses[f]
		moved := false
		for si := range c.sides {
			a := angles[f][si]
			if a <= 0 {
				continue
			}
			moved = true
			rep.MaxAngle = math.Max(rep.MaxAngle, a)
			c.world = skel.FK(sk, *p, c.world)
			abduct(sk, p, c.world, c.sides[si], a)
		}
		if moved {
			rep.Frames++
		}
		c.setFrame(*p)
		for si := range c.sides {
			fore, upper := c.worst(c.sides[si], func(v int32) geom.Vec3 { return c.bodyX[v] })
			rep.WorstAfter = math.Min(rep.WorstAfter, fore)
			rep.UpperAfter = math.Min(rep.UpperAfter, upper)
		}
	}
}

// abduct rotates arm a of pose p (whose world transforms are world) by
// angle about the shoulder, in the plane of the arm's direction and the
// outward lateral direction.
func abduct(sk *skel.Skeleton, p *skel.Pose, world []geom.Rigid, a armSide, angle float64) {
	if angle == 0 {
		return
	}
	j := a.joint
	sh := world[j].T
	// Arm direction: shoulder to the end of the chain below it.
	tip := sh
	for k := range sk.Joints() {
		if a.subtree[k] && world[k].T.Dist(sh) > tip.Dist(sh) {
			tip = world[k].T
		}
	}
	d := tip.Sub(sh)
	out := sh.Sub(world[a.center].T)
	axis := d.Cross(out)
	if axis.Len() < 1e-9 {
		return
	}
	q := geom.QuatAxisAngle(axis.Unit(), angle)
	jt := sk.Joints()[j]
	g := jt.Rest.R
	if jt.Parent >= 0 {
		g = world[jt.Parent].R.Mul(g)
	}
	p.Rot[j] = g.Conj().Mul(q).Mul(g).Mul(p.Rot[j]).Normalize()
}

// lbs1 skins one vertex.
func lbs1(x geom.Vec3, w skel.Weights, v int, skin []geom.Rigid) geom.Vec3 {
	js, ws := w.Influences(v)
	var out geom.Vec3
	for k, j := range js {
		out = out.AddScaled(float64(ws[k]), skin[j].Apply(x))
	}
	return out
}

// smoothAngles dilates each arm's angles over ±0.1 s (a running maximum)
// and smooths them with a Gaussian of σ = 0.05 s, in place.
func smoothAngles(a [][2]float64, fps float64) {
	n := len(a)
	if n == 0 || !(fps > 0) {
		return
	}
	r := int(math.Round(0.1 * fps))
	sig := 0.05 * fps
	kr := int(math.Ceil(3 * sig))
	tmp := make([]float64, n)
	for si := 0; si < 2; si++ {
		for f := 0; f < n; f++ {
			m := 0.0
			for g := max(0, f-r); g <= min(n-1, f+r); g++ {
				m = math.Max(m, a[g][si])
			}
			tmp[f] = m
		}
		for f := 0; f < n; f++ {
			if sig < 0.5 {
				a[f][si] = tmp[f]
				continue
			}
			sum, ws := 0.0, 0.0
			for g := max(0, f-kr); g <= min(n-1, f+kr); g++ {
				w := math.Exp(-float64((g-f)*(g-f)) / (2 * sig * sig))
				sum += w * tmp[g]
				ws += w
			}
			a[f][si] = sum / ws
		}
	}
}

// findArms returns the left and right upper-arm joints of sk, or nil.
func findArms(sk *skel.Skeleton) []armSide {
	js := sk.Joints()
	var left, right []int
	for j, jt := range js {
		n := strings.ToLower(jt.Name)
		if !strings.Contains(n, "arm") || strings.Contains(n, "fore") || strings.Contains(n, "lower") {
			continue
		}
		switch {
		case strings.Contains(n, "left") || strings.HasSuffix(n, ".l") || strings.HasSuffix(n, "_l") || strings.HasPrefix(n, "l_"):
			left = append(left, j)
		case strings.Contains(n, "right") || strings.HasSuffix(n, ".r") || strings.HasSuffix(n, "_r") || strings.HasPrefix(n, "r_"):
			right = append(right, j)
		}
	}
	top := func(c []int) int {
		// The candidate none of whose ancestors is a candidate.
		for _, j := range c {
			anc := false
			for p := js[j].Parent; p >= 0; p = js[p].Parent {
				for _, k := range c {
					if k == p {
						anc = true
					}
				}
			}
			if !anc {
				return j
			}
		}
		return -1
	}
	l, r := top(left), top(right)
	if l < 0 || r < 0 {
		return nil
	}
	// Nearest common ancestor.
	anc := map[int]bool{}
	for p := l; p >= 0; p = js[p].Parent {
		anc[p] = true
	}
	center := -1
	for p := r; p >= 0; p = js[p].Parent {
		if anc[p] {
			center = p
			break
		}
	}
	if center < 0 {
		return nil
	}
	mk := func(j int) armSide {
		sub := make([]bool, len(js))
		sub[j] = true
		for k := j + 1; k < len(js); k++ {
			if p := js[k].Parent; p >= 0 && sub[p] {
				sub[k] = true
			}
		}
		return armSide{joint: j, center: center, subtree: sub}
	}
	return []armSide{mk(l), mk(r)}
}
