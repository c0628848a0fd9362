package motion

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// CMUUnit is the length of one CMU BVH file unit in metres (the CMU
// skeletons are in inches scaled by 1/0.45: 0.0254/0.45 = 0.056444 m).
const CMUUnit = 0.056444

// EndSuffix is appended to a joint's name to name the extra leaf joint that
// BVH.Clip makes from its End Site ("LeftToeBase" → "LeftToeBase_end").
const EndSuffix = "_end"

// Clip is a skeletal animation sampled at a fixed rate, in metres.
type Clip struct {
	// Skeleton is the animated rig.
	Skeleton *skel.Skeleton
	// FPS is the sampling rate in frames per second (> 0).
	FPS float64
	// Poses holds one pose per frame; frame f is at time f/FPS seconds.
	Poses []skel.Pose
}

// Duration returns the time in seconds from the first to the last frame,
// (len(Poses)−1)/FPS; 0 for fewer than two frames.
func (c *Clip) Duration() float64 {
	if len(c.Poses) < 2 {
		return 0
	}
	return float64(len(c.Poses)-1) / c.FPS
}

// Validate checks that c has a skeleton, a positive finite FPS and poses
// of the skeleton's length with finite values.
func (c *Clip) Validate() error {
	if c.Skeleton == nil {
		return errors.New("motion: clip has no skeleton")
	}
	if !(c.FPS > 0) || math.IsInf(c.FPS, 0) {
		return fmt.Errorf("motion: clip FPS %g, want positive and finite", c.FPS)
	}
	n := c.Skeleton.NumJoints()
	for f, p := range c.Poses {
		if len(p.Rot) != n {
			return fmt.Errorf("motion: frame %d has %d rotations, want %d", f, len(p.Rot), n)
		}
		if !p.Root.IsFinite() {
			return fmt.Errorf("motion: frame %d: non-finite root", f)
		}
		for j, q := range p.Rot {
			if !q.IsFinite() {
				return fmt.Errorf("motion: frame %d joint %d: non-finite rotation", f, j)
			}
		}
	}
	return nil
}

// axisQuat returns the rotation by deg degrees about axis a (0, 1, 2).
func axisQuat(a int, deg float64) geom.Quat {
	s, c := math.Sincos(deg * (math.Pi / 180) / 2)
	switch a {
	case 0:
		return geom.Quat{W: c, X: s}
	case 1:
		return geom.Quat{W: c, Y: s}
	}
	return geom.Quat{W: c, Z: s}
}

// nonRootTol is the largest deviation, in file units relative to
// 1+|offset|, of a non-root joint's position channel from its OFFSET (or
// from its mean over the clip) that Clip takes as no translation
// (exporters that write six channels per joint write the offset, rounded,
// into the position channels).
const nonRootTol = 1e-4

// Clip converts b to a Clip in metres; scale is the length of one file unit
// in metres (CMUUnit for CMU files, 0.01 for centimetre files). The file's
// up axis is taken to be +Y (see ClipWith for other units and axes, and
// for the notes this drops).
//
// The skeleton has one joint per BVH joint, with the same index, name and
// parent, Rest.R = identity and Rest.T = Offset·scale, followed by one leaf
// joint per End Site, named parent name + EndSuffix (with further suffixes
// "_end" if that name is taken) and Rest.T = End Site offset·scale. The End
// Site joints give the last bones of each chain their direction and length
// (skel uses the first child for a bone's axis); their Rot is identity.
//
// Rotation channels are Euler angles in degrees applied in the listed order
// as intrinsic rotations: channels "Zrotation Yrotation Xrotation" give
// Rot = Rz·Ry·Rx (a vector is rotated about X first). With identity rest
// rotations, Pose.Rot[j] is this local rotation. Position channels replace
// the root's offset: Pose.Root = (P − Offset)·scale, where a missing
// position channel takes the offset's value.
//
// Position channels on other joints (exporters that write six channels
// per joint) replace that joint's offset too. A skel.Pose has no
// per-joint translation, so: channels that stay within 1e-4·(1+|value|)
// file units of one value over the clip give the joint's rest offset
// (that value); a translation that varies over the clip on a joint whose
// ancestors form a single chain from the root (a static "Reference" root
// above the moving hips) moves the whole skeleton instead, added to
// Pose.Root in world space, exact for that joint and everything below it;
// elsewhere (a bone that stretches) the mean over the clip is its offset,
// and a note says by how much it varied. A root more than
// MaxRootDistance from its rest position is an error wrapping ErrInvalid
// that names the frame and joint.
func (b *BVH) Clip(scale float64) (*Clip, error) {
	c, _, err := b.clip(scale)
	return c, err
}

// clip is Clip, returning the notes on non-root translations too.
func (b *BVH) clip(scale float64) (*Clip, []string, error) {
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, nil, fmt.Errorf("motion: scale %g, want positive and finite", scale)
	}
	if err := b.Validate(); err != nil {
		return nil, nil, err
	}
	n := len(b.Joints)
	rest, toRoot, notes := b.jointOffsets(scale)
	joints := make([]skel.Joint, 0, n+8)
	used := make(map[string]bool, n)
	for _, jt := range b.Joints {
		used[jt.Name] = true
	}
	for j, jt := range b.Joints {
		joints = append(joints, skel.Joint{Name: jt.Name, Parent: jt.Parent,
			Rest: geom.Rigid{R: geom.QuatIdentity(), T: rest[j].Scale(scale)}})
	}
	for j, jt := range b.Joints {
		if jt.EndSite == nil {
			continue
		}
		name := jt.Name + EndSuffix
		for used[name] {
			name += EndSuffix
		}
		used[name] = true
		joints = append(joints, skel.Joint{Name: name, Parent: j,
			Rest: geom.Rigid{R: geom.QuatIdentity(), T: jt.EndSite.Scale(scale)}})
	}
	sk, err := skel.NewSkeleton(joints)
	if err != nil {
		return nil, nil, fmt.Errorf("motion: %w", err)
	}
	off := b.ChannelOffsets()
	c := &Clip{Skeleton: sk, FPS: 1 / b.FrameTime, Poses: make([]skel.Pose, len(b.Frames))}
	nj := sk.NumJoints()
	rots := make([]geom.Quat, len(b.Frames)*nj)
	wr := make([]geom.Quat, n) // world rotations, for toRoot joints
	root := b.Joints[0].Offset
	for f, fr := range b.Frames {
		p := skel.Pose{Rot: rots[f*nj : (f+1)*nj : (f+1)*nj]}
		for j, jt := range b.Joints {
			q := geom.QuatIdentity()
			pos := [3]float64{rest[j].X, rest[j].Y, rest[j].Z}
			if j == 0 {
				pos = [3]float64{root.X, root.Y, root.Z}
			}
			for k, ch := range jt.Channels {
				v := fr[off[j]+k]
				if ch.IsRotation() {
					q = q.Mul(axisQuat(ch.axis(), v))
				} else {
					pos[ch.axis()] = v
				}
			}
			p.Rot[j] = q.Normalize()
			pv := geom.Vec3{X: pos[0], Y: pos[1], Z: pos[2]}
			if j == 0 {
				wr[0] = p.Rot[0]
				p.Root = pv.Scale(scale).Sub(root.Scale(scale))
			} else {
				wr[j] = wr[jt.Parent].Mul(p.Rot[j])
				if toRoot[j] {
					p.Root = p.Root.Add(wr[jt.Parent].Rotate(pv.Sub(rest[j]).Scale(scale)))
				}
			}
		}
		if d := p.Root.Len(); !(d <= MaxRootDistance) {
			return nil, nil, fmt.Errorf("motion: %w: frame %d joint %q: the root is %.3g m from its rest position, beyond %g m", ErrInvalid, f, b.Joints[0].Name, d, float64(MaxRootDistance))
		}
		for j := n; j < nj; j++ {
			p.Rot[j] = geom.QuatIdentity()
		}
		c.Poses[f] = p
	}
	return c, notes, nil
}

// jointOffsets returns each joint's rest offset in file units (see Clip:
// the OFFSET, or the value its position channels hold), which non-root
// joints' varying translations go to Pose.Root, and notes on the others.
func (b *BVH) jointOffsets(scale float64) (rest []geom.Vec3, toRoot []bool, notes []string) {
	n := len(b.Joints)
	rest, toRoot = make([]geom.Vec3, n), make([]bool, n)
	children := make([]int, n)
	for j, jt := range b.Joints {
		rest[j] = jt.Offset
		if j > 0 {
			children[jt.Parent]++
		}
	}
	off := b.ChannelOffsets()
	for j, jt := range b.Joints {
		if j == 0 || len(b.Frames) == 0 {
			continue
		}
		o := [3]float64{jt.Offset.X, jt.Offset.Y, jt.Offset.Z}
		var mean [3]float64
		var dev, devOff float64
		hasPos := false
		for k, c := range jt.Channels {
			if c.IsRotation() {
				continue
			}
			hasPos = true
			a := c.axis()
			sum := 0.0
			for _, fr := range b.Frames {
				v := fr[off[j]+k]
				sum += v
				devOff = max(devOff, math.Abs(v-o[a])/(1+math.Abs(o[a])))
			}
			mean[a] = sum / float64(len(b.Frames))
			for _, fr := range b.Frames {
				dev = max(dev, math.Abs(fr[off[j]+k]-mean[a])/(1+math.Abs(mean[a])))
			}
			o[a] = mean[a]
		}
		if !hasPos || devOff <= nonRootTol {
			continue
		}
		rest[j] = geom.Vec3{X: o[0], Y: o[1], Z: o[2]}
		if dev <= nonRootTol {
			continue
		}
		chain := true
		for a := jt.Parent; a >= 0; a = b.Joints[a].Parent {
			chain = chain && children[a] == 1
		}
		if chain {
			toRoot[j] = true
			notes = append(notes, fmt.Sprintf("joint %q translates over the clip: the whole skeleton follows it", jt.Name))
			continue
		}
		var far float64
		for k, c := range jt.Channels {
			if !c.IsRotation() {
				for _, fr := range b.Frames {
					far = max(far, math.Abs(fr[off[j]+k]-o[c.axis()]))
				}
			}
		}
		notes = append(notes, fmt.Sprintf("joint %q translates by up to %.3g m over the clip; rigs do not stretch, so its mean offset is used", jt.Name, far*scale))
	}
	return rest, toRoot, notes
}

// EulerOrder names the order of the three rotation channels written by
// Clip.BVH: OrderZXY writes "Zrotation Xrotation Yrotation", meaning
// R = Rz·Rx·Ry. The zero value is OrderZYX, the CMU order.
type EulerOrder uint8

// Euler orders.
const (
	OrderZYX EulerOrder = iota
	OrderZXY
	OrderXYZ
	OrderXZY
	OrderYXZ
	OrderYZX
)

var orderAxes = [...][3]int{{2, 1, 0}, {2, 0, 1}, {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}}

// String returns e.g. "ZYX".
func (o EulerOrder) String() string {
	if int(o) >= len(orderAxes) {
		return fmt.Sprintf("EulerOrder(%d)", uint8(o))
	}
	s := ""
	for _, a := range orderAxes[o] {
		s += string(rune('X' + a))
	}
	return s
}

// Euler returns the angles (a, b, c) in radians with
// q = R_i(a)·R_j(b)·R_k(c) for the order's axes (i, j, k); b is in
// [−π/2, π/2]. At gimbal lock (|b| = π/2) it sets c = 0. It panics for an
// unknown order.
func (o EulerOrder) Euler(q geom.Quat) [3]float64 {
	if int(o) >= len(orderAxes) {
		panic("motion: unknown Euler order")
	}
	ax := orderAxes[o]
	i, j, k := ax[0], ax[1], ax[2]
	// s = +1 for cyclic orders (XYZ, YZX, ZXY), −1 otherwise.
	s := 1.0
	if (j-i+3)%3 != 1 {
		s = -1
	}
	m := q.Normalize().Mat3()
	sb := s * m[i][k]
	sb = math.Max(-1, math.Min(1, sb))
	b := math.Asin(sb)
	var a, c float64
	if math.Abs(sb) < 1-1e-12 {
		a = math.Atan2(-s*m[j][k], m[k][k])
		c = math.Atan2(-s*m[i][j], m[i][i])
	} else {
		// Gimbal lock: R_i(a)·R_j(b) column j gives a.
		a = math.Atan2(s*m[k][j], m[j][j])
	}
	return [3]float64{a, b, c}
}

// FromEuler returns R_i(a)·R_j(b)·R_k(c) for the order's axes (i, j, k);
// angles in radians. It panics for an unknown order.
func (o EulerOrder) FromEuler(e [3]float64) geom.Quat {
	if int(o) >= len(orderAxes) {
		panic("motion: unknown Euler order")
	}
	q := geom.QuatIdentity()
	for n, a := range orderAxes[o] {
		q = q.Mul(axisQuat(a, e[n]*(180/math.Pi)))
	}
	return q
}

// BVH converts c to a BVH whose file unit is unit metres (CMUUnit, 0.01
// for centimetres, 1 for metres), with rotation channels in the given
// order. The skeleton must have a single root. Joints are written in
// depth-first order; the root gets Xposition Yposition Zposition followed
// by the rotation channels, every other joint only rotation channels. A
// leaf joint named parent name + EndSuffix whose parent has no other child
// becomes that parent's End Site (its rotation, which moves no joint, is
// dropped), so BVH.Clip and Clip.BVH are inverses up to rounding.
//
// BVH rest orientations are the world axes, so joints with a non-identity
// rest rotation are converted: with S_j = W_j(pose)·W_j(rest)⁻¹ the world
// rotation of joint j relative to its rest, the BVH rotation of j is
// S_parent⁻¹·S_j and its offset the world rest vector from the parent. When
// every rest rotation is the identity this is just Pose.Rot.
func (c *Clip) BVH(order EulerOrder, unit float64) (*BVH, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if int(order) >= len(orderAxes) {
		return nil, fmt.Errorf("motion: unknown Euler order %d", order)
	}
	if !(unit > 0) || math.IsInf(unit, 0) {
		return nil, fmt.Errorf("motion: unit %g, want positive and finite", unit)
	}
	sk := c.Skeleton
	if len(sk.Roots()) != 1 {
		return nil, fmt.Errorf("motion: skeleton has %d roots; BVH needs exactly one", len(sk.Roots()))
	}
	nj := sk.NumJoints()
	restW := sk.RestWorld()
	identity := true
	for j := range nj {
		if r := sk.Joint(j).Rest.R; r != geom.QuatIdentity() && r != geom.QuatIdentity().Scale(-1) {
			identity = false
		}
	}
	// End sites: leaves named parent+EndSuffix, the parent's only child.
	isEnd := make([]bool, nj)
	for j := range nj {
		p := sk.Parent(j)
		if p >= 0 && len(sk.Children(j)) == 0 && len(sk.Children(p)) == 1 && sk.Joint(j).Name == sk.Joint(p).Name+EndSuffix {
			isEnd[j] = true
		}
	}
	// Depth-first order of the non-end joints.
	order2 := make([]int, 0, nj) // BVH index -> skeleton joint
	bvhIdx := make([]int, nj)
	var visit func(j int)
	visit = func(j int) {
		bvhIdx[j] = len(order2)
		order2 = append(order2, j)
		for _, ch := range sk.Children(j) {
			if !isEnd[ch] {
				visit(ch)
			}
		}
	}
	visit(sk.Roots()[0])
	inv := 1 / unit
	b := &BVH{Joints: make([]BVHJoint, len(order2)), FrameTime: 1 / c.FPS}
	rotCh := make([]Channel, 3)
	for n, a := range orderAxes[order] {
		rotCh[n] = Xrotation + Channel(a)
	}
	for bi, j := range order2 {
		jt := sk.Joint(j)
		bj := BVHJoint{Name: jt.Name, Parent: -1}
		if p := jt.Parent; p >= 0 {
			bj.Parent = bvhIdx[p]
			bj.Offset = restW[j].T.Sub(restW[p].T).Scale(inv)
			bj.Channels = append([]Channel{}, rotCh...)
		} else {
			bj.Offset = jt.Rest.T.Scale(inv)
			bj.Channels = append([]Channel{Xposition, Yposition, Zposition}, rotCh...)
		}
		for _, ch := range sk.Children(j) {
			if isEnd[ch] {
				e := restW[ch].T.Sub(restW[j].T).Scale(inv)
				bj.EndSite = &e
			}
		}
		b.Joints[bi] = bj
	}
	nc := b.NumChannels()
	data := make([]float64, len(c.Poses)*nc)
	b.Frames = make([][]float64, len(c.Poses))
	var w []geom.Rigid
	s := make([]geom.Quat, nj)
	for f, p := range c.Poses {
		fr := data[f*nc : (f+1)*nc : (f+1)*nc]
		b.Frames[f] = fr
		if !identity {
			w = skel.FK(sk, p, w)
			for j := range nj {
				s[j] = w[j].R.Mul(restW[j].R.Conj())
			}
		}
		k := 0
		for _, j := range order2 {
			jt := sk.Joint(j)
			if jt.Parent < 0 {
				pos := jt.Rest.T.Add(p.Root).Scale(inv)
				fr[0], fr[1], fr[2] = pos.X, pos.Y, pos.Z
				k = 3
			}
			q := p.Rot[j]
			if !identity {
				q = s[j]
				if jt.Parent >= 0 {
					q = s[jt.Parent].Conj().Mul(q)
				}
			}
			e := order.Euler(q)
			for n := range e {
				fr[k+n] = e[n] * (180 / math.Pi)
			}
			k += 3
		}
	}
	return b, nil
}
