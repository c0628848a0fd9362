package character

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// MHSkel is a parsed MakeHuman skeleton (.mhskel, JSON).
//
// Its joint positions are not stored: each joint is a list of base-mesh
// vertex indices whose mean is the joint's rest position, so the skeleton
// fits whatever base mesh (and morph) it is evaluated on.
type MHSkel struct {
	Name string
	// Bones in depth-first order: roots and siblings in file order, each
	// parent before its children.
	Bones []MHBone
	// Joints maps a joint name to base-mesh vertex indices.
	Joints map[string][]int32
	// Planes maps a plane name to three joint names (see MHBone.Planes).
	Planes map[string][3]string
	// WeightsFile is the "weights_file" entry (the default rig names its
	// .mhw there), or "".
	WeightsFile string
}

// MHBone is one bone of an MHSkel.
type MHBone struct {
	Name   string
	Parent string // "" for a root
	Head   string // joint name of the bone's head (its pivot)
	Tail   string // joint name of the bone's tail
	// Roll is a numeric roll in radians (the "roll" entry of rigs exported
	// from Blender, such as cmu_mb). It is used only when Planes is empty.
	// See MHSkel.SkelBones for its convention.
	Roll float64
	// Planes are the names of the bone's rotation planes ("rotation_plane",
	// or a string-valued "roll"); the bone's local X axis is the (mean)
	// plane normal. Empty when the bone has a numeric Roll.
	Planes []string
	// Reference lists the default-rig bones this bone stands for.
	Reference []string
	// WeightsReference, when non-empty, lists the default-rig bones whose
	// skin weights this bone takes (else Reference is used).
	WeightsReference []string
}

// WeightRefs returns the default-rig bones whose weights the bone takes:
// WeightsReference if non-empty, else Reference, with duplicates removed
// (first occurrence kept).
func (b *MHBone) WeightRefs() []string {
	refs := b.WeightsReference
	if len(refs) == 0 {
		refs = b.Reference
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range refs {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

type mhskelJSON struct {
	Name        string          `json:"name"`
	Bones       json.RawMessage `json:"bones"`
	Joints      map[string]json.RawMessage
	Planes      map[string]json.RawMessage
	WeightsFile json.RawMessage `json:"weights_file"`
}

type mhboneJSON struct {
	Head             string          `json:"head"`
	Tail             string          `json:"tail"`
	Parent           json.RawMessage `json:"parent"`
	Roll             json.RawMessage `json:"roll"`
	RotationPlane    json.RawMessage `json:"rotation_plane"`
	Reference        json.RawMessage `json:"reference"`
	WeightsReference json.RawMessage `json:"weights_reference"`
}

// ParseMHSkel reads a MakeHuman .mhskel file from r; name is used in
// errors. It checks that every bone has head and tail joints that exist,
// that parents exist and form no cycle, that planes name three existing
// joints and that vertex indices are in [0, MaxVerts). Vertex indices are
// checked against a real mesh later, by JointPositions.
func ParseMHSkel(r io.Reader, name string) (*MHSkel, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, perr(name, 0, "", "file larger than %d bytes", MaxFileBytes)
	}
	var raw mhskelJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, perr(name, jsonLine(data, err), "", "%v", err)
	}
	s := &MHSkel{Name: raw.Name, Joints: map[string][]int32{}, Planes: map[string][3]string{}}
	if wf, err := stringList(raw.WeightsFile); err != nil || len(wf) > 1 {
		return nil, perr(name, 0, "weights_file", "not a string")
	} else if len(wf) == 1 {
		s.WeightsFile = wf[0]
	}
	for jn, v := range raw.Joints {
		var idx []float64
		if err := json.Unmarshal(v, &idx); err != nil {
			return nil, perr(name, 0, "joints."+jn, "not a list of vertex indices")
		}
		if len(idx) == 0 {
			return nil, perr(name, 0, "joints."+jn, "no vertices")
		}
		l := make([]int32, len(idx))
		for i, x := range idx {
			if x != math.Trunc(x) || x < 0 || x >= MaxVerts {
				return nil, perr(name, 0, "joints."+jn, "bad vertex index %v", x)
			}
			l[i] = int32(x)
		}
		s.Joints[jn] = l
	}
	for pn, v := range raw.Planes {
		var js []string
		if err := json.Unmarshal(v, &js); err != nil || len(js) != 3 {
			return nil, perr(name, 0, "planes."+pn, "not a list of three joint names")
		}
		for _, j := range js {
			if _, ok := s.Joints[j]; !ok {
				return nil, perr(name, 0, "planes."+pn, "unknown joint %q", j)
			}
		}
		s.Planes[pn] = [3]string{js[0], js[1], js[2]}
	}
	keys, vals, err := objectEntries(raw.Bones)
	if err != nil {
		return nil, perr(name, 0, "bones", "%v", err)
	}
	if len(keys) == 0 {
		return nil, perr(name, 0, "bones", "no bones")
	}
	bones := make([]MHBone, len(keys))
	index := make(map[string]int, len(keys))
	for i, k := range keys {
		field := "bones." + k
		if k == "" {
			return nil, perr(name, 0, field, "empty bone name")
		}
		if _, dup := index[k]; dup {
			return nil, perr(name, 0, field, "duplicate bone")
		}
		index[k] = i
		var bj mhboneJSON
		if err := json.Unmarshal(vals[i], &bj); err != nil {
			return nil, perr(name, 0, field, "%v", err)
		}
		b := MHBone{Name: k, Head: bj.Head, Tail: bj.Tail}
		for _, j := range [...]string{b.Head, b.Tail} {
			if _, ok := s.Joints[j]; !ok {
				return nil, perr(name, 0, field, "unknown joint %q", j)
			}
		}
		p, err := stringList(bj.Parent)
		if err != nil || len(p) > 1 {
			return nil, perr(name, 0, field+".parent", "not a bone name")
		}
		if len(p) == 1 {
			b.Parent = p[0]
		}
		// roll: a number, or (older files) plane name(s).
		if len(bytes.TrimSpace(bj.Roll)) > 0 && !isNull(bj.Roll) {
			if err := json.Unmarshal(bj.Roll, &b.Roll); err != nil {
				pl, err2 := stringList(bj.Roll)
				if err2 != nil {
					return nil, perr(name, 0, field+".roll", "neither a number nor plane names")
				}
				b.Roll = 0
				b.Planes = pl
			}
			if math.IsNaN(b.Roll) || math.IsInf(b.Roll, 0) {
				return nil, perr(name, 0, field+".roll", "not finite")
			}
		}
		if pl, err := stringList(bj.RotationPlane); err != nil {
			return nil, perr(name, 0, field+".rotation_plane", "not plane names")
		} else if len(pl) > 0 {
			b.Planes = pl
		}
		for _, pn := range b.Planes {
			if _, ok := s.Planes[pn]; !ok {
				return nil, perr(name, 0, field, "unknown plane %q", pn)
			}
		}
		if b.Reference, err = stringList(bj.Reference); err != nil {
			return nil, perr(name, 0, field+".reference", "not bone names")
		}
		if b.WeightsReference, err = stringList(bj.WeightsReference); err != nil {
			return nil, perr(name, 0, field+".weights_reference", "not bone names")
		}
		bones[i] = b
	}
	// Depth-first order, children in file order; detects unknown parents
	// and cycles.
	children := make([][]int, len(bones))
	var roots []int
	for i, b := range bones {
		if b.Parent == "" {
			roots = append(roots, i)
			continue
		}
		p, ok := index[b.Parent]
		if !ok {
			return nil, perr(name, 0, "bones."+b.Name+".parent", "unknown bone %q", b.Parent)
		}
		children[p] = append(children[p], i)
	}
	stack := make([]int, 0, len(bones))
	for k := len(roots) - 1; k >= 0; k-- {
		stack = append(stack, roots[k])
	}
	s.Bones = make([]MHBone, 0, len(bones))
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s.Bones = append(s.Bones, bones[i])
		for k := len(children[i]) - 1; k >= 0; k-- {
			stack = append(stack, children[i][k])
		}
	}
	if len(s.Bones) != len(bones) {
		return nil, perr(name, 0, "bones", "parent cycle")
	}
	return s, nil
}

// Bone returns the bone with the given name.
func (s *MHSkel) Bone(name string) (*MHBone, bool) {
	for i := range s.Bones {
		if s.Bones[i].Name == name {
			return &s.Bones[i], true
		}
	}
	return nil, false
}

// JointPositions returns the rest position of every joint: the mean of its
// vertices in verts (any unit; the result is in the same unit). The error
// names a joint with a vertex index outside verts.
func (s *MHSkel) JointPositions(verts []geom.Vec3) (map[string]geom.Vec3, error) {
	out := make(map[string]geom.Vec3, len(s.Joints))
	for jn, idx := range s.Joints {
		var sum geom.Vec3
		for _, v := range idx {
			if int(v) >= len(verts) {
				return nil, perr(s.Name, 0, "joints."+jn, "vertex %d out of range [0,%d)", v, len(verts))
			}
			sum = sum.Add(verts[v])
		}
		out[jn] = sum.Scale(1 / float64(len(idx)))
	}
	return out, nil
}

// BoneOptions tune MHSkel.SkelBones. The zero value gives the documented
// defaults.
type BoneOptions struct {
	// YUpRoll interprets numeric rolls with Blender's roll-zero reference
	// computed directly in the +Y-up frame. By default (false) numeric rolls
	// are taken as Blender rolls in Blender's +Z-up frame, where MakeHuman's
	// Blender tools produced them (see SkelBones).
	YUpRoll bool
	// NoHinges leaves every joint a skel.Ball. By default knees and elbows
	// (see HingeFlexDir) become skel.Hinge joints.
	NoHinges bool
}

// toBlender rotates MakeHuman's +Y-up frame into Blender's +Z-up frame:
// (x, y, z) → (x, −z, y), a quarter turn about +X.
var toBlender = geom.QuatAxisAngle(geom.Vec3{X: 1}, math.Pi/2)

// SkelBones returns the bones as skel.Bones (world rest positions in the
// unit of verts) ready for skel.FromBones, in s.Bones order.
//
// Bone frames follow Blender, as skel.BoneRotation does: local +Y runs from
// head to tail, and the roll turns the frame about it.
//
//   - A bone with rotation planes (the default rig) gets the roll that
//     makes its local +X axis the plane normal projected perpendicular to
//     the bone, as MakeHuman's skeleton.py does: for a plane of joints
//     (p1, p2, p3) the normal is n = (p3−p2)×(p2−p1), normalised, and
//     several planes are averaged; local Z = X × Y. A degenerate plane
//     (collinear joints, or a normal along the bone) gives roll 0.
//   - A numeric roll (cmu_mb) was written by Blender, where MakeHuman's
//     +Y-up coordinates are seen +Z-up as (x, −z, y). Its roll-zero frame is
//     therefore Blender's shortest arc from +Y computed in that frame and
//     rotated back, R = C⁻¹·BoneRotation(C·head, C·tail, roll) with C the
//     quarter turn about +X; SkelBones returns the equivalent roll about
//     the bone in the +Y-up frame. (With BoneOptions.YUpRoll the number is
//     passed through unchanged.)
//   - Knees and elbows become hinges (unless NoHinges), with Axis the
//     normal of the plane through the parent's head, the head and the tail,
//     in the bone's local frame, signed so that positive flexion moves the
//     tail toward HingeFlexDir (backward for knees, forward for elbows).
//     When the limb is straight (bend under 0.5°) the axis is
//     bone × flexDir. Other bones are skel.Ball with Axis +Y (the bone).
func (s *MHSkel) SkelBones(verts []geom.Vec3, opt BoneOptions) ([]skel.Bone, error) {
	pos, err := s.JointPositions(verts)
	if err != nil {
		return nil, err
	}
	heads := make(map[string]geom.Vec3, len(s.Bones))
	for _, b := range s.Bones {
		heads[b.Name] = pos[b.Head]
	}
	out := make([]skel.Bone, len(s.Bones))
	for i, b := range s.Bones {
		h, t := pos[b.Head], pos[b.Tail]
		if t.Sub(h).Len() == 0 {
			return nil, perr(s.Name, 0, "bones."+b.Name, "head and tail joints coincide")
		}
		sb := skel.Bone{Name: b.Name, Parent: b.Parent, Head: h, Tail: t}
		switch {
		case len(b.Planes) > 0:
			var n geom.Vec3
			for _, pn := range b.Planes {
				pl := s.Planes[pn]
				p1, p2, p3 := pos[pl[0]], pos[pl[1]], pos[pl[2]]
				n = n.Add(p3.Sub(p2).Unit().Cross(p2.Sub(p1).Unit()).Unit())
			}
			sb.Roll = rollToX(h, t, n)
		case opt.YUpRoll:
			sb.Roll = b.Roll
		default:
			r := toBlender.Conj().Mul(skel.BoneRotation(toBlender.Rotate(h), toBlender.Rotate(t), b.Roll))
			sb.Roll = rollToX(h, t, r.Rotate(geom.Vec3{X: 1}))
		}
		if flex, ok := HingeFlexDir(b.Name); ok && !opt.NoHinges {
			var up geom.Vec3 // parent bone direction
			if ph, ok := heads[b.Parent]; ok {
				up = h.Sub(ph)
			}
			sb.Kind = skel.Hinge
			a := hingeAxis(up, t.Sub(h), flex)
			sb.Axis = skel.BoneRotation(h, t, sb.Roll).Conj().Rotate(a)
		}
		out[i] = sb
	}
	return out, nil
}

// Skeleton builds the skel.Skeleton of s on verts (see SkelBones); scale
// multiplies the positions (0.1 for base.obj decimetres to metres).
func (s *MHSkel) Skeleton(verts []geom.Vec3, scale float64, opt BoneOptions) (*skel.Skeleton, error) {
	bones, err := s.SkelBones(verts, opt)
	if err != nil {
		return nil, err
	}
	for i := range bones {
		bones[i].Head = bones[i].Head.Scale(scale)
		bones[i].Tail = bones[i].Tail.Scale(scale)
	}
	sk, err := skel.FromBones(bones)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return sk, nil
}

// rollToX returns the roll about the bone head→tail that turns the local
// +X axis of skel.BoneRotation(head, tail, 0) onto x made perpendicular to
// the bone; 0 when x is (nearly) zero or along the bone.
func rollToX(head, tail, x geom.Vec3) float64 {
	d := tail.Sub(head).Unit()
	x = x.Sub(d.Scale(x.Dot(d)))
	if x.Len() < 1e-9 {
		return 0
	}
	q0 := skel.BoneRotation(head, tail, 0)
	x0 := q0.Rotate(geom.Vec3{X: 1})
	z0 := q0.Rotate(geom.Vec3{Z: 1})
	// BoneRotation(roll) = arc·Ry(roll): x = cos·x0 − sin·z0 (Ry takes +X
	// to (cos, 0, −sin)).
	return math.Atan2(-x.Dot(z0), x.Dot(x0))
}

// hingeAxis returns the unit flexion axis of a hinge between parent bone
// direction up and bone direction d (world): the normal of their plane,
// signed so that rotating d positively about it moves d toward flex. With
// a straight limb, or no parent, it is d × flex made unit.
func hingeAxis(up, d, flex geom.Vec3) geom.Vec3 {
	d = d.Unit()
	a := up.Unit().Cross(d)
	if a.Len() < math.Sin(0.5*math.Pi/180) {
		a = d.Cross(flex)
	}
	a = a.Unit()
	if a.Cross(d).Dot(flex) < 0 {
		a = a.Neg()
	}
	return a
}

// hinges are the knee and elbow bones of the cmu_mb and default rigs with
// the world direction (character facing +Z) their tail moves when they
// flex.
var hinges = map[string]geom.Vec3{
	"LeftLeg": {Z: -1}, "RightLeg": {Z: -1}, "lowerleg01.L": {Z: -1}, "lowerleg01.R": {Z: -1},
	"LeftForeArm": {Z: 1}, "RightForeArm": {Z: 1}, "lowerarm01.L": {Z: 1}, "lowerarm01.R": {Z: 1},
}

// HingeFlexDir reports whether the bone name is a knee or elbow of the
// cmu_mb (LeftLeg, LeftForeArm, ...) or default (lowerleg01.L,
// lowerarm01.L, ...) rig, and the rest-pose world direction its tail moves
// when it flexes: −Z (backward) for knees, +Z (forward) for elbows.
func HingeFlexDir(bone string) (geom.Vec3, bool) {
	d, ok := hinges[bone]
	return d, ok
}

// objectEntries returns the keys and raw values of a JSON object in file
// order.
func objectEntries(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not an object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, nil, fmt.Errorf("bad key")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// stringList decodes null or absent (nil), a string, or a list of strings
// and nulls (nulls skipped).
func stringList(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || isNull(raw) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []string{s}, nil
	}
	var l []*string
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, err
	}
	var out []string
	for _, p := range l {
		if p != nil {
			out = append(out, *p)
		}
	}
	return out, nil
}

// jsonLine returns the 1-based line of a json syntax or type error, 0 if
// unknown.
func jsonLine(data []byte, err error) int {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
