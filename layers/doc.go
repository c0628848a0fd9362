// Package layers animates whole dressed characters in real time with the
// three cloth layers of volino-cordier §3: each garment vertex is animated
// by the cheapest method that looks right for how its region lies on the
// body.
//
//   - Tight (§3.1): regions that keep a constant offset to the skin follow
//     it: "the attachment information of the underlying skin" mapped to the
//     cloth vertices. Each vertex is bound to its closest point on the rest
//     body, its offset kept in the frame of that point's triangle, and the
//     body vertices of the bound triangles are skinned (linear blend
//     skinning with the body's weights) each frame. No dynamics.
//   - Loose (§3.2): regions that move within a small distance of the skin
//     (sleeves, loose tops). Each vertex is a free particle (gravity and
//     inertia, no springs) kept inside a sphere attached to the skin. The
//     sphere's diameter follows the catenary approximation of Eqs. 11–16:
//     the limb is a cylinder of radius r, the cloth across it a catenary
//     y = a(cosh(x/a) − cosh(r/a)) (Eqs. 11, 13); the gap between the two
//     (Eq. 14) is approximated by P(x) = C((x/r)² − 1) (Eq. 15) with
//     C = a(1 − cosh(r/a)) + r (Eq. 16), and x/r = sin θ, θ the angle
//     between the skin normal and the cloth's effective acceleration
//     (gravity minus the skin's acceleration, Fig. 12). A vertex that
//     leaves its sphere is put back by a kinematic correction of its
//     position and velocity. No collision detection. The paper leaves the
//     catenary's scale a free ("the size (largeness) of the garment"); here
//     it is chosen per vertex so that the catenary's arc across the limb
//     is the half circumference of the garment's rest cross-section
//     (limb radius plus the vertex's rest distance to the skin).
//   - Floating (§3.3): regions that hang free of the body (skirts). A
//     mass-spring system (a spring on every edge, explicit bending springs
//     across edge-adjacent triangles) integrated by the implicit Euler step
//     of §2.3 (Eqs. 6–10, Baraff–Witkin form, conjugate gradients with a
//     block-Jacobi preconditioner, a fixed iteration cap; package cloth's
//     general solver, at 1.0–1.3 ms per frame for 729 vertices on 2 cores,
//     would take the whole outfit's budget by itself), then Provot
//     strain limiting, then collision with two capsules per leg (thigh and
//     shin) fitted to the body's leg vertices in the rest pose. Each
//     capsule tests only its candidate list: the floating vertices within
//     Options.CandidateReach of it whose normals do not face into it,
//     precomputed (§3.3, "a list of possible colliding vertices is defined
//     for each segment"). The response is a kinematic correction of
//     position and velocity (with friction). Vertices within 6 cm of the
//     skin at rest are tested against their own leg by the tangent plane
//     of their bound skin point instead (a pencil skirt lies on the
//     thighs, which capsules fit only roughly).
//
// Beyond the paper, cheap corrections keep the cloth out of the skinned
// body, which skinning lets limbs sink into (the upper arm into the torso
// side, the thighs into each other); none queries a BVH per frame.
//
//   - Cloth is flat between its vertices: an edge of length L over skin
//     of curvature κ along it sags L²κ/8 towards the skin (4 mm for a
//     5 cm skirt edge over an 8 cm thigh), so each vertex gets a
//     clearance: Options.Thickness plus the largest sag of its rest
//     edges, κ from the body's smooth normals at the two ends' bound
//     points (convex skin only, at most 12 mm). It is the tight layer's
//     least offset and the distance kept from the bound point's plane,
//     the capsules and the own leg (a loose sphere keeps the thickness).
//   - Where the rest body still stands within the thickness of a tight
//     face (the breasts' tips under a blouse), the face's tight corners
//     are raised by what it lacks (three passes at New).
//   - Every bound vertex is kept its clearance outside the tangent
//     plane of its own bound skin point after the layers are blended
//     (for loose vertices this is the sphere lying outside the skin that
//     §3.2's attachment implies).
//   - Loose and floating cloth slides away from where it was bound, so
//     its faces are also tested against the skin, one way, as the full
//     simulation's vertex–face contacts do: the body vertices (1.5 cm
//     apart at rest) whose normal meets a dynamic face within 10 cm at
//     rest each follow the face over them by walking across its edges;
//     where the skin comes within the thickness of its outer side
//     (normals within 60°), the face's corners move out along its normal.
//     A vertex whose clearance exceeds 4 cm per frame skips up to three
//     frames. This runs first at the output; the pushes below settle
//     what it moved into another part.
//   - A vertex within 15 cm of a body part two or more joints from its own
//     at rest (a sleeve's underside and the torso) keeps up to 96
//     candidate triangles of that part within 12 cm of its closest point
//     there. Each frame the candidate whose centroid is nearest the vertex
//     gives a plane: it is followed by walking across edges to nearer
//     centroids (far bindings every fourth frame), and all candidates are
//     scanned every sixteenth frame, or fourth within 6 cm (staggered). Within 5 cm of it a tight vertex, or a loose
//     vertex's anchor, is pushed out of it by sliding along its own
//     tangent plane (so that it is not driven into its own limb; where the
//     two surfaces face each other with less than twice the thickness
//     between them it goes to the middle of the gap, and where they
//     overlap it stays outside its own part), and a loose vertex's sphere
//     shrinks to stay outside it. Loose particles themselves are not
//     pushed (that squeezed them into their own limb).
//   - A vertex within 6 cm of a part one joint from its own (the back of
//     the thigh and the calf) gets the same binding to that part (up to
//     48 candidates within 8 cm), followed only while
//     the joint between them is bent more than 25° from the rest pose
//     (|q_parent·q_child| < cos 12.5° of the skinning rotations), and
//     used only by the exact test below, for cloth inside that part: the
//     surfaces of parts that meet at a joint are continuous at rest.
//   - A loose vertex also gets such a binding to the next nearest part
//     two or more joints away within 10 cm (the raised thigh against the
//     belly, beside the other thigh), followed while the two parts are
//     turned more than 25° from each other from the rest pose, and used
//     in the same way.
//   - A floating vertex within 6 cm of the skin at rest gets the same
//     binding to its own part (up to 48 candidates within 8 cm): the
//     skirt slides over the thigh, away from the skin point it was bound
//     to, whose tangent plane then no longer bounds the thigh. It is
//     followed from where the cloth is, at the output (a walk every
//     frame, a full scan every sixteenth), and used only by the exact
//     test below, which it runs unless conservative advancement rules
//     contact out: the clearance that test found last exceeds how far the
//     cloth has moved relative to the candidate triangle it found then
//     (the change of its offset from the centroid plus the offset's
//     length times the turn of the normal). Inside, it is pushed out
//     along the pseudo-normal found; that closest point's plane also
//     replaces the bound skin point's in the pushes out of other parts.
//   - A tight vertex within 3 cm of the skin at rest whose bound point is
//     skinned for at least a fifth by a joint next to its part's (near
//     the shoulder, the elbow, the knee) gets the same binding to its own
//     part (up to 32 candidates within 6 cm), followed while the two are
//     bent more than 45° apart: there skinning folds the skin over
//     itself, over the cloth kept outside its bound point's plane. At the
//     output the candidate tested is, of those whose centroids lie within
//     7 cm, the one whose triangle is nearest with the cloth less than the
//     thickness outside its plane (the nearest centroid lies under the
//     cloth, not on the fold); after a search that found none, the next
//     is every fourth frame (staggered), else conservative advancement
//     decides as below. Inside, it is pushed out of the fold as out of
//     another part, its own plane being its bound point's.
//   - At the output, a cross-bound vertex (loose ones included) within
//     8 cm of its chosen candidate's centroid and less than
//     Options.Thickness plus 1 cm outside its plane (plus nothing for an
//     adjacent part) gets the candidate nearest it (walking across the
//     candidates' edges and corners from the one chosen) and the exact
//     closest point on the body triangles around that candidate's
//     corners, and the angle-weighted pseudo-normal of the feature it
//     lies on (face, edge or corner, from all the body triangles there;
//     Bærentzen and Aanæs 2005), whose sign tells inside from outside as
//     the body's signed distance does; inside, it is pushed out as above.
//     This catches cloth deep inside the other part, beyond the plane's
//     trusted reach. The test is skipped while conservative advancement
//     rules contact out: the clearance it found last (outside, the
//     distance to the closest point less the thickness) exceeds how far
//     the cloth has moved relative to the candidate it found then.
//   - A loose vertex pushed out of another part at the output has its
//     own part's exact closest point found again where the push left it;
//     inside its own part there (the push slid it over the curved
//     surface), it goes back out the thickness along the pseudo-normal.
//
// # Classification
//
// Classify assigns each vertex two blend weights from the rest pose: Loose
// in [0,1] rises (smoothstep) from Options.TightDist to Options.LooseDist
// of distance to the skin, and Float in [0,1] marks the floating region:
// the vertices below the hip joints, connected (through garment edges
// below the hips) to a seed vertex that hangs between the legs, below the
// crotch, farther than LooseDist from the skin — cloth that can swing
// across from one leg to the other, which trousers never have. Float rises
// from 0 at the region's border with the rest of the garment to 1 over
// Options.BlendBand of geodesic distance; vertices with Float below 1 are
// pulled to their skinned position by a spring that weakens as Float grows,
// and the border ring itself is pinned. Options.Groups overrides the
// automatic choice per vertex group (mesh group or garment name). The
// output is lerp(lerp(tight, loose, Loose), floating, Float).
//
// # Units and conventions
//
// SI inside: metres, seconds, kilograms, newtons. +Y is up, gravity
// (0, −9.81, 0) m/s². Positions are world coordinates of the posed body.
// The outfit's vertices are the garments' vertices one garment after the
// other (Animator.Offsets), in their own order. An Animator is stepped one
// frame of 1/Options.FPS s per Step; its first Step settles the dynamic
// layers in the first pose for Options.Settle s.
//
// # Determinism and concurrency
//
// Everything runs serially on the calling goroutine; the same character,
// garments, options and poses give bit-identical vertices. Step allocates
// nothing. An Animator is used by one goroutine at a time.
package layers
