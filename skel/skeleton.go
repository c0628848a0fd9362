package skel

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// JointKind says how a joint's rotation is expressed as angles (see
// JointAngles). The zero value is Ball.
type JointKind uint8

const (
	// Ball is a three-degree-of-freedom joint (shoulder, hip, spine): two
	// swing angles and a twist about the bone axis.
	Ball JointKind = iota
	// Hinge is a one-degree-of-freedom joint (elbow, knee): one flexion
	// angle about the hinge axis.
	Hinge
)

// String returns "ball" or "hinge".
func (k JointKind) String() string {
	switch k {
	case Ball:
		return "ball"
	case Hinge:
		return "hinge"
	}
	return fmt.Sprintf("JointKind(%d)", uint8(k))
}

// Joint is one joint of a Skeleton.
type Joint struct {
	// Name is unique and non-empty.
	Name string
	// Parent is the parent's index, less than this joint's own index, or -1
	// for a root.
	Parent int
	// Rest is the local rest transform relative to the parent (to world for
	// a root): T is the offset in the parent's frame in metres, R the rest
	// orientation (normalised by NewSkeleton).
	Rest geom.Rigid
	// Kind selects the angle parameterisation; the zero value is Ball.
	Kind JointKind
	// Axis is a direction in the joint's own (rest) frame. For a Ball joint
	// it is the bone (twist) axis; zero means the direction to the first
	// child with a non-zero offset, or +Y (Blender's bone axis) when there is
	// none. For a Hinge it is the hinge axis; zero means +X (the flexion axis
	// of Blender/MakeHuman elbows and knees with the usual roll).
	Axis geom.Vec3
}

// Errors wrapped by *JointError.
var (
	ErrEmptyName     = errors.New("empty name")
	ErrDuplicateName = errors.New("duplicate name")
	ErrBadParent     = errors.New("parent index out of range or not before the joint")
	ErrUnknownParent = errors.New("unknown parent name")
	ErrCycle         = errors.New("parent cycle")
	ErrNotFinite     = errors.New("non-finite value")
	ErrBadRotation   = errors.New("zero rest rotation")
	ErrBadKind       = errors.New("unknown joint kind")
	ErrZeroBone      = errors.New("bone head and tail coincide")
)

// JointError reports bad skeleton data for one joint.
type JointError struct {
	Index int    // joint index (in the input slice)
	Name  string // joint name
	Err   error  // one of the Err* variables
}

func (e *JointError) Error() string {
	return fmt.Sprintf("skel: joint %d %q: %v", e.Index, e.Name, e.Err)
}

func (e *JointError) Unwrap() error { return e.Err }

// Skeleton is an immutable tree (forest) of joints with precomputed rest-pose
// data. Create it with NewSkeleton or FromBones.
type Skeleton struct {
	joints   []Joint
	index    map[string]int
	children [][]int
	restW    []geom.Rigid // world rest transforms
	invRestW []geom.Rigid // their inverses (inverse bind matrices)
	axes     [][3]geom.Vec3
}

// NewSkeleton validates joints and returns a Skeleton holding a copy of
// them. It checks that names are non-empty and unique, that each Parent is
// -1 or an index before the joint's own, that Kind is known and that all
// values are finite with a non-zero rest rotation; the error is a
// *JointError naming the first bad joint.
func NewSkeleton(joints []Joint) (*Skeleton, error) {
	n := len(joints)
	sk := &Skeleton{
		joints:   make([]Joint, n),
		index:    make(map[string]int, n),
		children: make([][]int, n),
		restW:    make([]geom.Rigid, n),
		invRestW: make([]geom.Rigid, n),
		axes:     make([][3]geom.Vec3, n),
	}
	copy(sk.joints, joints)
	for j := range sk.joints {
		jt := &sk.joints[j]
		bad := func(err error) (*Skeleton, error) {
			return nil, &JointError{Index: j, Name: jt.Name, Err: err}
		}
		switch {
		case jt.Name == "":
			return bad(ErrEmptyName)
		case jt.Parent < -1 || jt.Parent >= j:
			return bad(ErrBadParent)
		case !jt.Rest.T.IsFinite() || !jt.Rest.R.IsFinite() || !jt.Axis.IsFinite():
			return bad(ErrNotFinite)
		case jt.Rest.R.Len() < 1e-12:
			return bad(ErrBadRotation)
		case jt.Kind > Hinge:
			return bad(ErrBadKind)
		}
		if _, dup := sk.index[jt.Name]; dup {
			return bad(ErrDuplicateName)
		}
		sk.index[jt.Name] = j
		jt.Rest.R = jt.Rest.R.Normalize()
		if p := jt.Parent; p >= 0 {
			sk.children[p] = append(sk.children[p], j)
			sk.restW[j] = sk.restW[p].Mul(jt.Rest)
		} else {
			sk.restW[j] = jt.Rest
		}
		sk.invRestW[j] = sk.restW[j].Inverse()
	}
	for j := range sk.joints {
		sk.axes[j] = sk.computeAxes(j)
	}
	return sk, nil
}

// computeAxes returns the joint's main axis (bone or hinge axis) and two
// unit vectors u, v completing the right-handed frame u × axis = v.
func (sk *Skeleton) computeAxes(j int) [3]geom.Vec3 {
	jt := sk.joints[j]
	a := jt.Axis.Unit()
	if a == (geom.Vec3{}) {
		if jt.Kind == Hinge {
			a = geom.Vec3{X: 1}
		} else {
			a = geom.Vec3{Y: 1}
			for _, c := range sk.children[j] {
				if t := sk.joints[c].Rest.T; t.Len() > 1e-9 {
					a = t.Unit()
					break
				}
			}
		}
	}
	// u: the first of +X, +Z (then +Y) not nearly parallel to a, made
	// perpendicular to a; v = u × a.
	var u geom.Vec3
	for _, c := range [...]geom.Vec3{{X: 1}, {Z: 1}, {Y: 1}} {
		p := c.Sub(a.Scale(c.Dot(a)))
		if p.Len() > 0.1 {
			u = p.Unit()
			break
		}
	}
	return [3]geom.Vec3{a, u, u.Cross(a)}
}

// NumJoints returns the number of joints.
func (sk *Skeleton) NumJoints() int { return len(sk.joints) }

// Joint returns joint j (with its rest rotation normalised).
func (sk *Skeleton) Joint(j int) Joint { return sk.joints[j] }

// Joints returns a copy of all joints.
func (sk *Skeleton) Joints() []Joint { return append([]Joint(nil), sk.joints...) }

// Parent returns joint j's parent index, -1 for a root.
func (sk *Skeleton) Parent(j int) int { return sk.joints[j].Parent }

// Index returns the index of the joint with the given name.
func (sk *Skeleton) Index(name string) (int, bool) {
	j, ok := sk.index[name]
	return j, ok
}

// IsAncestor reports whether joint a is a proper ancestor of joint j (its
// parent, its parent's parent, ...).
func (sk *Skeleton) IsAncestor(a, j int) bool {
	for j = sk.Parent(j); j >= 0; j = sk.Parent(j) {
		if j == a {
			return true
		}
	}
	return false
}

// Children returns the children of joint j in increasing index order. The
// slice is shared: do not modify it.
func (sk *Skeleton) Children(j int) []int { return sk.children[j] }

// Roots returns the indices of the root joints in increasing order.
func (sk *Skeleton) Roots() []int {
	var r []int
	for j, jt := range sk.joints {
		if jt.Parent < 0 {
			r = append(r, j)
		}
	}
	return r
}

// RestWorld returns a new slice of the world rest transforms
// world[j] = world[parent]·Rest[j].
func (sk *Skeleton) RestWorld() []geom.Rigid { return append([]geom.Rigid(nil), sk.restW...) }

// InverseBind returns a new slice of world(rest)⁻¹ per joint (glTF's inverse
// bind matrices).
func (sk *Skeleton) InverseBind() []geom.Rigid {
	return append([]geom.Rigid(nil), sk.invRestW...)
}

// Axes returns joint j's unit axes in its own rest frame (the frame in which
// Pose.Rot[j] acts): axis is the bone (twist) axis of a Ball joint or the
// hinge axis of a Hinge (see Joint.Axis for defaults); u and v span the
// plane perpendicular to it with u × axis = v. u is +X made perpendicular to
// axis (+Z when axis is within ~6° of ±X), so for a bone along +Y,
// (u, axis, v) = (X, Y, Z).
func (sk *Skeleton) Axes(j int) (axis, u, v geom.Vec3) {
	a := sk.axes[j]
	return a[0], a[1], a[2]
}

// Bone describes a joint as a bone with world-space (armature-space) head
// and tail positions, as MakeHuman .mhskel files and Blender armatures do.
type Bone struct {
	Name   string
	Parent string    // parent bone name; "" for a root
	Head   geom.Vec3 // joint position in metres
	Tail   geom.Vec3 // end of the bone in metres; Tail ≠ Head
	Roll   float64   // rotation about the bone axis in radians
	Kind   JointKind // angle parameterisation
	Axis   geom.Vec3 // as Joint.Axis; zero gives +Y (the bone) for Ball
}

// BoneRotation returns a bone's world rest orientation following Blender's
// convention (vec_roll_to_mat3): the bone's local +Y points from head to
// tail; the orientation is the shortest-arc rotation taking +Y onto
// dir = tail-head, applied after a rotation by roll about +Y:
//
//	R = QuatBetween(+Y, dir)·QuatAxisAngle(+Y, roll).
//
// For dir along -Y (where the shortest arc is ambiguous) the arc is the
// half turn about +Z, as in Blender. A zero dir gives a zero quaternion.
func BoneRotation(head, tail geom.Vec3, roll float64) geom.Quat {
	d := tail.Sub(head)
	if d.Len() == 0 {
		return geom.Quat{}
	}
	d = d.Unit()
	y := geom.Vec3{Y: 1}
	var arc geom.Quat
	if d.Y < -1+1e-12 {
		arc = geom.QuatAxisAngle(geom.Vec3{Z: 1}, math.Pi)
	} else {
		arc = geom.QuatBetween(y, d)
	}
	return arc.Mul(geom.QuatAxisAngle(y, roll)).Normalize()
}

// FromBones builds a Skeleton from bones given in any order: joints are
// sorted so that parents precede children, keeping the input order
// otherwise (a bone is placed as early as its ancestors allow). Joint j's
// world rest transform is Rigid{R: BoneRotation(Head, Tail, Roll), T: Head};
// its local Rest is world(parent)⁻¹·world(j). For Ball bones a zero Axis is
// replaced by +Y, the bone direction. Errors are *JointError with Index the
// position in bones.
func FromBones(bones []Bone) (*Skeleton, error) {
	n := len(bones)
	byName := make(map[string]int, n)
	for i, b := range bones {
		bad := func(err error) (*Skeleton, error) {
			return nil, &JointError{Index: i, Name: b.Name, Err: err}
		}
		switch {
		case b.Name == "":
			return bad(ErrEmptyName)
		case !b.Head.IsFinite() || !b.Tail.IsFinite() || math.IsNaN(b.Roll) || math.IsInf(b.Roll, 0):
			return bad(ErrNotFinite)
		case b.Tail.Sub(b.Head).Len() == 0:
			return bad(ErrZeroBone)
		}
		if _, dup := byName[b.Name]; dup {
			return bad(ErrDuplicateName)
		}
		byName[b.Name] = i
	}
	parent := make([]int, n)
	for i, b := range bones {
		parent[i] = -1
		if b.Parent != "" {
			p, ok := byName[b.Parent]
			if !ok {
				return nil, &JointError{Index: i, Name: b.Name, Err: ErrUnknownParent}
			}
			parent[i] = p
		}
	}
	// Stable topological order: emit each bone after its ancestor chain.
	const (
		unseen = iota
		active
		done
	)
	state := make([]uint8, n)
	order := make([]int, 0, n)
	newIdx := make([]int, n)
	var chain []int
	for i := range bones {
		chain = chain[:0]
		for k := i; k >= 0 && state[k] != done; k = parent[k] {
			if state[k] == active {
				return nil, &JointError{Index: k, Name: bones[k].Name, Err: ErrCycle}
			}
			state[k] = active
			chain = append(chain, k)
		}
		for c := len(chain) - 1; c >= 0; c-- {
			k := chain[c]
			state[k] = done
			newIdx[k] = len(order)
			order = append(order, k)
		}
	}
	world := make([]geom.Rigid, n)
	joints := make([]Joint, n)
	for j, i := range order {
		b := bones[i]
		world[j] = geom.Rigid{R: BoneRotation(b.Head, b.Tail, b.Roll), T: b.Head}
		jt := Joint{Name: b.Name, Parent: -1, Rest: world[j], Kind: b.Kind, Axis: b.Axis}
		if parent[i] >= 0 {
			jt.Parent = newIdx[parent[i]]
			jt.Rest = world[jt.Parent].Inverse().Mul(world[j])
		}
		if jt.Kind == Ball && jt.Axis == (geom.Vec3{}) {
			jt.Axis = geom.Vec3{Y: 1}
		}
		joints[j] = jt
	}
	sk, err := NewSkeleton(joints)
	if err != nil {
		var je *JointError
		if errors.As(err, &je) {
			je.Index = order[je.Index]
		}
		return nil, err
	}
	return sk, nil
}
