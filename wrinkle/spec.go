package wrinkle

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Role is an anatomical joint the database samples (wang2010 §3.1, Fig. 4).
// Elbows and knees are hinges (one DoF: flexion); shoulders, hips and the
// spine are ball joints (three DoFs: two swing angles and a twist).
type Role uint8

// The nine roles of wang2010 §3.1.
const (
	Spine Role = iota
	LeftShoulder
	RightShoulder
	LeftElbow
	RightElbow
	LeftHip
	RightHip
	LeftKnee
	RightKnee
	// NumRoles is the number of roles.
	NumRoles
)

var roleNames = [NumRoles]string{
	"spine", "left_shoulder", "right_shoulder", "left_elbow", "right_elbow",
	"left_hip", "right_hip", "left_knee", "right_knee",
}

// String returns the role's spec name, e.g. "left_elbow".
func (r Role) String() string {
	if r < NumRoles {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// ParseRole returns the role with spec name s.
func ParseRole(s string) (Role, bool) {
	for i, n := range roleNames {
		if n == s {
			return Role(i), true
		}
	}
	return 0, false
}

// Hinge reports whether r is a one-DoF hinge (elbow or knee).
func (r Role) Hinge() bool {
	return r == LeftElbow || r == RightElbow || r == LeftKnee || r == RightKnee
}

// NumDoF returns 1 for hinges and 3 for ball joints.
func (r Role) NumDoF() int {
	if r.Hinge() {
		return 1
	}
	return 3
}

// Side returns +1 for left roles, -1 for right roles and 0 for the spine.
func (r Role) Side() float64 {
	switch r {
	case LeftShoulder, LeftElbow, LeftHip, LeftKnee:
		return 1
	case RightShoulder, RightElbow, RightHip, RightKnee:
		return -1
	}
	return 0
}

// DoFName returns the spec key of DoF i of role r: "flex" for hinges;
// "flex", "abduct", "twist" for shoulders and hips; "flex", "side",
// "twist" for the spine. See Rig for their anatomical meaning.
func (r Role) DoFName(i int) string {
	switch {
	case i == 0:
		return "flex"
	case i == 2:
		return "twist"
	case r == Spine:
		return "side"
	}
	return "abduct"
}

// DoFs holds a role's angles in radians: [flex] for a hinge, [flex,
// abduct or side, twist] for a ball joint; unused entries are zero.
type DoFs [3]float64

// Range is the sampled interval of one DoF, in degrees as in the spec file:
// the samples are MinDeg + i·StepDeg for i = 0..Len()-1, ending at MaxDeg.
type Range struct {
	MinDeg  float64 `json:"min"`
	MaxDeg  float64 `json:"max"`
	StepDeg float64 `json:"step"`
}

// Len returns the number of samples in the range (1 when Min = Max).
func (r Range) Len() int {
	if r.MaxDeg <= r.MinDeg || r.StepDeg <= 0 {
		return 1
	}
	return int(math.Round((r.MaxDeg-r.MinDeg)/r.StepDeg)) + 1
}

// Angle returns sample i of the range in radians.
func (r Range) Angle(i int) float64 {
	if i == r.Len()-1 {
		return r.MaxDeg * math.Pi / 180
	}
	return (r.MinDeg + float64(i)*r.StepDeg) * math.Pi / 180
}

// JointSpec is the sampling grid of one role: one Range per DoF (unused
// DoFs of a hinge are the zero Range, one sample at 0).
type JointSpec struct {
	Role Role
	DoF  [3]Range
}

// Grid returns the number of samples along each DoF.
func (j JointSpec) Grid() [3]int {
	return [3]int{j.DoF[0].Len(), j.DoF[1].Len(), j.DoF[2].Len()}
}

// NumSamples returns the number of grid points of the joint.
func (j JointSpec) NumSamples() int {
	g := j.Grid()
	return g[0] * g[1] * g[2]
}

// Spec is a validated sampling specification: the roles to sample and a
// grid per role. Build it with ParseSpec, NewSpec or DefaultSpec. It is
// immutable and safe for concurrent use.
type Spec struct {
	joints []JointSpec
	first  []int // first sample index of each joint; len(joints)+1 entries
}

// Sample is one database sample: joint Joint of the spec (role Role) at
// grid cell Cell, with the role's angles in radians. Index is its position
// in the spec's enumeration: joints in spec order, and within a joint the
// grid in row-major order (the last DoF, twist, fastest).
type Sample struct {
	Index  int
	Joint  int
	Role   Role
	Cell   [3]int
	Angles DoFs
}

// Limits of the spec, against absurd grids from bad files.
const (
	// MaxSamplesPerDoF caps the samples along one DoF.
	MaxSamplesPerDoF = 64
	// MaxSpecSamples caps the samples of a whole spec.
	MaxSpecSamples = 20000
	// MaxSpecBytes caps the size of a spec file.
	MaxSpecBytes = 1 << 20
	// maxSwingDeg caps the total swing sqrt(flex² + abduct²) at a grid
	// corner: the swing's rotation vector is ambiguous near 180°.
	maxSwingDeg = 170
)

// limitsDeg are the anatomical limits of each DoF, in degrees from the
// anatomical neutral (see Rig): generous, they reject what no body can
// reach.
var limitsDeg = [NumRoles][3][2]float64{
	Spine:         {{-60, 90}, {-60, 60}, {-90, 90}},
	LeftShoulder:  {{-90, 180}, {-90, 180}, {-120, 120}},
	RightShoulder: {{-90, 180}, {-90, 180}, {-120, 120}},
	LeftElbow:     {{-10, 160}},
	RightElbow:    {{-10, 160}},
	LeftHip:       {{-60, 150}, {-60, 90}, {-90, 90}},
	RightHip:      {{-60, 150}, {-60, 90}, {-90, 90}},
	LeftKnee:      {{-10, 160}},
	RightKnee:     {{-10, 160}},
}

// ErrSpec is wrapped by every *SpecError.
var ErrSpec = errors.New("wrinkle: bad sampling spec")

// SpecError reports a bad spec: the field (a JSON path such as
// "joints[2].twist.max") and what is wrong with it.
type SpecError struct {
	Field string
	Msg   string
}

func (e *SpecError) Error() string { return "wrinkle: spec field " + e.Field + ": " + e.Msg }

// Unwrap returns ErrSpec.
func (e *SpecError) Unwrap() error { return ErrSpec }

func specErr(field, format string, args ...any) error {
	return &SpecError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// specFile is the JSON form of a spec. Angles are in degrees.
type specFile struct {
	Format  string      `json:"format"`
	Version int         `json:"version"`
	Joints  []jointFile `json:"joints"`
}

type jointFile struct {
	Role   string `json:"role"`
	Flex   *Range `json:"flex,omitempty"`
	Abduct *Range `json:"abduct,omitempty"`
	Side   *Range `json:"side,omitempty"`
	Twist  *Range `json:"twist,omitempty"`
}

const (
	specFormat  = "pleat-wrinkle-spec"
	specVersion = 1
)

//go:embed default_spec.json
var defaultSpecJSON []byte

// DefaultSpec returns the embedded default spec: all nine roles at 15° or
// 30° steps, 267 samples for the five upper-body joints and 202 for the
// four lower-body ones (wang2010 §3.1: 325 and 202). Its ranges are
// anatomical, the same for any rig (A-pose, T-pose): shoulders from arms
// hanging at the sides (abduction 20°, as the torso allows) to raised
// above the head (140°), flexion -30° to 90°, twist -60° (external) to 30°
// (internal: further, an A-pose rig's rest-bent forearm would pass through
// the torso); elbows and knees 0° to 150°; hips flexion -45° to 105°,
// abduction -5° to 55°, twist ±30°; spine flexion -15° to 45°, side
// bending ±30°, twist ±60°.
func DefaultSpec() *Spec {
	s, err := ParseSpec(defaultSpecJSON)
	if err != nil {
		panic("wrinkle: embedded default spec: " + err.Error())
	}
	return s
}

// ParseSpec parses and validates a JSON spec:
//
//	{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
//	  {"role": "left_elbow", "flex": {"min": 0, "max": 150, "step": 15}},
//	  {"role": "spine", "flex": {...}, "side": {...}, "twist": {...}}, ...]}
//
// Angles are anatomical degrees (see Rig). A ball joint's DoF left out
// is sampled at 0 only. Unknown fields, unknown or repeated roles, DoFs the
// role does not have, ranges outside the role's anatomical limits, steps
// that do not divide their range and grids beyond MaxSamplesPerDoF or
// MaxSpecSamples are errors; the error is a *SpecError naming the field.
func ParseSpec(data []byte) (*Spec, error) {
	if len(data) > MaxSpecBytes {
		return nil, specErr("(file)", "%d bytes, more than %d", len(data), MaxSpecBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f specFile
	if err := dec.Decode(&f); err != nil {
		return nil, specErr("(file)", "%v", err)
	}
	if dec.More() {
		return nil, specErr("(file)", "trailing data after the spec object")
	}
	if f.Format != specFormat {
		return nil, specErr("format", "%q, want %q", f.Format, specFormat)
	}
	if f.Version != specVersion {
		return nil, specErr("version", "%d, this build reads version %d", f.Version, specVersion)
	}
	joints := make([]JointSpec, len(f.Joints))
	for i, jf := range f.Joints {
		field := fmt.Sprintf("joints[%d]", i)
		r, ok := ParseRole(jf.Role)
		if !ok {
			return nil, specErr(field+".role", "unknown role %q", jf.Role)
		}
		joints[i].Role = r
		given := [4]*Range{jf.Flex, jf.Abduct, jf.Side, jf.Twist}
		keys := [4]string{"flex", "abduct", "side", "twist"}
		for k, g := range given {
			if g == nil {
				continue
			}
			d := -1
			for i := 0; i < r.NumDoF(); i++ {
				if r.DoFName(i) == keys[k] {
					d = i
				}
			}
			if d < 0 {
				return nil, specErr(field+"."+keys[k], "role %s has no DoF %q", r, keys[k])
			}
			joints[i].DoF[d] = *g
		}
		if jf.Flex == nil {
			return nil, specErr(field+".flex", "missing (every role has a flexion range)")
		}
	}
	return newSpec(joints)
}

// NewSpec validates joints as ParseSpec does and returns the spec.
func NewSpec(joints []JointSpec) (*Spec, error) {
	return newSpec(append([]JointSpec(nil), joints...))
}

func newSpec(joints []JointSpec) (*Spec, error) {
	if len(joints) == 0 {
		return nil, specErr("joints", "empty")
	}
	s := &Spec{joints: joints, first: make([]int, len(joints)+1)}
	var seen [NumRoles]bool
	for i, j := range joints {
		field := fmt.Sprintf("joints[%d]", i)
		if j.Role >= NumRoles {
			return nil, specErr(field+".role", "unknown role %d", j.Role)
		}
		if seen[j.Role] {
			return nil, specErr(field+".role", "role %s listed twice", j.Role)
		}
		seen[j.Role] = true
		for d := 0; d < 3; d++ {
			if err := checkRange(field, j.Role, d, j.DoF[d]); err != nil {
				return nil, err
			}
		}
		if !j.Role.Hinge() {
			f, a := j.DoF[0], j.DoF[1]
			worst := math.Hypot(math.Max(-f.MinDeg, f.MaxDeg), math.Max(-a.MinDeg, a.MaxDeg))
			if worst > maxSwingDeg {
				return nil, specErr(field, "total swing at a grid corner reaches %.4g°, more than %d°", worst, maxSwingDeg)
			}
		}
		s.first[i+1] = s.first[i] + j.NumSamples()
		if s.first[i+1] > MaxSpecSamples {
			return nil, specErr(field, "spec has more than %d samples", MaxSpecSamples)
		}
	}
	return s, nil
}

func checkRange(field string, r Role, d int, g Range) error {
	if d >= r.NumDoF() {
		if g != (Range{}) {
			return specErr(fmt.Sprintf("%s.dof[%d]", field, d), "role %s has %d DoF", r, r.NumDoF())
		}
		return nil
	}
	field += "." + r.DoFName(d)
	lim := limitsDeg[r][d]
	switch {
	case !finite(g.MinDeg):
		return specErr(field+".min", "not finite")
	case !finite(g.MaxDeg):
		return specErr(field+".max", "not finite")
	case !finite(g.StepDeg):
		return specErr(field+".step", "not finite")
	case g.MinDeg > g.MaxDeg:
		return specErr(field+".min", "%g° is above max %g°", g.MinDeg, g.MaxDeg)
	case g.MinDeg < lim[0]:
		return specErr(field+".min", "%g° is beyond the anatomical limit %g° of %s", g.MinDeg, lim[0], r)
	case g.MaxDeg > lim[1]:
		return specErr(field+".max", "%g° is beyond the anatomical limit %g° of %s", g.MaxDeg, lim[1], r)
	case g.MaxDeg == g.MinDeg && g.StepDeg == 0:
		return nil
	case g.StepDeg < 1 || g.StepDeg > 90:
		return specErr(field+".step", "%g°, want 1° to 90° (wang2010 uses 15° or 30°)", g.StepDeg)
	}
	n := (g.MaxDeg - g.MinDeg) / g.StepDeg
	if math.Abs(n-math.Round(n)) > 1e-9*math.Max(1, n) {
		return specErr(field+".step", "%g° does not divide the range %g° to %g°", g.StepDeg, g.MinDeg, g.MaxDeg)
	}
	if n+1 > MaxSamplesPerDoF {
		return specErr(field+".step", "%g samples, more than %d", n+1, MaxSamplesPerDoF)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Joints returns a copy of the spec's joints, in spec order.
func (s *Spec) Joints() []JointSpec { return append([]JointSpec(nil), s.joints...) }

// NumJoints returns the number of joints in the spec.
func (s *Spec) NumJoints() int { return len(s.joints) }

// JointSpec returns joint i of the spec.
func (s *Spec) JointSpec(i int) JointSpec { return s.joints[i] }

// JointOf returns the spec index of role r.
func (s *Spec) JointOf(r Role) (int, bool) {
	for i, j := range s.joints {
		if j.Role == r {
			return i, true
		}
	}
	return -1, false
}

// NumSamples returns the number of samples of the whole spec.
func (s *Spec) NumSamples() int { return s.first[len(s.joints)] }

// FirstSample returns the index of joint i's first sample; joint i's
// samples are FirstSample(i) .. FirstSample(i+1)-1.
func (s *Spec) FirstSample(i int) int { return s.first[i] }

// Sample returns sample k of the enumeration (see Sample).
func (s *Spec) Sample(k int) (Sample, error) {
	if k < 0 || k >= s.NumSamples() {
		return Sample{}, fmt.Errorf("wrinkle: sample %d out of range [0, %d)", k, s.NumSamples())
	}
	i := 0
	for s.first[i+1] <= k {
		i++
	}
	j := s.joints[i]
	g := j.Grid()
	local := k - s.first[i]
	c := [3]int{local / (g[1] * g[2]), local / g[2] % g[1], local % g[2]}
	sm := Sample{Index: k, Joint: i, Role: j.Role, Cell: c}
	for d := 0; d < j.Role.NumDoF(); d++ {
		sm.Angles[d] = j.DoF[d].Angle(c[d])
	}
	return sm, nil
}

// Samples returns every sample in enumeration order.
func (s *Spec) Samples() []Sample {
	out := make([]Sample, s.NumSamples())
	for k := range out {
		out[k], _ = s.Sample(k)
	}
	return out
}

// MarshalJSON returns the canonical JSON form of the spec (the form
// ParseSpec reads; DoFs sampled at 0 only are written out).
func (s *Spec) MarshalJSON() ([]byte, error) {
	f := specFile{Format: specFormat, Version: specVersion, Joints: make([]jointFile, len(s.joints))}
	for i, j := range s.joints {
		jf := jointFile{Role: j.Role.String()}
		for d := 0; d < j.Role.NumDoF(); d++ {
			g := j.DoF[d]
			switch j.Role.DoFName(d) {
			case "flex":
				jf.Flex = &g
			case "abduct":
				jf.Abduct = &g
			case "side":
				jf.Side = &g
			case "twist":
				jf.Twist = &g
			}
		}
		f.Joints[i] = jf
	}
	return json.Marshal(f)
}

// Hash returns the SHA-256 of the spec's canonical JSON.
func (s *Spec) Hash() [32]byte {
	b, _ := s.MarshalJSON()
	return sha256.Sum256(b)
}
