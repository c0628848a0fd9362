package cloth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Scene is a ready-to-step simulation setup.
type Scene struct {
	Cloth *Cloth
	Mesh  *mesh.Mesh
	// Sphere is the collider of SphereScene (nil otherwise).
	Sphere *SphereCollider
	// FrameDt is the intended frame step, s.
	FrameDt float64
}

// Run steps the scene for the given duration in frames of FrameDt, calling
// frame (if non-nil) after each; it stops at the first error.
func (s *Scene) Run(seconds float64, frame func(StepStats)) error {
	n := int(math.Round(seconds / s.FrameDt))
	for k := 0; k < n; k++ {
		st, err := s.Cloth.Step(s.FrameDt)
		if err != nil {
			return err
		}
		if frame != nil {
			frame(st)
		}
	}
	return nil
}

// sheet returns a horizontal w×h sheet (nx×ny quads) at height y0 in the XZ
// plane, with UVs in metres: U (weft) along +X, V (warp) along −Z.
func sheet(w, h float64, nx, ny int, y0 float64) *mesh.Mesh {
	m := mesh.Grid(w, h, nx, ny)
	for i, p := range m.Verts {
		m.Verts[i] = geom.V(p.X-w/2, y0, -(p.Y - h/2))
	}
	for i, uv := range m.UVs {
		m.UVs[i] = geom.Vec2{X: uv.X * w, Y: uv.Y * h}
	}
	// The XY→XZ map (y ↦ −z) keeps the winding counter-clockwise seen from +Y.
	return m
}

// SheetScene returns a 1 m × 1 m sheet of nx×ny quads, initially horizontal
// at height 1 m and pinned at the two corners of one edge, so that it swings
// down and hangs. Air drag 0.5 N·s/m³ (about linearised quadratic drag of air at 1 m/s) and the material's viscosity damp it.
// Frames are 1/30 s.
func SheetScene(mat Material, nx, ny int, opts Options) (*Scene, error) {
	m := sheet(1, 1, nx, ny, 1)
	if opts.AirDrag == 0 {
		opts.AirDrag = 0.5
	}
	c, err := NewCloth(m, mat, opts)
	if err != nil {
		return nil, err
	}
	c.Pin(0, nx) // the corners of the row j = 0 (z = +0.5)
	return &Scene{Cloth: c, Mesh: m, FrameDt: 1.0 / 30}, nil
}

// SphereScene returns a 1 m × 1 m sheet of n×n quads held horizontally 0.1 m
// above a static sphere of radius 0.3 m centred at the origin, falling onto
// it and draping. The sphere acts through a SphereCollider hook. Frames are
// 1/30 s.
func SphereScene(mat Material, n int, opts Options) (*Scene, error) {
	const r = 0.3
	m := sheet(1, 1, n, n, r+0.1)
	if opts.AirDrag == 0 {
		opts.AirDrag = 0.5
	}
	c, err := NewCloth(m, mat, opts)
	if err != nil {
		return nil, err
	}
	sp := &SphereCollider{Center: geom.Vec3{}, Radius: r, Margin: 0.005, Friction: 0.5}
	c.Hooks = append(c.Hooks, sp)
	return &Scene{Cloth: c, Mesh: m, Sphere: sp, FrameDt: 1.0 / 30}, nil
}

// SphereCollider is an analytic static sphere acting through the Hook
// interface: in Begin, a vertex that could enter the contact band
// [Radius, Radius+Margin] during the substep is constrained to its tangent
// plane (Baraff–Witkin filter S = I − nnᵀ) with a prescribed normal velocity
// that lets it close the gap to the middle of the band but not pass it, and
// its tangential velocity is reduced by Coulomb friction (applied as a
// force); in End, any vertex still inside is projected to the surface and its
// inward velocity removed.
type SphereCollider struct {
	Center geom.Vec3
	Radius float64 // m
	// Margin is the contact thickness, m.
	Margin float64
	// Friction is the Coulomb friction coefficient μ.
	Friction float64
}

// Begin implements Hook.
func (s *SphereCollider) Begin(ctx *StepContext) error {
	h := ctx.Dt
	grav := ctx.Cloth().Options().Gravity
	for i, x := range ctx.X {
		d := x.Sub(s.Center)
		dist := d.Len()
		if dist == 0 {
			continue
		}
		n := d.Scale(1 / dist)
		v := ctx.V[i]
		vn := v.Dot(n)
		// Predictive detection: skip the vertex if, even falling freely
		// under gravity, it stays outside the contact band this substep.
		gn := math.Max(0, -grav.Dot(n))
		if dist+math.Min(0, vn)*h-gn*h*h >= s.Radius+s.Margin {
			continue
		}
		// The vertex may close the gap to the middle of the band but not
		// go past it (a resting contact then stays constrained instead of
		// falling in and out of the band every substep).
		gap := dist - (s.Radius + s.Margin/2)
		vnNew := math.Max(vn, -math.Max(gap, 0)/h)
		ctx.Constrain(i, Plane, n, n.Scale(vnNew-vn))
		// Coulomb friction, as a tangential force: the normal impulse per
		// unit mass over the substep is the cancelled approach speed plus the
		// pressing part of the last evaluated force (gravity and cloth
		// tension) times h/m.
		vt := v.Sub(n.Scale(vn))
		if lt := vt.Len(); lt > 0 && s.Friction > 0 {
			m := ctx.Mass(i)
			press := math.Max(0, -ctx.Force(i).Dot(n))
			if press == 0 {
				press = math.Max(0, -grav.Dot(n)) * m
			}
			load := -vn + press*h/m
			red := math.Min(lt, s.Friction*load)
			ctx.AddForce(i, vt.Scale(-red/lt*m/h))
		}
	}
	return nil
}

// End implements Hook.
func (s *SphereCollider) End(ctx *StepContext) error {
	for i, x := range ctx.X {
		d := x.Sub(s.Center)
		dist := d.Len()
		if dist >= s.Radius || dist == 0 {
			continue
		}
		n := d.Scale(1 / dist)
		ctx.X[i] = s.Center.AddScaled(s.Radius, n)
		if vn := ctx.V[i].Dot(n); vn < 0 {
			ctx.V[i] = ctx.V[i].AddScaled(-vn, n)
		}
	}
	return nil
}
