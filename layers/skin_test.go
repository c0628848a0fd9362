package layers

import (
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// TestLBSMatchesSkel: lbs gives skel.LBS's vertices bit for bit (the
// procedural body through a second of its walk).
func TestLBSMatchesSkel(t *testing.T) {
	s := proceduralScene(t, "walk", 1)
	body, w := s.Character.Body.Verts, s.Character.Weights
	var skin []geom.Rigid
	var mats []affine
	want := make([]geom.Vec3, len(body))
	got := make([]geom.Vec3, len(body))
	for f, pose := range s.Clip.Poses {
		skin = skel.SkinMatrices(s.Character.Skeleton, pose, skin)
		want = skel.LBS(body, w, skin, want)
		mats = lbs(got, body, w, skin, mats)
		for v := range want {
			if got[v] != want[v] {
				t.Fatalf("frame %d vertex %d: lbs %v, skel.LBS %v", f, v, got[v], want[v])
			}
		}
	}
}

// BenchmarkLBS: the procedural body, lbs against skel.LBS.
func BenchmarkLBS(b *testing.B) {
	s := proceduralScene(b, "walk", 1)
	body, w := s.Character.Body.Verts, s.Character.Weights
	skin := skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[len(s.Clip.Poses)/2], nil)
	dst := make([]geom.Vec3, len(body))
	b.Run("layers", func(b *testing.B) {
		var mats []affine
		for range b.N {
			mats = lbs(dst, body, w, skin, mats)
		}
	})
	b.Run("skel", func(b *testing.B) {
		for range b.N {
			dst = skel.LBS(body, w, skin, dst)
		}
	})
}
