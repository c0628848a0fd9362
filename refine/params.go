package refine

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/mesh"
)

// Params configures region finding, hysteresis and the re-simulation. The
// zero value gives the documented defaults.
type Params struct {
	// Method is the curvature estimator; default the one chen2015's
	// experiment selects, §III.C's umbrella operator with edge-length
	// weights (mesh.CurvatureTaubin, eqs. 8–13), which is smoother on
	// coarse garments than §III.B's fit (mesh.CurvatureMoretonSequin: on
	// the MakeHuman suit its 99th percentile of |H| was 128 m⁻¹ against
	// 53 m⁻¹). MethodSet must be true for Method to be used
	// (mesh.CurvatureCotan is its zero value).
	Method    mesh.CurvatureMethod
	MethodSet bool
	// Peak is the least |H| (m⁻¹) of a local curvature maximum that seeds
	// a region; default 40 m⁻¹ (a fold of radius 12 mm: a cylinder of
	// radius r has H = 1/(2r)). Arms and legs (radius 4–8 cm, H 6–12 m⁻¹)
	// stay far below it; on the MakeHuman suit (32 mm edges) walking, 3 %
	// of the vertices are above it.
	Peak float64
	// Fraction: a region grows ring by ring while |H| is at least this
	// fraction of its peak's; default 0.6.
	Fraction float64
	// Rings is the largest number of rings grown around a peak; default 1.
	// A fold at the growth limit, |H| = 0.6·40 m⁻¹, has a radius of 21 mm
	// (H = 1/(2r)) and spans about πr = 66 mm of cloth across; one ring
	// and the triangles around it reach two coarse edges from the crest
	// each side (±64 mm at the suit's 32 mm, ±40 mm at 20 mm), which
	// holds it. Larger regions recover the same share of the reference's
	// curvature inside them at a cost that grows with their area: on the
	// suit walking, 2 rings refined 1.16 times the area (1.005 of the
	// reference inside, against 1.006), and Peak 30 m⁻¹, Fraction 0.5 and
	// 3 rings 3.3 times (0.994) at 2.5 times the cost.
	Rings int
	// Every is the number of frames between changes of the refined set (a
	// block); default 5. A triangle that leaves the set fades back to the
	// coarse surface over one block.
	Every int
	// Lead and Hold extend each triangle's activity before and after the
	// frames it is found in, frames; defaults 3 and 5 (0.1 s and 0.17 s
	// at 30 fps). With Every = 5 a triangle found once stays refined for
	// one to three blocks, and one that leaves fades over a block, so the
	// refined surface does not pop. On the suit walking (CMU 02_01), 5
	// and 10 refined 1.2 times the area (0.100 against 0.083 m² per
	// frame) for the same curvature inside the regions (1.005 of the
	// reference's, against 1.008) and the same largest vertex
	// acceleration (43 m/s², the coarse simulation's), at a cost that
	// grows with the area.
	Lead, Hold int
	// Thickness is the body safety distance, m; default 3 mm (as sim).
	Thickness float64
	// StrainLimit bounds edge elongation of the refined cloth; default 0.1
	// (as sim's mass-spring default; the cloth enforces 0.95 of it).
	StrainLimit float64
	// MaxDt is the largest cloth substep, s; default 1/60.
	MaxDt float64
	// CGTol is the implicit solves' relative residual; default 1e-2 (as sim).
	CGTol float64
	// SpeedClamp caps vertex speeds, m/s; default 10.
	SpeedClamp float64
	// Workers for the cloth solver and collisions; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Workers int
	// NoBody turns body collision of the refined patches off.
	NoBody bool
}

func (p *Params) defaults() error {
	if !p.MethodSet {
		p.Method = mesh.CurvatureTaubin
	}
	set := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&p.Peak, 40)
	set(&p.Fraction, 0.6)
	set(&p.Thickness, 0.003)
	set(&p.StrainLimit, 0.1)
	set(&p.MaxDt, 1.0/60)
	set(&p.CGTol, 1e-2)
	set(&p.SpeedClamp, 10)
	if p.Rings == 0 {
		p.Rings = 1
	}
	if p.Every == 0 {
		p.Every = 5
	}
	if p.Lead == 0 {
		p.Lead = 3
	}
	if p.Hold == 0 {
		p.Hold = 5
	}
	for _, c := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"Peak", p.Peak, 1e-3, 1e4}, {"Fraction", p.Fraction, 0, 1}, {"Thickness", p.Thickness, 1e-5, 0.05},
		{"StrainLimit", p.StrainLimit, 1e-3, 10}, {"MaxDt", p.MaxDt, 1e-6, 1}, {"CGTol", p.CGTol, 1e-12, 1},
		{"SpeedClamp", p.SpeedClamp, 1e-3, 1e4},
	} {
		if math.IsNaN(c.v) || c.v < c.lo || c.v > c.hi {
			return fmt.Errorf("refine: Params.%s %g out of range [%g, %g]", c.name, c.v, c.lo, c.hi)
		}
	}
	if p.Rings < 0 || p.Rings > 100 || p.Every < 1 || p.Every > 1000 || p.Lead < 0 || p.Hold < 0 || p.Lead > 1000 || p.Hold > 1000 {
		return fmt.Errorf("refine: Params Rings %d, Every %d, Lead %d, Hold %d out of range", p.Rings, p.Every, p.Lead, p.Hold)
	}
	if p.Method > mesh.CurvatureTaubin {
		return fmt.Errorf("refine: Params.Method %d unknown", p.Method)
	}
	return nil
}
