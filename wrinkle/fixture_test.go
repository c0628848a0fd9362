package wrinkle

import (
	"math"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// fixture is the procedural mannequin with a coarse shirt and trousers,
// built once for all tests.
type fixture struct {
	body     *procedural.Body
	rig      *Rig
	shirt    *procedural.Garment
	trousers *procedural.Garment
}

var (
	fixOnce sync.Once
	fix     fixture
	fixErr  error
)

func getFixture(t testing.TB) *fixture {
	t.Helper()
	fixOnce.Do(func() {
		if fix.body, fixErr = procedural.Mannequin(procedural.MannequinOptions{}); fixErr != nil {
			return
		}
		if fix.rig, fixErr = Bind(fix.body.Skeleton, nil); fixErr != nil {
			return
		}
		if fix.shirt, fixErr = procedural.Shirt(fix.body, procedural.GarmentOptions{TargetVerts: 600}); fixErr != nil {
			return
		}
		fix.trousers, fixErr = procedural.Trousers(fix.body, procedural.GarmentOptions{TargetVerts: 600})
	})
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return &fix
}

// smallSpec samples every role on a coarse grid (53 samples) around the
// mannequin's rest pose (a T-pose: shoulders abducted 90°, hips at flexion
// -1.4° and abduction 2.1° from the anatomical neutral), so that every
// role's rest angles lie inside its grid.
const smallSpecJSON = `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
 {"role": "spine", "flex": {"min": -30, "max": 30, "step": 30}, "twist": {"min": -30, "max": 30, "step": 30}},
 {"role": "left_shoulder", "flex": {"min": 0, "max": 60, "step": 30}, "abduct": {"min": 60, "max": 90, "step": 30}, "twist": {"min": -30, "max": 30, "step": 30}},
 {"role": "right_shoulder", "flex": {"min": 0, "max": 30, "step": 30}, "abduct": {"min": 90, "max": 90, "step": 0}},
 {"role": "left_elbow", "flex": {"min": 0, "max": 120, "step": 30}},
 {"role": "right_elbow", "flex": {"min": 0, "max": 60, "step": 30}},
 {"role": "left_hip", "flex": {"min": -30, "max": 30, "step": 30}, "abduct": {"min": 0, "max": 15, "step": 15}},
 {"role": "right_hip", "flex": {"min": -30, "max": 0, "step": 30}, "abduct": {"min": 0, "max": 15, "step": 15}},
 {"role": "left_knee", "flex": {"min": 0, "max": 90, "step": 30}},
 {"role": "right_knee", "flex": {"min": 0, "max": 30, "step": 30}}]}`

func smallSpec(t testing.TB) *Spec {
	t.Helper()
	s, err := ParseSpec([]byte(smallSpecJSON))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fakeSettle stands in for the simulator: the garment skinned into the
// sample's pose plus a smooth ripple of a few millimetres that depends on
// the sample's angles from the rest pose's (deterministic; the same for
// every role at rest).
func fakeSettle(rig *Rig, m *mesh.Mesh, w skel.Weights, s Sample) []geom.Vec3 {
	p, _ := rig.SamplePose(s)
	skin := skel.SkinMatrices(rig.Skeleton, p, nil)
	pos := skel.LBS(m.Verts, w, skin, nil)
	r, _ := rig.Angles(s.Role, skel.RestPose(rig.Skeleton))
	a := (s.Angles[0] - r[0]) + 0.5*(s.Angles[1]-r[1]) + 0.25*(s.Angles[2]-r[2])
	for v := range pos {
		r := m.Verts[v]
		pos[v] = pos[v].Add(geom.V(
			0.004*math.Sin(37*r.Y+3*a),
			0.002*math.Cos(23*r.X+2*a),
			0.003*math.Sin(29*r.Z+31*r.Y+a)))
	}
	return pos
}

func assetsDir(t testing.TB) string {
	t.Helper()
	d := assets.Dir()
	if d == "" {
		t.Skip("PLEAT_ASSETS is not set: skipping the test on the real MakeHuman assets")
	}
	return d
}
