package layers

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// TestSkirtStaysOutOfThighs walks and kicks the MakeHuman woman in her
// pencil skirt (CMU 02_01, 11_01). The thighs turn and slide inside the
// skirt, so the skin point each floating vertex was bound to at rest is no
// longer the nearest: kept only outside that point's tangent plane,
// 0.22 % of the floating vertex-frames of the walk and 0.58 % of the kick
// end more than 2 mm inside a thigh. The exact test against the own leg
// near where the cloth is (own-part bindings) brings that to 0 % and
// 0.06 %.
func TestSkirtStaysOutOfThighs(t *testing.T) {
	for _, c := range []struct {
		motion string
		most   float64 // largest fraction of deep floating vertex-frames
	}{
		{"02_01_walk", 0.0005},
		{"11_01_soccer_kick", 0.001},
	} {
		t.Run(c.motion, func(t *testing.T) {
			s, r, body := runMakeHuman(t, "female_elegantsuit01", c.motion)
			a := r.Animator
			var skin []geom.Rigid
			var x, tight []geom.Vec3
			deep, n, far := 0, 0, 0.0
			for f, fr := range r.Frames {
				skin = skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], skin)
				x = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, x)
				tight = skel.LBS(a.outfit.Verts, a.weights, skin, tight)
				body.SetFrame(x)
				for v, p := range fr {
					if a.class.Of(v) != Floating {
						continue
					}
					n++
					far = max(far, p.Dist(tight[v]))
					if body.SignedDistance(p).Dist < -0.002 {
						deep++
					}
				}
			}
			frac := float64(deep) / float64(n)
			t.Logf("floating vertex-frames more than 2 mm inside the body: %d of %d (%.3f %%)", deep, n, 100*frac)
			// the corrections move the cloth out of the leg, not away
			// from the body (a skirt swings some 25 cm at most)
			if far > 0.5 {
				t.Errorf("a floating vertex is %.0f mm from its skinned position, want ≤ 500 mm", far*1000)
			}
			if frac > c.most {
				t.Errorf("floating vertex-frames more than 2 mm inside the body: %.3f %%, want ≤ %.3f %%", 100*frac, 100*c.most)
			}
		})
	}
}

// runMakeHuman runs the layers on the MakeHuman body wearing garment
// through the CMU clip motion (a file name without .bvh) at 30 frames/s,
// and returns the scene, the result and the body for penetration tests.
func runMakeHuman(t *testing.T, garment, motion string) (*scene.Scene, *Result, *collide.Body) {
	t.Helper()
	d := assets(t)
	s, err := scene.Load(scene.Spec{Character: filepath.Join(d, "makehuman"), Garments: []string{garment},
		Motion: filepath.Join(d, "mocap", "cmu", motion+".bvh"), FPS: 30, Ground: scene.GroundContact})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), s, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := collide.NewBody(s.Character.Body)
	if err != nil {
		t.Fatal(err)
	}
	return s, r, body
}

// deepOfClass counts r's vertex-frames of class c more than 2 mm inside
// the body of s (skinned per frame into body), and all of them.
func deepOfClass(s *scene.Scene, r *Result, body *collide.Body, c Layer) (deep, n int) {
	var skin []geom.Rigid
	var x []geom.Vec3
	for f, fr := range r.Frames {
		skin = skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], skin)
		x = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, x)
		body.SetFrame(x)
		for v, p := range fr {
			if r.Animator.class.Of(v) != c {
				continue
			}
			n++
			if body.SignedDistance(p).Dist < -0.002 {
				deep++
			}
		}
	}
	return deep, n
}
