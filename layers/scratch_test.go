package layers

import (
	"os"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

func TestScratchRest(t *testing.T) {
	if os.Getenv("LAYERS_SCRATCH") == "" {
		t.Skip()
	}
	s := makehumanScene(t, "female_elegantsuit01", "", 2)
	for _, opt := range []Options{{}, {CandidateReach: 1e-9}} {
		a, err := New(s.Character, s.Garments, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, pose := range []skel.Pose{skel.RestPose(s.Character.Skeleton), s.Clip.Poses[0]} {
			a, _ = New(s.Character, s.Garments, opt)
			var x []geom.Vec3
			for f := 0; f < 30; f++ {
				x, _ = a.Step(pose, x)
				if f%10 == 0 || f == 29 {
					mx, mean, n := 0.0, 0.0, 0
					skin := skel.SkinMatrices(s.Character.Skeleton, pose, nil)
					tight := skel.LBS(a.outfit.Verts, a.weights, skin, nil)
					for v := range x {
						if a.class.Float[v] > 0 {
							d := x[v].Dist(tight[v])
							mx = max(mx, d)
							mean += d
							n++
						}
					}
					t.Logf("reach %g frame %d: float dev mean %.1f max %.1f mm; iters %d contacts %d", opt.CandidateReach, f, mean/float64(n)*1000, mx*1000, a.stats.CGIters, a.stats.Contacts)
				}
			}
		}
	}
}

func TestScratchCaps(t *testing.T) {
	if os.Getenv("LAYERS_SCRATCH") == "" {
		t.Skip()
	}
	s := makehumanScene(t, "female_elegantsuit01", "", 2)
	a, _ := New(s.Character, s.Garments, Options{})
	for _, c := range a.float.caps {
		t.Logf("%s: fitted? RA %.3f RB %.3f cand %d", c.Name, c.RA, c.RB, len(c.cand))
	}
	for _, c := range a.caps {
		t.Logf("fit %s: RA %.3f RB %.3f A %v B %v", c.Name, c.RA, c.RB, c.A, c.B)
	}
	lo, hi := 10.0, -10.0
	for i, v := range a.float.idx {
		if !a.float.pinned[i] {
			lo, hi = min(lo, a.outfit.Verts[v].Y), max(hi, a.outfit.Verts[v].Y)
		}
	}
	t.Logf("float y range %.3f %.3f", lo, hi)
}

func TestScratchWalk(t *testing.T) {
	if os.Getenv("LAYERS_SCRATCH") == "" {
		t.Skip()
	}
	s := makehumanScene(t, "female_elegantsuit01", "", 3)
	a, _ := New(s.Character, s.Garments, Options{})
	var x []geom.Vec3
	for f, pose := range s.Clip.Poses {
		x, _ = a.Step(pose, x)
		if f%10 == 0 {
			dy, dd, n := 0.0, 0.0, 0
			for v := range x {
				if a.class.Float[v] == 1 {
					dy += x[v].Y - a.tight[v].Y
					dd += x[v].Dist(a.tight[v])
					n++
				}
			}
			t.Logf("frame %d: float mean dy %.1f mm, dist %.1f mm, contacts %d, root %v", f, dy/float64(n)*1000, dd/float64(n)*1000, a.stats.Contacts, pose.Root)
		}
	}
}
