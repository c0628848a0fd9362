package build

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// DefaultPoseTolerance is the depth (m) a moving limb's skin may reach
// inside the rest of the body before a sample counts as invalid: skin in
// contact (a hand resting on the thigh, a full knee bend) sinks a few
// millimetres into the other surface with linear blend skinning, a limb
// passing through the body by centimetres.
const DefaultPoseTolerance = 0.01

// Body-part thresholds of the pose check, on a vertex's summed skin weight.
const (
	// movingWeight: a vertex at least this much bound to the moving joints
	// follows them rigidly and is tested.
	movingWeight = 0.99
	// staticWeight: a vertex with at most this much weight on the moving
	// joints and the joint they hang from stays where it is and is part of
	// the surface tested against.
	staticWeight = 0.01
)

// PoseReport is the pose check of one sample: whether its moving limb
// passes through the rest of the body.
type PoseReport struct {
	Sample wrinkle.Sample
	// Depth is the deepest moving-limb skin vertex inside the rest of the
	// body, m (0 when none is inside); Inside counts those deeper than the
	// tolerance.
	Depth  float64
	Inside int
	// Valid is Inside == 0.
	Valid bool
}

func (r PoseReport) String() string {
	if r.Valid {
		return fmt.Sprintf("sample %d (%s): valid, deepest %.1f mm", r.Sample.Index, describe(r.Sample), r.Depth*1000)
	}
	return fmt.Sprintf("sample %d (%s): the moving limb passes through the body: %d skin vertices inside, deepest %.1f mm",
		r.Sample.Index, describe(r.Sample), r.Inside, r.Depth*1000)
}

// describe names a sample's role and angles in degrees.
func describe(s wrinkle.Sample) string {
	out := s.Role.String()
	for d := 0; d < s.Role.NumDoF(); d++ {
		out += fmt.Sprintf(" %s %.0f°", s.Role.DoFName(d), s.Angles[d]*180/math.Pi)
	}
	return out
}

// poseChecker tests samples' moving limbs against the rest of the body.
// Per role it holds the vertices that follow the role's joints rigidly and
// the body without the moving part and the segment it hangs from (where
// the limb folds against itself: inner elbow, back of the knee, armpit),
// which the sample's pose does not move. It is safe for concurrent use.
type poseChecker struct {
	ch     *character.Character
	rig    *wrinkle.Rig
	tol    float64
	moving [wrinkle.NumRoles][]int32
	static [wrinkle.NumRoles]*collide.Body
}

// newPoseChecker prepares the check for the roles of spec.
func newPoseChecker(ch *character.Character, rig *wrinkle.Rig, spec *wrinkle.Spec, tol float64) (*poseChecker, error) {
	pc := &poseChecker{ch: ch, rig: rig, tol: tol}
	sk := ch.Skeleton
	for _, js := range spec.Joints() {
		r := js.Role
		if pc.static[r] != nil {
			continue
		}
		base := rig.Roles[r].Chain[0]
		moves := make([]bool, sk.NumJoints())
		for j := range moves {
			moves[j] = j == base || sk.IsAncestor(base, j)
		}
		parent := sk.Parent(base)
		wMove := make([]float64, len(ch.Body.Verts))
		wNear := make([]float64, len(ch.Body.Verts))
		for v := range wMove {
			js, ws := ch.Weights.Influences(v)
			for i, j := range js {
				if moves[j] {
					wMove[v] += float64(ws[i])
					wNear[v] += float64(ws[i])
				} else if int(j) == parent {
					wNear[v] += float64(ws[i])
				}
			}
			if wMove[v] >= movingWeight {
				pc.moving[r] = append(pc.moving[r], int32(v))
			}
		}
		static := func(v int32) bool { return wNear[v] <= staticWeight && wMove[v] == 0 }
		bare := &mesh.Mesh{Verts: ch.Body.Verts, Tris: ch.Body.Tris}
		sub, _, _ := mesh.Extract(bare, func(t int) bool {
			tr := bare.Tris[t]
			return static(tr[0]) && static(tr[1]) && static(tr[2])
		})
		if len(sub.Tris) == 0 {
			continue // nothing to pass through
		}
		b, err := collide.NewBody(sub)
		if err != nil {
			return nil, fmt.Errorf("build: pose check for %s: the body without the moving limb: %w", r, err)
		}
		pc.static[r] = b
	}
	return pc, nil
}

// check skins the moving limb into the sample's pose and measures how deep
// it reaches into the rest of the body.
func (pc *poseChecker) check(s wrinkle.Sample) (PoseReport, error) {
	rep := PoseReport{Sample: s, Valid: true}
	body := pc.static[s.Role]
	if body == nil {
		return rep, nil
	}
	p, err := pc.rig.SamplePose(s)
	if err != nil {
		return rep, fmt.Errorf("build: sample %d: %w", s.Index, err)
	}
	skin := skel.SkinMatrices(pc.ch.Skeleton, p, nil)
	// Deeper than this is counted as this: a point centimetres inside is
	// invalid however deep, and the bound keeps the queries local.
	const reach = 0.2
	for _, v := range pc.moving[s.Role] {
		q := skinVertex(pc.ch.Body.Verts[v], pc.ch.Weights, int(v), skin)
		c, ok := body.Query(q, reach)
		if !ok || c.Dist >= 0 {
			continue
		}
		rep.Depth = math.Max(rep.Depth, -c.Dist)
		if -c.Dist > pc.tol {
			rep.Inside++
		}
	}
	rep.Valid = rep.Inside == 0
	return rep, nil
}

// skinVertex is linear blend skinning of one vertex.
func skinVertex(p geom.Vec3, w skel.Weights, v int, skin []geom.Rigid) geom.Vec3 {
	js, ws := w.Influences(v)
	var out geom.Vec3
	for i, j := range js {
		out = out.AddScaled(float64(ws[i]), skin[j].Apply(p))
	}
	return out
}
