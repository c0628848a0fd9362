package cloth

import (
	"errors"
	"fmt"
	"math"
)

// Fabric holds the measured mechanical properties of a cloth material for the
// weft/warp triangle model (volino-cordier §2.2). All values are SI: mass per
// unit area in kg/m², membrane stresses per unit width in N/m, bending
// rigidities per unit width in N·m.
type Fabric struct {
	Name string
	// Density is the area density, kg/m².
	Density float64
	// Weft, Warp and Shear are the stress–strain curves (N/m) along the weft
	// (pattern U), along the warp (pattern V), and in shear (strain = cosine
	// of the angle between the deformed weft and warp, ≈ the shear angle).
	Weft, Warp, Shear Curve
	// BendWeft and BendWarp are bending rigidities (N·m): moment per unit
	// width per unit curvature, for curvature along the weft and along the
	// warp respectively.
	BendWeft, BendWarp float64
	// ViscWeft, ViscWarp and ViscShear are strain-rate viscosities (N·s/m):
	// the viscous stress is Visc·dε/dt.
	ViscWeft, ViscWarp, ViscShear float64
	// BendVisc is the bending viscosity (N·m·s): viscous moment per unit width
	// per unit curvature rate.
	BendVisc float64
	// Plastic configures plasticity; the zero value disables it.
	Plastic Plasticity
	// Source documents where the numbers come from.
	Source string
}

// Plasticity is the hysteretic rest-state memory of volino-cordier §2.2
// ("adding an hysteretic deformation memory altering equilibrium state for
// each deformation mode"). Each triangle keeps a plastic (rest) strain per
// mode (weft, warp, shear) and each bending hinge a rest curvature. After
// every step, where the elastic part |ε − εp| exceeds the yield value, the
// rest value εp moves towards ε by the excess times min(1, Rate·dt); below
// the yield nothing changes, so the loop of loading and unloading is
// hysteretic and the residual deformation stays when the load is removed.
type Plasticity struct {
	// YieldStrain is the elastic strain (dimensionless) past which the rest
	// strain of a membrane mode drifts; 0 disables membrane plasticity.
	YieldStrain float64
	// YieldCurvature is the elastic curvature (1/m) past which the rest
	// curvature of a hinge drifts; 0 disables bending plasticity.
	YieldCurvature float64
	// Rate (1/s) is how fast the rest state absorbs the excess; 0 means at
	// once (a return mapping onto the yield surface).
	Rate float64
}

// ErrMaterial is wrapped by errors about invalid material parameters.
var ErrMaterial = errors.New("cloth: invalid material")

// Validate checks that the fabric's parameters are usable.
func (f *Fabric) Validate() error {
	if !(f.Density > 0) || math.IsInf(f.Density, 0) {
		return fmt.Errorf("%w: density %v kg/m² must be positive", ErrMaterial, f.Density)
	}
	for _, c := range []struct {
		n string
		c Curve
	}{{"weft", f.Weft}, {"warp", f.Warp}, {"shear", f.Shear}} {
		if err := c.c.Validate(); err != nil {
			return fmt.Errorf("%w: %s curve: %v", ErrMaterial, c.n, err)
		}
	}
	for _, v := range []float64{f.BendWeft, f.BendWarp, f.ViscWeft, f.ViscWarp, f.ViscShear, f.BendVisc,
		f.Plastic.YieldStrain, f.Plastic.YieldCurvature, f.Plastic.Rate} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: negative or non-finite parameter %v", ErrMaterial, v)
		}
	}
	return nil
}

// SpringParams are the parameters of the Choi–Ko mass-spring model
// (Choi and Ko 2002, as used by wang2010 §3.1 and chen2015): stretch springs
// on mesh edges and bending springs between the opposite vertices of
// edge-adjacent triangles. Stiffnesses are per unit (membrane stiffness
// N/m, bending rigidity N·m); each spring's constant is derived from them and
// the rest geometry so that the result does not depend on the mesh resolution:
//
//	k_e = Stretch·A_e / L_e²   (N/m), A_e = area attributed to the spring
//
// which gives the energy ½·Stretch·ε²·A_e of a membrane under strain ε.
type SpringParams struct {
	// Stretch is the membrane stiffness, N/m.
	Stretch float64
	// StretchDamping is the membrane strain-rate viscosity, N·s/m.
	StretchDamping float64
	// Bend is the bending rigidity, N·m, used by the buckling response of
	// compressed springs.
	Bend float64
	// BendDamping is the damping of the bending springs, N·m·s (scaled like
	// Bend).
	BendDamping float64
	// NoBuckling disables Choi–Ko's buckling treatment: compressed springs
	// then respond linearly, and bending springs resist only through that
	// linear response (about zero bending stiffness near flat).
	NoBuckling bool
}

// Springs converts the fabric to isotropic mass-spring parameters: the mean
// of the weft and warp initial stiffnesses and rigidities.
func (f *Fabric) Springs() SpringParams {
	return SpringParams{
		Stretch:        0.5 * (f.Weft.Slope0() + f.Warp.Slope0()),
		StretchDamping: 0.5 * (f.ViscWeft + f.ViscWarp),
		Bend:           0.5 * (f.BendWeft + f.BendWarp),
		BendDamping:    f.BendVisc,
	}
}

// Validate checks the spring parameters.
func (s *SpringParams) Validate() error {
	for _, v := range []float64{s.Stretch, s.StretchDamping, s.Bend, s.BendDamping} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: negative or non-finite spring parameter %v", ErrMaterial, v)
		}
	}
	if s.Stretch == 0 {
		return fmt.Errorf("%w: zero stretch stiffness", ErrMaterial)
	}
	return nil
}

// arcsimCurve builds a tensile curve from the two stiffness samples of an
// ARCSim material file (Wang, O'Brien and Ramamoorthi 2011, "Data-driven
// elastic models for cloth"): k0 at zero strain and k1 at principal stretch
// 1 + 1/6. ARCSim's energy is ½·k·G² per unit area in the Green strain
// G = ε + ε²/2, so the uniaxial stress (N/m) along the direction is
// σ(ε) = k(ε)·G·(1+ε), with k interpolated linearly in ε as ARCSim does.
// We sample it at ε = 0, 0.05, 0.1, 1/6 and extend with the last slope.
func arcsimCurve(k0, k1, compression float64) Curve {
	c := Curve{Compression: compression}
	for _, e := range []float64{0, 0.05, 0.1, 1.0 / 6} {
		k := k0 + (k1-k0)*e*6
		g := e + e*e/2
		c.Strain = append(c.Strain, e)
		c.Stress = append(c.Stress, k*g*(1+e))
	}
	return c
}

// arcsimShear builds a shear curve from ARCSim's shear stiffness k3 at zero
// strain and at 45° bias stretch. ARCSim's shear energy ½·k3·G01² with
// G01 ≈ γ/2 gives σ = (k3/4)·γ for the shear angle γ; we use the zero-strain
// value up to γ = 0.2 and the biased value beyond (an approximation).
func arcsimShear(k0, k1 float64) Curve {
	k0, k1 = k0/4, k1/4
	if k1 < k0 {
		k1 = k0
	}
	return Curve{Strain: []float64{0, 0.2, 0.5}, Stress: []float64{0, 0.2 * k0, 0.2*k0 + 0.3*k1}}
}

// Presets share these assumptions (no measured data is at hand for them):
const (
	// presetCompression scales the tensile curves under compression: woven
	// and knit fabrics buckle rather than shorten (Choi and Ko 2002), so the
	// in-plane compressive stiffness is a fraction of the tensile one.
	presetCompression = 0.3
	// presetViscTime (s) sets the strain-rate viscosities to
	// presetViscTime × the initial stiffness (stiffness-proportional damping,
	// as ARCSim's "damping" parameter).
	presetViscTime = 0.005
	// arcsimBendToSI converts ARCSim bending table values to N·m. It is
	// calibrated so that the mean of ARCSim's 11 oz denim table equals the
	// mean KES-F bending rigidity of denim, 1.8e-5 N·m (range
	// 0.144–0.227 gf·cm²/cm = 1.4–2.2e-5 N·m; Kawabata evaluation of denim
	// fabrics, Journal of Textiles 2016, Table 5). Each preset's weft (warp)
	// rigidity is this factor times the mean over ARCSim's three curvature
	// samples of the 0° (90°) column.
	arcsimBendToSI = 0.249
)

func preset(name string, density float64, weft, warp, shear Curve, bWeft, bWarp float64, source string) Fabric {
	return Fabric{
		Name: name, Density: density,
		Weft: weft, Warp: warp, Shear: shear,
		BendWeft: bWeft, BendWarp: bWarp,
		ViscWeft:  presetViscTime * weft.Slope0(),
		ViscWarp:  presetViscTime * warp.Slope0(),
		ViscShear: presetViscTime * shear.Slope0(),
		BendVisc:  presetViscTime * 0.5 * (bWeft + bWarp),
		Source:    source,
	}
}

const arcsimSource = "Wang, O'Brien, Ramamoorthi 2011, \"Data-driven elastic models for cloth\", material files shipped with ARCSim (materials/%s.json): density, tensile samples [k0 at 0 strain, k at 1/6 stretch] per axis (ARCSim axis 0 = weft, axis 1 = warp), shear k3/4; bending = arcsimBendToSI × ARCSim bending table (calibrated on KES-F denim, J. Textiles 2016)"

// Denim returns an 11 oz denim: 0.324 kg/m², stiff warp, weft 205→232 N/m,
// warp 1014→1052 N/m, bending 1.95e-5 N·m (weft) and 1.13e-5 N·m (warp).
// KES-F measurements of denim report a much stiffer tensile response at high
// load (EMT 4.7–5.7 % at 490 N/m) and shear rigidity 84–191 N/m per radian;
// ARCSim's low-strain data is used here, for the drape-range loads that
// garments see.
func Denim() Fabric {
	return preset("denim", 0.324,
		arcsimCurve(205.352, 232.028, presetCompression),
		arcsimCurve(1013.886, 1051.557, presetCompression),
		arcsimShear(53.387, 83.992),
		1.95e-5, 1.13e-5,
		fmt.Sprintf(arcsimSource, "11oz-black-denim"))
}

// Jersey returns a T-shirt knit (ARCSim's gray interlock): 0.187 kg/m², very
// soft and non-linear (weft 16.6→46.4 N/m, warp 34.5→406 N/m), bending
// 5.2e-6 / 4.3e-6 N·m.
func Jersey() Fabric {
	return preset("jersey", 0.187,
		arcsimCurve(16.594, 46.365, presetCompression),
		arcsimCurve(34.477, 405.873, presetCompression),
		arcsimShear(36.860, 44.218),
		5.16e-6, 4.29e-6,
		fmt.Sprintf(arcsimSource, "gray-interlock"))
}

// Shirting returns a light woven shirting (ARCSim's white-dots-on-blk):
// 0.128 kg/m², nearly linear and stiff in tension (≈2000–2150 N/m), soft in
// shear, bending 1.03e-5 / 3.7e-6 N·m.
func Shirting() Fabric {
	return preset("shirting", 0.128,
		arcsimCurve(2002.086, 2107.228, presetCompression),
		arcsimCurve(2027.486, 2150.477, presetCompression),
		arcsimShear(19.189, 101.462),
		1.03e-5, 3.71e-6,
		fmt.Sprintf(arcsimSource, "white-dots-on-blk"))
}

// RibKnit returns a heavy rib knit (ARCSim's ivory-rib-knit): 0.276 kg/m²,
// weft 42.9→52.4 N/m, warp 65.2→255 N/m, bending 9.0e-6 / 1.13e-5 N·m.
func RibKnit() Fabric {
	return preset("rib-knit", 0.276,
		arcsimCurve(42.871, 52.423, presetCompression),
		arcsimCurve(65.166, 254.593, presetCompression),
		arcsimShear(83.176, 83.176),
		9.01e-6, 1.13e-5,
		fmt.Sprintf(arcsimSource, "ivory-rib-knit"))
}

// Presets returns all fabric presets, by name.
func Presets() map[string]Fabric {
	return map[string]Fabric{"denim": Denim(), "jersey": Jersey(), "shirting": Shirting(), "rib-knit": RibKnit()}
}
