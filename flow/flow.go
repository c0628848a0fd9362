package flow

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/skel"
)

// Errors for bad input, wrapped with details (test with errors.Is).
var (
	// ErrVertexCount: a frame, the weights or the binding disagree with the
	// garment's vertex count.
	ErrVertexCount = errors.New("flow: vertex count mismatch")
	// ErrFrameCount: the animation and the motion have different frame
	// counts, or there are too few frames.
	ErrFrameCount = errors.New("flow: frame count mismatch")
	// ErrRank: more components asked for than the wrinkle flow has.
	ErrRank = errors.New("flow: k larger than the rank of the wrinkle flow")
	// ErrTarget: an RMS error target that cannot be reached.
	ErrTarget = errors.New("flow: error target not reachable")
	// ErrInput: missing or invalid input (no rig, bad weights, NaNs, ...).
	ErrInput = errors.New("flow: bad input")
)

// Animation is a garment animation to compress.
type Animation struct {
	// Name names the garment (glTF mesh name); optional.
	Name string
	// Rest is the garment in the rest (bind) pose of the rig's skeleton, in
	// metres: the topology and the bind-space positions r_v.
	Rest *mesh.Mesh
	// Frames[t][v] is vertex v's world position at frame t, in metres. There
	// is one frame per rig pose.
	Frames [][]geom.Vec3
}

// Rig is the skeletal motion that drives the skinned part, and what the
// garment is bound with.
type Rig struct {
	// Skeleton is the animated skeleton; its rest pose is the pose of
	// Animation.Rest and Body.
	Skeleton *skel.Skeleton
	// Poses holds one pose per frame of the animation.
	Poses []skel.Pose
	// FPS is the frame rate (> 0).
	FPS float64
	// Weights, when non-empty, are the garment's own skin weights (one list
	// per garment vertex), used with BindGiven.
	Weights skel.Weights
	// Body and BodyWeights are the body mesh in the rest pose and its skin
	// weights, used with BindNearest and BindBarycentric.
	Body        *mesh.Mesh
	BodyWeights skel.Weights
}

// NewRig returns the rig of a character playing clip. garmentWeights may be
// empty; pass the garment's weights to allow BindGiven.
func NewRig(ch *character.Character, clip *motion.Clip, garmentWeights skel.Weights) Rig {
	return Rig{Skeleton: ch.Skeleton, Poses: clip.Poses, FPS: clip.FPS,
		Weights: garmentWeights, Body: ch.Body, BodyWeights: ch.Weights}
}

// Binding selects how garment vertices get skin weights.
type Binding uint8

// The bindings. BindNearest is kim2013's vertex-to-vertex deformation
// transfer: the weights of the nearest body vertex in the rest pose.
// BindBarycentric blends the weights of the closest body triangle's corners
// by the barycentric coordinates of the closest point. BindGiven uses
// Rig.Weights.
const (
	BindNearest Binding = iota
	BindBarycentric
	BindGiven
)

func (b Binding) String() string {
	switch b {
	case BindNearest:
		return "nearest"
	case BindBarycentric:
		return "barycentric"
	case BindGiven:
		return "given"
	}
	return fmt.Sprintf("Binding(%d)", uint8(b))
}

// ParseBinding parses "nearest", "barycentric" or "given".
func ParseBinding(s string) (Binding, error) {
	for _, b := range []Binding{BindNearest, BindBarycentric, BindGiven} {
		if strings.EqualFold(s, b.String()) {
			return b, nil
		}
	}
	return 0, fmt.Errorf("flow: unknown binding %q (want nearest, barycentric or given)", s)
}

// DefaultMaxError is the RMS error target used when neither Options.K nor
// Options.MaxError is set: 2 mm.
const DefaultMaxError = 0.002

// Options control Compress and Evaluate. The zero value binds by nearest
// body vertex and chooses k for a 2 mm RMS error.
type Options struct {
	// K is the number of PCA components (morph targets). 0 chooses the
	// smallest k that meets MaxError.
	K int
	// MaxError is the RMS error target in metres, used when K is 0; 0 means
	// DefaultMaxError (2 mm).
	MaxError float64
	// Binding picks the garment's skin weights; default BindNearest.
	Binding Binding
	// Workers is the number of goroutines; ≤ 0 means runtime.GOMAXPROCS(0).
	// Results do not depend on it.
	Workers int
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// ParseLength parses a length such as "2mm", "0.5cm", "0.002m" or "2"
// (millimetres) and returns it in metres.
func ParseLength(s string) (float64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	unit := 0.001
	for _, u := range []struct {
		suf string
		m   float64
	}{{"mm", 0.001}, {"cm", 0.01}, {"m", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, unit = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("flow: bad length %q (want e.g. 2mm, 0.5cm, 0.002m)", s)
	}
	return x * unit, nil
}

// validate checks anim against rig.
func validate(anim Animation, rig Rig) error {
	if anim.Rest == nil || len(anim.Rest.Verts) == 0 {
		return fmt.Errorf("%w: animation has no rest mesh", ErrInput)
	}
	if err := anim.Rest.Validate(); err != nil {
		return fmt.Errorf("%w: rest mesh: %v", ErrInput, err)
	}
	if rig.Skeleton == nil {
		return fmt.Errorf("%w: rig has no skeleton", ErrInput)
	}
	if !(rig.FPS > 0) || math.IsInf(rig.FPS, 0) {
		return fmt.Errorf("%w: FPS %g, want positive", ErrInput, rig.FPS)
	}
	n, m := len(anim.Rest.Verts), len(anim.Frames)
	if m != len(rig.Poses) {
		return fmt.Errorf("%w: the animation has %d frames, the motion %d", ErrFrameCount, m, len(rig.Poses))
	}
	if m < 2 {
		return fmt.Errorf("%w: %d frames, want at least 2", ErrFrameCount, m)
	}
	for t, fr := range anim.Frames {
		if len(fr) != n {
			return fmt.Errorf("%w: frame %d has %d vertices, the garment %d", ErrVertexCount, t, len(fr), n)
		}
	}
	nj := rig.Skeleton.NumJoints()
	for t, p := range rig.Poses {
		if len(p.Rot) != nj {
			return fmt.Errorf("%w: pose %d has %d rotations for %d joints", ErrInput, t, len(p.Rot), nj)
		}
	}
	return nil
}

// checkFinite reports the first non-finite frame position.
func checkFinite(frames [][]geom.Vec3) error {
	for t, fr := range frames {
		for v, p := range fr {
			if !p.IsFinite() {
				return fmt.Errorf("%w: frame %d vertex %d is not finite", ErrInput, t, v)
			}
		}
	}
	return nil
}

// canonicalPoses rounds every pose to float32, the precision of the .pflow
// file and of glTF animation tracks.
func canonicalPoses(poses []skel.Pose) []skel.Pose {
	out := make([]skel.Pose, len(poses))
	for t, p := range poses {
		q := skel.Pose{Root: f32vec(p.Root), Rot: make([]geom.Quat, len(p.Rot))}
		for j, r := range p.Rot {
			q.Rot[j] = geom.Quat{W: f32(r.W), X: f32(r.X), Y: f32(r.Y), Z: f32(r.Z)}
		}
		out[t] = q
	}
	return out
}

func f32(x float64) float64 { return float64(float32(x)) }

func f32vec(v geom.Vec3) geom.Vec3 { return geom.Vec3{X: f32(v.X), Y: f32(v.Y), Z: f32(v.Z)} }

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// canonicalSkeleton returns the skeleton that a .pflow reader builds from
// sk's joints, and those joints. skel.NewSkeleton renormalises rest
// rotations, which can move their last bit each time, so the file stores
// the joints as given and the flow uses the skeleton built from them.
func canonicalSkeleton(sk *skel.Skeleton) (*skel.Skeleton, []skel.Joint, error) {
	joints := sk.Joints()
	next, err := skel.NewSkeleton(joints)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: skeleton: %v", ErrInput, err)
	}
	return next, joints, nil
}
