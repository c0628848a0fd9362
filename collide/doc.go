// Package collide keeps cloth out of moving bodies and out of other layers
// of clothing. It acts on a cloth.Cloth through the cloth.Hook interface.
//
// # Units and conventions
//
// SI units (metres, seconds, m/s), +Y up, triangles counter-clockwise seen
// from outside (normals point out of a body, and away from the body for a
// garment), 0-based vertex and triangle ids.
//
// # Pieces
//
// Body is a triangle mesh whose vertices move per frame (SetFrames
// interpolates linearly between two frames, so a skinned body moves
// continuously through the cloth's substeps; its BVH is refitted, not
// rebuilt). Its signed distance is the closest-point distance signed by the
// angle-weighted pseudo-normal of the closest feature (Bærentzen and Aanæs
// 2005), with a rule for open meshes: a point whose closest feature is on a
// boundary is outside (beyond the surface's extent).
//
// Collider is the hook of one cloth against one Body: velocity-level
// Baraff–Witkin contact constraints with Coulomb static and dynamic friction
// in Begin, and a position-level push-out to the safety distance in End
// (Bridson, Fedkiw and Anderson 2002), so that no vertex ends a substep
// inside the body or closer than Params.Thickness. Where the body's surface
// is inconsistent (a skinned body that intersects itself or distorts its
// skin), contacts that would tear the cloth are released and such
// push-outs undone, and counted in Stats; with a cloth strain limit, a
// push-out is undone only if the cloth's second limiting pass, after End,
// cannot absorb it (Collider and Overlap are cloth.LimitHooks). With
// Params.Penalty the contacts
// are soft instead (an implicit force towards the same normal velocity),
// which the cloth's strain limit can override; sim uses that between
// layers of cloth.
//
// Layers makes garments worn in layers collide (wang2010 §3.2): each inner
// garment acts as a body (FollowCloth) for the garments outside it.
// Overlaps adds the reverse test: an inner garment's vertices that come
// through an outer garment between its vertices (a waistband under a shirt
// hem) push the outer garment's triangles out (Overlap).
//
// BodyOverlap is Overlap with the body as the inner layer: body vertices
// that come through a garment between its vertices (a knee through a
// coarse skirt) push its triangles out.
//
// ResolveInitial gently pushes a garment that starts inside a body out of
// it; AttachToBody and Attach tie a waistband or collar to the body surface;
// Penetrations measures penetration for run reports, and Through the
// reverse: body vertices that come through the garments over them between
// the cloth's vertices.
//
// # Determinism and concurrency
//
// Detection loops run in parallel over fixed chunks of vertices, each
// writing only its own entries, and constraints are applied in vertex
// order, so results are bit-identical for any Params.Workers. A Collider or
// Body must not be used from several goroutines at once, except for the
// queries documented as safe. Garments stepped concurrently each collide
// with their own copy of the body; a BodyGroup of the copies refits their
// BVH once per time for all of them (the copies that need a time first
// share the work), with results bit-identical to separate refits.
package collide
