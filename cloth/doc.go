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
// conjugate gradients with Baraff–Witkin constraint filtering, warm-started
// from the previous Δv (from the explicit prediction β·f/m on the first
// substep) and stopped when the relative residual is below Options.CGTol
// (1e-3) both in the preconditioner norm and in the mass-weighted norm
// rᵀM⁻¹r (velocity units). Element Jacobians are projected to make the
// matrix symmetric positive definite (see assemble). A substep that does
// not converge, produces NaN, or exceeds Options.MaxSpeed or
// Options.MaxStretch is rolled back and retried with half the step.
//
// Two optional safeguards act after the solve. Options.StrainLimit bounds
// edge elongation with Provot's deformation constraint (limitStrain: Gauss–
// Seidel edge projection respecting pins and contacts; Options.ContactSlack
// lets it move a vertex in contact that far into the contact, m). It runs
// twice per substep: after the positions are advanced, and again after the
// hooks' End (collision push-outs stretch the edges around the pushed
// vertices; the second pass spreads that over their neighbours). Hooks
// implementing LimitHook then take back the pushes the second pass could
// not absorb, and any edge still beyond the limit, and longer than after the
// first pass, has its ends put back where the first pass left them
// (StepStats.Restored). Options.SpeedClamp
// releases contact constraints around a vertex whose velocity change exceeds
// it, or around an edge the solve would tear, and solves again; speeds still
// above it are clamped and counted in StepStats.Clamped.
//
// # Solver performance
//
// The default preconditioner, BlockIC, is a block incomplete Cholesky IC(0)
// of the filtered matrix (constraints built in), computed every substep in
// the vertex order of the mesh, in independent ranges of up to 8192
// consecutive vertex ids so that ranges factor and solve in parallel; its
// factor is stored in float32 for the triangular solves (half the memory
// traffic; only the preconditioner is rounded). On the stiff, anisotropic
// matrices of woven fabrics IC(0) can break down (a pivot collapses and L
// explodes a few rows later); a range that breaks down is refactored with a
// diagonal shift α·blockdiag(A) (Manteuffel 1980), α from 1/1024 quadrupling,
// remembered for the next substep. Measured on the hanging denim sheet
// (BenchmarkStep: one 1/30 s implicit Euler substep per frame, 2 cores, a
// shared and loaded machine, so times are ±30 %):
//
//	                         CG its/frame         ms/frame
//	                      Jacobi   BlockIC    before → after
//	729 v weft/warp          118       5–7       3.4–4.0 → 1.1–1.8
//	729 v mass-spring         89       6–8       2.4–3.2 → 1.0–1.3
//	25,281 v weft/warp       931–967  55–69     750–2700 → 140–220
//	25,281 v mass-spring     488–527  50–57      376–630 → 90–150
//
// and 0 allocations per frame (from 670 and 16,500). IC needs 10–20× fewer
// iterations than block Jacobi (relative to one global factor, 4 ranges cost
// ~25 % more iterations at 25k vertices). Its quality depends on the vertex
// order: grids and meshes whose ids run in strips or rows (most authored and
// exported garments) suit it; on a randomly numbered mesh (not measured) IC
// gains less and its ranges drop more couplings. No reordering is done here
// (Cloth.X is indexed by the caller's ids). BlockJacobi remains as an
// option.
//
// The iteration count is driven by the stretch stiffness: h²k/m grows with
// resolution, so block Jacobi's count grows ~linearly with the number of
// vertices along an edge, IC's much more slowly. Splitting the frame into two
// 1/60 s substeps costs more (two assemblies and factorisations) than it
// saves in iterations, and a looser CGTol of 1e-2 saves ~30 % of iterations
// on the coarse sheet (the tests were not rerun with it; the default stays
// 1e-3). Capping the stretch stiffness in the matrix (a Jacobian softer than
// the force) was not needed and was not tried: it trades stability at
// 1/30 s for iterations. Recommended: MassSpring (wang2010's choice for
// both uses) or WeftWarp with the default BlockIC, MaxDt = 1/30, CGTol 1e-3:
// both models meet 500 frames/s at ~700 vertices and 0.3 s per frame at
// ~25k vertices on 2 cores; WeftWarp costs ~1.5× MassSpring at 25k.
//
// Soft bending springs are explicit. A MassSpring bending spring joins the
// opposite vertices of two triangles, which share no edge, so its Jacobian
// adds blocks the stretch springs do not have: 13 instead of 7 per row of a
// regular mesh. On coarse meshes these springs are soft at the substep
// (h²·K/m well below the stability limit of an explicit step) and are
// integrated explicitly, out of the matrix (an implicit–explicit split by
// stiffness; see Options.ImplicitBending and Info.ExplicitBending for the
// rule and the count). On the ~700-vertex procedural suit at 1/60 s, 72 %
// (trousers) and 86 % (shirt) of the bending springs qualify: the coarse
// frame is 15–20 % faster, CG takes ~15 % more iterations, and penetration
// and strain are unchanged within the run-to-run scatter. Finer meshes keep
// more of them implicit (h²·K/m grows as 1/L⁴): 3 % on the unrefined
// MakeHuman suit (~4,000 vertices), none at 25k.
//
// # Determinism and concurrency
//
// Parallel loops split work into fixed chunks and reduce in chunk order;
// element assembly runs colour class by colour class so that no two
// goroutines touch one vertex; the IC ranges depend only on the vertex
// count. Results are bit-identical for any number of workers. A Cloth keeps
// Options.Workers−1 goroutines parked between loops (stopped when it is
// garbage collected), and a step allocates nothing. A Cloth must not be used
// from several goroutines at once.
//
// # Rest shape
//
// By default the rest shape is the UV pattern (in metres, Options.UVScale).
// For meshes whose UVs are texture coordinates (MakeHuman garments),
// Options.RestFromMesh takes lengths and areas from the 3D mesh and only the
// weft direction from the UVs, and by default the rest bending angles from
// the mesh too (see the option for the trade-off).
//
// # Collisions
//
// Package collide (and tests here) act through Hook: Begin may constrain
// vertices to a plane, a line or a fixed prescribed velocity change
// (filter matrices S_i) and add forces with their Jacobians; End may correct
// positions and velocities after the substep.
package cloth
