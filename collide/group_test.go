package collide

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestBodyGroup moves grouped copies of a body concurrently through two
// motions over the same time span, each copy in its own order (substeps, a retry with a
// smaller step, going back), and checks that every query and the distance
// bookkeeping match an ungrouped body moved the same way, bit for bit.
func TestBodyGroup(t *testing.T) {
	m := mesh.UVSphere(0.3, 12, 20)
	frames := make([][]geom.Vec3, 3)
	for f := range frames {
		frames[f] = make([]geom.Vec3, len(m.Verts))
		for i, v := range m.Verts {
			// Each frame moves and shears the sphere differently.
			s := float64(f)
			frames[f][i] = geom.V(v.X*(1+0.2*s)+0.05*s, v.Y+0.3*s*v.X, v.Z-0.02*s)
		}
	}
	schedules := [][]float64{
		{0, 0.5, 1},
		{0, 0.25, 0.5, 0.75, 1},
		{0, 0.5, 0.25, 0.5, 1}, // a retry, then on
		{0, 1, 0.5, 1},
	}
	const copies = 4
	bodies := make([]*Body, copies)
	for k := range bodies {
		bodies[k] = mustBody(m)
	}
	g, err := NewBodyGroup(bodies...)
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]*Body, copies)
	for k := range refs {
		refs[k] = mustBody(m)
	}
	for f := 0; f+1 < len(frames); f++ {
		// The same time span every frame: a fit of the frame before must
		// not be taken for this one's.
		t0, t1 := 0.0, 1.0
		g.SetFrames(frames[f], frames[f+1], t0, t1)
		for _, r := range refs {
			r.SetFrames(frames[f], frames[f+1], t0, t1)
		}
		var wg sync.WaitGroup
		errs := make([]string, copies)
		for k := range bodies {
			wg.Go(func() {
				b, r := bodies[k], refs[k]
				rng := rand.New(rand.NewPCG(uint64(k), uint64(f)))
				for _, a := range schedules[(k+f)%len(schedules)] {
					tt := t0 + a*(t1-t0)
					b.Update(tt)
					r.Update(tt)
					if b.moved != r.moved {
						errs[k] = "distance bookkeeping differs"
						return
					}
					for q := 0; q < 50; q++ {
						p := randPoint(rng, 0.6)
						cb, okb := b.Query(p, 0.1)
						cr, okr := r.Query(p, 0.1)
						if okb != okr || cb != cr {
							errs[k] = "query differs"
							return
						}
					}
				}
			})
		}
		wg.Wait()
		for k, e := range errs {
			if e != "" {
				t.Errorf("frame %d, copy %d: %s", f, k, e)
			}
		}
	}
	// A copy set on its own leaves the group's frames and fits and still
	// answers like its reference, and the others like theirs.
	b, r := bodies[0], refs[0]
	b.SetFrames(frames[1], frames[0], 5, 6)
	r.SetFrames(frames[1], frames[0], 5, 6)
	for k := 1; k < copies; k++ {
		bodies[k].Update(0.6)
		refs[k].Update(0.6)
		p := geom.V(0.1, -0.3, 0.2)
		if cb, cr := bodies[k].SignedDistance(p), refs[k].SignedDistance(p); cb != cr {
			t.Errorf("copy %d after copy 0 was set on its own: %+v, reference %+v", k, cb, cr)
		}
	}
	for _, tt := range []float64{5, 5.5, 6} {
		b.Update(tt)
		r.Update(tt)
		p := geom.V(0.2, 0.35, 0.1)
		if cb, cr := b.SignedDistance(p), r.SignedDistance(p); cb != cr || b.moved != r.moved {
			t.Errorf("set on its own, t=%g: %+v, reference %+v", tt, cb, cr)
		}
	}
	if len(g.fits) > copies+1 {
		t.Errorf("%d fits for %d copies", len(g.fits), copies)
	}
}

func TestNewBodyGroupErrors(t *testing.T) {
	a := mustBody(mesh.UVSphere(0.3, 8, 12))
	if _, err := NewBodyGroup(); err == nil {
		t.Error("no bodies: no error")
	}
	if _, err := NewBodyGroup(a, mustBody(mesh.UVSphere(0.3, 8, 14))); err == nil {
		t.Error("other triangles: no error")
	}
	if _, err := NewBodyGroup(a, mustBody(mesh.UVSphere(0.3, 8, 12))); err != nil {
		t.Fatal(err)
	}
	if _, err := NewBodyGroup(a); err == nil {
		t.Error("a body in two groups: no error")
	}
}
