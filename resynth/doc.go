// Package resynth animates a garment for a new skeletal motion by stitching
// together short segments of existing cloth animation (White, Crane and
// Forsyth 2007, "Data driven cloth animation"; the spec is
// ../shared/papers/white2007-data-driven-cloth.md).
//
// A DB holds cloth frames with the skeleton poses that produced them (from
// simulations of several clips, or any PC2 cache with its motion). Each
// frame is represented by per-triangle deformation gradients relative to
// the garment's rest shape (Sumner and Popović 2004): F = Ṽ·V⁻¹ with V the
// rest triangle's two edges and its scaled normal as columns (Eq. G1 in
// gradient.go). Before they are compared, interpolated or averaged the
// gradients are expressed in the triangle's skinned frame (the rotation
// part of its blended skinning transforms, L = Q⁻¹·F), so that the
// rotation of the limb under it is taken out; resynthesis puts the new
// skeleton's rotation back (F' = Q'·L).
//
// Resynthesis of a motion runs in five steps:
//
//  1. Matching (features.go): each frame is described by the positions of
//     the joints that move the garment, each in the frame of its parent
//     limb (the grandparent joint's frame), and their velocities; the cost
//     between two frames is the l2 distance of the positions plus
//     VelWeight times the l2 distance of the velocities (paper: "Matching
//     Cost").
//  2. Viterbi (viterbi.go) over the whole database: unary cost = matching
//     cost between the motion's frame and a database frame; transition
//     cost 0 to the next frame of the same clip, Skip to repeat or drop one
//     frame, Jump plus the matching cost between the natural successor and
//     the target for any other transition (paper: "Finding a Sequence"),
//     among the Neighbours nearest frames. Beyond the paper, a transition
//     also costs ClothWeight times the RMS distance between the two
//     frames' garments carried back to the rest pose (cloth.go), so that
//     the path avoids jumps in the cloth's state that the 5-frame
//     smoothing cannot hide.
//  3. Resampling (resample.go): the path's indices are smoothed within each
//     block to fractional indices; the two database frames around each
//     index are blended, rotations by quaternion slerp and the stretch
//     part of the polar decomposition F = R·S linearly (paper: "Resampling
//     in Time", with a rotation-aware blend in place of the plain average).
//     Within two frames of a block boundary the blend weights are averaged
//     over a 5-frame window (paper: "Smoothing Transitions").
//     The polar factors of a database frame's gradients are computed on
//     the frame's first use (before reconstruction, in parallel over the
//     frames the blends name) and kept as float32 (40 bytes per triangle
//     per frame used: at most about 600 MB for 1,500 frames of a
//     10,000-triangle garment), so that a blend costs no decomposition
//     and New pays for none.
//  4. Reconstruction (poisson.go): positions x minimise
//     Σ_t Σ_{edges ab of t} w_ab |x_b − x_a − F_t·(r_b − r_a)|² +
//     Σ_c w_c |x_c − y_c|² (Eq. P1), a Poisson system whose matrix depends
//     only on the rest mesh and is factored once (sparse envelope Cholesky
//     in reverse Cuthill–McKee order). The constrained vertices c are the
//     garment vertices nearest the skeleton's joints; y_c follows the new
//     skeleton's joint rigidly from the blended database offset.
//     Options.AnchorWeight adds weak targets of the same kind for every
//     other vertex (off by default).
//  5. Smoothing the dynamics (smooth.go): the offset of each vertex from
//     the skinned rest garment is averaged in time with a Gaussian of
//     Options.Smooth frames (default 2), so that the cloth moves no
//     faster than the source clips' cloth did: playing a livelier clip,
//     or a clip resampled in time, otherwise shows as jitter.
//
// Eval and LeaveOneOut measure a resynthesis against simulated ground
// truth: mean vertex error per frame beside the skinning baseline (the
// rest garment carried by linear blend skinning), and mean vertex
// acceleration per frame beside the truth's.
//
// Units are SI (metres, seconds); +Y up; joint transforms are world-space
// geom.Rigid; vertex and joint ids are 0-based. Database positions are
// stored as float32 (about 0.1 µm at 2 m). Everything is deterministic:
// the same database, motion and options give bit-identical frames whatever
// the number of workers.
package resynth
