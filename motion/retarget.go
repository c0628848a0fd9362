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
	ssk := src.Skeleton
	ns, nt := ssk.NumJoints(), dst.NumJoints()

	// Source names after renaming; End Site joints follow their parent.
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
	match := make([]int, nt) // target joint -> source joint or -1
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

	srw, drw := ssk.RestWorld(), dst.RestWorld()

	// Branch joints whose source rotation never changes over the clip
	// (CMU's LHipJoint, RHipJoint, LeftShoulder, RightShoulder: children of
	// the hips or the chest that the capture does not animate) are
	// structural: the target keeps its own rest there (Rot = identity).
	// Aligning them would rotate the target's own skeleton offsets (its
	// pelvis width, its clavicles) onto the source's proportions, moving
	// the hip sockets and shoulders and distorting the skin.
	animated := make([]bool, ssk.NumJoints())
	for s := range animated {
		for _, p := range src.Poses {
			if _, a := p.Rot[s].AxisAngle(); a > 1e-9 {
				animated[s] = true
				break
			}
		}
	}
	structural := make([]bool, nt)
	for t, s := range match {
		if p := dst.Parent(t); s >= 0 && !animated[s] && p >= 0 && len(dst.Children(p)) > 1 {
			structural[t] = true
		}
	}

	// Rest alignment C_j: the rotation taking the target's rest bone
	// directions onto the source's. A joint with one bone uses the smallest
	// rotation between the two directions; a branching joint (hips, chest)
	// the rotation that best fits all its branches (Kabsch), so that no
	// single branch (one hip) decides the orientation of the others.
	corr := make([]geom.Quat, nt)
	const minBone = 1e-9 // metres
	for t := range nt {
		corr[t] = geom.QuatIdentity()
		if p := dst.Parent(t); p >= 0 {
			corr[t] = corr[p]
		}
		s := match[t]
		if s < 0 || structural[t] {
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

	// Root driver and feet.
	drive := dst.Roots()[0]
	if match[drive] < 0 {
		for t := range nt {
			if match[t] >= 0 {
				drive = t
				break
			}
		}
	}
	sdrive := match[drive]
	var feet []int
	if opts.Feet != nil {
		for _, n := range opts.Feet {
			t, ok := dst.Index(n)
			if !ok {
				return nil, &UnknownJointsError{Names: []string{n}, Where: "target rig (Feet)"}
			}
			feet = append(feet, t)
		}
	} else {
		for t := range nt {
			n := strings.ToLower(dst.Joint(t).Name)
			if match[t] >= 0 && (strings.Contains(n, "foot") || strings.Contains(n, "toe")) {
				feet = append(feet, t)
			}
		}
	}
	k := opts.RootScale
	if k == 0 {
		ok := false
		for _, t := range feet {
			ok = ok || match[t] >= 0
		}
		var hs, ht float64
		if ok {
			hs, ht = legHeight(srw, sdrive, feet, match, true), legHeight(drw, drive, feet, match, false)
		}
		if !ok || !(hs > 1e-6) || !(ht > 1e-6) {
			return nil, fmt.Errorf("motion: retarget: cannot compute the leg-length ratio (no matched foot joints below %q); set RootScale",
				dst.Joint(drive).Name)
		}
		k = ht / hs
	}
	if opts.Ground != GroundNone && opts.Lowest == nil && len(feet) == 0 {
		return nil, errors.New("motion: retarget: grounding needs foot joints (Feet) or Lowest")
	}

	out := &Clip{Skeleton: dst, FPS: src.FPS, Poses: make([]skel.Pose, len(src.Poses))}
	rots := make([]geom.Quat, len(src.Poses)*nt)
	var sw, tw []geom.Rigid
	wr := make([]geom.Quat, nt) // target world rotations
	lowest := make([]float64, len(src.Poses))
	for f, sp := range src.Poses {
		sw = skel.FK(ssk, sp, sw)
		p := skel.Pose{Rot: rots[f*nt : (f+1)*nt : (f+1)*nt]}
		for t := range nt {
			jt := dst.Joint(t)
			var pw geom.Quat // parent world rotation
			if jt.Parent >= 0 {
				pw = wr[jt.Parent]
			} else {
				pw = geom.QuatIdentity()
			}
			s := match[t]
			if s < 0 || structural[t] {
				p.Rot[t] = geom.QuatIdentity()
				wr[t] = pw.Mul(jt.Rest.R).Normalize()
				continue
			}
			d := sw[s].R.Mul(srw[s].R.Conj())
			wr[t] = d.Mul(corr[t]).Mul(drw[t].R).Normalize()
			p.Rot[t] = jt.Rest.R.Conj().Mul(pw.Conj()).Mul(wr[t]).Normalize()
		}
		tw = skel.FK(dst, p, tw)
		want := drw[drive].T.Add(sw[sdrive].T.Sub(srw[sdrive].T).Scale(k))
		p.Root = want.Sub(tw[drive].T)
		out.Poses[f] = p
		if opts.Ground != GroundNone {
			if opts.Lowest != nil {
				lowest[f] = opts.Lowest(f, p)
			} else {
				lo := math.Inf(1)
				for _, t := range feet {
					lo = min(lo, tw[t].T.Y)
				}
				// tw was computed with Root = 0: add the root shift.
				lowest[f] = lo + p.Root.Y - opts.Sole
			}
		}
	}
	switch opts.Ground {
	case GroundFrame:
		for f := range out.Poses {
			out.Poses[f].Root.Y -= lowest[f]
		}
	case GroundClip:
		lo := math.Inf(1)
		for _, l := range lowest {
			lo = min(lo, l)
		}
		for f := range out.Poses {
			out.Poses[f].Root.Y -= lo
		}
	}
	return out, nil
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
