package collide

import (
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
)

// A body following a cloth through a Snapshot sees the snapshot's state
// moved along its velocities, not the cloth's later changes, until the
// next Take.
func TestFollowSnapshot(t *testing.T) {
	m := sheet(1, 1, 4, 4, 0)
	c, err := cloth.NewCloth(m, material(), cloth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FollowCloth(c, m)
	if err != nil {
		t.Fatal(err)
	}
	if b.Followed() != c {
		t.Fatal("Followed is not the cloth")
	}
	var s Snapshot
	s.Take(c)
	b.FollowSnapshot(&s)
	up := geom.V(0, 0.5, 0)
	for i := range c.X {
		c.V[i] = up // after the Take: not seen
		c.X[i] = c.X[i].Add(up)
	}
	q := geom.V(0, 0.1, 0) // 0.1 m above the snapshot's sheet
	b.Update(c.Time)
	if con, ok := b.Query(q, 1); !ok || !near(con.Dist, 0.1) {
		t.Fatalf("distance %v (found %v), want 0.1 from the snapshot", con.Dist, ok)
	}
	s.Take(c) // now 0.4 m above q, moving up at 0.5 m/s
	b.Update(c.Time + 0.2)
	if con, ok := b.Query(q, 1); !ok || !near(con.Dist, -0.5) {
		t.Fatalf("distance %v (found %v), want −0.5 (below the retaken snapshot, moved up 0.1 m)", con.Dist, ok)
	}
	b.FollowSnapshot(nil)
	b.Update(c.Time)
	if con, ok := b.Query(q, 1); !ok || !near(con.Dist, -0.4) {
		t.Fatalf("distance %v (found %v), want −0.4 (below the cloth itself)", con.Dist, ok)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
