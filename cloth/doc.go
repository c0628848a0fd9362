// Package cloth is pleat's cloth simulator core: fabric materials, implicit
// time integration and the hook through which collisions act.
//
// # Units and conventions
//
// SI throughout: metres, seconds, kilograms, newtons, radians. +Y is up and
// gravity defaults to (0, −9.81, 0) m/s². Vertex ids are 0-based and index
// Cloth.X, Cloth.V and Cloth.Mass. Pattern coordinates are the mesh's
// per-corner UVs in metres (Options.UVScale converts normalised UVs): U runs
// along the weft, V along the warp. Membrane stresses are forces per unit
// width (N/m), bending rigidities moments per unit width per curvature (N·m),
// area densities kg/m².
//
// # Models
//
// WeftWarp is the triangle model of volino-cordier §2.2: Eqs. 1–2 give, per
// triangle, coefficients R such that the deformed weft and warp vectors are
// U = Σ Ru_k x_k and V = Σ Rv_k x_k (Eq. 3a), whose stretch and mutual angle
// are the strains; piecewise-linear stress–strain Curves give the stresses,
// strain rates (Eq. 3b) times viscosities add dissipation, and Eq. 4
// distributes them on the vertices. Plasticity keeps a rest strain per mode
// that drifts when the elastic strain passes a yield value. Bending acts
// between edge-adjacent triangles, with the rigidity split between weft and
// warp by the edge's direction in the pattern.
//
// MassSpring is the Choi–Ko model used by wang2010 §3.1 and chen2015: a
// spring on every edge and a bending spring between the opposite vertices of
// every pair of edge-adjacent triangles, with Choi and Ko's buckling response
// for compressed springs.
//
// # Integration
//
// Step uses the implicit Euler step of volino-cordier Eqs. 6–10 in Baraff and
// Witkin's form,
//
//	(M − h ∂f/∂v − h² ∂f/∂x) Δv = h (f + h ∂f/∂x v),  x += h (v + Δv),
//
// or BDF2 (second order, wang2010 §3.2), linearised the same way with
// β = 2h/3:
//
//	(M − β ∂f/∂v − β² ∂f/∂x) Δv = M (v − v₋₁)/3 + β (f + ∂f/∂x dx₀),
//	dx₀ = (x − x₋₁)/3 + β v,  x += dx₀ + β Δv.
//
// The system matrix is assembled into a 3x3-block CSR matrix whose sparsity
// is fixed at construction (values are refilled each substep) and solved by
// conjugate gradients with a block-Jacobi preconditioner and Baraff–Witkin
// constraint filtering. Element Jacobians are projected to make the matrix
// symmetric positive definite (see assemble). A substep that does not
// converge, produces NaN, or exceeds Options.MaxSpeed or Options.MaxStretch is
// rolled back and retried with half the step.
//
// # Determinism and concurrency
//
// Parallel loops split work into fixed chunks and reduce in chunk order;
// element assembly runs colour class by colour class so that no two
// goroutines touch one vertex. Results are bit-identical for any number of
// workers. A Cloth must not be used from several goroutines at once.
//
// # Collisions
//
// Package collide (and tests here) act through Hook: Begin may constrain
// vertices to a plane, a line or a fixed prescribed velocity change
// (filter matrices S_i) and add forces with their Jacobians; End may correct
// positions and velocities after the substep.
package cloth
