package cloth

import (
	"math"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// A soft sheet pinned at two corners sags far beyond 10 % strain; with
// StrainLimit no edge ends a substep longer than the limit allows, and
// the pins do not move.
func TestStrainLimit(t *testing.T) {
	soft := &SpringParams{Stretch: 50, StretchDamping: 0.01, Bend: 1e-6}
	for _, tc := range []struct {
		name  string
		limit float64
		// wantMax bounds the max strain from above (limited) or below
		// (unlimited, to show the scene needs the limit).
		wantMax, wantMin float64
	}{
		{"unlimited", 0, math.Inf(1), 0.3},
		{"10%", 0.1, 0.1 * 1.002, 0},
		{"5%", 0.05, 0.05 * 1.002, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := SheetScene(Material{Model: MassSpring, Fabric: Denim(), Springs: soft}, 10, 10, Options{StrainLimit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			p0 := s.Cloth.X[0]
			worst := 0.0
			if err := s.Run(1, func(st StepStats) { worst = math.Max(worst, st.MaxStretch) }); err != nil {
				t.Fatal(err)
			}
			t.Logf("max strain %.4f", worst)
			if worst > tc.wantMax || worst < tc.wantMin {
				t.Errorf("max strain %.4f outside [%g, %g]", worst, tc.wantMin, tc.wantMax)
			}
			if s.Cloth.X[0] != p0 {
				t.Errorf("pinned vertex moved to %v", s.Cloth.X[0])
			}
			for i, x := range s.Cloth.X {
				if !x.IsFinite() || !s.Cloth.V[i].IsFinite() {
					t.Fatalf("vertex %d not finite", i)
				}
			}
		})
	}
}

// A strip of 50 × 2 quads stretched 20 % along its length and held at one
// end converges slowly (each Gauss–Seidel sweep passes a correction about
// one edge along): 4495 sweeps. The early stop for a stalled limit once
// took the slow progress (under 1 % in ten sweeps) for a stall and left
// edges at 23 %.
func TestStrainLimitSlowChain(t *testing.T) {
	const limit = 0.1
	c := stretchedChain(t, limit, 0)
	sweeps := c.limitStrain()
	_, worst := c.MaxEdgeStrain()
	t.Logf("%d sweeps, max strain %.4f", sweeps, worst)
	if worst > limit {
		t.Errorf("max strain %.4f above the limit %g after %d sweeps", worst, limit, sweeps)
	}
}

// stretchedChain returns a 50-by-2 strip of 2 mm edges stretched 20 %
// along its length with one short end fixed, limited to limit with
// over-relaxation omega.
func stretchedChain(t *testing.T, limit, omega float64) *Cloth {
	t.Helper()
	const n = 50
	m := mesh.Grid(n*0.002, 0.004, n, 2)
	c, err := NewCloth(m, Material{Model: MassSpring, Fabric: Denim()}, Options{NoGravity: true, RestFromMesh: true, StrainLimit: limit, StrainLimitRelax: omega})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range c.X {
		c.X[i] = geom.V(p.X*1.2, p.Y, p.Z)
		if i%(n+1) == 0 {
			c.work.constrain(int32(i), Fixed, geom.Vec3{}, geom.Vec3{}, false)
		}
	}
	return c
}

// Over-relaxed sweeps (Options.StrainLimitRelax) bring the same slow chain
// within the limit in fewer sweeps than plain ones and leave the fixed end
// where it was.
func TestStrainLimitRelax(t *testing.T) {
	const limit = 0.1
	sweeps := func(omega float64) int {
		t.Helper()
		c := stretchedChain(t, limit, omega)
		x0 := c.X[0]
		k := c.limitStrain()
		if _, worst := c.MaxEdgeStrain(); worst > limit {
			t.Errorf("ω %g: max strain %.4f above the limit %g after %d sweeps", omega, worst, limit, k)
		}
		if c.X[0] != x0 {
			t.Errorf("ω %g: fixed vertex moved", omega)
		}
		return k
	}
	plain := sweeps(0)
	for _, omega := range []float64{1.5, 1.85} {
		if k := sweeps(omega); k >= plain {
			t.Errorf("ω %g: %d sweeps, plain %d", omega, k, plain)
		} else {
			t.Logf("ω %g: %d sweeps, plain %d", omega, k, plain)
		}
	}
	if k := sweeps(3); k != plain {
		t.Errorf("ω 3 (out of range, taken as 1): %d sweeps, plain %d", k, plain)
	}
}

// LimitStrain brings a sheet stretched 50 % one way back within the limit
// before any Step, without moving its hard attachment (a corner) and
// leaving a springy attachment (the other corner) free to move.
func TestLimitStrainBeforeStep(t *testing.T) {
	const limit = 0.1
	m := mesh.Grid(0.2, 0.1, 10, 5)
	c, err := NewCloth(m, Material{Model: MassSpring, Fabric: Denim()}, Options{RestFromMesh: true, StrainLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range c.X {
		c.X[i] = geom.V(p.X*1.5, p.Y, p.Z)
	}
	hard, soft := 0, 10
	c.Attach(Attachment{Vertex: hard})
	c.Attach(Attachment{Vertex: soft, Stiffness: 100})
	x0, x10 := c.X[hard], c.X[soft]
	got := c.LimitStrain()
	if _, want := c.MaxEdgeStrain(); got != want || got > limit {
		t.Errorf("LimitStrain = %.4f, MaxEdgeStrain %.4f, limit %g", got, want, limit)
	}
	if c.X[hard] != x0 {
		t.Errorf("hard-attached vertex moved from %v to %v", x0, c.X[hard])
	}
	if c.X[soft] == x10 {
		t.Errorf("spring-attached vertex did not move")
	}
}

// A band stretched 15 % around a cylinder it touches can only get back
// within the strain limit by moving into the contact: without
// ContactSlack the limit is not met, with it the band shortens, and no
// vertex goes deeper than the slack.
func TestContactSlack(t *testing.T) {
	const r, stretch, limit = 0.1, 1.15, 0.1
	for _, tc := range []struct {
		name  string
		slack float64
	}{
		{"no slack", 0},
		{"slack", 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCloth(tube(r, 0.02, 32, 2), Material{Model: MassSpring, Fabric: Denim()}, Options{NoGravity: true, RestFromMesh: true, StrainLimit: limit, ContactSlack: tc.slack})
			if err != nil {
				t.Fatal(err)
			}
			radial := func(p geom.Vec3) geom.Vec3 { return geom.V(p.X, 0, p.Z).Unit() }
			for i, p := range c.X {
				c.X[i] = geom.V(p.X*stretch, p.Y, p.Z*stretch)
			}
			// Every vertex is in contact with the cylinder of radius
			// r·stretch (no normal velocity change).
			c.Hooks = append(c.Hooks, HookFuncs{BeginFunc: func(s *StepContext) error {
				for i, p := range s.X {
					s.Constrain(i, Plane, radial(p), geom.Vec3{})
				}
				return nil
			}})
			if _, err := c.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
			worst, minR := 0.0, math.Inf(1)
			for _, p := range c.X {
				minR = math.Min(minR, math.Hypot(p.X, p.Z))
			}
			_, worst = c.MaxEdgeStrain()
			t.Logf("max strain %.4f, smallest radius %.4f m", worst, minR)
			if tc.slack == 0 {
				if worst < 0.14 {
					t.Errorf("max strain %.4f: the limit was met without moving into the contact", worst)
				}
				if minR < r*stretch-1e-9 {
					t.Errorf("a vertex moved %.3g m into the contact", r*stretch-minR)
				}
				return
			}
			if worst > limit*(1+1e-9) {
				t.Errorf("max strain %.4f above the limit %g", worst, limit)
			}
			if depth := r*stretch - minR; depth > tc.slack*(1+1e-9) {
				t.Errorf("a vertex moved %.4f m into the contact, more than the slack %g", depth, tc.slack)
			}
		})
	}
}

// Strain limiting's velocity corrections never add kinetic energy, even
// where contacts prescribe the vertices' normal velocities (a body moving
// under the cloth) and the limit cannot be met: a band stretched 15 %
// around a cylinder, every vertex in contact and moving with its own
// normal velocity, limited a hundred times over.
func TestStrainLimitVelocityDissipates(t *testing.T) {
	const r, stretch = 0.1, 1.15
	c, err := NewCloth(tube(r, 0.02, 32, 2), Material{Model: MassSpring, Fabric: Denim()}, Options{NoGravity: true, RestFromMesh: true, StrainLimit: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	w := &c.work
	for i, p := range c.X {
		c.X[i] = geom.V(p.X*stretch, p.Y, p.Z*stretch)
		n := geom.V(p.X, 0, p.Z).Unit()
		// Normal speeds between −1 and 1 m/s, varying around the band,
		// and a tangential drift.
		c.V[i] = n.Scale(math.Sin(float64(7 * i))).Add(geom.V(-n.Z, 0, n.X).Scale(0.3 * math.Cos(float64(3*i))))
		w.constrain(int32(i), Plane, n, geom.Vec3{}, false)
	}
	ke0 := c.KineticEnergy()
	for k := 0; k < 100; k++ {
		c.limitStrain()
	}
	ke := c.KineticEnergy()
	t.Logf("kinetic energy %.4g J before, %.4g J after", ke0, ke)
	if !(ke <= ke0*(1+1e-12)) {
		t.Errorf("strain limiting raised the kinetic energy from %.4g J to %.4g J", ke0, ke)
	}
}

// pushHook pushes vertex v out of the sheet's plane by d in End (a
// collision push-out) and records the order of its calls.
type pushHook struct {
	v     int
	d     float64
	fixed bool // constrain v in Begin, so that the limit cannot move it
	calls []string
}

func (h *pushHook) Begin(s *StepContext) error {
	h.calls = append(h.calls, "begin")
	if h.fixed {
		s.Constrain(h.v, Fixed, geom.Vec3{}, geom.Vec3{})
	}
	return nil
}

func (h *pushHook) End(s *StepContext) error {
	h.calls = append(h.calls, "end")
	s.X[h.v] = s.X[h.v].Add(geom.V(0, 0, h.d))
	return nil
}

func (h *pushHook) AfterLimit(s *StepContext) error {
	h.calls = append(h.calls, "after")
	return nil
}

// A hook's End push that stretches the edges around the pushed vertex past
// the strain limit is spread over its neighbours by the second limiting
// pass (the vertex keeps most of its push); where nothing can move (the
// vertex and its neighbours held), the push is taken back; either way no
// edge ends beyond the limit, and LimitHook.AfterLimit runs after End, only
// with a limit.
func TestStrainLimitAfterHooks(t *testing.T) {
	const h, spacing = 1.0 / 60, 0.025
	for _, tc := range []struct {
		name      string
		limit     float64
		fixed     bool
		pinOthers bool
		minKept   float64 // of the push, at the pushed vertex
		maxKept   float64
		wantCalls string
		restored  bool
	}{
		{"spread", 0.1, false, false, 0.5, 1, "begin end after", false},
		{"held", 0.1, true, true, 0, 1e-9, "begin end after", true},
		{"no limit", 0, false, false, 1 - 1e-9, 1 + 1e-9, "begin end", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mesh.Grid(0.1, 0.1, 4, 4)
			c, err := NewCloth(m, Material{Model: MassSpring, Fabric: Denim()}, Options{NoGravity: true, RestFromMesh: true, StrainLimit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			centre := 12 // of the 5×5 grid
			if tc.pinOthers {
				for i := range c.X {
					if i != centre {
						c.Attach(Attachment{Vertex: i})
					}
				}
			}
			// Half an edge out of plane: the four edges at the centre
			// stretch by 11.8 %.
			hk := &pushHook{v: centre, d: 0.5 * spacing, fixed: tc.fixed}
			c.Hooks = append(c.Hooks, hk)
			z0 := c.X[centre].Z
			st, err := c.Step(h)
			if err != nil {
				t.Fatal(err)
			}
			kept := (c.X[centre].Z - z0) / hk.d
			if kept < tc.minKept || kept > tc.maxKept {
				t.Errorf("pushed vertex kept %.3f of its push, want [%g, %g]", kept, tc.minKept, tc.maxKept)
			}
			if tc.limit > 0 {
				if s := c.MaxStretch(); s > tc.limit*1.002 {
					t.Errorf("max strain %.4f beyond the limit %g", s, tc.limit)
				}
			}
			if got := strings.Join(hk.calls, " "); got != tc.wantCalls {
				t.Errorf("hook calls %q, want %q", got, tc.wantCalls)
			}
			if (st.Restored > 0) != tc.restored {
				t.Errorf("%d vertices restored, want restored=%v", st.Restored, tc.restored)
			}
			t.Logf("kept %.3f of the push, max strain %.4f, %d restored", kept, c.MaxStretch(), st.Restored)
		})
	}
}
