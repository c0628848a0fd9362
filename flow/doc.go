// Package flow compresses a predefined garment animation into a skinning
// part borrowed from the body and a low-rank wrinkle residual, after Kim and
// Farbiz, "Wrinkle Flow for Compact Representation of Predefined Clothing
// Animation", SIGGRAPH 2013 Posters (kim2013), and exports the result as a
// standard skinned glTF mesh with morph targets, playable by any glTF
// player with no pleat code.
//
// # Method
//
// Let x_v(t) be garment vertex v at frame t (world space, m frames, n
// vertices) and r_v its rest (bind-pose) position. kim2013 §2 ("Skinning
// component with Deformation Transfer") gives each garment vertex the skin
// weights w_vb of its nearest body vertex in the rest pose (kd-tree) and
// skins it with linear blend skinning (LBS):
//
//	M_v(t) = Σ_b w_vb·T_b(t)           (the blended 3x4 skinning matrix)
//	ẋ_v(t) = M_v(t)·r_v                 (kim2013 §2, skinned clothing)
//
// T_b(t) = world_b(t)·world_b(rest)⁻¹ (skel.SkinMatrices). Binding
// BindBarycentric instead blends the weights of the three corners of the
// closest body triangle by the barycentric coordinates of the closest point;
// BindGiven uses the garment's own weights. Weights are cut to the four
// largest (glTF JOINTS_0/WEIGHTS_0) and quantised before anything else, so
// the skinning computed here is the skinning a glTF player computes.
//
// kim2013 §2 ("Non-skinning component with Wrinkle Flow") takes the residual
// a_v(t) = x_v(t) − ẋ_v(t) in world space. A glTF player applies morph
// targets before skinning (displayed = M_v(t)·(r_v + Σ_k w_k(t)·B_kv)), so
// this package expresses the residual in bind space instead, as Kry et al.
// 2002 (EigenSkin) do:
//
//	a_v(t) = A_v(t)⁻¹·(x_v(t) − b_v(t)) − r_v,   M_v(t) = [A_v(t) | b_v(t)]
//
// so that x_v(t) = M_v(t)·(r_v + a_v(t)) exactly. A_v is a convex blend of
// rotations, invertible unless the influences nearly cancel. The wrinkle
// flow matrix A = [a(1) … a(m)] (3n × m, kim2013 §2) is centred by its mean
// over frames, μ, which is baked into the exported base shape
// p_v = r_v + μ_v (so no constant morph weight is needed). PCA keeps k
// components (kim2013 §2: A = UΣV, U_r = [u¹ … u^k], z^t = U_rᵀ a^t):
//
//	a(t) − μ ≈ Σ_{i≤k} u_i·z_i(t),   z_i(t) = σ_i·v_i(t)
//
// computed from the m × m Gram matrix G = DᵀD of the centred residual D
// (eigenvectors v_i, eigenvalues λ_i = σ_i²), u_i = D·v_i/σ_i. For m ≪ 3n
// this costs O(3n·m²) and one m × m eigenproblem. The reconstruction
// (kim2013 §2, "Reconstruction") is then
//
//	x̂_v(t) = M_v(t)·(p_v + Σ_{i≤k} B_iv·w_i(t))
//
// with morph target B_i = s_i·u_i and weight w_i(t) = z_i(t)/s_i,
// s_i = max_t |z_i(t)|, so that every weight lies in [−1, 1]. Because
// A_v is a blend of rotations (‖A_v‖ ≤ 1), the world-space error is at most
// the bind-space error, whose mean square over vertices and frames is
// exactly Σ_{i>k} λ_i / (n·m); Analysis.ChooseK uses that to pick k for an
// RMS target and then checks the quantised result.
//
// # Quantisation and the .pflow file
//
// Morph targets are stored as int16 with one float32 scale per target
// (B = q·c_i/32767, c_i = max |B_i|), weights as int16 (w = q/32767), skin
// weights as uint16 (four per vertex, the largest implied by the sum 1),
// poses and the base shape as float32. A .pflow file is self-contained: the
// skeleton, the per-frame poses, the topology (and UVs) and the above. See
// Write for the layout; it is versioned and CRC-32 checksummed, and
// readers reject unknown versions with a *FormatError naming the field.
//
// # Conventions
//
// SI units (metres, seconds), +Y up, 0-based vertex and frame ids. Errors
// are Euclidean distances per vertex and frame in metres: RMS is the root of
// their mean square over all vertices and frames, Max their maximum. Caller
// bugs panic with "flow: ..."; bad data gives errors wrapping the Err*
// variables. Analysis, Flow and Report values are safe for concurrent reads.
package flow
