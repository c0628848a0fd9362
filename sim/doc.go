// Package sim simulates garments on an animated character: it prepares each
// garment for the cloth solver (splitting it into its separate pieces,
// winding each piece's triangles consistently (mesh.Orient), refining to
// the wanted resolution with skin weights carried along (long triangles
// split until the vertex count is reached, so that edge lengths even out),
// finding the layer order and the waistband or collar to attach: the top
// 10 cm of the top boundary loop, TopBand), then steps
// package cloth frame by frame against the skinned body (package collide;
// by default a collision proxy: the body simplified by mesh.Simplify to a
// tolerance tied to the garment's edge length and moved out to enclose the
// body, several times cheaper to skin, refit and query),
// with layered cloth–cloth collision between pieces (soft contacts, so
// that the strain limit can move the outer layer), an edge strain limit
// of 10 % (25 % for the weft/warp model, whose off-thread edges lengthen
// under shear; the waistband and collar targets limited too) and a speed
// safety net
// (cloth.Options), and reports per frame timings, CG iterations, stretch
// (the largest, where it is, and how many edges exceed 10 %), penetration
// and kinetic energy. Each piece is simulated with its vertices in reverse
// Cuthill–McKee order, for the solver's preconditioner; results come back
// in the piece's own order.
//
// The engine is a Simulator, built once (New) and stepped: Step advances
// one frame to a pose as poses arrive (a clip, a game loop, a live mocap
// stream), SettleTo moves into a pose and holds it until the garments are
// at rest (a wrinkle-database sample), or hold their shape without coming
// to rest (cloth stretched to its strain limit buzzes in place), or a time
// limit has passed. Run is a loop over it: a settle
// from the rest pose into the clip's first pose, then one Step per frame;
// Stream is the same loop handing each frame on as it is made.
//
// The pieces are stepped concurrently (as Wang et al. 2010 §4 step shirt
// and pants in threads synchronised after every step): each collides with
// the others' states at the start of the substep (collide.Snapshot) and
// with its own copy of the body, so results do not depend on the number of
// goroutines. Helper goroutines park between substeps and claim pieces
// from a counter that the calling goroutine claims from too, so a helper
// that a busy machine has not scheduled costs nothing. A goroutine whose
// pieces are done before the others prepares the coming frame (its skinned
// collision body and attachment targets, when Simulator.Ahead named its
// pose) instead of waiting. On a machine busy with other work, goroutines
// that meet every substep can be slower than one: a pacer times frames
// stepped in parallel and serially (the pieces' own solver and collision
// loops included) and uses the faster, which never changes results. A
// frame takes one substep per 1/60 s by
// default, and more where the motion moves the garments' skinned shapes
// more than 10 cm per substep (a kick's swing, a clip played fast; at most
// 32 per frame).
//
// Units are SI (metres, seconds, kilograms); +Y up. A run is deterministic:
// the same scene and options give bit-identical frames on one platform.
package sim
