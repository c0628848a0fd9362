package wrinkle

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// RoleNames names the skeleton joints of one role. Chain lists the joints
// whose rotation the role drives, base first, each a descendant of the one
// before (one joint for limbs; the spine's rotation is spread evenly over
// its chain). End is a descendant of the last chain joint whose rest
// position, seen from the first chain joint, gives the bone direction
// (the elbow for a shoulder, the wrist for an elbow, the neck for the
// spine).
type RoleNames struct {
	Chain []string `json:"chain"`
	End   string   `json:"end"`
}

// NameMap maps every role to skeleton joint names.
type NameMap struct {
	Name  string              `json:"name"`
	Roles [NumRoles]RoleNames `json:"roles"`
}

func limbMap(name string, spine []string, neck, arm, fore, hand, upLeg, leg, foot func(side string) string) NameMap {
	m := NameMap{Name: name}
	m.Roles[Spine] = RoleNames{Chain: spine, End: neck("")}
	for _, s := range []struct {
		sh, el, hip, kn Role
		side            string
	}{{LeftShoulder, LeftElbow, LeftHip, LeftKnee, "L"}, {RightShoulder, RightElbow, RightHip, RightKnee, "R"}} {
		m.Roles[s.sh] = RoleNames{Chain: []string{arm(s.side)}, End: fore(s.side)}
		m.Roles[s.el] = RoleNames{Chain: []string{fore(s.side)}, End: hand(s.side)}
		m.Roles[s.hip] = RoleNames{Chain: []string{upLeg(s.side)}, End: leg(s.side)}
		m.Roles[s.kn] = RoleNames{Chain: []string{leg(s.side)}, End: foot(s.side)}
	}
	return m
}

func cmuName(part string) func(string) string {
	return func(side string) string {
		if side == "L" {
			return "Left" + part
		}
		return "Right" + part
	}
}

func mhName(part string) func(string) string {
	return func(side string) string { return part + "." + side }
}

func constName(n string) func(string) string { return func(string) string { return n } }

// Presets are the built-in name maps, tried in this order by Bind:
//
//   - "cmu": the CMU/MotionBuilder names of MakeHuman's cmu_mb rig and the
//     procedural mannequin (spine = LowerBack, Spine, Spine1);
//   - "mixamo": Mixamo glTF rigs (spine = Spine, Spine1, Spine2), matched
//     with or without a namespace prefix such as "mixamorig:";
//   - "makehuman": MakeHuman's default 163-bone rig (spine05 .. spine01,
//     upperarm01.L, lowerarm01.L, upperleg01.L, lowerleg01.L).
var Presets = []NameMap{
	limbMap("cmu", []string{"LowerBack", "Spine", "Spine1"}, constName("Neck"),
		cmuName("Arm"), cmuName("ForeArm"), cmuName("Hand"), cmuName("UpLeg"), cmuName("Leg"), cmuName("Foot")),
	limbMap("mixamo", []string{"Spine", "Spine1", "Spine2"}, constName("Neck"),
		cmuName("Arm"), cmuName("ForeArm"), cmuName("Hand"), cmuName("UpLeg"), cmuName("Leg"), cmuName("Foot")),
	limbMap("makehuman", []string{"spine05", "spine04", "spine03", "spine02", "spine01"}, constName("neck01"),
		mhName("upperarm01"), mhName("lowerarm01"), mhName("wrist"), mhName("upperleg01"), mhName("lowerleg01"), mhName("foot")),
}

// RoleJoint is a role bound to a skeleton, with its anatomical frame in
// world rest coordinates (metres; unit vectors).
type RoleJoint struct {
	Role  Role
	Chain []int // skeleton joints driven, base first
	End   int   // joint whose rest head ends the bone
	// Center is the rest position of Chain[0]; Centers[k] that of Chain[k].
	Center  geom.Vec3
	Centers []geom.Vec3
	// RestBone is the unit rest direction from Center to End's head.
	RestBone geom.Vec3
	// Bone is the bone's anatomical neutral direction: for a hinge
	// RestBone; for a ball joint the twist axis at zero swing, Up for the
	// spine and −Up for shoulders and hips (arms hanging at the sides,
	// legs straight down), whatever the rig's rest pose.
	Bone geom.Vec3
	// Neutral is the rotation (world rest frame) from the rest pose to
	// the anatomical neutral pose: the shortest arc turning RestBone onto
	// Bone (identity for hinges). An A-pose's and a T-pose's arms both
	// reach the same neutral, palms towards the thighs.
	Neutral geom.Quat
	// Axis[0] is the rotation axis of flexion (hinge axis, or the swing
	// axis that moves the bone towards Toward[0]); Axis[1] that of
	// abduction / side bending (moving the bone towards Toward[1]).
	Axis   [2]geom.Vec3
	Toward [2]geom.Vec3
	// TwistSign is +1 or -1 so that positive twist is internal (medial)
	// rotation on both sides, and turning to the left for the spine.
	TwistSign float64
	// RestFlex is a hinge's flexion at rest in radians: the angle from the
	// proximal bone (shoulder to elbow, hip to knee) to this bone about
	// Axis[0]. Hinge angles are anatomical: 0 is the straight limb.
	RestFlex float64
}

// Rig is a skeleton bound to the nine roles with anatomical frames derived
// from its rest geometry (see doc.go, "Anatomical angles"). It is
// immutable and safe for concurrent use.
type Rig struct {
	Skeleton *skel.Skeleton
	Names    NameMap // the map used, with the names as found in the skeleton
	// Left, Up and Forward are the body's unit axes at rest (right-handed:
	// Forward = Left × Up).
	Left, Up, Forward geom.Vec3
	Roles             [NumRoles]RoleJoint

	restW []geom.Rigid
	hash  [32]byte
}

// ErrRig is wrapped by every *RigError.
var ErrRig = errors.New("wrinkle: cannot bind rig")

// RigError reports a role that cannot be bound to a skeleton.
type RigError struct {
	Role Role
	Msg  string
}

func (e *RigError) Error() string { return fmt.Sprintf("wrinkle: rig role %s: %s", e.Role, e.Msg) }

// Unwrap returns ErrRig.
func (e *RigError) Unwrap() error { return ErrRig }

// Bind binds sk's joints to the roles. With names nil it tries Presets in
// order and takes the first that binds every role (the error then reports
// the preset that came closest); otherwise it uses *names. Joint names
// match exactly, or after stripping a namespace prefix ending in ':' from
// the skeleton's names when that is unambiguous.
func Bind(sk *skel.Skeleton, names *NameMap) (*Rig, error) {
	if sk == nil {
		return nil, &RigError{Role: Spine, Msg: "nil skeleton"}
	}
	if names != nil {
		return bind(sk, *names)
	}
	var best error
	bestN := -1
	for _, m := range Presets {
		r, err := bind(sk, m)
		if err == nil {
			return r, nil
		}
		if n := resolvable(sk, m); n > bestN {
			best, bestN = fmt.Errorf("no preset name map fits (closest %q): %w", m.Name, err), n
		}
	}
	return nil, best
}

// lookup finds a joint by exact name, else by name without namespace.
func lookup(sk *skel.Skeleton, name string) (int, bool) {
	if j, ok := sk.Index(name); ok {
		return j, true
	}
	found := -1
	for j := 0; j < sk.NumJoints(); j++ {
		n := sk.Joint(j).Name
		if i := strings.LastIndexByte(n, ':'); i >= 0 && n[i+1:] == name {
			if found >= 0 {
				return -1, false
			}
			found = j
		}
	}
	return found, found >= 0
}

func resolvable(sk *skel.Skeleton, m NameMap) int {
	n := 0
	for _, rn := range m.Roles {
		for _, c := range append(append([]string(nil), rn.Chain...), rn.End) {
			if _, ok := lookup(sk, c); ok {
				n++
			}
		}
	}
	return n
}

func bind(sk *skel.Skeleton, m NameMap) (*Rig, error) {
	r := &Rig{Skeleton: sk, Names: NameMap{Name: m.Name}, restW: sk.RestWorld()}
	for role := Role(0); role < NumRoles; role++ {
		rn := m.Roles[role]
		bad := func(format string, args ...any) (*Rig, error) {
			return nil, &RigError{Role: role, Msg: fmt.Sprintf(format, args...)}
		}
		if len(rn.Chain) == 0 {
			return bad("no chain joints named")
		}
		rj := RoleJoint{Role: role}
		for k, n := range rn.Chain {
			j, ok := lookup(sk, n)
			if !ok {
				return bad("no joint %q in the skeleton", n)
			}
			if k > 0 && !sk.IsAncestor(rj.Chain[k-1], j) {
				return bad("chain joint %q is not a descendant of %q", n, rn.Chain[k-1])
			}
			rj.Chain = append(rj.Chain, j)
			rj.Centers = append(rj.Centers, r.restW[j].T)
			r.Names.Roles[role].Chain = append(r.Names.Roles[role].Chain, sk.Joint(j).Name)
		}
		e, ok := lookup(sk, rn.End)
		if !ok {
			return bad("no end joint %q in the skeleton", rn.End)
		}
		if !sk.IsAncestor(rj.Chain[len(rj.Chain)-1], e) {
			return bad("end joint %q is not a descendant of the chain", rn.End)
		}
		rj.End = e
		r.Names.Roles[role].End = sk.Joint(e).Name
		rj.Center = rj.Centers[0]
		bone := r.restW[e].T.Sub(rj.Center)
		if bone.Len() < 1e-6 {
			return bad("end joint %q coincides with %q at rest", rn.End, rn.Chain[0])
		}
		rj.RestBone = bone.Unit()
		rj.Bone = rj.RestBone
		rj.Neutral = geom.Quat{W: 1}
		r.Roles[role] = rj
	}
	if err := r.frames(); err != nil {
		return nil, err
	}
	r.hash = r.computeHash()
	return r, nil
}

// perp returns the unit component of d perpendicular to unit b, and false
// when d is within ~6° of ±b.
func perp(d, b geom.Vec3) (geom.Vec3, bool) {
	p := d.Sub(b.Scale(d.Dot(b)))
	if p.Len() < 0.1*d.Len() {
		return geom.Vec3{}, false
	}
	return p.Unit(), true
}

// frames derives the body axes and each role's anatomical axes from the
// rest geometry (see doc.go).
func (r *Rig) frames() error {
	c := func(role Role) geom.Vec3 { return r.Roles[role].Center }
	left := c(LeftShoulder).Sub(c(RightShoulder)).Unit().Add(c(LeftHip).Sub(c(RightHip)).Unit())
	if left.Len() < 1e-6 {
		return &RigError{Role: LeftShoulder, Msg: "left and right joints coincide: no left axis"}
	}
	r.Left = left.Unit()
	up, ok := perp(r.Roles[Spine].Bone, r.Left)
	if !ok {
		return &RigError{Role: Spine, Msg: "spine runs along the left-right axis"}
	}
	r.Up = up
	r.Forward = r.Left.Cross(r.Up)
	for role := Role(0); role < NumRoles; role++ {
		rj := &r.Roles[role]
		if !role.Hinge() {
			rj.Bone = r.Up
			if role != Spine {
				rj.Bone = r.Up.Neg()
			}
			rj.Neutral = shortestArc(rj.RestBone, rj.Bone)
		}
		b := rj.Bone
		toward := r.Forward
		if role == LeftKnee || role == RightKnee {
			toward = toward.Neg() // the shank bends backwards
		}
		e1, ok := perp(toward, b)
		if !ok {
			return &RigError{Role: role, Msg: "bone points along the body's forward axis at rest"}
		}
		rj.Toward[0], rj.Axis[0] = e1, b.Cross(e1)
		rj.TwistSign = 1
		if role.Hinge() {
			r.hingeFrame(role, toward)
			continue
		}
		e2 := e1.Cross(b)
		if role == Spine {
			if e2.Dot(r.Left) < 0 {
				e2 = e2.Neg()
			}
		} else {
			if e2.Dot(r.Left.Scale(role.Side()).Add(r.Up)) < 0 {
				e2 = e2.Neg()
			}
			rj.TwistSign = role.Side()
		}
		rj.Toward[1], rj.Axis[1] = e2, b.Cross(e2)
	}
	return nil
}

// shortestArc returns the rotation by the smallest angle turning unit a
// onto unit b; for opposite vectors, a half turn about an axis
// perpendicular to a.
func shortestArc(a, b geom.Vec3) geom.Quat {
	c := a.Cross(b)
	if c.Len() < 1e-9 {
		if a.Dot(b) > 0 {
			return geom.Quat{W: 1}
		}
		ax, ok := perp(geom.Vec3{X: 1}, a)
		if !ok {
			ax, _ = perp(geom.Vec3{Y: 1}, a)
		}
		return geom.QuatAxisAngle(ax, math.Pi)
	}
	return geom.QuatAxisAngle(c.Unit(), math.Atan2(c.Len(), a.Dot(b)))
}

// hingeFrame sets a hinge's axis from the rest bend plane of the limb when
// the limb is bent at rest (by more than 5°, towards the anatomical side),
// so that flexion continues the rig's own bend, and its rest flexion.
func (r *Rig) hingeFrame(role Role, toward geom.Vec3) {
	rj := &r.Roles[role]
	prox := LeftShoulder
	switch role {
	case RightElbow:
		prox = RightShoulder
	case LeftKnee:
		prox = LeftHip
	case RightKnee:
		prox = RightHip
	}
	u := rj.Center.Sub(r.Roles[prox].Center)
	if u.Len() < 1e-6 {
		return
	}
	u = u.Unit()
	n := u.Cross(rj.Bone)
	if bend, ok := perp(rj.Bone, u); ok && n.Len() > math.Sin(5*math.Pi/180) && bend.Dot(toward) > 0 {
		rj.Axis[0] = n.Unit()
		rj.Toward[0] = rj.Axis[0].Cross(rj.Bone)
	}
	rj.RestFlex = math.Atan2(n.Dot(rj.Axis[0]), u.Dot(rj.Bone))
}

// Rotation returns the world-frame rotation D (about the role's centre,
// in rest coordinates) of the role at angles a: for a hinge the rotation
// by a[0] − RestFlex about Axis[0]; for a ball joint D = swing·twist·Neutral
// with swing the rotation by the vector a[0]·Axis[0] + a[1]·Axis[1] and
// twist the rotation by TwistSign·a[2] about Bone: the anatomical angles
// of the bone from its neutral direction.
func (r *Rig) Rotation(role Role, a DoFs) geom.Quat {
	rj := &r.Roles[role]
	if role.Hinge() {
		return geom.QuatAxisAngle(rj.Axis[0], a[0]-rj.RestFlex)
	}
	rv := rj.Axis[0].Scale(a[0]).Add(rj.Axis[1].Scale(a[1]))
	sw := geom.QuatAxisAngle(rv, rv.Len())
	return sw.Mul(geom.QuatAxisAngle(rj.Bone, rj.TwistSign*a[2])).Mul(rj.Neutral).Normalize()
}

// AnglesOf is the inverse of Rotation: the role's angles of world-frame
// rotation d (a hinge keeps only the component about its axis, by
// geom.SwingTwist; for a ball joint d·Neutral⁻¹ is split by
// geom.SwingTwist about Bone).
func (r *Rig) AnglesOf(role Role, d geom.Quat) DoFs {
	rj := &r.Roles[role]
	if role.Hinge() {
		_, _, tw := geom.SwingTwist(d, rj.Axis[0])
		return DoFs{tw + rj.RestFlex}
	}
	sw, _, tw := geom.SwingTwist(d.Mul(rj.Neutral.Conj()), rj.Bone)
	axis, ang := sw.AxisAngle()
	rv := axis.Scale(ang)
	return DoFs{rv.Dot(rj.Axis[0]), rv.Dot(rj.Axis[1]), rj.TwistSign * tw}
}

// RoleRotation returns the role's world-frame rotation D in a pose, from
// the pose's skinning matrices (skel.SkinMatrices): the rotation of the
// chain's last joint relative to the parent of its first, expressed at
// rest, D = skin[parent]⁻¹·skin[last] (rotation parts).
func (r *Rig) RoleRotation(role Role, skin []geom.Rigid) geom.Quat {
	rj := &r.Roles[role]
	d := skin[rj.Chain[len(rj.Chain)-1]].R
	if p := r.Skeleton.Parent(rj.Chain[0]); p >= 0 {
		d = skin[p].R.Conj().Mul(d)
	}
	return d.Normalize()
}

// Angles returns the role's angles in pose p. It returns an error if p
// does not fit the skeleton or holds non-finite values.
func (r *Rig) Angles(role Role, p skel.Pose) (DoFs, error) {
	if err := checkPose(r.Skeleton, p); err != nil {
		return DoFs{}, err
	}
	skin := skel.SkinMatrices(r.Skeleton, p, nil)
	return r.AnglesOf(role, r.RoleRotation(role, skin)), nil
}

func checkPose(sk *skel.Skeleton, p skel.Pose) error {
	if len(p.Rot) != sk.NumJoints() {
		return fmt.Errorf("wrinkle: pose has %d joint rotations, skeleton %d joints", len(p.Rot), sk.NumJoints())
	}
	if !p.Root.IsFinite() {
		return fmt.Errorf("wrinkle: pose root %v is not finite", p.Root)
	}
	for j, q := range p.Rot {
		if !q.IsFinite() || q.Len() < 1e-6 {
			return fmt.Errorf("wrinkle: pose rotation of joint %d %q is not a finite non-zero quaternion", j, sk.Joint(j).Name)
		}
	}
	return nil
}

// chainRotations sets dst[k] to the world-frame rotation of chain element
// k at angles a: D^(1/n) for each of the n chain joints, whose product is
// D = Rotation(role, a).
func (r *Rig) chainRotations(role Role, a DoFs, dst []geom.Quat) {
	d := r.Rotation(role, a)
	n := len(r.Roles[role].Chain)
	if n == 1 {
		dst[0] = d
		return
	}
	axis, ang := d.AxisAngle()
	part := geom.QuatAxisAngle(axis, ang/float64(n))
	for k := range n {
		dst[k] = part
	}
}

// SetRole sets the rotations of the role's chain joints in p so that the
// role has angles a while its parent stays where it is: chain joint k gets
// Rot = W0ₖ⁻¹·Dₖ·W0ₖ with W0ₖ its world rest orientation and Dₖ = D^(1/n).
// Other joints are untouched. It returns an error if p does not fit the
// skeleton or a is not finite.
func (r *Rig) SetRole(p *skel.Pose, role Role, a DoFs) error {
	if role >= NumRoles {
		return fmt.Errorf("wrinkle: unknown role %d", role)
	}
	if len(p.Rot) != r.Skeleton.NumJoints() {
		return fmt.Errorf("wrinkle: pose has %d joint rotations, skeleton %d joints", len(p.Rot), r.Skeleton.NumJoints())
	}
	for i, x := range a {
		if !finite(x) {
			return fmt.Errorf("wrinkle: %s angle %d is not finite", role, i)
		}
	}
	var ds [8]geom.Quat
	rj := &r.Roles[role]
	parts := ds[:0]
	if len(rj.Chain) > len(ds) {
		parts = make([]geom.Quat, len(rj.Chain))
	} else {
		parts = ds[:len(rj.Chain)]
	}
	r.chainRotations(role, a, parts)
	for k, j := range rj.Chain {
		w := r.restW[j].R
		p.Rot[j] = w.Conj().Mul(parts[k]).Mul(w).Normalize()
	}
	return nil
}

// SamplePose returns the pose of sample s: the rest pose with only the
// sample's role moved to its angles (wang2010 §3.1).
func (r *Rig) SamplePose(s Sample) (skel.Pose, error) {
	p := skel.RestPose(r.Skeleton)
	return p, r.SetRole(&p, s.Role, s.Angles)
}

// Hash returns the SHA-256 identifying the rig: joint names, parents and
// rest transforms, and the role binding. Databases record it.
func (r *Rig) Hash() [32]byte { return r.hash }

func (r *Rig) computeHash() [32]byte {
	h := sha256.New()
	var buf []byte
	str := func(s string) {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	f := func(xs ...float64) {
		for _, x := range xs {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
	}
	sk := r.Skeleton
	buf = binary.LittleEndian.AppendUint32(buf, uint32(sk.NumJoints()))
	for j := 0; j < sk.NumJoints(); j++ {
		jt := sk.Joint(j)
		str(jt.Name)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(int32(jt.Parent)))
		f(jt.Rest.R.W, jt.Rest.R.X, jt.Rest.R.Y, jt.Rest.R.Z, jt.Rest.T.X, jt.Rest.T.Y, jt.Rest.T.Z)
	}
	for _, rn := range r.Names.Roles {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(rn.Chain)))
		for _, c := range rn.Chain {
			str(c)
		}
		str(rn.End)
	}
	h.Write(buf)
	var out [32]byte
	h.Sum(out[:0])
	return out
}
