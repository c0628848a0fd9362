// Package refine adds wrinkles to a coarse garment simulation by local
// refinement, as Chen, He and Yu 2015 (chen2015) §III.A: the coarse result
// is analysed for curvature maxima, the regions around them are grown
// (step 3), subdivided 1-to-4 (step 4) and simulated again with their
// boundary held to the coarse result (step 5). The paper refines one still
// frame; this package does it over whole animations.
//
// # Pipeline
//
//  1. Regions (Detector): per analysed frame, each coarse vertex's mean
//     curvature |H| (mesh.Curvature: chen2015 §III.C Taubin, eqs. 8–13,
//     by default; §III.B Moreton–Séquin, eqs. 1–7, or cotan); the local
//     maxima over the 1-ring above Params.Peak; a region grown from each
//     maximum ring by ring while |H| stays at least Params.Fraction of the
//     peak (at most Params.Rings rings); the region's triangles are every
//     coarse triangle touching a grown vertex.
//  2. Hysteresis (Schedule): a triangle marked at frame f is active from
//     f − Params.Lead to f + Params.Hold; the active set changes only
//     every Params.Every frames, and a vertex leaving the refined patch
//     fades back to the coarse surface over one block (Params.Every
//     frames).
//  3. Refinement (Patch): the active triangles are split 1-to-4 by
//     mesh.SubdivideTris (red–green closure: no T-junctions). New vertices
//     are placed on the PN-triangle (Vlachos et al. 2001) cubic edge curve
//     through the edge's ends and vertex normals, both in the rest shape
//     and in every frame, so that refinement alone adds no kinks. The
//     patch's material is the coarse piece's fabric: package cloth builds
//     spring stiffness from the fabric's membrane stiffness (N/m) times
//     A/L² and bending from its rigidity (N·m) times A/L³, and masses from
//     the area density, so halving the edges keeps the sheet's physical
//     moduli and mass (a test checks the mass and rest lengths).
//  4. Re-simulation: the red children form one cloth per piece; a vertex is
//     free when every coarse triangle around it (or around its edge) is
//     red, and otherwise held to its place on the smooth coarse surface of
//     each frame (chen2015 step 5) by a stiff, critically damped spring
//     (cloth.Attachment, cloth.Cloth.SetTarget; 3000 N/m, as sim holds its
//     attached loops) which the strain limit may move. The cloth collides
//     with the skinned body (collide.Collider; each piece with its own
//     copy). Its vertices are numbered in reverse Cuthill–McKee order,
//     which keeps the cloth's incomplete Cholesky preconditioner close to
//     its matrix (a third fewer CG iterations). A fading triangle's
//     children hold only held vertices: those that no simulated triangle
//     shares are not simulated but follow their targets. When the active
//     set changes, the patch is rebuilt and the vertices it had keep their
//     positions and velocities (carried over by key).
//
// # The coarse simulation
//
// Run refines a coarse simulation that its caller made (pleat refine runs
// package sim). CoarseOptions gives that run substeps of 1/30 s
// (CoarseMaxDt) with sim's extra substeps in fast frames, where the
// patches (Params.MaxDt) and the uniform reference step 1/60 s: the coarse
// garment places the folds and holds the patches' boundaries, it does not
// resolve them.
//
// Run can take the coarse frames as they are simulated (Input.Next; sim.Stream
// hands them over): a block needs the regions of its own frames and of
// the Params.Lead frames after it, so Run refines each block as soon as
// the coarse run is Params.Every + Params.Lead frames past its start, and
// the two runs share the cores. The fixed-topology output (the union of all blocks) is built
// when the last frame is refined. The frames are those of the coarse run
// given whole.
//
// # Measures
//
// Result.Measure compares a refined animation with the coarse one and with
// a reference: the garments subdivided uniformly once (SubdivideGarment,
// the refined regions' edge length) and simulated by package sim, its
// vertices found by key (LocateKeys). Over the regions it integrates |H|
// (cotan, Meyer et al. 2003) triangle by triangle on the four children of
// each refined coarse triangle, so the three results are measured over the
// same surface; over the whole garments it sums |H_i|·A_i (mixed areas).
// It also counts refined vertices more than 2 mm inside the body and the
// strain of the patches' simulated edges.
//
// # Keys
//
// A refined vertex is named by a key within its piece: k < n for coarse
// vertex k (n coarse vertices), n + e for the midpoint of coarse edge e
// (mesh.Topology edge ids). Keys match the refined result, the
// fixed-topology output over the union of regions, and a uniformly
// subdivided reference simulation.
//
// # Units and conventions
//
// SI throughout: metres, seconds, kilograms; curvature in m⁻¹; +Y up.
// Frames are at the clip's rate (Input.FPS). Results are deterministic: the
// same inputs and Params give bit-identical frames.
package refine
