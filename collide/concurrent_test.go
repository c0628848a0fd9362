package collide

import (
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestBodyConcurrentQueries: after every kind of Set* (which leaves the
// refit to the first query), queries from several goroutines at once agree
// bit for bit with the same queries on a body used serially. Run under
// go test -race it checks that the lazy refit is not a data race, for a
// body on its own, for the members of a BodyGroup (whose lazy refits share
// a fit) and for a large body refitted on several goroutines.
func TestBodyConcurrentQueries(t *testing.T) {
	const goroutines = 4
	for _, tc := range []struct {
		name    string
		m       *mesh.Mesh
		members int // 0: a body on its own
		workers int
	}{
		{"alone", mesh.UVSphere(0.3, 12, 20), 0, 1},
		{"group", mesh.UVSphere(0.3, 12, 20), 3, 1},
		{"workers", mesh.UVSphere(0.3, 70, 80), 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			bodies := []*Body{mustBody(m)}
			var g *BodyGroup
			if tc.members > 0 {
				bodies = bodies[:0]
				for range tc.members {
					bodies = append(bodies, mustBody(m))
				}
				var err error
				if g, err = NewBodyGroup(bodies...); err != nil {
					t.Fatal(err)
				}
			}
			ref := mustBody(m)
			for _, b := range bodies {
				b.Workers = tc.workers
			}
			pts := mesh.UVSphere(0.31, 6, 8).Verts
			for step := range 6 {
				prev := translated(m.Verts, geom.V(0.01*float64(step), 0, 0))
				next := translated(m.Verts, geom.V(0.01*float64(step+1), 0.02, 0))
				t0 := float64(step)
				set := func(b *Body) {
					switch step % 3 {
					case 0:
						b.SetFrames(prev, next, t0, t0+1)
					case 1:
						b.SetFrame(next)
					default:
						b.SetState(prev, translated(next, geom.V(-0.01, 0, 0)))
					}
				}
				if g != nil && step%3 == 0 {
					g.SetFrames(prev, next, t0, t0+1)
				} else {
					for _, b := range bodies {
						set(b)
					}
				}
				set(ref)
				if step%3 == 0 {
					// Move every body to the middle of the frame, the
					// reference too, then set the frames again: the next
					// queries refit lazily at that time.
					ref.Update(t0 + 0.5)
					for _, b := range bodies {
						b.Update(t0 + 0.5)
					}
					if g != nil {
						g.SetFrames(prev, next, t0, t0+1)
					} else {
						bodies[0].SetFrames(prev, next, t0, t0+1)
					}
					ref.SetFrames(prev, next, t0, t0+1)
				}
				want := bodyAnswers(ref, pts, t0+0.25)
				var wg sync.WaitGroup
				got := make([][]bodyAnswer, goroutines*len(bodies))
				for k := range got {
					wg.Go(func() { got[k] = bodyAnswers(bodies[k%len(bodies)], pts, t0+0.25) })
				}
				wg.Wait()
				for k := range got {
					for i := range want {
						if got[k][i] != want[i] {
							t.Fatalf("step %d, goroutine %d, point %d: %+v, want %+v", step, k, i, got[k][i], want[i])
						}
					}
				}
			}
		})
	}
}

// bodyAnswer is what the queries of a Body say about one point.
type bodyAnswer struct {
	sd, q, hint Contact
	found       bool
	pos, at     geom.Vec3
	vel         geom.Vec3
	n           int
}

// bodyAnswers puts every query to b for each of pts (PointAt at time t).
func bodyAnswers(b *Body, pts []geom.Vec3, t float64) []bodyAnswer {
	out := make([]bodyAnswer, len(pts))
	for i, p := range pts {
		a := &out[i]
		// The queries that read the motion first: they must not race with
		// another goroutine's refit either.
		a.n = b.NumVerts()
		a.at = b.PointAt(int32(i%len(b.Tris())), [3]float64{0.2, 0.3, 0.5}, geom.V(0, 0.01, 0), t)
		a.sd = b.SignedDistance(p)
		a.vel = b.VelocityAt(&a.sd)
		a.q, a.found = b.Query(p, 0.05)
		a.hint, _ = b.QueryHint(p, 0.05, a.sd.Tri)
		a.pos = b.Positions()[i%a.n]
	}
	return out
}

// TestFollowConcurrentQueries: a body following a cloth through a
// Snapshot takes the snapshot at its first query after FollowSnapshot;
// concurrent queries then agree with serial ones (and, under -race, do not
// race with that refit).
func TestFollowConcurrentQueries(t *testing.T) {
	m := sheet(1, 1, 12, 12, 0)
	c, err := cloth.NewCloth(m, material(), cloth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FollowCloth(c, m)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := FollowCloth(c, m)
	if err != nil {
		t.Fatal(err)
	}
	pts := translated(sheet(0.8, 0.8, 5, 5, 0).Verts, geom.V(0, 0.01, 0))
	var s Snapshot
	for step := range 4 {
		for i := range c.X {
			c.V[i] = geom.V(0, 0.1*float64(step), 0.01*float64(i%3))
			c.X[i] = c.X[i].Add(geom.V(0, 0.002, 0))
		}
		c.Time += 0.01
		s.Take(c)
		b.FollowSnapshot(&s)
		ref.FollowSnapshot(&s)
		want := bodyAnswers(ref, pts, c.Time)
		var wg sync.WaitGroup
		got := make([][]bodyAnswer, 4)
		for k := range got {
			wg.Go(func() { got[k] = bodyAnswers(b, pts, c.Time) })
		}
		wg.Wait()
		for k := range got {
			for i := range want {
				if got[k][i] != want[i] {
					t.Fatalf("step %d, goroutine %d, point %d: %+v, want %+v", step, k, i, got[k][i], want[i])
				}
			}
		}
	}
}
