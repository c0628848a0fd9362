package cloth

import (
	"fmt"
	"math"
	"runtime"
	"sort"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Model selects the internal-force model.
type Model uint8

const (
	// WeftWarp is the triangle model of volino-cordier §2.2 (Eqs. 1–5):
	// non-linear weft/warp/shear stress–strain curves, strain-rate viscosity,
	// plasticity and weft/warp bending between edge-adjacent triangles.
	WeftWarp Model = iota
	// MassSpring is the Choi–Ko mass-spring model (wang2010 §3.1, chen2015).
	MassSpring
)

// Material is a fabric and the model that simulates it.
type Material struct {
	Model  Model
	Fabric Fabric
	// Springs, when non-nil, overrides Fabric.Springs() for MassSpring.
	Springs *SpringParams
}

// Integrator selects the time integration scheme.
type Integrator uint8

const (
	// ImplicitEuler is the linearised backward Euler step of Baraff and
	// Witkin 1998 (volino-cordier Eqs. 6–10).
	ImplicitEuler Integrator = iota
	// BDF2 is the second-order backward differentiation formula, linearised
	// the same way (Choi and Ko 2002; the "second-order implicit scheme" of
	// wang2010 §3.2). Its first step, and any step after a change of step
	// size, is an implicit Euler step.
	BDF2
	// ExplicitRK4 is the classical fourth-order Runge–Kutta scheme. It is
	// only stable for tiny steps and serves as a reference in tests.
	ExplicitRK4
)

// Options configures a Cloth. The zero value gives the documented defaults.
type Options struct {
	// Integrator is the time integration scheme; default ImplicitEuler.
	Integrator Integrator
	// MaxDt is the largest substep, s; Step(dt) splits dt into
	// ceil(dt/MaxDt) equal substeps. Default 1/60 (1e-4 for ExplicitRK4).
	MaxDt float64
	// MinDt is the smallest substep adaptive halving may reach before Step
	// gives up with an error; default MaxDt/256.
	MinDt float64
	// Gravity is the gravitational acceleration, m/s²; default (0, −9.81, 0)
	// unless NoGravity is set.
	Gravity   geom.Vec3
	NoGravity bool
	// AirDrag is the aerodynamic drag coefficient, N·s/m³: each vertex feels
	// −AirDrag·area·(v − Wind), area being its share of the cloth area.
	// Default 0.
	AirDrag float64
	// Wind is the air velocity, m/s.
	Wind geom.Vec3
	// CGTol is the relative residual at which CG stops; default 1e-3 (in the preconditioner norm; warm-started from the previous Δv).
	CGTol float64
	// CGMaxIter caps CG iterations per solve; default 2000.
	CGMaxIter int
	// Preconditioner is the CG preconditioner; default BlockIC.
	Preconditioner Preconditioner
	// ImplicitBending keeps every MassSpring bending spring in the implicit
	// solve. By default the bending springs that are soft at MaxDt (coarse
	// meshes) are integrated explicitly, which halves the system matrix
	// there (see markExplicitBending; Info.ExplicitBending counts them).
	ImplicitBending bool
	// MaxStretch is the largest elongation strain (|U|−1 or l/L−1) a substep
	// may produce before it is retried with half the step; default 1.
	MaxStretch float64
	// StrainLimit, when positive, bounds the elongation strain of every
	// edge (l/L − 1) at the end of each substep with Provot's deformation
	// constraint (see limitStrain): e.g. 0.1 keeps edges within 10 % of
	// their rest length wherever the substep's constraints (pins, contacts)
	// allow. Default 0: off.
	StrainLimit float64
	// StrainLimitRelax is the over-relaxation factor ω of the strain
	// limiting sweeps (successive over-relaxation of their Gauss–Seidel
	// projection, see limitStrain): each projection shortens an edge by ω
	// times its excess, never below its rest length. Where a long band of
	// edges is stretched (a sleeve pulled by a raised arm), plain sweeps
	// propagate a correction one edge per sweep and need O(n²) sweeps;
	// ω near 2 needs O(n). It applies after the first 50 plain sweeps of
	// a call (relaxAfter). Default 0 means 1 (plain); values outside
	// [1, 1.95] are taken as 1.
	StrainLimitRelax float64
	// ContactSlack (m) lets strain limiting move a vertex constrained to a
	// contact plane (StepContext.Constrain with Plane) up to this far
	// against the plane's normal: a collision's safety distance is a
	// margin, the strain limit is not. Default 0: contacts are only left
	// or slid along.
	ContactSlack float64
	// SpeedClamp, when positive, is a safety net for incompatible
	// contacts: where a solve gives a vertex a velocity change above it,
	// the constraints within two edges of the vertex are released and the
	// system solved again (up to three times); a speed still above it after
	// that is clamped, moving the vertex consistently (StepStats.Clamped).
	// Where contact constraints on a stiff cloth are nearly incompatible
	// (cloth edges almost along the contact normals, each end prescribed a
	// different normal velocity by a moving body), the exact solution of
	// the linear system sends light vertices off sideways at several m/s
	// whatever the step, and halving the step cannot help. Default 0: off.
	SpeedClamp float64
	// MaxSpeed is the largest vertex speed (m/s) a substep may produce before
	// it is retried with half the step; default 100.
	MaxSpeed float64
	// Workers is the number of goroutines of parallel loops; default
	// runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int
	// UVScale scales the mesh UVs to metres of the flat pattern; default
	// (1, 1): UVs already in metres.
	UVScale geom.Vec2
	// SkipDegenerate skips triangles of (near) zero rest area instead of
	// failing; they are listed in Info.Skipped.
	SkipDegenerate bool
	// RestAngleFromMesh takes the rest bending angles from the mesh's 3D
	// shape instead of the flat pattern (0).
	RestAngleFromMesh bool
	// RestFromMesh takes each triangle's rest shape from its 3D shape in the
	// mesh given to NewCloth instead of from the UVs, for meshes whose UVs
	// are texture coordinates rather than metric pattern coordinates
	// (MakeHuman garments: a texture atlas in [0,1]²). The triangle is
	// flattened isometrically into its plane, rotated so that the weft (the
	// direction in which U increases, from the gradient of the UVs over the
	// triangle) lies along the first axis; without UVs, or with degenerate
	// UVs, the weft follows the triangle's first edge. Lengths, areas and
	// masses come from 3D, weft/warp anisotropy follows the texture, and
	// MassSpring rest lengths are 3D lengths. UVScale is ignored.
	//
	// In this mode the rest bending angles are also taken from the mesh
	// (RestAngleFromMesh is implied), so that the mesh as given is at rest:
	// a sewn garment's collars, hems and the tubes of sleeves keep their
	// shape. Set FlatRestAngles for flat rest angles (a cloth pattern's
	// curvature), which makes the garment "want" to be flat: bending forces
	// then act wherever the input mesh is curved.
	RestFromMesh bool
	// FlatRestAngles overrides the rest angles implied by RestFromMesh with
	// flat ones (0).
	FlatRestAngles bool
}

func (o *Options) defaults() {
	if o.MaxDt == 0 {
		o.MaxDt = 1.0 / 60
		if o.Integrator == ExplicitRK4 {
			o.MaxDt = 1e-4
		}
	}
	if o.MinDt == 0 {
		o.MinDt = o.MaxDt / 256
	}
	if o.Gravity == (geom.Vec3{}) && !o.NoGravity {
		o.Gravity = geom.V(0, -9.81, 0)
	}
	if o.NoGravity {
		o.Gravity = geom.Vec3{}
	}
	if o.CGTol == 0 {
		o.CGTol = 1e-3
	}
	if o.CGMaxIter == 0 {
		o.CGMaxIter = 2000
	}
	if o.MaxStretch == 0 {
		o.MaxStretch = 1
	}
	if o.StrainLimit < 0 || math.IsNaN(o.StrainLimit) {
		o.StrainLimit = 0
	}
	if !(o.StrainLimitRelax >= 1 && o.StrainLimitRelax <= 1.95) {
		o.StrainLimitRelax = 1
	}
	if o.MaxSpeed == 0 {
		o.MaxSpeed = 100
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.UVScale == (geom.Vec2{}) {
		o.UVScale = geom.Vec2{X: 1, Y: 1}
	}
}

// DegenerateError reports a triangle whose rest (pattern) area is too small
// to simulate.
type DegenerateError struct {
	Tri  int
	Area float64 // m²
}

func (e *DegenerateError) Error() string {
	return fmt.Sprintf("cloth: triangle %d is degenerate (rest area %g m²)", e.Tri, e.Area)
}

// Info reports what NewCloth did with the mesh.
type Info struct {
	// Skipped lists degenerate triangles left out (Options.SkipDegenerate).
	Skipped []int
	// NonManifoldEdges counts edges shared by more than two triangles; they
	// get no bending element.
	NonManifoldEdges int
	// Isolated lists vertices in no simulated triangle; they are held fixed.
	Isolated []int
	// Hinges and Springs count bending hinges and springs (MassSpring).
	Hinges, Springs int
	// ExplicitBending counts the bending springs integrated explicitly
	// (MassSpring; see the package doc, "Soft bending springs").
	ExplicitBending int
	// Colors is the number of colour classes of the parallel assembly.
	Colors int
}

// Attachment ties a vertex to a target moving with time (a pin, or a
// waistband point following the skinned body).
type Attachment struct {
	Vertex int
	// Target gives the target position at time t; when nil the target is the
	// vertex's position when attached, or what SetTarget last set, reached
	// linearly over the next Step.
	Target func(t float64) geom.Vec3
	// Stiffness (N/m) and Damping (N·s/m) of a zero-length spring to the
	// target. Stiffness 0 makes a hard constraint: the vertex follows the
	// target exactly (Baraff–Witkin filtering, S_i = 0).
	Stiffness, Damping float64
}

type attachState struct{ from, to geom.Vec3 }

// triangle element of the WeftWarp model.
type triEl struct {
	v      [3]int32
	ru, rv [3]float64 // Eq. 1: U = Σ ru_k x_k, V = Σ rv_k x_k
	area   float64    // rest area |D|/2, m²
	slot   [9]int32   // CSR slots of blocks (k,l)
}

// hinge element (bending): v[0], v[1] opposite vertices, v[2], v[3] edge.
type hingeEl struct {
	v      [4]int32
	k, kd  float64 // N·m, N·m·s
	theta0 float64 // rest angle, rad (plasticity moves it)
	yield  float64 // yield angle, rad (0: none)
	slot   [16]int32
}

// spring element of the MassSpring model.
type springEl struct {
	v     [2]int32
	rest  float64 // m
	k, kd float64 // N/m, N·s/m (tension/linear)
	buck  float64 // Choi–Ko buckling coefficient B·w/L², N
	bend  bool    // bending spring: no tension response
	// explicit: a soft bending spring, integrated explicitly (no Jacobian,
	// no matrix blocks; markExplicitBending).
	explicit bool
	slot     [4]int32
}

// Cloth is a simulated piece of cloth. Its exported slices are the state and
// may be read between steps; X and V may also be written between steps (for
// example to teleport the cloth). A Cloth is not safe for concurrent use.
type Cloth struct {
	// X and V are positions (m) and velocities (m/s) by vertex id.
	X, V []geom.Vec3
	// Mass is the lumped mass of each vertex, kg: density × a third of the
	// rest area of each incident triangle.
	Mass []float64
	// Time is the simulated time, s.
	Time float64
	// Hooks run around every substep (collisions, external forces).
	Hooks []Hook
	// Info describes the setup.
	Info Info

	mat    Material
	opts   Options
	pool   *pool
	area   []float64 // per-vertex area share, m²
	tris   []triEl
	tcol   []int // colour class boundaries of tris
	hinges []hingeEl
	hcol   []int
	sprs   []springEl
	scol   []int
	plast  [][3]float64 // per-triangle plastic strains (weft, warp, shear)

	weft, warp, shear table
	ms                SpringParams

	edges    [][2]int32 // vertex pairs of the simulated edges
	edgeRest []float64  // their rest lengths, m
	// invMassSL are the inverse masses used by limitStrain (0 for
	// isolated vertices).
	invMassSL []float64
	// veStart and ve: vertex-to-edge adjacency (limitStrain,
	// releaseFast), built on first use; slBits (a bitset over the edges) and slMoved are limitStrain's buffers.
	veStart, ve []int32
	slBits      []uint64
	slMoved     []int32
	// clampedLast counts speed clamps over the substeps of the running Step.
	clampedLast int
	// restoredLast counts restoreOver's vertices over the running Step.
	restoredLast int
	att          []Attachment
	attState     []attachState

	sys  bsr
	work work
	sol  solver
	ctx  StepContext
	k    kernels
}

// NewCloth builds a cloth from a mesh whose Verts are the initial positions
// and whose per-corner UVs (scaled by Options.UVScale) are the flat pattern
// coordinates in metres, U along the weft and V along the warp (Eqs. 1–2).
// Without UVs each triangle's rest shape is its 3D shape, with the weft along
// its first edge. Zero-area triangles are an error naming the triangle unless
// Options.SkipDegenerate is set.
func NewCloth(m *mesh.Mesh, mat Material, opts Options) (*Cloth, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := mat.Fabric.Validate(); err != nil {
		return nil, err
	}
	opts.defaults()
	if opts.RestFromMesh && !opts.FlatRestAngles {
		opts.RestAngleFromMesh = true
	}
	c := &Cloth{mat: mat, opts: opts}
	c.pool = newPool(opts.Workers)
	// The pool's helpers hold only the pool; stop them when c is collected.
	runtime.AddCleanup(c, stopPool, c.pool.Pool)
	if mat.Model == MassSpring {
		c.ms = mat.Fabric.Springs()
		if mat.Springs != nil {
			c.ms = *mat.Springs
		}
		if err := c.ms.Validate(); err != nil {
			return nil, err
		}
	} else if mat.Model != WeftWarp {
		return nil, fmt.Errorf("%w: unknown model %d", ErrMaterial, mat.Model)
	}
	c.weft, c.warp, c.shear = newTable(mat.Fabric.Weft), newTable(mat.Fabric.Warp), newTable(mat.Fabric.Shear)
	n := len(m.Verts)
	c.X = append([]geom.Vec3(nil), m.Verts...)
	c.V = make([]geom.Vec3, n)
	c.Mass = make([]float64, n)
	c.area = make([]float64, n)
	tris, rest2, err := c.restShapes(m)
	if err != nil {
		return nil, err
	}
	edges, hinges := c.buildEdges(tris, rest2)
	pairs := c.buildElements(m, tris, rest2, edges, hinges)
	c.sys.build(n, pairs)
	// Colour the elements so that parallel assembly never writes a vertex or
	// a matrix block from two goroutines (and stays deterministic).
	c.tris, c.tcol = colorElems(n, c.tris, func(e *triEl) []int32 { return e.v[:] })
	c.hinges, c.hcol = colorElems(n, c.hinges, func(e *hingeEl) []int32 { return e.v[:] })
	c.sprs, c.scol = colorElems(n, c.sprs, func(e *springEl) []int32 { return e.v[:] })
	c.plast = make([][3]float64, len(c.tris))
	c.Info.Colors = len(c.tcol) + len(c.hcol) + len(c.scol) - 3
	c.assignSlots()
	c.work.init(n)
	c.bindKernels()
	return c, nil
}

// restShapes computes each triangle's rest shape (Eqs. 1–2) from the
// pattern (UVs scaled by Options.UVScale), the mesh flattened along the
// weft (Options.RestFromMesh) or the mesh flattened as it is, and adds a
// third of its area and mass to each corner. It returns the kept triangles
// and their rest 2D corners; a degenerate triangle is an error, or skipped
// with Options.SkipDegenerate.
func (c *Cloth) restShapes(m *mesh.Mesh) ([]triEl, [][3]geom.Vec2, error) {
	opts, mat := c.opts, c.mat
	uvOf := func(t, k int) geom.Vec2 {
		uv := m.UVs[m.UVTris[t][k]]
		return geom.Vec2{X: uv.X * opts.UVScale.X, Y: uv.Y * opts.UVScale.Y}
	}
	hasUV := m.HasUVs()
	var tris []triEl
	var rest2 [][3]geom.Vec2 // rest 2D corners per kept triangle
	for t, tv := range m.Tris {
		var p [3]geom.Vec2
		if opts.RestFromMesh {
			var uv *[3]geom.Vec2
			if hasUV {
				uv = &[3]geom.Vec2{m.UVs[m.UVTris[t][0]], m.UVs[m.UVTris[t][1]], m.UVs[m.UVTris[t][2]]}
			}
			p = flattenWeft(m.Verts[tv[0]], m.Verts[tv[1]], m.Verts[tv[2]], uv)
		} else if hasUV {
			for k := 0; k < 3; k++ {
				p[k] = uvOf(t, k)
			}
		} else {
			p = flatten(m.Verts[tv[0]], m.Verts[tv[1]], m.Verts[tv[2]])
		}
		// D of Eq. 2 (twice the signed pattern area).
		d := p[0].X*(p[1].Y-p[2].Y) - p[1].X*(p[0].Y-p[2].Y) + p[2].X*(p[0].Y-p[1].Y)
		l2 := math.Max(len2(p[1].Sub(p[0])), math.Max(len2(p[2].Sub(p[1])), len2(p[0].Sub(p[2]))))
		if !(math.Abs(d) > 1e-9*l2) || l2 == 0 {
			if opts.SkipDegenerate {
				c.Info.Skipped = append(c.Info.Skipped, t)
				continue
			}
			return nil, nil, &DegenerateError{Tri: t, Area: math.Abs(d) / 2}
		}
		e := triEl{v: tv, area: math.Abs(d) / 2}
		inv := 1 / d
		// Eq. 1.
		e.ru = [3]float64{inv * (p[1].Y - p[2].Y), -inv * (p[0].Y - p[2].Y), inv * (p[0].Y - p[1].Y)}
		e.rv = [3]float64{-inv * (p[1].X - p[2].X), inv * (p[0].X - p[2].X), -inv * (p[0].X - p[1].X)}
		tris = append(tris, e)
		rest2 = append(rest2, p)
		for _, v := range tv {
			c.Mass[v] += mat.Fabric.Density * e.area / 3
			c.area[v] += e.area / 3
		}
	}
	if len(tris) == 0 {
		return nil, nil, fmt.Errorf("cloth: no usable triangles")
	}
	for i, mm := range c.Mass {
		if mm == 0 {
			c.Info.Isolated = append(c.Info.Isolated, i)
		}
	}
	return tris, rest2, nil
}

// buildEdges finds the edges and hinges of the kept triangles (private,
// so that cloth only needs mesh.Mesh), with each edge's rest length the
// mean of its pattern lengths in the incident triangles (as the MassSpring
// springs), and the inverse masses of strain limiting.
func (c *Cloth) buildEdges(tris []triEl, rest2 [][3]geom.Vec2) ([]edgeTopo, []hingeTopo) {
	edges, hinges, nonManifold := buildHinges(tris)
	c.edges = make([][2]int32, len(edges))
	c.edgeRest = make([]float64, len(edges))
	for k, e := range edges {
		c.edges[k] = [2]int32{e.a, e.b}
		for _, t := range e.tris {
			v := tris[t].v
			c.edgeRest[k] += math.Sqrt(len2(rest2[t][cornerOf(v, e.a)].Sub(rest2[t][cornerOf(v, e.b)])))
		}
		c.edgeRest[k] /= float64(len(e.tris))
	}
	c.Info.NonManifoldEdges = nonManifold
	c.invMassSL = make([]float64, len(c.Mass))
	for i, mm := range c.Mass {
		if mm > 0 {
			c.invMassSL[i] = 1 / mm
		}
	}
	c.Info.Hinges = len(hinges)
	return edges, hinges
}

// buildElements makes the material model's elements (weft/warp triangles
// and hinges, or springs) and returns the vertex pairs of the implicit
// system's matrix blocks.
func (c *Cloth) buildElements(m *mesh.Mesh, tris []triEl, rest2 [][3]geom.Vec2, edges []edgeTopo, hinges []hingeTopo) [][2]int32 {
	var pairs [][2]int32
	switch c.mat.Model {
	case WeftWarp:
		c.tris = tris
		c.plast = make([][3]float64, len(tris))
		for _, h := range hinges {
			he, ok := c.weftWarpHinge(h, tris, rest2, m.Verts)
			if ok {
				c.hinges = append(c.hinges, he)
			}
		}
		for i := range c.tris {
			pairs = appendPairs(pairs, c.tris[i].v[:])
		}
		for i := range c.hinges {
			pairs = appendPairs(pairs, c.hinges[i].v[:])
		}
	case MassSpring:
		c.buildSprings(edges, hinges, tris, rest2, m.Verts)
		c.Info.Springs = len(c.sprs)
		c.Info.ExplicitBending = c.markExplicitBending()
		for i := range c.sprs {
			if !c.sprs[i].explicit {
				pairs = appendPairs(pairs, c.sprs[i].v[:])
			}
		}
	}
	return pairs
}

// assignSlots stores in each element the slots of its matrix blocks in the
// implicit system.
func (c *Cloth) assignSlots() {
	for i := range c.tris {
		e := &c.tris[i]
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				e.slot[3*k+l] = c.sys.slot(e.v[k], e.v[l])
			}
		}
	}
	for i := range c.hinges {
		e := &c.hinges[i]
		for k := 0; k < 4; k++ {
			for l := 0; l < 4; l++ {
				e.slot[4*k+l] = c.sys.slot(e.v[k], e.v[l])
			}
		}
	}
	for i := range c.sprs {
		e := &c.sprs[i]
		if e.explicit {
			continue // no matrix blocks
		}
		for k := 0; k < 2; k++ {
			for l := 0; l < 2; l++ {
				e.slot[2*k+l] = c.sys.slot(e.v[k], e.v[l])
			}
		}
	}
}

// SetSingleThreaded runs the cloth's parallel loops on the calling
// goroutine alone (on) or on up to Options.Workers goroutines (off, the
// default), from the next loop on: a caller that finds its goroutines
// waiting for each other on a busy machine can step on one. Results do not
// change (loops split in fixed chunks and reduce in chunk order).
func (c *Cloth) SetSingleThreaded(on bool) { c.pool.Pool.SetSingleThreaded(on) }

// Material returns the cloth's material.
func (c *Cloth) Material() Material { return c.mat }

// Options returns the options in effect (with defaults filled in).
func (c *Cloth) Options() Options { return c.opts }

// NumVerts returns the number of vertices.
func (c *Cloth) NumVerts() int { return len(c.X) }

// Attach adds an attachment and returns its index. The target starts at the
// vertex's current position (or Target(Time)).
func (c *Cloth) Attach(a Attachment) int {
	if a.Vertex < 0 || a.Vertex >= len(c.X) {
		panic("cloth: attachment vertex out of range")
	}
	p := c.X[a.Vertex]
	if a.Target != nil {
		p = a.Target(c.Time)
	}
	c.att = append(c.att, a)
	c.attState = append(c.attState, attachState{p, p})
	return len(c.att) - 1
}

// Pin attaches vertices rigidly at their current positions.
func (c *Cloth) Pin(verts ...int) {
	for _, v := range verts {
		c.Attach(Attachment{Vertex: v})
	}
}

// SetTarget sets the position attachment k reaches at the end of the next
// Step (linearly from its previous target over the Step's substeps); it is
// how per-frame target positions, e.g. from a skinned body, drive pins.
func (c *Cloth) SetTarget(k int, p geom.Vec3) { c.attState[k].to = p }

// Edges returns the vertex pairs of the simulated triangles' edges (not to
// be modified).
func (c *Cloth) Edges() [][2]int32 { return c.edges }

// EdgeRest returns the rest lengths (m) of the edges of Edges (not to be
// modified).
func (c *Cloth) EdgeRest() []float64 { return c.edgeRest }

// Attachments returns the attachments.
func (c *Cloth) Attachments() []Attachment { return c.att }

// flatten lays a 3D triangle in the plane: a at the origin, b on the +U axis.
func flatten(a, b, cc geom.Vec3) [3]geom.Vec2 {
	e1 := b.Sub(a)
	l := e1.Len()
	if l == 0 {
		return [3]geom.Vec2{}
	}
	u := e1.Scale(1 / l)
	w := cc.Sub(a)
	x := w.Dot(u)
	y := w.Sub(u.Scale(x)).Len()
	return [3]geom.Vec2{{}, {X: l}, {X: x, Y: y}}
}

// flattenWeft lays a 3D triangle isometrically in the plane with the weft
// along +X: the direction of increasing U, g = ∇u over the triangle, when uv
// is non-nil and not degenerate, else the first edge (see
// Options.RestFromMesh). In the triangle's own frame q (a at the origin, b on
// the first axis), u(q) = u_a + g·q with [q_b; q_c] g = [u_b − u_a; u_c − u_a],
// and the corners are rotated by −atan2(g_y, g_x).
func flattenWeft(a, b, cc geom.Vec3, uv *[3]geom.Vec2) [3]geom.Vec2 {
	q := flatten(a, b, cc)
	if uv == nil {
		return q
	}
	du1, du2 := uv[1].X-uv[0].X, uv[2].X-uv[0].X
	// q_b = (l, 0), q_c = (x, y): l·gx = du1, x·gx + y·gy = du2.
	l, x, y := q[1].X, q[2].X, q[2].Y
	if !(l > 0) || !(y > 1e-12*l) {
		return q
	}
	gx := du1 / l
	gy := (du2 - x*gx) / y
	gl := math.Hypot(gx, gy)
	// Degenerate: U (nearly) constant over the triangle, relative to the
	// triangle's UV extent.
	ext := math.Max(math.Abs(du1), math.Abs(du2)) + math.Max(math.Abs(uv[1].Y-uv[0].Y), math.Abs(uv[2].Y-uv[0].Y))
	if !(gl*l > 1e-9*ext) || math.IsNaN(gl) || math.IsInf(gl, 0) {
		return q
	}
	cs, sn := gx/gl, gy/gl // rotate by −θ: (x, y) ↦ (x cos θ + y sin θ, −x sin θ + y cos θ)
	for k := range q {
		px, py := q[k].X, q[k].Y
		q[k] = geom.Vec2{X: px*cs + py*sn, Y: -px*sn + py*cs}
	}
	return q
}

func appendPairs(p [][2]int32, v []int32) [][2]int32 {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			p = append(p, [2]int32{v[i], v[j]})
		}
	}
	return p
}

// hinge topology: triangles t0, t1 (indices into the kept triangles) share
// edge (a, b); o0, o1 are their opposite vertices.
type hingeTopo struct {
	t0, t1 int
	a, b   int32
	o0, o1 int32
}

type edgeTopo struct {
	a, b int32
	tris []int // kept-triangle indices
}

func buildHinges(tris []triEl) (edges []edgeTopo, hinges []hingeTopo, nonManifold int) {
	type half struct {
		a, b int32
		t    int
	}
	hs := make([]half, 0, 3*len(tris))
	for t := range tris {
		v := tris[t].v
		for k := 0; k < 3; k++ {
			a, b := v[k], v[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			hs = append(hs, half{a, b, t})
		}
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].a != hs[j].a {
			return hs[i].a < hs[j].a
		}
		if hs[i].b != hs[j].b {
			return hs[i].b < hs[j].b
		}
		return hs[i].t < hs[j].t
	})
	for i := 0; i < len(hs); {
		j := i
		var ts []int
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			ts = append(ts, hs[j].t)
			j++
		}
		edges = append(edges, edgeTopo{hs[i].a, hs[i].b, ts})
		switch {
		case len(ts) == 2:
			o0, o1 := opposite(tris[ts[0]].v, hs[i].a, hs[i].b), opposite(tris[ts[1]].v, hs[i].a, hs[i].b)
			if o0 != o1 {
				hinges = append(hinges, hingeTopo{ts[0], ts[1], hs[i].a, hs[i].b, o0, o1})
			}
		case len(ts) > 2:
			nonManifold++
		}
		i = j
	}
	return
}

func opposite(v [3]int32, a, b int32) int32 {
	for _, x := range v {
		if x != a && x != b {
			return x
		}
	}
	return -1
}

func cornerOf(v [3]int32, x int32) int {
	for k := range v {
		if v[k] == x {
			return k
		}
	}
	return -1
}

// bendCoeff is the discrete-shell hinge stiffness factor: a hinge of shared
// edge length |e| between triangles of rest areas A1, A2 has stiffness
// k = bendCoeff·B·|e|²/(A1+A2) (N·m) for bending rigidity B, with energy
// ½k(θ−θ0)² (Grinspun et al. 2003, "Discrete shells"). bendCoeff = 2 makes
// the energy of cylindrical bending of an equilateral mesh equal the
// continuum ½·B·κ² per unit area (a regular right-triangle grid bent about
// an axis comes out twice as stiff).
const bendCoeff = 2

// restGeom returns the shared edge length, the two rest areas, the along-edge
// positions and heights of the opposite vertices in the flat rest state, and
// the edge direction in fabric (u,v) coordinates of the first triangle.
func restHinge(h hingeTopo, tris []triEl, rest2 [][3]geom.Vec2) (el, a0, a1, dist float64, dir geom.Vec2) {
	side := func(t int, o int32) (along, height float64, e geom.Vec2) {
		v := tris[t].v
		pa, pb, po := rest2[t][cornerOf(v, h.a)], rest2[t][cornerOf(v, h.b)], rest2[t][cornerOf(v, o)]
		e = pb.Sub(pa)
		l := math.Hypot(e.X, e.Y)
		w := po.Sub(pa)
		along = (w.X*e.X + w.Y*e.Y) / l
		height = math.Abs(w.X*e.Y-w.Y*e.X) / l
		return
	}
	s0, h0, e := side(h.t0, h.o0)
	s1, h1, e1 := side(h.t1, h.o1)
	l0, l1 := math.Hypot(e.X, e.Y), math.Hypot(e1.X, e1.Y)
	el = 0.5 * (l0 + l1)
	a0, a1 = tris[h.t0].area, tris[h.t1].area
	dist = math.Hypot(s0-s1, h0+h1)
	dir = geom.Vec2{X: e.X / l0, Y: e.Y / l0}
	return
}

func (c *Cloth) weftWarpHinge(h hingeTopo, tris []triEl, rest2 [][3]geom.Vec2, x []geom.Vec3) (hingeEl, bool) {
	el, a0, a1, _, dir := restHinge(h, tris, rest2)
	f := &c.mat.Fabric
	// The bending across an edge is curvature along the in-pattern normal
	// n = (−t_v, t_u) of the edge; split it into weft and warp parts
	// (volino-cordier §2.2: "distributed along weft and warp curvatures Cu and
	// Cv according to the orientation of the edge in the (u,v) coordinate
	// system").
	nu, nv := -dir.Y, dir.X
	b := f.BendWeft*nu*nu + f.BendWarp*nv*nv
	geomFac := bendCoeff * el * el / (a0 + a1)
	e := hingeEl{v: [4]int32{h.o0, h.o1, h.a, h.b}, k: b * geomFac, kd: f.BendVisc * geomFac}
	if f.Plastic.YieldCurvature > 0 {
		// κ ≈ θ·|e|/(A1+A2): the angle over half the distance between the
		// opposite vertices.
		e.yield = f.Plastic.YieldCurvature * (a0 + a1) / el
	}
	if c.opts.RestAngleFromMesh {
		th, _ := hingeAngle(x[e.v[0]], x[e.v[1]], x[e.v[2]], x[e.v[3]])
		e.theta0 = th
	}
	return e, e.k > 0 || e.kd > 0 || e.yield > 0
}

// springAreaFactor calibrates stretch springs: spring e gets the membrane
// area A_e = springAreaFactor × (the sum of the rest areas of its triangles),
// so that a regular right-triangle grid (the mesh.Grid layout) stretched
// uniaxially along an axis has exactly the membrane stiffness Stretch (an
// equilateral mesh gets 0.9×).
const springAreaFactor = 0.8

// minSpringAreaRatio is the floor of A_e/L_e² for stretch springs.
const minSpringAreaRatio = 0.3

func (c *Cloth) buildSprings(edges []edgeTopo, hinges []hingeTopo, tris []triEl, rest2 [][3]geom.Vec2, x []geom.Vec3) {
	p := c.ms
	for _, e := range edges {
		// Rest length: mean of the pattern lengths in the incident triangles.
		var L, A float64
		for _, t := range e.tris {
			v := tris[t].v
			L += math.Sqrt(len2(rest2[t][cornerOf(v, e.a)].Sub(rest2[t][cornerOf(v, e.b)])))
			A += tris[t].area
		}
		L /= float64(len(e.tris))
		A *= springAreaFactor
		// A regular mesh has A/L² between 0.4 (grid diagonals) and 0.8; a
		// sliver triangle's short edges get far less and stretch freely
		// (MakeHuman waistbands and cuffs, and the green splits of
		// adaptive refinement: 1.3 mm edges strained by 190 % in one
		// step). The floor keeps every edge at least 0.3·Stretch stiff.
		r := max(A/(L*L), minSpringAreaRatio)
		c.sprs = append(c.sprs, springEl{
			v: [2]int32{e.a, e.b}, rest: L,
			k: p.Stretch * r, kd: p.StretchDamping * r,
			buck: p.Bend * A / (L * L * L), // B·w/L² with width w = A/L
		})
	}
	for _, h := range hinges {
		el, a0, a1, dist, _ := restHinge(h, tris, rest2)
		if c.opts.RestAngleFromMesh {
			dist = x[h.o0].Dist(x[h.o1])
		}
		if dist <= 0 {
			continue
		}
		// The buckling model treats the spring as an arc of length L and
		// width w with energy ½·B·w·θ²/L for a total turning angle θ; matching
		// the hinge energy ½·k·θ² with k = bendCoeff·B·|e|²/(A1+A2) gives
		// B·w/L² = bendCoeff·B·|e|²/((A1+A2)·L).
		g := bendCoeff * el * el / ((a0 + a1) * dist)
		c.sprs = append(c.sprs, springEl{
			v: [2]int32{h.o0, h.o1}, rest: dist,
			k:    p.Stretch * (a0 + a1) / (dist * dist),
			kd:   p.BendDamping * g / dist,
			buck: p.Bend * g,
			bend: true,
		})
	}
}

// Soft bending springs (MassSpring) are integrated explicitly: their forces
// enter the right-hand side at the substep's start positions and velocities
// and they add no block to the system matrix. On a coarse mesh a bending
// spring joins two vertices that share no edge, so its Jacobian doubles the
// blocks of the matrix (13 instead of 7 per row on a regular mesh) and with
// them the cost of assembly, the IC factorisation and every CG iteration,
// for a force that is soft at that resolution. This is an implicit–explicit
// split by stiffness (Eberhardt, Etzmuß and Hauth 2000; Boxerman and Ascher
// 2004): the implicit step's position update x += h·(v + Δv) makes it
// symplectic Euler for the explicit forces, stable while h·ω < 2.
//
// markExplicitBending marks the bending springs soft enough at the largest
// substep h = Options.MaxDt and returns how many: both ends v must satisfy
// h²·K_v/m_v ≤ explicitStiffness and h·D_v/m_v ≤ explicitDamping, where K_v
// sums the stiffness of every bending spring at v in the buckling response
// up to a fold of 218° (buck·|g′(1/2)|/L, buckleFoldSlope), D_v their
// damping coefficients and m_v is the vertex's mass. With
// SpringParams.NoBuckling (a linear compression spring as stiff as the
// stretch springs) or Options.ImplicitBending every bending spring stays
// implicit. The small linear range at the onset of compression (Choi–Ko's
// min of the linear and buckling responses) is as stiff as stretch but its
// force is capped by the buckling load, so explicit treatment bounds its
// kick. Fine meshes (h²K/m grows as 1/L⁴) keep their bending springs
// implicit.
func (c *Cloth) markExplicitBending() int {
	if c.ms.NoBuckling || c.opts.ImplicitBending || c.opts.Integrator == ExplicitRK4 {
		return 0
	}
	h := c.opts.MaxDt
	K := make([]float64, len(c.X))
	D := make([]float64, len(c.X))
	for i := range c.sprs {
		e := &c.sprs[i]
		if !e.bend {
			continue
		}
		kb := e.buck * buckleFoldSlope / e.rest
		for _, v := range e.v {
			K[v] += kb
			D[v] += e.kd
		}
	}
	soft := func(v int32) bool {
		m := c.Mass[v]
		return m > 0 && h*h*K[v] <= explicitStiffness*m && h*D[v] <= explicitDamping*m
	}
	n := 0
	for i := range c.sprs {
		e := &c.sprs[i]
		if e.bend && e.buck > 0 && soft(e.v[0]) && soft(e.v[1]) {
			e.explicit = true
			n++
		}
	}
	return n
}

// explicitStiffness and explicitDamping bound h²·K/m and h·D/m at the ends
// of an explicit bending spring (markExplicitBending): a quarter of the
// stability limits of symplectic Euler for a spring between two equal masses
// (h²·2K/m < 4) and of forward Euler for a damper (h·2D/m < 2).
const (
	explicitStiffness = 0.5
	explicitDamping   = 0.25
)

// colorElems reorders elems into colour classes in which no two elements
// share a vertex (greedy, in element order) and returns the class boundaries.
func colorElems[E any](n int, elems []E, verts func(*E) []int32) ([]E, []int) {
	if len(elems) == 0 {
		return elems, []int{0}
	}
	const words = 4 // up to 256 colours
	used := make([][words]uint64, n)
	col := make([]int, len(elems))
	ncol := 0
	for i := range elems {
		var m [words]uint64
		for _, v := range verts(&elems[i]) {
			for w := 0; w < words; w++ {
				m[w] |= used[v][w]
			}
		}
		k := -1
		for w := 0; w < words && k < 0; w++ {
			if m[w] != ^uint64(0) {
				for b := 0; b < 64; b++ {
					if m[w]&(1<<b) == 0 {
						k = 64*w + b
						break
					}
				}
			}
		}
		if k < 0 {
			panic("cloth: more than 256 colours (vertex valence too high)")
		}
		col[i] = k
		if k+1 > ncol {
			ncol = k + 1
		}
		for _, v := range verts(&elems[i]) {
			used[v][k/64] |= 1 << (k % 64)
		}
	}
	starts := make([]int, ncol+1)
	for _, k := range col {
		starts[k+1]++
	}
	for k := 0; k < ncol; k++ {
		starts[k+1] += starts[k]
	}
	out := make([]E, len(elems))
	pos := append([]int(nil), starts[:ncol]...)
	for i, k := range col {
		out[pos[k]] = elems[i]
		pos[k]++
	}
	return out, starts
}

func len2(a geom.Vec2) float64 { return a.X*a.X + a.Y*a.Y }

// ClearAttachments removes all attachments (pins).
func (c *Cloth) ClearAttachments() {
	c.att, c.attState = c.att[:0], c.attState[:0]
}
