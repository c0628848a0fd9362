package layers

import (
	"fmt"
	"math"
	"strings"

	"github.com/pleat-dev/pleat/geom"
)

// Layer names a cloth layer of volino-cordier §3.
type Layer uint8

const (
	// Auto leaves the choice to Classify.
	Auto Layer = iota
	// Tight cloth follows the skin (§3.1).
	Tight
	// Loose cloth moves inside spheres attached to the skin (§3.2).
	Loose
	// Floating cloth is simulated against the leg capsules (§3.3).
	Floating
)

func (l Layer) String() string {
	switch l {
	case Tight:
		return "tight"
	case Loose:
		return "loose"
	case Floating:
		return "floating"
	}
	return "auto"
}

// ParseLayer parses "tight", "loose", "floating" or "auto".
func ParseLayer(s string) (Layer, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "tight":
		return Tight, nil
	case "loose":
		return Loose, nil
	case "floating", "float":
		return Floating, nil
	case "auto", "":
		return Auto, nil
	}
	return Auto, fmt.Errorf("layer %q: want tight, loose, floating or auto", s)
}

// Options configure an Animator. The zero value gives the defaults.
type Options struct {
	// FPS is the rate of Step calls (frames per second); 0 means 30.
	FPS float64
	// Substeps per frame of the dynamic layers; 0 means enough to keep a
	// substep at most 1/30 s (one at 30 frames/s and above).
	Substeps int
	// TightDist and LooseDist (m) bound the blend from tight to loose by
	// rest distance to the skin; 0 means 8 mm and 20 mm.
	TightDist, LooseDist float64
	// BlendBand (m) is the geodesic width over which the floating weight
	// rises from the border of the floating region; 0 means 50 mm.
	BlendBand float64
	// Thickness (m) is the least distance kept between the cloth and the
	// skin (its faces as well as its vertices) or the leg capsules; each
	// vertex adds the sag of its faces over the skin (clearance.go);
	// 0 means 3 mm.
	Thickness float64
	// Settle (s) is simulated on the first pose before the first Step
	// returns; 0 means 0.5 s, negative none.
	Settle float64
	// Groups overrides the automatic classification: vertex group (mesh
	// group) or garment name → layer. Later entries do not depend on map
	// order: a vertex in several named groups takes the highest layer.
	Groups map[string]Layer
	// Density is the floating cloth's area density (kg/m²); 0 means 0.2.
	Density float64
	// Stretch is the spring stiffness of the floating cloth (N/m per
	// edge); 0 means 60.
	Stretch float64
	// StrainLimit bounds edge elongation after each substep (Provot);
	// 0 means 0.1, negative none.
	StrainLimit float64
	// Bend is the bending spring stiffness as a fraction of the explicit
	// stability limit m/h²; 0 means 0.25.
	Bend float64
	// CGIters caps the conjugate gradient iterations of the implicit step;
	// 0 means 10.
	CGIters int
	// Friction is the Coulomb-like fraction of tangential relative velocity
	// removed at a capsule contact; 0 means 0.3.
	Friction float64
	// CandidateReach (m) bounds a capsule's candidate list: floating
	// vertices farther than this from the capsule in the rest pose are never
	// tested against it; 0 means 0.2 m.
	CandidateReach float64
	// Largeness scales the loose spheres (1 is the catenary of Eq. 16 with
	// the garment's own slack); 0 means 1.
	Largeness float64
	// LooseDamping (1/s) damps loose particles' velocity relative to their
	// sphere; 0 means 4.
	LooseDamping float64
	// Gravity; the zero vector means (0, −9.81, 0) m/s².
	Gravity geom.Vec3
}

func (o *Options) defaults() error {
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.FPS, 30)
	def(&o.TightDist, 0.008)
	def(&o.LooseDist, 0.02)
	def(&o.BlendBand, 0.05)
	def(&o.Thickness, 0.003)
	def(&o.Settle, 0.5)
	def(&o.Density, 0.2)
	def(&o.Stretch, 60)
	def(&o.StrainLimit, 0.1)
	def(&o.Bend, 0.25)
	def(&o.Friction, 0.3)
	def(&o.CandidateReach, 0.2)
	def(&o.Largeness, 1)
	def(&o.LooseDamping, 4)
	if o.CGIters == 0 {
		o.CGIters = 10
	}
	if o.Gravity == (geom.Vec3{}) {
		o.Gravity = geom.V(0, -9.81, 0)
	}
	if o.Substeps == 0 {
		o.Substeps = max(1, int(math.Ceil(30/o.FPS-1e-9)))
	}
	bad := func(name string, v, lo, hi float64) error {
		if !(v >= lo && v <= hi) {
			return fmt.Errorf("layers: %s %g out of range [%g, %g]", name, v, lo, hi)
		}
		return nil
	}
	for _, c := range []struct {
		n         string
		v, lo, hi float64
	}{
		{"FPS", o.FPS, 1, 1000}, {"TightDist", o.TightDist, 0, 0.5}, {"LooseDist", o.LooseDist, 0, 0.5},
		{"BlendBand", o.BlendBand, 1e-4, 1}, {"Thickness", o.Thickness, 0, 0.05}, {"Settle", o.Settle, -1, 10},
		{"Density", o.Density, 1e-3, 10}, {"Stretch", o.Stretch, 1e-3, 1e6}, {"StrainLimit", o.StrainLimit, -1, 10},
		{"Bend", o.Bend, 0, 1}, {"Friction", o.Friction, 0, 1}, {"CandidateReach", o.CandidateReach, 0, 10},
		{"Largeness", o.Largeness, 0, 100}, {"LooseDamping", o.LooseDamping, 0, 1000},
		{"Substeps", float64(o.Substeps), 1, 100}, {"CGIters", float64(o.CGIters), 1, 1000},
	} {
		if err := bad(c.n, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	if o.LooseDist <= o.TightDist {
		return fmt.Errorf("layers: LooseDist %g m must exceed TightDist %g m", o.LooseDist, o.TightDist)
	}
	if !o.Gravity.IsFinite() {
		return fmt.Errorf("layers: Gravity %v is not finite", o.Gravity)
	}
	return nil
}
