package cloth

import (
	"fmt"
	"math"
)

// Curve is a piecewise-linear stress–strain law σ(ε) for one deformation mode
// (volino-cordier §2.2: "nonlinear formulations of the relations between
// strain and stress"). Strain is dimensionless (elongation |U|−1, or the shear
// cosine U·V/(|U||V|)); stress is a force per unit width, N/m.
//
// Strain lists the breakpoints for ε ≥ 0 in increasing order starting at 0,
// and Stress the stresses there (Stress[0] must be 0). The curve is extended
// past the last point with the last slope, and to ε < 0 by odd symmetry scaled
// by Compression: σ(−ε) = −Compression·σ(ε). Compression 0 means 1 (symmetric);
// fabrics buckle rather than compress, so presets use a small value.
type Curve struct {
	Strain      []float64
	Stress      []float64
	Compression float64
}

// Linear returns the curve σ = k·ε (k in N/m).
func Linear(k float64) Curve { return Curve{Strain: []float64{0, 1}, Stress: []float64{0, k}} }

// Validate reports a malformed curve.
func (c Curve) Validate() error {
	if len(c.Strain) < 2 || len(c.Strain) != len(c.Stress) {
		return fmt.Errorf("cloth: curve needs ≥ 2 points with equal Strain and Stress lengths (have %d, %d)", len(c.Strain), len(c.Stress))
	}
	if c.Strain[0] != 0 || c.Stress[0] != 0 {
		return fmt.Errorf("cloth: curve must start at (0,0)")
	}
	for i := 1; i < len(c.Strain); i++ {
		if !(c.Strain[i] > c.Strain[i-1]) {
			return fmt.Errorf("cloth: curve strains not increasing at point %d", i)
		}
		if !(c.Stress[i] >= c.Stress[i-1]) || math.IsInf(c.Stress[i], 0) {
			return fmt.Errorf("cloth: curve stress must be finite and non-decreasing (point %d)", i)
		}
	}
	if c.Compression < 0 || math.IsNaN(c.Compression) {
		return fmt.Errorf("cloth: curve compression factor %v < 0", c.Compression)
	}
	return nil
}

// Slope0 returns the initial stiffness dσ/dε at ε = 0⁺ (N/m).
func (c Curve) Slope0() float64 {
	if len(c.Strain) < 2 {
		return 0
	}
	return c.Stress[1] / c.Strain[1]
}

// Eval returns σ(ε) and dσ/dε.
func (c Curve) Eval(eps float64) (sigma, slope float64) {
	s, k := 1.0, 1.0
	if eps < 0 {
		eps, s = -eps, -1
		k = c.Compression
		if k == 0 {
			k = 1
		}
	}
	n := len(c.Strain)
	i := 1
	for i < n-1 && eps > c.Strain[i] {
		i++
	}
	x0, x1 := c.Strain[i-1], c.Strain[i]
	y0, y1 := c.Stress[i-1], c.Stress[i]
	sl := (y1 - y0) / (x1 - x0)
	return s * k * (y0 + sl*(eps-x0)), k * sl
}

// Energy returns the strain energy density ∫₀^ε σ dε (J/m²).
func (c Curve) Energy(eps float64) float64 {
	k := 1.0
	if eps < 0 {
		eps = -eps
		if c.Compression != 0 {
			k = c.Compression
		}
	}
	e := 0.0
	n := len(c.Strain)
	for i := 1; i < n; i++ {
		x0, x1 := c.Strain[i-1], c.Strain[i]
		y0, y1 := c.Stress[i-1], c.Stress[i]
		sl := (y1 - y0) / (x1 - x0)
		if eps <= x1 || i == n-1 {
			d := eps - x0
			return k * (e + y0*d + 0.5*sl*d*d)
		}
		e += 0.5 * (y0 + y1) * (x1 - x0)
	}
	return k * e
}

// table is a Curve flattened for the inner loop: breakpoints, stresses and
// per-segment slopes in one small slice each.
type table struct {
	x, y, k []float64
	comp    float64
}

func newTable(c Curve) table {
	t := table{x: c.Strain, y: c.Stress, comp: c.Compression}
	if t.comp == 0 {
		t.comp = 1
	}
	t.k = make([]float64, len(c.Strain))
	for i := 1; i < len(c.Strain); i++ {
		t.k[i] = (c.Stress[i] - c.Stress[i-1]) / (c.Strain[i] - c.Strain[i-1])
	}
	return t
}

func (t *table) eval(eps float64) (sigma, slope float64) {
	s, f := 1.0, 1.0
	if eps < 0 {
		eps, s, f = -eps, -1, t.comp
	}
	x := t.x
	i := 1
	for i < len(x)-1 && eps > x[i] {
		i++
	}
	return s * f * (t.y[i-1] + t.k[i]*(eps-x[i-1])), f * t.k[i]
}
