package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// Options configure a garment simulation. The zero value simulates the
// garments as given with denim, the mass-spring model, implicit Euler, two
// substeps per 30 fps frame, a 3 mm body safety distance, layered
// collisions, the top boundary loop of each piece attached to the body, and
// half a second of settling on the first pose.
type Options struct {
	// Fabric names a preset (cloth.Presets: "denim", "jersey", ...) for every
	// piece; Fabrics overrides it per piece by name prefix ("shirt": ...).
	Fabric  string
	Fabrics map[string]string
	// Model is the cloth model (cloth.MassSpring by default, as wang2010;
	// cloth.WeftWarp is volino-cordier's accurate model).
	Model cloth.Model
	// ModelSet must be true for Model to be used (cloth.WeftWarp is Model's
	// zero value).
	ModelSet bool
	// Integrator is cloth.ImplicitEuler (default) or cloth.BDF2.
	Integrator cloth.Integrator
	// TargetVerts refines the garments (RefinePieces: triangles longer than
	// an edge length are split, red–green) until they hold at least this
	// many vertices in total; 0 keeps them as given.
	TargetVerts int
	// MaxDt is the largest cloth substep, s; 0 means 1/60, and more
	// substeps in frames where the garments' skinned shapes move more than
	// 10 cm (maxSubstepMove).
	MaxDt float64
	// Thickness is the body safety distance, m; 0 means 3 mm.
	Thickness float64
	// Frictionless turns body friction off.
	Frictionless bool
	// NoLayers turns cloth–cloth collision between pieces off.
	NoLayers bool
	// NoAttach leaves the top boundary loops free. By default each loop
	// (waistband, collar) follows the rigid motion that best fits the body
	// surface points it was bound to at the start.
	NoAttach bool
	// PinStiffness is the stiffness (N/m) of the springs that hold the
	// attached loops to their targets, critically damped per vertex; 0
	// means 3000 N/m (see defaultPinStiffness), negative hard pins.
	PinStiffness float64
	// NoBody turns body collision off (for diagnosis: the garments fall
	// through the body).
	NoBody bool
	// SelfCollide turns on vertex–triangle self-collision repulsion within
	// each piece (collide.SelfCollider, Bridson et al. 2002); off by default.
	SelfCollide bool
	// Settle is the time (s) simulated on the first pose before the clip
	// plays; 0 means 0.5 s, negative none (the garments are skinned into
	// the first pose, pushed out of the body and strain-limited).
	Settle float64
	// Workers for the solver and collisions; 0 means GOMAXPROCS. With more
	// than one, the pieces are also stepped concurrently (one goroutine
	// each per substep). Results do not depend on it.
	Workers int
	// CGTol is the relative residual of the implicit solves
	// (cloth.Options.CGTol); 0 means 1e-2. Garments on a body do not need
	// the cloth package's default 1e-3: contacts and the strain limit
	// correct every substep, and on the MakeHuman suit at 25k vertices
	// 1e-2 halves the time per frame.
	CGTol float64
	// SpeedClamp caps cloth vertex speeds (cloth.Options.SpeedClamp), m/s;
	// 0 means twice the fastest body vertex over the clip plus 2 m/s, at
	// least 5 m/s; negative none.
	SpeedClamp float64
	// StrainLimit bounds edge elongation (l/L − 1) after every substep;
	// the cloth enforces 0.95 of it (cloth.Options.StrainLimit), leaving
	// room for the collision pushes that follow. 0 means 0.1 for the
	// mass-spring model and weftWarpStrainLimit (0.25) for cloth.WeftWarp;
	// negative none.
	StrainLimit float64
	// BodyProxy is the tolerance (m, mesh.SimplifyOptions.MaxError) of the
	// collision proxy: the cloth collides with the body simplified by
	// quadric edge collapse (its vertices a subset of the body's, skinned
	// with the same weights), which makes skinning, BVH refits and
	// closest-point queries cheaper. Its vertices are then moved out along
	// their normals until the body lies inside it (to 0.1 mm), so the
	// safety distance is kept from the body itself. 0 means a twentieth of
	// the garments' mean edge length, within [1 mm, 5 mm] (a coarse garment
	// cannot follow finer body detail; a tenth gave 0.11 % deep vertex-
	// frames on the unrefined MakeHuman suit, over the 0.1 % target);
	// negative collides with the full body. Penetration statistics are
	// always measured on the full body.
	BodyProxy float64
	// PatternRest takes each piece's rest shape from its UVs as metric
	// pattern coordinates (when they are) instead of from the 3D garment in
	// the rest pose. Fitted garments rarely match their pattern exactly
	// (ease, fitting), and a mismatch starts the cloth strained, so by
	// default the rest shape is the 3D garment with the weft along U.
	PatternRest bool
}

// FrameStats describes one simulated frame.
type FrameStats struct {
	Frame int
	// Wall is the wall-clock time to simulate the frame.
	Wall time.Duration
	// CGIterations, Substeps and Retries are summed over the pieces.
	CGIterations, Substeps, Retries int
	// Clamped counts vertex speeds clamped by the solver's safety net
	// (cloth.Options.SpeedClamp), summed over pieces and substeps.
	Clamped int
	// Released and Undone sum, over the pieces' colliders and substeps,
	// the contacts released because they would tear the cloth and the
	// push-outs undone because they would stretch it beyond its limit
	// (collide.Stats Crossed and Undone, and cloth.StepStats.Restored):
	// where they are many, the body's surface is inconsistent (skinning
	// artefacts) and the cloth was let through it.
	Released, Undone int
	// MaxStretch is the largest edge elongation strain (l/L − 1) over the
	// pieces, for both cloth models.
	MaxStretch float64
	// Edges is the number of cloth edges over the pieces, Overstretched
	// those longer than 1.1 times their rest length (strain above 10 %):
	// how widespread the stretch that MaxStretch reports the worst of is.
	Edges, Overstretched int
	// WorstEdge locates the most stretched edge of the frame: its piece
	// and its two vertices in that piece (Piece −1 when none).
	WorstEdge struct {
		Piece int
		A, B  int32
	}
	// KineticEnergy is the garments' kinetic energy, J.
	KineticEnergy float64
	// Inside counts vertices inside the body, Deep those more than 2 mm
	// inside (collide.DeepPenetration); MaxDepth is the deepest, m.
	Inside, Deep int
	MaxDepth     float64
}

// Result is a simulated garment animation.
type Result struct {
	Pieces []*Piece
	// FPS is the frame rate of Frames.
	FPS float64
	// Frames[p][f] are piece p's vertex positions at frame f.
	Frames [][][]geom.Vec3
	// Stats has one entry per frame (frame 0 is the settled first pose).
	Stats []FrameStats
	// Notes say what the run adjusted (materials, subdivision, initial
	// penetration resolved, interruptions).
	Notes []string
	// Interrupted is true when the context ended the run early; Frames
	// holds the frames done.
	Interrupted bool
}

// Progress is called after each frame with the number done and the total.
type Progress func(done, total int)

// weftWarpStrainLimit is the default edge strain limit of the weft/warp
// model. Its triangles resist elongation along the threads with the
// fabric's (stiff) weft and warp curves but shear easily, as fabric does,
// and shear lengthens the edges that are not along a thread: at shear
// strain γ a 45° edge by about γ/2. A 10 % edge limit capped shear at about
// 0.2 and fought the model's own forces: the procedural mannequin's
// garments at their default 3637 vertices came out of the settle with
// edges undone by the hundreds, 5 % of vertex-frames more than 2 mm inside
// the body and 0.5 s per frame, and the MakeHuman suit diverged after
// 1.5 s of the CMU walk. 0.25 allows shear up to about 0.5 (27°, near
// where woven fabric jams): both then run through (0.07 % and 0.06 % deep).
const weftWarpStrainLimit = 0.25

// ErrNoGarments is returned for a scene without garments.
var ErrNoGarments = errors.New("sim: the scene has no garments")

// Run simulates the scene's garments through its clip. When ctx ends, Run
// stops after the current frame and returns the frames done with
// Interrupted set (and no error).
//
// The pieces are simulated with their vertices renumbered for the solver
// (see Piece.reorder); Result's pieces, frames and WorstEdge are in the
// pieces' own vertex order.
func Run(ctx context.Context, s *scene.Scene, opt Options, progress Progress) (*Result, error) {
	res, err := run(ctx, s, opt, progress)
	if res != nil {
		for i, p := range res.Pieces {
			o := p.order
			if o == nil {
				continue
			}
			for f := range res.Stats {
				if we := &res.Stats[f].WorstEdge; we.Piece == i {
					we.A, we.B = o.perm[we.A], o.perm[we.B]
				}
			}
			var frames [][]geom.Vec3
			if i < len(res.Frames) {
				frames = res.Frames[i]
			}
			p.restore(frames)
		}
	}
	return res, err
}

func run(ctx context.Context, s *scene.Scene, opt Options, progress Progress) (*Result, error) {
	if len(s.Garments) == 0 {
		return nil, ErrNoGarments
	}
	if len(s.Clip.Poses) == 0 {
		return nil, errors.New("sim: the clip has no frames")
	}
	res := &Result{FPS: s.Clip.FPS}
	thick := opt.Thickness
	if thick == 0 {
		thick = 0.003
	}
	if thick < 0 || thick > 0.05 || math.IsNaN(thick) {
		return nil, fmt.Errorf("sim: thickness %g m out of range (0, 0.05]", thick)
	}
	fps := s.Clip.FPS
	if !(fps > 0) || fps > 1000 {
		return nil, fmt.Errorf("sim: clip frame rate %g out of range", fps)
	}

	// Pieces, subdivision and layer order.
	var pieces []*Piece
	total := 0
	for gi, g := range s.Garments {
		ps, err := SplitPieces(g.Name, g.Mesh, g.Weights)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			p.Garment = gi
			total += len(p.Mesh.Verts)
		}
		pieces = append(pieces, ps...)
	}
	if opt.TargetVerts > 0 {
		if edge := RefinePieces(pieces, opt.TargetVerts); edge > 0 {
			n := 0
			for _, p := range pieces {
				n += len(p.Mesh.Verts)
			}
			res.Notes = append(res.Notes, fmt.Sprintf("refined to edges of at most %.1f mm: %d → %d garment vertices", edge*1000, total, n))
			total = n
		}
	}
	for _, p := range pieces {
		p.reorder()
	}
	sk := s.Character.Skeleton
	restBody, err := collide.NewBody(s.Character.Body)
	if err != nil {
		return nil, fmt.Errorf("sim: body: %w", err)
	}
	OrderLayers(pieces, func(p geom.Vec3) float64 { return math.Abs(restBody.SignedDistance(p).Dist) })
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].Layer < pieces[j].Layer })
	res.Pieces = pieces

	// The garments start in the rest pose, where they were fitted, and the
	// body moves from its rest pose to the clip's first pose while the cloth
	// follows (the settle phase): skinning a garment straight into a pose
	// crushes it into the body where limbs fold (armpits, crotch).
	skinOf := func(p skel.Pose) []geom.Rigid { return skel.SkinMatrices(sk, p, nil) }
	skinAt := func(f int) []geom.Rigid { return skinOf(s.Clip.Poses[f]) }
	colMesh, colW, note, err := collisionProxy(s.Character.Body, s.Character.Weights, pieces, opt.BodyProxy)
	if err != nil {
		return nil, err
	}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	// The collision body is skinned on all workers (bit-identical to the
	// serial skinning for any count): it is the largest serial part of a
	// coarse frame.
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	skinner := skel.Skinner{Workers: workers, Chunk: max(1024, (len(colMesh.Verts)+workers-1)/workers)}
	bodyOf := func(skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
		return skinner.LBS(colMesh.Verts, colW, skin, dst)
	}
	bodyAt := func(f int, dst []geom.Vec3) []geom.Vec3 { return bodyOf(skinAt(f), dst) }
	// Settle: the body moves from the rest pose into the first pose and its
	// root accelerates smoothly to the clip's initial velocity v0, arriving
	// at the first pose's root at the end (a body that starts walking at
	// full speed from rest would hit the cloth with an infinite
	// acceleration). The root offset from the first pose at settle
	// fraction u is v0·T·(u³ − u⁴/2 − 1/2) (velocity v0·smoothstep(u)).
	settle := opt.Settle
	if settle == 0 {
		settle = 0.5
	}
	var v0 geom.Vec3
	if len(s.Clip.Poses) > 1 {
		v0 = s.Clip.Poses[1].Root.Sub(s.Clip.Poses[0].Root).Scale(fps)
	}
	settleOffset := func(u float64) geom.Vec3 {
		return v0.Scale(settle * (u*u*u - u*u*u*u/2 - 0.5))
	}
	restPose := skel.RestPose(sk)
	restPose.Root = s.Clip.Poses[0].Root
	if settle > 0 {
		restPose.Root = restPose.Root.Add(settleOffset(0))
	}
	skinRest := skinOf(restPose)
	bodyRest := bodyOf(skinRest, nil)
	body, err := collide.NewBody(&mesh.Mesh{Verts: bodyRest, Tris: colMesh.Tris})
	if err != nil {
		return nil, fmt.Errorf("sim: body: %w", err)
	}
	// Each piece collides with its own copy of the body (colBodies), so
	// that the pieces can be stepped concurrently (Update refits a body's
	// BVH); the copies form a group that refits once per time for all of
	// them (the first piece to get there does it). body itself serves the
	// setup (initial push-out, binding the attachments).
	colBodies := make([]*collide.Body, len(pieces))
	var group *collide.BodyGroup
	if !opt.NoBody {
		for i := range colBodies {
			if colBodies[i], err = collide.NewBody(&mesh.Mesh{Verts: bodyRest, Tris: colMesh.Tris}); err != nil {
				return nil, fmt.Errorf("sim: body: %w", err)
			}
		}
		if group, err = collide.NewBodyGroup(colBodies...); err != nil {
			return nil, fmt.Errorf("sim: body: %w", err)
		}
	}
	// setBodies moves the pieces' body copies from prev at t0 to next at
	// t1 while also() runs (the attachment targets).
	setBodies := func(prev, next []geom.Vec3, t0, t1 float64, also func()) {
		if group == nil || workers <= 1 || also == nil {
			if group != nil {
				group.SetFrames(prev, next, t0, t1)
			}
			if also != nil {
				also()
			}
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { group.SetFrames(prev, next, t0, t1) })
		also()
		wg.Wait()
	}
	// Penetration is measured on the full body at frame f.
	penBody, err := collide.NewBody(s.Character.Body)
	if err != nil {
		return nil, fmt.Errorf("sim: body: %w", err)
	}
	penBody.Workers = workers
	var penX []geom.Vec3
	penAt := func(f int) *collide.Body {
		penX = skinner.LBS(s.Character.Body.Verts, s.Character.Weights, skinAt(f), penX)
		penBody.SetFrame(penX)
		return penBody
	}

	strainLimit := opt.StrainLimit
	if strainLimit == 0 {
		strainLimit = 0.1
		if opt.ModelSet && opt.Model == cloth.WeftWarp {
			strainLimit = weftWarpStrainLimit
		}
	}
	cgTol := opt.CGTol
	if cgTol == 0 {
		cgTol = 1e-2
	}
	speedClamp := opt.SpeedClamp
	if speedClamp == 0 {
		speedClamp = 2*maxBodySpeed(s, skinOf) + 2
		speedClamp = max(speedClamp, 5)
	}
	maxDt := opt.MaxDt
	if maxDt == 0 {
		maxDt = 1.0 / 60
	}
	// Fast motion: with the default substep, frames in which the garments'
	// skinned shapes move more than maxSubstepMove get more substeps.
	minSub := make([]int, len(s.Clip.Poses))
	if opt.MaxDt == 0 {
		moves := garmentMoves(pieces, s.Clip.Poses, skinOf)
		nfast, most, far := 0, 0, 0.0
		for f, d := range moves {
			minSub[f] = int(math.Ceil(min(d/maxSubstepMove, maxFastSubsteps) - 1e-9))
			if minSub[f] > substepsFor(1/fps, maxDt) {
				nfast++
				most, far = max(most, minSub[f]), max(far, d)
			}
		}
		if nfast > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("fast motion: %d frames stepped in up to %d substeps (the garments, skinned, move up to %.0f cm in a frame; a substep moves them at most %.0f cm)", nfast, most, far*100, maxSubstepMove*100))
		}
	}
	cloths := make([]*cloth.Cloth, len(pieces))
	meshes := make([]*mesh.Mesh, len(pieces))
	skinBuf := make([][]geom.Vec3, len(pieces))
	attach := make([][]int, len(pieces))
	for i, p := range pieces {
		mat, note, err := material(p, opt)
		if err != nil {
			return nil, err
		}
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		// ContactSlack: the strain limit may use the body's safety
		// distance (a vertex in contact, held at 1.2 times it, may move in
		// to 0.2 times it): a band around a limb that the skinned skin has
		// outgrown can only get back within the limit by moving in.
		copts := cloth.Options{Integrator: opt.Integrator, MaxDt: maxDt, Workers: opt.Workers, SkipDegenerate: true, StrainLimit: strainMargin * strainLimit, CGTol: cgTol, SpeedClamp: speedClamp, ContactSlack: thick}
		switch {
		case !opt.PatternRest:
			copts.RestFromMesh = true
		case !metricUVs(p.Mesh):
			copts.RestFromMesh = true
			res.Notes = append(res.Notes, fmt.Sprintf("%s: UVs are not metric pattern coordinates; rest shape taken from the 3D garment, weft along U", p.Name))
		}
		x := skel.LBS(p.Mesh.Verts, p.Weights, skinRest, nil)
		skinned := append([]geom.Vec3(nil), x...)
		rep, err := collide.ResolveInitial(x, p.Mesh.Tris, body, thick, 20)
		if err != nil {
			return nil, fmt.Errorf("sim: %s: %w", p.Name, err)
		}
		if rep.Inside > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %d vertices started inside the body (deepest %.1f mm); pushed out gently", p.Name, rep.Inside, rep.MaxDepth*1000))
		}
		// Likewise out of the inner layers (a shirt hem fitted partly
		// inside the jeans' waistband would otherwise start caught on both
		// sides of it, and the layered collision would hold it there,
		// stretched across the waistband).
		if !opt.NoLayers {
			for j := 0; j < i; j++ {
				if pieces[j].Layer >= p.Layer {
					continue
				}
				inner, err := collide.NewBody(meshes[j])
				if err != nil {
					return nil, fmt.Errorf("sim: %s: %w", pieces[j].Name, err)
				}
				lrep, err := collide.ResolveInitial(x, p.Mesh.Tris, inner, layerThickness(thick), 20)
				if err != nil {
					return nil, fmt.Errorf("sim: %s: %w", p.Name, err)
				}
				if lrep.Inside > 0 {
					res.Notes = append(res.Notes, fmt.Sprintf("%s: %d vertices started inside %s (deepest %.1f mm); pushed out gently", p.Name, lrep.Inside, pieces[j].Name, lrep.MaxDepth*1000))
				}
			}
		}
		// With the rest shape taken from the 3D garment, it is taken after
		// the push-out: the garment starts at rest. (Taken before it, the
		// push-out's few millimetres left up to 23 % strain on the MakeHuman
		// shirt and 78 % once subdivided, where the pushed vertices are
		// closer together than the push.)
		restMesh := p.Mesh
		if copts.RestFromMesh {
			rm := *p.Mesh
			rm.Verts = x
			restMesh = &rm
			// In the garment's own frame (the rest pose is placed where
			// the clip starts): the mesh moved by the push-out.
			p.Rest = make([]geom.Vec3, len(x))
			for v, q := range x {
				p.Rest[v] = p.Mesh.Verts[v].Add(q.Sub(skinned[v]))
			}
		}
		c, err := cloth.NewCloth(restMesh, mat, copts)
		if err != nil {
			return nil, fmt.Errorf("sim: %s: %w", p.Name, err)
		}
		if n := len(c.Info.Skipped); n > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: skipped %d degenerate triangles", p.Name, n))
		}
		if n := c.Info.ExplicitBending; n > 0 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %d of %d springs are soft bending springs, integrated explicitly", p.Name, n, c.Info.Springs))
		}
		copy(c.X, x)
		for k := range c.V {
			c.V[k] = geom.Vec3{}
		}
		cloths[i], meshes[i] = c, &mesh.Mesh{Verts: x, Tris: p.Mesh.Tris}
		if !opt.NoAttach {
			p.Attach = TopLoop(p.Mesh)
		}
	}
	// Attachments start at the vertices' current positions; without
	// settling the garments are first skinned into the first pose below.
	// Each attached vertex follows the body surface: it is bound to its
	// closest body point (triangle, barycentric coordinates and its offset
	// in the triangle's frame) in the body's current pose. Skinning the
	// garment itself would not do: a garment's skinning weights blend those
	// of the body vertices it was fitted to, and neighbouring garment
	// vertices fitted to different body parts (a waistband over the back of
	// the pelvis and the top of the thigh) get different transforms, which
	// stretched the MakeHuman jeans' waistband by up to 80 % over the walk.
	// Nor does the skinned body surface alone: linear blend skinning
	// stretches the MakeHuman skin itself by up to 87 % at the back of the
	// waist between the rest pose and the walk's first pose. A waistband or
	// collar is a closed band of fabric that moves with the pelvis or neck
	// and does not stretch with the skin, so each loop follows the rigid
	// motion that best fits its bound body points (rigidFit): the loop keeps
	// its shape and follows the body as a whole.
	pinK := opt.PinStiffness
	if pinK == 0 {
		pinK = defaultPinStiffness
	}
	binds := make([][]surfBind, len(pieces))
	loopRest := make([][]geom.Vec3, len(pieces))
	pairs := make([][][2]int32, len(pieces))
	addAttachments := func(bodyX []geom.Vec3) {
		for i, p := range pieces {
			for _, v := range p.Attach {
				a := cloth.Attachment{Vertex: int(v)}
				if pinK > 0 {
					// Critically damped for the vertex alone.
					a.Stiffness, a.Damping = pinK, 2*math.Sqrt(pinK*cloths[i].Mass[v])
				}
				attach[i] = append(attach[i], cloths[i].Attach(a))
				binds[i] = append(binds[i], bindSurface(body, bodyX, colMesh.Tris, cloths[i].X[v]))
				loopRest[i] = append(loopRest[i], cloths[i].X[v])
			}
			pairs[i] = loopPairs(p.Mesh.Tris, p.Attach)
		}
	}
	if settle > 0 {
		addAttachments(bodyRest)
	}
	cp := collide.Params{Thickness: thick, Frictionless: opt.Frictionless, Workers: opt.Workers, MaxDepth: 0.02}
	colliders := make([][]*collide.Collider, len(cloths)) // per piece
	snaps := make([]*collide.Snapshot, len(cloths))       // of the pieces others follow
	if !opt.NoLayers && len(cloths) > 1 {
		lp := cp
		lp.Thickness = layerThickness(thick)
		lp.Penalty = layerPenalty
		if _, err := collide.Layers(cloths, meshes, lp, false); err != nil {
			return nil, err
		}
		// The reverse test: inner vertices (the jeans' waistband) that
		// come through the outer layer between its vertices push its
		// triangles out (4.6 % of the MakeHuman jeans' vertex-frames were
		// outside the shirt over the walk without it, 0.9 % with).
		if _, err := collide.Overlaps(cloths, meshes, lp); err != nil {
			return nil, err
		}
		// The pieces are stepped concurrently, each against the others'
		// states at the start of the substep (snaps, see collide.Snapshot).
		index := make(map[*cloth.Cloth]int, len(cloths))
		for i, c := range cloths {
			index[c] = i
		}
		snap := func(c *cloth.Cloth) *collide.Snapshot {
			i := index[c]
			if snaps[i] == nil {
				snaps[i] = &collide.Snapshot{}
			}
			return snaps[i]
		}
		for i, c := range cloths {
			for _, h := range c.Hooks {
				switch h := h.(type) {
				case *collide.Collider:
					colliders[i] = append(colliders[i], h)
					if f := h.Body.Followed(); f != nil {
						h.Body.FollowSnapshot(snap(f))
					}
				case *collide.Overlap:
					h.FollowSnapshot(snap(h.Inner))
				}
			}
		}
	}
	if opt.SelfCollide {
		for i, c := range cloths {
			sc, err := collide.NewSelfCollider(meshes[i], collide.SelfParams{Thickness: math.Min(thick, 0.002), Workers: opt.Workers})
			if err != nil {
				return nil, err
			}
			c.Hooks = append(c.Hooks, sc)
		}
	}
	if !opt.NoBody {
		for i, c := range cloths {
			col := collide.NewCollider(colBodies[i], cp)
			c.Hooks = append(c.Hooks, col)
			colliders[i] = append(colliders[i], col)
		}
	}

	frames := len(s.Clip.Poses)
	res.Frames = make([][][]geom.Vec3, len(pieces))
	// penHints: each vertex's closest body triangle in the last frame
	// measured, where the next frame's search starts.
	penHints := make([][]int32, len(pieces))
	for i, c := range cloths {
		penHints[i] = slices.Repeat([]int32{-1}, len(c.X))
	}
	record := func(f int, st FrameStats) error {
		st.WorstEdge.Piece = -1
		pb := penAt(f)
		worst := 0.0
		for i, c := range cloths {
			for _, p := range c.X {
				if !p.IsFinite() {
					return fmt.Errorf("sim: %s: non-finite position at frame %d", pieces[i].Name, f)
				}
			}
			res.Frames[i] = append(res.Frames[i], append([]geom.Vec3(nil), c.X...))
			pen := collide.Penetrations(c.X, pb, thick, penHints[i])
			st.Inside += pen.Inside
			st.Deep += pen.Deep
			st.MaxDepth = math.Max(st.MaxDepth, pen.MaxDepth)
			st.KineticEnergy += c.KineticEnergy()
			// One pass over the edges: the count above 10 % and the
			// most stretched one.
			rest := c.EdgeRest()
			for k, e := range c.Edges() {
				strain := c.X[e[0]].Dist(c.X[e[1]])/rest[k] - 1
				if strain > 0.1 {
					st.Overstretched++
				}
				if st.WorstEdge.Piece < 0 || strain > worst {
					worst = strain
					st.WorstEdge.Piece = i
					st.WorstEdge.A, st.WorstEdge.B = e[0], e[1]
				}
			}
			// Edges for both models: cloth.MaxStretch measures the
			// weft/warp model along its threads, which is not what this
			// field reports.
			st.MaxStretch = math.Max(st.MaxStretch, worst)
			st.Edges += len(rest)
		}
		res.Stats = append(res.Stats, st)
		if progress != nil {
			progress(f+1, frames)
		}
		return nil
	}
	// Targets of the attached loops: tgtPrev at the start of the coming
	// frame, skinBuf at its end.
	tgtPrev := make([][]geom.Vec3, len(pieces))
	for i, p := range pieces {
		for _, v := range p.Attach {
			tgtPrev[i] = append(tgtPrev[i], cloths[i].X[v])
		}
	}
	// step advances every piece by dt in lockstep substeps of at most
	// maxDt, moving the attachment targets linearly over the frame. The
	// pieces are stepped concurrently within a substep (each collides with
	// the others' states at its start, snaps), so the result does not
	// depend on the number of goroutines.
	stepStats := make([]cloth.StepStats, len(cloths))
	var pre ahead // the coming frame's preparation (see ahead)
	stepErrs := make([]error, len(cloths))
	concurrent := len(cloths) > 1 && workers > 1
	// spin: small pieces, each stepped on one goroutine (see crew).
	spin := concurrent && !slices.ContainsFunc(cloths, func(c *cloth.Cloth) bool { return !c.Serial() })
	var h float64 // the current substep
	crw := crew{n: len(cloths), pre: &pre, step: func(i int) { stepStats[i], stepErrs[i] = cloths[i].Step(h) }}
	step := func(dt float64, minSub int, st *FrameStats) error {
		nsub := max(substepsFor(dt, maxDt), minSub)
		h = dt / float64(nsub)
		if spin {
			crw.start()
			defer crw.end()
		}
		for k := 1; k <= nsub; k++ {
			a := float64(k) / float64(nsub)
			for i, c := range cloths {
				for j := range attach[i] {
					c.SetTarget(attach[i][j], tgtPrev[i][j].Lerp(skinBuf[i][j], a))
				}
				if snaps[i] != nil {
					snaps[i].Take(c)
				}
			}
			switch {
			case spin:
				crw.substep()
			case concurrent:
				// Pieces that split their own loops over the workers: a
				// goroutine per piece and substep, parked when done (a
				// spinning one took CPU from the others' helpers: the 25k
				// walk was 10 % slower).
				var wg sync.WaitGroup
				crw.busy.Store(int32(len(cloths)))
				for i := range cloths {
					wg.Go(func() { crw.step(i); crw.done() })
				}
				wg.Wait()
			default:
				for i, c := range cloths {
					stepStats[i], stepErrs[i] = c.Step(h)
				}
			}
			for i, c := range cloths {
				if err := stepErrs[i]; err != nil {
					return fmt.Errorf("sim: %s at t=%.3f s: %w", pieces[i].Name, c.Time, err)
				}
				ss := stepStats[i]
				st.CGIterations += ss.CGIterations
				st.Substeps += ss.Substeps
				st.Retries += ss.Retries
				st.Clamped += ss.Clamped
				st.Undone += ss.Restored
				for _, col := range colliders[i] {
					cs := col.Stats()
					st.Released += cs.Crossed
					st.Undone += cs.Undone
				}
			}
		}
		for i := range pieces {
			copy(tgtPrev[i], skinBuf[i])
		}
		return nil
	}
	// tgtBody is the part of the collision body around the attached loops
	// (tgtVerts: its vertices in the body), refitted once per frame for
	// the targets' push-out below (the whole body's refit took 5 % of a
	// coarse frame).
	var tgtBody *collide.Body
	var tgtVerts []int32
	var tgtX []geom.Vec3
	if !opt.NoBody && !opt.NoAttach {
		var loops []geom.Vec3
		for i, p := range pieces {
			for _, v := range p.Attach {
				loops = append(loops, cloths[i].X[v])
			}
		}
		if len(loops) > 0 {
			if tgtBody, tgtVerts, err = nearBody(bodyRest, colMesh.Tris, loops, tgtRadius); err != nil {
				return nil, fmt.Errorf("sim: body: %w", err)
			}
		}
	}
	// setTargets sets the attachment targets at the end of the coming frame
	// from the body's vertex positions then.
	var pushBuf []geom.Vec3
	setTargets := func(bodyX []geom.Vec3, dst [][]geom.Vec3) {
		for i := range pieces {
			dst[i] = dst[i][:0]
			for _, b := range binds[i] {
				dst[i] = append(dst[i], b.point(bodyX, colMesh.Tris))
			}
			rot, tr := rigidFit(loopRest[i], dst[i])
			for j, p := range loopRest[i] {
				dst[i][j] = rot.Rotate(p).Add(tr)
			}
		}
		// A target closer to the skin than the safety distance (or a
		// little inside: the rigid loop does not follow the skin's own
		// bulging) is moved out to it along the body normal, by at most
		// the safety distance: a hard-pinned waistband vertex 1 mm off the
		// skin beside a neighbour pushed out to 3.4 mm stretched their
		// 2.5 mm edge by 35 %, the jeans' worst edge in 40 of 86 frames.
		if tgtBody == nil {
			return
		}
		tgtX = tgtX[:0]
		for _, v := range tgtVerts {
			tgtX = append(tgtX, bodyX[v])
		}
		tgtBody.SetFrame(tgtX)
		tgtBody.Update(0)
		for i := range pieces {
			push := pushBuf[:0]
			for _, p := range dst[i] {
				var d geom.Vec3
				if con, ok := tgtBody.Query(p, 2*thick); ok && con.Dist < thick {
					d = con.Normal.Scale(min(thick-con.Dist, thick))
				}
				push = append(push, d)
			}
			keepLoop(dst[i], push, loopRest[i], pairs[i], strainMargin*strainLimit)
			pushBuf = push
		}
	}

	// Settle: move from the rest pose to the first pose (smoothstep in
	// time, slerped joints), then hold it, the root accelerating to v0.
	start := time.Now()
	st0 := FrameStats{Frame: 0}
	body0 := bodyAt(0, nil)
	if settle > 0 {
		n := int(math.Ceil(settle * fps))
		move := (n + 1) / 2 // frames of motion; the rest hold the pose
		prevB := append([]geom.Vec3(nil), bodyRest...)
		var pose skel.Pose
		var nextB []geom.Vec3
		t := cloths[0].Time
		for k := 1; k <= n; k++ {
			a := math.Min(1, float64(k)/float64(move))
			a = a * a * (3 - 2*a)
			skel.InterpPose(&pose, restPose, s.Clip.Poses[0], a)
			pose.Root = s.Clip.Poses[0].Root.Add(settleOffset(float64(k) / float64(n)))
			skin := skinOf(pose)
			nextB = bodyOf(skin, nextB)
			setBodies(prevB, nextB, t, t+1/fps, func() { setTargets(nextB, skinBuf) })
			if err := step(1/fps, 0, &st0); err != nil {
				return nil, err
			}
			t += 1 / fps
			prevB, nextB = nextB, prevB
		}
		res.Notes = append(res.Notes, fmt.Sprintf("settled %.2f s from the rest pose into the first pose", settle))
	} else {
		// No settling: skin the garments straight into the first pose.
		skin0 := skinAt(0)
		body.SetFrame(body0)
		for i, p := range pieces {
			// Skinned, the garment tears where its weights change fast
			// (the MakeHuman shirt's armpit: a 4 mm edge became 63 mm in
			// the CMU walk's first pose, 1383 % in the first frame), and
			// pushing it out of the body tears it too: push it out, then
			// limit its strain (the first substep's contacts take back
			// what that pulls in).
			x := cloths[i].X
			skel.LBS(p.Mesh.Verts, p.Weights, skin0, x)
			if _, err := collide.ResolveInitial(x, p.Mesh.Tris, body, thick, 20); err != nil {
				return nil, err
			}
			cloths[i].LimitStrain()
		}
		addAttachments(body0)
		setTargets(body0, skinBuf)
		for i, p := range pieces {
			tgtPrev[i] = tgtPrev[i][:0]
			for _, v := range p.Attach {
				tgtPrev[i] = append(tgtPrev[i], cloths[i].X[v])
			}
		}
	}
	st0.Wall = time.Since(start)
	if err := record(0, st0); err != nil {
		return nil, err
	}

	prev := body0
	next := make([]geom.Vec3, len(colMesh.Verts))
	// The coming frame's body and targets (see ahead): the clip's skinning
	// transforms at preFrame, the body skinned in chunks, then the targets.
	var (
		preFrame int
		preSkin  []geom.Rigid
		preX     = make([]geom.Vec3, len(colMesh.Verts))
		skinNext = make([][]geom.Vec3, len(pieces))
	)
	const preChunk = 512
	pre.add(0, func() { preSkin = skel.SkinMatrices(sk, s.Clip.Poses[preFrame], preSkin) })
	for lo := 0; lo < len(preX); lo += preChunk {
		pre.add(1, func() { skel.LBSPart(colMesh.Verts, colW, preSkin, preX, lo, min(lo+preChunk, len(preX))) })
	}
	pre.add(len(pre.tasks), func() { setTargets(preX, skinNext) })
	for f := 1; f < frames; f++ {
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			res.Notes = append(res.Notes, fmt.Sprintf("interrupted after %d of %d frames", f, frames))
			return res, nil
		}
		start := time.Now()
		st := FrameStats{Frame: f}
		t0 := cloths[0].Time
		t1 := t0 + 1/fps
		if pre.armed && preFrame == f {
			pre.finish()
			next, preX = preX, next
			skinBuf, skinNext = skinNext, skinBuf
			setBodies(prev, next, t0, t1, nil)
		} else {
			next = bodyAt(f, next)
			setBodies(prev, next, t0, t1, func() { setTargets(next, skinBuf) })
		}
		if concurrent && f+1 < frames {
			preFrame = f + 1
			pre.arm()
		}
		if err := step(t1-t0, minSub[f], &st); err != nil {
			return res, err
		}
		st.Wall = time.Since(start)
		if err := record(f, st); err != nil {
			return res, err
		}
		prev, next = next, prev
	}
	return res, nil
}

// tgtRadius (m) is how far from the attached loops (in the rest pose) the
// body is kept for pushing their targets out: far more than a target
// strays from its loop's rigid fit.
const tgtRadius = 0.08

// nearBody returns the triangles of the body (verts, tris) with a corner
// within r of one of pts, as a Body of their own, and the body vertex of
// each of its vertices.
func nearBody(verts []geom.Vec3, tris [][3]int32, pts []geom.Vec3, r float64) (*collide.Body, []int32, error) {
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		lo, hi = lo.Min(p), hi.Max(p)
	}
	pad := geom.V(r, r, r)
	lo, hi = lo.Sub(pad), hi.Add(pad)
	near := make([]bool, len(verts))
	for v, q := range verts {
		if q.X < lo.X || q.Y < lo.Y || q.Z < lo.Z || q.X > hi.X || q.Y > hi.Y || q.Z > hi.Z {
			continue
		}
		for _, p := range pts {
			if q.Dist2(p) <= r*r {
				near[v] = true
				break
			}
		}
	}
	index := make(map[int32]int32)
	var sub mesh.Mesh
	var ids []int32
	for _, t := range tris {
		if !near[t[0]] && !near[t[1]] && !near[t[2]] {
			continue
		}
		var st [3]int32
		for k, v := range t {
			j, ok := index[v]
			if !ok {
				j = int32(len(ids))
				index[v] = j
				ids = append(ids, v)
				sub.Verts = append(sub.Verts, verts[v])
			}
			st[k] = j
		}
		sub.Tris = append(sub.Tris, st)
	}
	if len(sub.Tris) == 0 {
		return nil, nil, nil // nothing near: no push-out
	}
	if b, err := collide.NewBody(&sub); err == nil {
		return b, ids, nil
	}
	// A part the body type does not take (e.g. two fans of triangles
	// touching at a vertex): the whole body.
	ids = make([]int32, len(verts))
	for v := range ids {
		ids[v] = int32(v)
	}
	b, err := collide.NewBody(&mesh.Mesh{Verts: verts, Tris: tris})
	return b, ids, err
}

// loopPairs returns the pairs of positions in attach (the attached loop of
// a piece) whose vertices share an edge of the piece: the loop's own edges
// and the chords of triangles with two loop edges.
func loopPairs(tris [][3]int32, attach []int32) [][2]int32 {
	at := make(map[int32]int32, len(attach))
	for j, v := range attach {
		at[v] = int32(j)
	}
	seen := map[[2]int32]bool{}
	var out [][2]int32
	for _, t := range tris {
		for k := range 3 {
			a, okA := at[t[k]]
			b, okB := at[t[(k+1)%3]]
			if !okA || !okB {
				continue
			}
			if a > b {
				a, b = b, a
			}
			if !seen[[2]int32{a, b}] {
				seen[[2]int32{a, b}] = true
				out = append(out, [2]int32{a, b})
			}
		}
	}
	slices.SortFunc(out, func(p, q [2]int32) int {
		if p[0] != q[0] {
			return int(p[0] - q[0])
		}
		return int(p[1] - q[1])
	})
	return out
}

// keepLoop applies the pushes to a loop of attachment targets (x the
// rigidly moved loop, rest its rest positions, pairs the edges between
// them, see loopPairs) and then shortens every such edge the pushes
// stretched beyond strain lim by moving its two ends towards each other
// along it (Gauss–Seidel sweeps, Provot style): along the edge, so the
// targets stay clear of the skin. (The pushes alone stretched a 12 mm edge
// of the MakeHuman jeans' waistband by 14 %, held there by the hard pins;
// halving the pushes instead left a pin 1.5 mm off the skin beside a
// neighbour pushed to 3.4 mm, stretching their 1.3 mm edge by 45 %.)
func keepLoop(x, push, rest []geom.Vec3, pairs [][2]int32, lim float64) {
	for j := range x {
		x[j] = x[j].Add(push[j])
	}
	if !(lim > 0) {
		return
	}
	for sweep := 0; sweep < 50; sweep++ {
		worst := 0.0
		for _, pr := range pairs {
			j, k := pr[0], pr[1]
			L := rest[j].Dist(rest[k])
			d := x[k].Sub(x[j])
			l := d.Len()
			if l <= (1+lim)*L || l == 0 {
				continue
			}
			worst = max(worst, l/L-1)
			ex := (l - (1+0.95*lim)*L) / 2
			x[j] = x[j].AddScaled(ex/l, d)
			x[k] = x[k].AddScaled(-ex/l, d)
		}
		if worst == 0 {
			return
		}
	}
}

// proxySlack is how far (m) a body vertex may stay outside the collision
// proxy.
const proxySlack = 1e-4

// collisionProxy returns the mesh and weights the cloth collides with: the
// body simplified to tolerance tol (see Options.BodyProxy), or the body
// itself, and a note for the report.
func collisionProxy(body *mesh.Mesh, w skel.Weights, pieces []*Piece, tol float64) (*mesh.Mesh, skel.Weights, string, error) {
	if tol < 0 {
		return body, w, "", nil
	}
	if tol == 0 || math.IsNaN(tol) {
		sum, n := 0.0, 0
		for _, p := range pieces {
			for _, t := range p.Mesh.Tris {
				for k := range 3 {
					sum += p.Mesh.Verts[t[k]].Dist(p.Mesh.Verts[t[(k+1)%3]])
					n++
				}
			}
		}
		tol = 0.001
		if n > 0 {
			tol = min(max(0.05*sum/float64(n), 0.001), 0.005)
		}
	}
	pm, kept, err := mesh.Simplify(body, mesh.SimplifyOptions{MaxError: tol})
	if err != nil {
		// A body Simplify cannot take (e.g. non-manifold) is collided
		// with as it is.
		return body, w, fmt.Sprintf("collision proxy: none (%v); the full body is used", err), nil
	}
	// The proxy's triangles cut inside the body where it is convex (its
	// vertices are body vertices): move each proxy vertex out along its
	// normal by the largest distance a body vertex whose closest proxy
	// triangle it corners lies outside the proxy, so that the safety
	// distance is kept from the body itself; a pass or two more mop up
	// what the first one's changed normals left out.
	moved := make([]float64, len(pm.Verts))
	for pass := 0; pass < 4; pass++ {
		pb, err := collide.NewBody(pm)
		if err != nil {
			return body, w, fmt.Sprintf("collision proxy: none (%v); the full body is used", err), nil
		}
		off := make([]float64, len(pm.Verts))
		out := 0.0
		for _, p := range body.Verts {
			c := pb.SignedDistance(p)
			if c.Tri < 0 || !(c.Dist > 0) {
				continue
			}
			out = max(out, c.Dist)
			for _, v := range pm.Tris[c.Tri] {
				off[v] = max(off[v], c.Dist)
			}
		}
		if out <= proxySlack {
			break
		}
		nrm := mesh.VertexNormals(pm, nil)
		for v := range pm.Verts {
			pm.Verts[v] = pm.Verts[v].AddScaled(off[v], nrm[v])
			moved[v] += off[v]
		}
	}
	out := 0.0
	for _, d := range moved {
		out = max(out, d)
	}
	note := fmt.Sprintf("collision proxy: body simplified from %d to %d triangles (tolerance %.1f mm; vertices moved out by up to %.1f mm to enclose the body)", len(body.Tris), len(pm.Tris), tol*1000, out*1000)
	return pm, w.Subset(kept), note, nil
}

// maxBodySpeed returns the largest speed (m/s) of a body vertex between
// consecutive frames of the clip.
func maxBodySpeed(s *scene.Scene, skinOf func(skel.Pose) []geom.Rigid) float64 {
	var prev, cur []geom.Vec3
	vmax := 0.0
	for f, p := range s.Clip.Poses {
		cur = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skinOf(p), cur)
		if f > 0 {
			for i := range cur {
				vmax = max(vmax, cur[i].Dist(prev[i])*s.Clip.FPS)
			}
		}
		prev, cur = cur, prev
	}
	return vmax
}

// maxSubstepMove (m) bounds how far the garments' skinned shapes move in a
// default substep: a frame in which they move farther gets more substeps.
// The default (one substep per 1/60 s) was validated on the CMU walk and
// kick, where they move up to 12.5 cm per 30 fps frame (the trouser hems;
// 37 cm in the few frames of the kick's swing); the kick played twice as
// fast (69 cm) left 0.44 % of vertex-frames more than 2 mm inside the body
// at two substeps per frame and 0.10 % at four.
const maxSubstepMove = 0.1

// substepsFor is the number of substeps of at most maxDt that make up dt.
func substepsFor(dt, maxDt float64) int {
	return max(1, int(math.Ceil(dt/maxDt-1e-9)))
}

// maxFastSubsteps caps the substeps of a frame of fast motion: a clip
// whose skeleton jumps (a glitch in the capture) would otherwise ask for
// thousands.
const maxFastSubsteps = 32

// garmentMoves returns, for every frame f of poses, the largest distance
// (m) that a piece vertex's skinned rest position moves from frame f−1 to
// f (0 for frame 0), over at most about 4000 vertices of the pieces.
func garmentMoves(pieces []*Piece, poses []skel.Pose, skinOf func(skel.Pose) []geom.Rigid) []float64 {
	n := 0
	for _, p := range pieces {
		n += len(p.Mesh.Verts)
	}
	stride := max(1, n/4000)
	type sample struct {
		verts     []geom.Vec3
		w         skel.Weights
		prev, cur []geom.Vec3
	}
	samples := make([]sample, len(pieces))
	for i, p := range pieces {
		var ids []int32
		for v := 0; v < len(p.Mesh.Verts); v += stride {
			ids = append(ids, int32(v))
			samples[i].verts = append(samples[i].verts, p.Mesh.Verts[v])
		}
		samples[i].w = p.Weights.Subset(ids)
	}
	moves := make([]float64, len(poses))
	for f, pose := range poses {
		skin := skinOf(pose) // once per frame for all pieces
		for i := range samples {
			sp := &samples[i]
			sp.cur = skel.LBS(sp.verts, sp.w, skin, sp.cur)
			if f > 0 {
				m := 0.0
				for k, q := range sp.cur {
					m = max(m, q.Dist2(sp.prev[k]))
				}
				moves[f] = max(moves[f], math.Sqrt(m))
			}
			sp.prev, sp.cur = sp.cur, sp.prev
		}
	}
	return moves
}

// defaultPinStiffness (N/m) holds a waistband or collar vertex to its
// target through a stiff spring instead of a hard pin, so that the strain
// limit can move it: hard pins held a row of 3 mm jeans edges at the small
// of the back at 12–19 % in a quarter of the 25k walk's frames. A 0.5 kg
// garment on 100 such springs sags 17 µm under gravity. Over the whole walk:
// edge-frames above 10 % 913 → 212, the largest strain 78 % → 44 %,
// penetration and layering unchanged. (Session 2 tried 300 and 3000
// N/m with hard layer contacts and a tight limiter budget: no better then.)
const defaultPinStiffness = 3000

// strainMargin scales Options.StrainLimit to the limit the cloth enforces
// (cloth.Options.StrainLimit): collision pushes after the limiter may
// stretch an edge up to the cloth's limit, and the limiter itself stops
// within it, so edges ended at 10.1–10.2 % in a third of the 25k walk's
// frames with the cloth limit at exactly 10 %.
const strainMargin = 0.95

// layerPenalty is the gain of the soft contacts between layers of cloth
// (collide.Params.Penalty). Hard layer contacts held the shirt's vertices
// against the moving jeans where the strain limit needed to move them;
// soft ones let it. With the Overlap pushes limited to the strain limit,
// the per-frame maximum strain of the 25k MakeHuman suit fell from 30 % to
// 12 % (median over 30 walk frames). Over the whole walk (with the strain
// limiter's larger budget for free vertices), gains 10, 30 and 100 give the
// same strain (per-frame maximum: median 9.7 %, p90 17 %) and 0.24 %,
// 0.12 % and 0.09 % of jeans vertex-frames outside the shirt (0.12 % with
// hard contacts; visible as jeans patches through the shirt's hem at 10),
// with 330, 330 and 410 vertex-frames more than 2 mm inside the body.
const layerPenalty = 30

// layerThickness is the safety distance between layers of cloth for a body
// safety distance thick.
func layerThickness(thick float64) float64 { return math.Min(thick, 0.002) }

// surfBind ties a point to a body triangle: barycentric coordinates of its
// closest point and its offset in the triangle's frame (u along the first
// edge, n the normal, w = n × u).
type surfBind struct {
	tri   int32
	bary  [3]float64
	local geom.Vec3
}

func triFrame(c [3]geom.Vec3) (u, n, w geom.Vec3) {
	u = c[1].Sub(c[0]).Unit()
	n = geom.TriangleNormal(c[0], c[1], c[2]).Unit()
	return u, n, n.Cross(u)
}

// bindSurface binds p to its closest point on body, whose vertices are at
// bodyX (the body's current position).
func bindSurface(body *collide.Body, bodyX []geom.Vec3, tris [][3]int32, p geom.Vec3) surfBind {
	con := body.SignedDistance(p)
	if con.Tri < 0 {
		return surfBind{tri: -1, local: p}
	}
	t := tris[con.Tri]
	u, n, w := triFrame([3]geom.Vec3{bodyX[t[0]], bodyX[t[1]], bodyX[t[2]]})
	d := p.Sub(con.Point)
	return surfBind{tri: con.Tri, bary: con.Bary, local: geom.Vec3{X: d.Dot(u), Y: d.Dot(n), Z: d.Dot(w)}}
}

// point returns the bound point for body vertices at bodyX.
func (b surfBind) point(bodyX []geom.Vec3, tris [][3]int32) geom.Vec3 {
	if b.tri < 0 {
		return b.local
	}
	t := tris[b.tri]
	c := [3]geom.Vec3{bodyX[t[0]], bodyX[t[1]], bodyX[t[2]]}
	u, n, w := triFrame(c)
	p := c[0].Scale(b.bary[0]).AddScaled(b.bary[1], c[1]).AddScaled(b.bary[2], c[2])
	return p.AddScaled(b.local.X, u).AddScaled(b.local.Y, n).AddScaled(b.local.Z, w)
}

// material picks the fabric and model of a piece.
func material(p *Piece, opt Options) (cloth.Material, string, error) {
	name := opt.Fabric
	for prefix, f := range opt.Fabrics {
		if strings.HasPrefix(p.Name, prefix) {
			name = f
		}
	}
	if name == "" {
		name = "denim"
	}
	fab, ok := cloth.Presets()[strings.ToLower(name)]
	if !ok {
		var have []string
		for k := range cloth.Presets() {
			have = append(have, k)
		}
		sort.Strings(have)
		return cloth.Material{}, "", fmt.Errorf("sim: unknown fabric %q (have %s)", name, strings.Join(have, ", "))
	}
	model := cloth.MassSpring
	if opt.ModelSet {
		model = opt.Model
	}
	return cloth.Material{Model: model, Fabric: fab}, "", nil
}

// metricUVs reports whether a mesh's UVs look like pattern coordinates in
// metres: the UV area of its triangles within a factor 2 of their 3D area.
func metricUVs(m *mesh.Mesh) bool {
	if !m.HasUVs() {
		return false
	}
	a3, a2 := 0.0, 0.0
	for t, tr := range m.Tris {
		a3 += geom.TriangleArea(m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]])
		u := m.UVTris[t]
		p, q, r := m.UVs[u[0]], m.UVs[u[1]], m.UVs[u[2]]
		a2 += math.Abs((q.X-p.X)*(r.Y-p.Y)-(q.Y-p.Y)*(r.X-p.X)) / 2
	}
	return a3 > 0 && a2/a3 > 0.5 && a2/a3 < 2
}
