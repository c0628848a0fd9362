package layers

import (
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// TestBentJointsKeepClothOut walks the MakeHuman man in his suit (CMU
// 02_01): the knees bend up to 60°, pressing the calf into the cloth on the
// back of the thigh and the thigh into the cloth on the calf. Skinning alone
// leaves tight cloth inside the body there; the exact test against the part
// one joint away (adjacent bindings) pushes it out: 0.03 % of the tight
// vertex-frames are inside the body with them, 0.09 % without.
func TestBentJointsKeepClothOut(t *testing.T) {
	s, r, body := runMakeHuman(t, "male_casualsuit02", "02_01_walk")
	a := r.Animator
	var skin []geom.Rigid
	var x []geom.Vec3
	in, n := 0, 0
	for f, fr := range r.Frames {
		skin = skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], skin)
		x = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, x)
		body.SetFrame(x)
		for v, p := range fr {
			if a.class.Of(v) != Tight {
				continue
			}
			n++
			if body.SignedDistance(p).Dist < 0 {
				in++
			}
		}
	}
	frac := float64(in) / float64(n)
	t.Logf("tight vertex-frames inside the body: %d of %d (%.3f %%)", in, n, 100*frac)
	if frac > 0.0004 {
		t.Errorf("tight vertex-frames inside the body: %.3f %%, want ≤ 0.04 %%", 100*frac)
	}
}
