package layers

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// TestWalkAcrossCorners checks the exact test's walk (walkV) against a
// scan of all of a binding's candidates, the oracle it replaced: from the
// candidate place chose, at the cloth's output position, over a second of
// the procedural walk. An edge walk stops where the part's triangles are
// not edge-connected (its borders are jagged: a triangle is the part's by
// its first corner's strongest joint); walkV steps over them. It may end
// nearer than the scan (it is not held to the binding's candidates), so
// only ending more than walkTol farther counts as stuck. For the queries
// whose nearest candidate lies within walkNear (where the cloth can be
// near the part) walkV is stuck in 0.89 % of 15,220 and walk in 2.80 %
// (within crossExact: 1.86 % and 3.06 %).
// walkTol and walkNear (m): see TestWalkAcrossCorners
const walkTol, walkNear = 0.002, 0.03

func TestWalkAcrossCorners(t *testing.T) {
	s := proceduralScene(t, "walk", 1)
	a, err := New(s.Character, s.Garments, Options{FPS: s.Clip.FPS})
	if err != nil {
		t.Fatal(err)
	}
	var x []geom.Vec3
	n, stuckE, stuckV := 0, 0, 0
	for f := range s.Clip.Poses {
		if x, err = a.Step(s.Clip.Poses[f], x); err != nil {
			t.Fatal(err)
		}
		sb := a.bind
		for k := range sb.cross {
			cb := sb.cross[k]
			if cb.self || cb.lazy || cb.off || cb.best < 0 || cb.c1 == cb.c0 {
				continue
			}
			q := x[cb.v]
			o := cb
			sb.scan(&o, q)
			if o.bestD > walkNear*walkNear {
				continue
			}
			n++
			e, v := cb, cb
			sb.walk(&e, q)
			sb.walkV(&v, q)
			if math.Sqrt(e.bestD) > math.Sqrt(o.bestD)+walkTol {
				stuckE++
			}
			if math.Sqrt(v.bestD) > math.Sqrt(o.bestD)+walkTol {
				stuckV++
			}
		}
	}
	if n == 0 {
		t.Fatal("no queries")
	}
	fe, fv := float64(stuckE)/float64(n), float64(stuckV)/float64(n)
	t.Logf("%d queries: walk ends farther than the scan in %.2f %%, walkV in %.2f %%", n, 100*fe, 100*fv)
	if fv > 0.015 || stuckV >= stuckE {
		t.Errorf("walkV ends farther than the scan in %.2f %% of the queries (walk %.2f %%), want ≤ 1.5 %% and fewer than walk", 100*fv, 100*fe)
	}
}
