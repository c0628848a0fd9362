package motion

import (
	"errors"
	"fmt"
	"gonum.org/v1/gonum/mat"
	"math"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// GroundMode selects how Retarget places the character on the floor y = 0.
type GroundMode uint8

const (
	// GroundNone keeps the retargeted root height (source displacement
	// times the root scale, from the target's rest height).
	GroundNone GroundMode = iota
	// GroundClip shifts every frame by the same height so that the lowest
	// point over the whole clip touches y = 0 (keeps jumps).
	GroundClip
	// GroundFrame shifts each frame so that its own lowest point is at
	// y = 0 (feet glued to the floor; removes jumps).
	GroundFrame
)

// RetargetOptions configures Retarget. The zero value matches joints by
// their names as they are, scales the root displacement by the leg-length
// ratio and does not ground.
type RetargetOptions struct {
	// Names renames source joints before matching them to target joints
	// by name (e.g. CMUToMakeHuman()); nil keeps source names.
	Names NameMap
	// Strict makes Retarget fail with an *UnknownJointsError when a source
	// joint (other than an End Site joint, see EndSuffix) has no target
	// joint of the same (renamed) name. Unmatched target joints are always
	// allowed: they keep their rest pose relative to their parent.
	Strict bool
	// RootScale multiplies the source root displacement (dimensionless);
	// 0 means the leg-length ratio h_dst/h_src, where h is the rest height
	// of the root-driving joint (normally the hips) above the lowest foot
	// joint.
	RootScale float64
	// Feet names the target joints used for the leg length and for
	// grounding; nil means every matched target joint whose name contains
	// "foot" or "toe" (case-insensitive).
	Feet []string
	// Ground selects grounding (default GroundNone).
	Ground GroundMode
	// Sole is the height in metres of the foot joints above the lowest body
	// point (the sole of the shoe or foot) in the target's rest pose; the
	// lowest point of a frame is min over Feet of joint height − Sole.
	// Ignored when Lowest is set.
	Sole float64
	// Lowest, if non-nil, returns the height in metres of the lowest body
	// point of the target in pose p at frame f (for example the lowest
	// skinned vertex) and replaces the foot-joint estimate for grounding.
	// The pose passed has its final rotations and ungrounded Root.
	Lowest func(f int, p skel.Pose) float64
}

// Retarget maps src onto the skeleton dst, which may have a different rest
// pose, proportions, joint set and rest orientations (for example a CMU
// clip, rest = arms horizontal, onto a MakeHuman A-pose rig).
//
// Joints are matched by name after renaming src by opts.Names. All
// rotations below are world-space rotations from FK; W(rest) is a joint's
// world rest rotation and b(j) a rest bone direction: from joint j to its
// first matched descendant in depth-first order whose distance from j is
// non-zero in both skeletons (so zero-length CMU bones like Neck are
// skipped). For each matched target joint j with source joint s:
//
//	D_j = W_src_s(pose)·W_src_s(rest)⁻¹          world delta of the source joint
//	C_j = QuatBetween(b_dst(j), b_src(s))          rest bone alignment
//	W_dst_j(pose) = D_j·C_j·W_dst_j(rest)
//
// so the target bone points along D_j·b_src(s): the source bone's posed
// world direction. C_j is the smallest rotation between the two rest
// directions, so the target keeps its own rest twist about the bone.
// Joints without such a direction (leaves) use their parent's C. For a
// joint with several children only the first matched one is aligned; the
// others follow rigidly. Unmatched target joints keep their rest local
// rotation (Rot = identity) and follow their parent. Local rotations are
// then Rot_j = Rest.R_j⁻¹·W_dst_parent(pose)⁻¹·W_dst_j(pose).
//
// Root translation: the driving joint is the target's first root if it is
// matched, else the first matched target joint. Its world position is
// P_dst(rest) + k·(P_src(pose) − P_src(rest)), with k = opts.RootScale or
// the leg-length ratio; both skeletons are assumed to share world axes
// (+Y up, same facing). Grounding then shifts Root.Y (see GroundMode).
//
// The result has dst as skeleton and src's frame rate.
func Retarget(src *Clip, dst *skel.Skeleton, opts RetargetOptions) (*Clip, error) {
	if dst == nil {
		return nil, errors.New("motion: retarget: nil target skeleton")
	}
	if err := src.Validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(opts.RootScale) || math.IsInf(opts.RootScale, 0) || opts.RootScale < 0 ||
		math.IsNaN(opts.Sole) || math.IsInf(opts.Sole, 0) {
		return nil, fmt.Errorf("motion: retarget: bad RootScale %g or Sole %g", opts.RootScale, opts.Sole)
	}
	if opts.Ground > GroundFrame {
		return nil, fmt.Errorf("motion: retarget: unknown ground mode %d", opts.Ground)
	}
	r := &retargeter{src: src, ssk: src.Skeleton, dst: dst, opts: &opts}
	var err error
	if r.match, err = matchJoints(r.ssk, dst, opts); err != nil {
		return nil, err
	}
	r.srw, r.drw = r.ssk.RestWorld(), dst.RestWorld()
	r.findStructural()
	r.alignRest()
	if err := r.findDriveAndFeet(); err != nil {
		return nil, err
	}
	out := r.poses()
	r.ground(out)
	return out, nil
}

// retargeter holds what Retarget works out once for a clip and a target
// skeleton (see Retarget for the symbols).
type retargeter struct {
	src      *Clip
	ssk, dst *skel.Skeleton
	opts     *RetargetOptions

	match      []int // target joint -> source joint or -1
	srw, drw   []geom.Rigid
	structural []bool      // per target joint: keeps its own rest
	corr       []geom.Quat // per target joint: the rest alignment C_j
	drive      int         // the target joint whose position follows the source's
	sdrive     int         // its source joint
	feet       []int       // target foot joints (grounding, leg length)
	k          float64     // root translation scale
	lowest     []float64   // per frame: the lowest point before grounding, m
}

// matchJoints matches the target joints to src's by name after renaming
// src by opts.Names (End Site joints follow their parent) and returns,
// per target joint, its source joint or -1.
func matchJoints(ssk, dst *skel.Skeleton, opts RetargetOptions) ([]int, error) {
	ns, nt := ssk.NumJoints(), dst.NumJoints()
	names := make([]string, ns)
	for j := range ns {
		n := ssk.Joint(j).Name
		if isEndJoint(ssk, j) {
			p := ssk.Parent(j)
			names[j] = names[p] + strings.TrimPrefix(n, ssk.Joint(p).Name)
		} else if to, ok := opts.Names[n]; ok {
			names[j] = to
		} else {
			names[j] = n
		}
	}
	match := make([]int, nt)
	for t := range match {
		match[t] = -1
	}
	var unknown []string
	nmatch := 0
	for s, n := range names {
		t, ok := dst.Index(n)
		if !ok {
			if opts.Strict && !isEndJoint(ssk, s) {
				unknown = append(unknown, n)
			}
			continue
		}
		if match[t] >= 0 {
			return nil, fmt.Errorf("motion: retarget: source joints %q and %q both map to %q",
				ssk.Joint(match[t]).Name, ssk.Joint(s).Name, n)
		}
		match[t] = s
		nmatch++
	}
	if len(unknown) > 0 {
		return nil, &UnknownJointsError{Names: unknown, Where: "target rig"}
	}
	if nmatch == 0 {
		return nil, errors.New("motion: retarget: no joint names in common")
	}
	return match, nil
}

// findStructural marks the structural target joints: branch joints whose
// source rotation never changes over the clip (CMU's LHipJoint,
// RHipJoint, LeftShoulder, RightShoulder: children of the hips or the
// chest that the capture does not animate). The target keeps its own
// rest there (Rot = identity). Aligning them would rotate the target's
// own skeleton offsets (its pelvis width, its clavicles) onto the
// source's proportions, moving the hip sockets and shoulders and
// distorting the skin.
func (r *retargeter) findStructural() {
	animated := make([]bool, r.ssk.NumJoints())
	for s := range animated {
		for _, p := range r.src.Poses {
			if _, a := p.Rot[s].AxisAngle(); a > 1e-9 {
				animated[s] = true
				break
			}
		}
	}
	r.structural = make([]bool, r.dst.NumJoints())
	for t, s := range r.match {
		if p := r.dst.Parent(t); s >= 0 && !animated[s] && p >= 0 && len(r.dst.Children(p)) > 1 {
			r.structural[t] = true
		}
	}
}

// alignRest computes the rest alignments C_j: the rotation taking the
// target's rest bone directions onto the source's. A joint with one bone
// uses the smallest rotation between the two directions; a branching
// joint (hips, chest) the rotation that best fits all its branches
// (Kabsch), so that no single branch (one hip) decides the orientation of
// the others.
func (r *retargeter) alignRest() {
	dst, match, srw, drw := r.dst, r.match, r.srw, r.drw
	nt := dst.NumJoints()
	r.corr = make([]geom.Quat, nt)
	corr := r.corr
	const minBone = 1e-9 // metres
	for t := range nt {
		corr[t] = geom.QuatIdentity()
		if p := dst.Parent(t); p >= 0 {
			corr[t] = corr[p]
		}
		s := match[t]
		if s < 0 || r.structural[t] {
			continue
		}
		var bds, bss []geom.Vec3
		for _, c := range dst.Children(t) {
			ok := func(d int) bool {
				return drw[d].T.Dist(drw[t].T) > minBone && srw[match[d]].T.Dist(srw[s].T) > minBone
			}
			d := -1
			if match[c] >= 0 && ok(c) {
				d = c
			} else if dd, found := boneChild(dst, c, match, ok); found {
				d = dd
			}
			if d < 0 {
				continue
			}
			bds = append(bds, drw[d].T.Sub(drw[t].T).Unit())
			bss = append(bss, srw[match[d]].T.Sub(srw[s].T).Unit())
		}
		switch len(bds) {
		case 0:
		case 1:
			corr[t] = geom.QuatBetween(bds[0], bss[0])
		default:
			corr[t] = bestRotation(bds, bss)
		}
	}
}

// findDriveAndFeet picks the root driver and the foot joints and sets the
// root translation scale k (opts.RootScale, or the leg-length ratio).
func (r *retargeter) findDriveAndFeet() error {
	dst, match, opts := r.dst, r.match, r.opts
	nt := dst.NumJoints()
	r.drive = dst.Roots()[0]
	if match[r.drive] < 0 {
		for t := range nt {
			if match[t] >= 0 {
				r.drive = t
				break
			}
		}
	}
	r.sdrive = match[r.drive]
	if opts.Feet != nil {
		for _, n := range opts.Feet {
			t, ok := dst.Index(n)
			if !ok {
				return &UnknownJointsError{Names: []string{n}, Where: "target rig (Feet)"}
			}
			r.feet = append(r.feet, t)
		}
	} else {
		for t := range nt {
			n := strings.ToLower(dst.Joint(t).Name)
			if match[t] >= 0 && (strings.Contains(n, "foot") || strings.Contains(n, "toe")) {
				r.feet = append(r.feet, t)
			}
		}
	}
	r.k = opts.RootScale
	if r.k == 0 {
		ok := false
		for _, t := range r.feet {
			ok = ok || match[t] >= 0
		}
		var hs, ht float64
		if ok {
			hs, ht = legHeight(r.srw, r.sdrive, r.feet, match, true), legHeight(r.drw, r.drive, r.feet, match, false)
		}
		if !ok || !(hs > 1e-6) || !(ht > 1e-6) {
			return fmt.Errorf("motion: retarget: cannot compute the leg-length ratio (no matched foot joints below %q); set RootScale",
				dst.Joint(r.drive).Name)
		}
		r.k = ht / hs
	}
	if opts.Ground != GroundNone && opts.Lowest == nil && len(r.feet) == 0 {
		return errors.New("motion: retarget: grounding needs foot joints (Feet) or Lowest")
	}
	return nil
}

// poses maps every source pose onto the target (rotations and the
// ungrounded root) and records each frame's lowest point for grounding.
func (r *retargeter) poses() *Clip {
	src, dst, opts := r.src, r.dst, r.opts
	nt := dst.NumJoints()
	out := &Clip{Skeleton: dst, FPS: src.FPS, Poses: make([]skel.Pose, len(src.Poses))}
	rots := make([]geom.Quat, len(src.Poses)*nt)
	var sw, tw []geom.Rigid
	wr := make([]geom.Quat, nt) // target world rotations
	r.lowest = make([]float64, len(src.Poses))
	for f, sp := range src.Poses {
		sw = skel.FK(r.ssk, sp, sw)
		p := skel.Pose{Rot: rots[f*nt : (f+1)*nt : (f+1)*nt]}
		r.rotations(sw, wr, p.Rot)
		tw = skel.FK(dst, p, tw)
		want := r.drw[r.drive].T.Add(sw[r.sdrive].T.Sub(r.srw[r.sdrive].T).Scale(r.k))
		p.Root = want.Sub(tw[r.drive].T)
		out.Poses[f] = p
		if opts.Ground == GroundNone {
			continue
		}
		if opts.Lowest != nil {
			r.lowest[f] = opts.Lowest(f, p)
			continue
		}
		lo := math.Inf(1)
		for _, t := range r.feet {
			lo = min(lo, tw[t].T.Y)
		}
		// tw was computed with Root = 0: add the root shift.
		r.lowest[f] = lo + p.Root.Y - opts.Sole
	}
	return out
}

// rotations sets the target's local rotations rot for the source's world
// transforms sw of one frame (wr: the target's world rotations, scratch).
func (r *retargeter) rotations(sw []geom.Rigid, wr, rot []geom.Quat) {
	for t := range rot {
		jt := r.dst.Joint(t)
		var pw geom.Quat // parent world rotation
		if jt.Parent >= 0 {
			pw = wr[jt.Parent]
		} else {
			pw = geom.QuatIdentity()
		}
		s := r.match[t]
		if s < 0 || r.structural[t] {
			rot[t] = geom.QuatIdentity()
			wr[t] = pw.Mul(jt.Rest.R).Normalize()
			continue
		}
		d := sw[s].R.Mul(r.srw[s].R.Conj())
		wr[t] = d.Mul(r.corr[t]).Mul(r.drw[t].R).Normalize()
		rot[t] = jt.Rest.R.Conj().Mul(pw.Conj()).Mul(wr[t]).Normalize()
	}
}

// ground shifts the poses' Root.Y as opts.Ground says.
func (r *retargeter) ground(out *Clip) {
	switch r.opts.Ground {
	case GroundFrame:
		for f := range out.Poses {
			out.Poses[f].Root.Y -= r.lowest[f]
		}
	case GroundClip:
		lo := math.Inf(1)
		for _, l := range r.lowest {
			lo = min(lo, l)
		}
		for f := range out.Poses {
			out.Poses[f].Root.Y -= lo
		}
	}
}

// legHeight returns the rest height of joint drive above the lowest of the
// matched feet; src selects the source skeleton's indices (via match).
func legHeight(rw []geom.Rigid, drive int, feet, match []int, src bool) float64 {
	lo := math.Inf(1)
	for _, t := range feet {
		if match[t] < 0 {
			continue
		}
		j := t
		if src {
			j = match[t]
		}
		lo = min(lo, rw[j].T.Y)
	}
	return rw[drive].T.Y - lo
}

// boneChild returns the first matched descendant of t in depth-first
// order for which ok holds.
func boneChild(sk *skel.Skeleton, t int, match []int, ok func(int) bool) (int, bool) {
	stack := append([]int(nil), sk.Children(t)...)
	// Depth-first, children in index order: pop from the front.
	for len(stack) > 0 {
		c := stack[0]
		stack = stack[1:]
		if match[c] >= 0 && ok(c) {
			return c, true
		}
		stack = append(append([]int(nil), sk.Children(c)...), stack...)
	}
	return -1, false
}

// bestRotation returns the rotation R minimising Σ|R·a_i − b_i|² (Kabsch):
// with H = Σ a_i b_iᵀ = U Σ Vᵀ, R = V diag(1, 1, det(V Uᵀ)) Uᵀ.
func bestRotation(a, b []geom.Vec3) geom.Quat {
	h := mat.NewDense(3, 3, nil)
	for i := range a {
		av := [3]float64{a[i].X, a[i].Y, a[i].Z}
		bv := [3]float64{b[i].X, b[i].Y, b[i].Z}
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				h.Set(r, c, h.At(r, c)+av[r]*bv[c])
			}
		}
	}
	var svd mat.SVD
	if !svd.Factorize(h, mat.SVDFull) {
		return geom.QuatBetween(a[0], b[0])
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	var r mat.Dense
	r.Mul(&v, u.T())
	if mat.Det(&r) < 0 {
		// Reflection: flip the last column of V.
		for i := 0; i < 3; i++ {
			v.Set(i, 2, -v.At(i, 2))
		}
		r.Mul(&v, u.T())
	}
	var m geom.Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[i][j] = r.At(i, j)
		}
	}
	return geom.QuatFromMat3(m)
}
