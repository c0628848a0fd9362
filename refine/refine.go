package refine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Input is a coarse garment simulation to refine.
type Input struct {
	// Pieces are the coarse pieces.
	Pieces []PieceInput
	// FPS is the frame rate of the frames, frames/s.
	FPS float64
	// Next, when not nil, streams the coarse frames: each call returns the
	// next frame, x[p] being piece p's positions (Pieces' Frames are then
	// empty), and may block until that frame is simulated. Run asks for a
	// frame only when the regions of the block it is about to refine need
	// it (Params.Every + Params.Lead frames ahead), so it refines the first
	// frames while a coarse simulation running beside it (sim.Stream) makes
	// the rest. Frames is then the clip's number of frames. The result is
	// the one the same frames given in Pieces' Frames give.
	Next   func() (x [][]geom.Vec3, err error)
	Frames int
	// Body is the collision body in its rest pose (its triangles are used);
	// nil for none. BodyAt returns its vertex positions at frame f, in dst
	// when its capacity suffices.
	Body   *mesh.Mesh
	BodyAt func(f int, dst []geom.Vec3) ([]geom.Vec3, error)
}

// PieceInput is one coarse piece and its simulated frames.
type PieceInput struct {
	Name string
	// Mesh holds the piece's triangles (and UVs); Rest its rest positions
	// (the shape whose edge lengths and angles are at rest), m.
	Mesh *mesh.Mesh
	Rest []geom.Vec3
	// Held are vertices the coarse simulation holds (an attached
	// waistband, pins); they stay held to the coarse result.
	Held []int32
	// Material is the piece's fabric and model.
	Material cloth.Material
	// Frames[f] are the coarse positions at frame f (empty with
	// Input.Next).
	Frames [][]geom.Vec3
}

// Result is a refined animation.
type Result struct {
	FPS    float64
	Pieces []*PieceResult
	// Stats has one entry per frame.
	Stats []FrameStats
	// Detect is the time spent finding and scheduling regions.
	Detect time.Duration
	// Params are the parameters used, defaults filled in.
	Params Params
}

// PieceResult is one refined piece.
type PieceResult struct {
	Name string
	// Coarse is the coarse piece (rest positions).
	Coarse *mesh.Mesh
	// Union is the piece refined over the union of all blocks' regions, in
	// its rest shape: the fixed-topology output. UnionKeys are its
	// vertices' keys (see the package doc).
	Union     *mesh.Mesh
	UnionKeys []int32
	// Frames[f] are the positions of Union's vertices at frame f: refined
	// where a block simulated them, on the smooth coarse surface elsewhere.
	Frames [][]geom.Vec3
	// Blocks are the refined meshes, one per block of Params.Every frames.
	Blocks []Block
	// CoarseFrames are the coarse input frames (shared).
	CoarseFrames [][]geom.Vec3
}

// Block is a piece's refinement over frames [Start, Start+Params.Every).
type Block struct {
	Start int
	// Active are the refined coarse triangles (fading ones excluded).
	Active []int32
	// Mesh is the piece refined there, rest positions; ToUnion maps its
	// vertices to the Union mesh's, Keys gives their keys.
	Mesh    *mesh.Mesh
	ToUnion []int32
	Keys    []int32
	// Free counts the simulated vertices.
	Free int

	coarse      *mesh.Mesh
	redChildren []int32 // Mesh triangles that are children of red triangles
	free        []bool  // per Mesh vertex: simulated
	byKey       map[int32]int32
	topo        *blockTopo
}

// FrameStats describes one refined frame (over all pieces).
type FrameStats struct {
	Frame int
	// Wall is the time to refine the frame (rebuilds and the step).
	Wall time.Duration
	// Area is the rest area of the refined (active) coarse triangles, m².
	Area float64
	// Verts counts the refined mesh's vertices, Free the simulated ones.
	Verts, Free int
	// CGIterations and Substeps sum the patches' solver work.
	CGIterations, Substeps int
}

// Progress is called after each frame with the number done and the total.
type Progress func(done, total int)

// ErrNoFrames is returned for an input without frames.
var ErrNoFrames = errors.New("refine: no frames")

func (in *Input) check() (int, error) {
	if len(in.Pieces) == 0 {
		return 0, errors.New("refine: no pieces")
	}
	if !(in.FPS > 0 && in.FPS <= 1000) {
		return 0, fmt.Errorf("refine: frame rate %g out of range (0, 1000]", in.FPS)
	}
	n := len(in.Pieces[0].Frames)
	if in.Next != nil {
		n = in.Frames
	}
	if n <= 0 {
		return 0, ErrNoFrames
	}
	for i, p := range in.Pieces {
		if p.Mesh == nil {
			return 0, fmt.Errorf("refine: piece %d (%s) has no mesh", i, p.Name)
		}
		if err := p.Mesh.Validate(); err != nil {
			return 0, fmt.Errorf("refine: piece %d (%s): %w", i, p.Name, err)
		}
		if len(p.Rest) != len(p.Mesh.Verts) {
			return 0, fmt.Errorf("refine: piece %d (%s): %d rest positions for %d vertices", i, p.Name, len(p.Rest), len(p.Mesh.Verts))
		}
		switch {
		case in.Next != nil && len(p.Frames) > 0:
			return 0, fmt.Errorf("refine: piece %d (%s): %d frames given besides Next", i, p.Name, len(p.Frames))
		case in.Next == nil && len(p.Frames) != n:
			return 0, fmt.Errorf("refine: piece %d (%s): %d frames, piece 0 has %d", i, p.Name, len(p.Frames), n)
		}
		for v, q := range p.Rest {
			if !finite(q) {
				return 0, fmt.Errorf("refine: piece %d (%s): rest vertex %d not finite", i, p.Name, v)
			}
		}
	}
	if in.Body != nil && in.BodyAt == nil {
		return 0, errors.New("refine: a body without BodyAt")
	}
	return n, nil
}

// Run refines the coarse animation in: regions found on every frame
// (Detector), scheduled with hysteresis (Schedule), refined and simulated
// again block by block. The context stops it between frames; the result
// then holds the frames done.
func Run(ctx context.Context, in Input, p Params, progress Progress) (*Result, error) {
	if err := p.defaults(); err != nil {
		return nil, err
	}
	n, err := in.check()
	if err != nil {
		return nil, err
	}
	r := &runner{in: &in, p: p, n: n, res: &Result{FPS: in.FPS, Params: p}}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	err = r.run(ctx, progress)
	for i, pc := range r.pcs {
		r.out[i].finish(pc, r.blocks[i])
	}
	return r.res, err
}

// runner is one Run: the pieces, the coarse frames received so far with
// their regions, and what is recorded of each refined frame.
type runner struct {
	in  *Input
	p   Params
	n   int // frames
	res *Result
	pcs []*piece
	det []*Detector
	// marks[i][f] marks piece i's region triangles at frame f, for the
	// frames received; blocks[i][b] is block b's refined set.
	marks  [][][]bool
	blocks [][][]int32
	seen   []bool // blockSet's scratch
	out    []*pieceOut
	// Each piece's patch collides with its own copy of the body (a
	// collider's distance bounds then follow that copy's motion alone);
	// the copies form a group that refits once per time for all of them.
	bodies      []*collide.Body
	group       *collide.BodyGroup
	bPrev, bCur []geom.Vec3
}

// pieceOut records a piece's refined frames until the union of its
// blocks, and with it the fixed-topology output, is known.
type pieceOut struct {
	pr *PieceResult
	// frames[f] are the positions of the vertices of frame f's block
	// (Block.Keys order).
	frames [][]geom.Vec3
}

func (r *runner) prepare() error {
	for i, pi := range r.in.Pieces {
		pc, err := newPiece(pi.Name, pi.Mesh, pi.Rest, pi.Held, pi.Material)
		if err != nil {
			return err
		}
		d, err := NewDetector(pi.Mesh, r.p)
		if err != nil {
			return fmt.Errorf("refine: %s: %w", pi.Name, err)
		}
		r.pcs = append(r.pcs, pc)
		r.det = append(r.det, d)
		coarse := *pc.coarse
		coarse.Verts = pc.keyRest[:len(pc.coarse.Verts)]
		r.out = append(r.out, &pieceOut{pr: &PieceResult{Name: pc.name, Coarse: &coarse}})
		r.res.Pieces = append(r.res.Pieces, r.out[i].pr)
		r.seen = make([]bool, max(len(r.seen), len(pi.Mesh.Tris)))
	}
	r.marks = make([][][]bool, len(r.pcs))
	r.blocks = make([][][]int32, len(r.pcs))
	in := r.in
	if in.Body == nil || r.p.NoBody {
		return nil
	}
	var err error
	if r.bCur, err = in.BodyAt(0, nil); err != nil {
		return err
	}
	if r.bodies, err = collide.NewBodies(&mesh.Mesh{Verts: r.bCur, Tris: in.Body.Tris}, len(r.pcs)); err != nil {
		return fmt.Errorf("refine: body: %w", err)
	}
	if r.group, err = collide.NewBodyGroup(r.bodies...); err != nil {
		return fmt.Errorf("refine: body: %w", err)
	}
	return nil
}

// run refines the frames in order.
func (r *runner) run(ctx context.Context, progress Progress) error {
	every := r.p.Every
	for f := 0; f < r.n; f++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		st := FrameStats{Frame: f}
		if f%every == 0 {
			if err := r.startBlock(ctx, f); err != nil {
				return err
			}
		}
		if f > 0 {
			if err := r.moveBody(f); err != nil {
				return err
			}
			ss, err := stepAll(r.pcs, f, r.in.FPS, every)
			if err != nil {
				return err
			}
			st.CGIterations += ss.CGIterations
			st.Substeps += ss.Substeps
		}
		for i, pc := range r.pcs {
			r.record(i, pc, f, &st)
		}
		st.Wall = time.Since(start)
		r.res.Stats = append(r.res.Stats, st)
		if progress != nil {
			progress(f+1, r.n)
		}
	}
	return nil
}

// startBlock receives the frames block f/Every's regions need, schedules
// them and rebuilds every piece's patch.
func (r *runner) startBlock(ctx context.Context, f int) error {
	every, b := r.p.Every, f/r.p.Every
	if err := r.receive(ctx, (b+1)*every-1+r.p.Lead); err != nil {
		return err
	}
	for i, pc := range r.pcs {
		t := time.Now()
		set := blockSet(r.marks[i], b, r.n, &r.p, r.seen)
		r.res.Detect += time.Since(t)
		var fading []int32
		if b > 0 {
			fading = minus(r.blocks[i][b-1], set)
		}
		r.blocks[i] = append(r.blocks[i], set)
		var body *collide.Body
		if r.bodies != nil {
			body = r.bodies[i]
		}
		if err := pc.rebuild(set, fading, max(f-1, 0), r.in.FPS, &r.p, body, collideParams(r.p)); err != nil {
			return err
		}
		r.out[i].pr.addBlock(pc, f)
	}
	return nil
}

// receive takes the coarse frames up to g (or the last) and marks their
// regions.
func (r *runner) receive(ctx context.Context, g int) error {
	g = min(g, r.n-1)
	for f := len(r.marks[0]); f <= g; f++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		x, err := r.frame(f)
		if err != nil {
			return err
		}
		t := time.Now()
		for i, pc := range r.pcs {
			if len(x[i]) != len(pc.coarse.Verts) {
				return fmt.Errorf("refine: piece %d (%s) frame %d: %d positions for %d vertices", i, pc.name, f, len(x[i]), len(pc.coarse.Verts))
			}
			mark := make([]bool, len(pc.coarse.Tris))
			if _, err := r.det[i].Mark(x[i], mark); err != nil {
				return fmt.Errorf("refine: %s: frame %d: %w", pc.name, f, err)
			}
			pc.frames = append(pc.frames, x[i])
			r.marks[i] = append(r.marks[i], mark)
		}
		r.res.Detect += time.Since(t)
	}
	return nil
}

// frame returns coarse frame f of every piece, from Next or the pieces.
func (r *runner) frame(f int) ([][]geom.Vec3, error) {
	if r.in.Next == nil {
		x := make([][]geom.Vec3, len(r.pcs))
		for i := range x {
			x[i] = r.in.Pieces[i].Frames[f]
		}
		return x, nil
	}
	x, err := r.in.Next()
	if err != nil {
		return nil, fmt.Errorf("refine: coarse frame %d: %w", f, err)
	}
	if len(x) != len(r.pcs) {
		return nil, fmt.Errorf("refine: coarse frame %d: %d pieces, want %d", f, len(x), len(r.pcs))
	}
	return x, nil
}

// moveBody moves the bodies from frame f−1 to frame f.
func (r *runner) moveBody(f int) error {
	if r.group == nil {
		return nil
	}
	var err error
	r.bPrev = append(r.bPrev[:0], r.bCur...)
	if r.bCur, err = r.in.BodyAt(f, r.bCur); err != nil {
		return err
	}
	if len(r.bCur) != len(r.bPrev) {
		return fmt.Errorf("refine: body frame %d: %d vertices, want %d", f, len(r.bCur), len(r.bPrev))
	}
	r.group.SetFrames(r.bPrev, r.bCur, float64(f-1)/r.in.FPS, float64(f)/r.in.FPS)
	return nil
}

// record keeps piece i's positions at frame f and adds its counts to st.
func (r *runner) record(i int, pc *piece, f int, st *FrameStats) {
	pc.keysAt(f)
	pr := r.out[i].pr
	bl := pr.Blocks[len(pr.Blocks)-1]
	x := make([]geom.Vec3, len(bl.Keys))
	for j, k := range bl.Keys {
		x[j] = pc.positionOf(k)
	}
	r.out[i].frames = append(r.out[i].frames, x)
	st.Verts += len(bl.Mesh.Verts)
	st.Free += bl.Free
	for _, t := range bl.Active {
		tr := pc.coarse.Tris[t]
		st.Area += geom.TriangleArea(pc.keyRest[tr[0]], pc.keyRest[tr[1]], pc.keyRest[tr[2]])
	}
}

// stepAll advances every piece's patch from frame f−1 to frame f, the
// pieces at the same time (each collides with its own copy of the body;
// see Run), as sim steps its pieces: a small patch keeps one core
// busy at most (its solver's chunks are fixed), so two pieces stepped in
// turn leave the second core idle. The pieces share no state, so the
// result is the one stepping them in turn gives; the first error by piece
// order is returned.
func stepAll(pcs []*piece, f int, fps float64, every int) (cloth.StepStats, error) {
	sts := make([]cloth.StepStats, len(pcs))
	errs := make([]error, len(pcs))
	var wg sync.WaitGroup
	for i, pc := range pcs[1:] {
		wg.Go(func() { sts[i+1], errs[i+1] = pc.step(f, fps, every) })
	}
	sts[0], errs[0] = pcs[0].step(f, fps, every)
	wg.Wait()
	var sum cloth.StepStats
	for i, st := range sts {
		if errs[i] != nil {
			return sum, errs[i]
		}
		sum.CGIterations += st.CGIterations
		sum.Substeps += st.Substeps
	}
	return sum, nil
}

// minus returns the elements of a (ascending) not in b (ascending).
func minus(a, b []int32) []int32 {
	var out []int32
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

// finish builds the piece's fixed-topology mesh over every block's
// triangles (active and fading), maps the blocks' vertices to it and
// makes its frames: a block's vertices where the frame's block has them,
// the smooth coarse surface of the frame elsewhere (piece.positionOf).
func (po *pieceOut) finish(pc *piece, blocks [][]int32) {
	pr := po.pr
	seen := make([]bool, len(pc.coarse.Tris))
	var all []int32
	for _, b := range blocks {
		for _, t := range b {
			if !seen[t] {
				seen[t] = true
				all = append(all, t)
			}
		}
	}
	slices.Sort(all)
	pr.Union, _, pr.UnionKeys = refined(pc.coarse, pc.top, all, pc.keyRest)
	unionIdx := make([]int32, pc.nKeys)
	for i := range unionIdx {
		unionIdx[i] = -1
	}
	for i, k := range pr.UnionKeys {
		unionIdx[k] = int32(i)
	}
	for b := range pr.Blocks {
		bl := &pr.Blocks[b]
		bl.ToUnion = make([]int32, len(bl.Keys))
		for i, k := range bl.Keys {
			bl.ToUnion[i] = unionIdx[k]
		}
	}
	pr.CoarseFrames = pc.frames[:len(po.frames)]
	var kx, nrm []geom.Vec3
	for f, xb := range po.frames {
		kx, nrm = keyPositions(pc.top, pc.coarse.Tris, pc.frames[f], kx, nrm)
		x := make([]geom.Vec3, len(pr.UnionKeys))
		for i, k := range pr.UnionKeys {
			x[i] = kx[k]
		}
		for i, u := range pr.BlockAt(f).ToUnion {
			x[u] = xb[i]
		}
		pr.Frames = append(pr.Frames, x)
	}
	po.frames = nil
}

// addBlock records the piece's new block starting at frame f (its
// ToUnion is set by finish).
func (pr *PieceResult) addBlock(pc *piece, f int) {
	bl := Block{Start: f, coarse: pr.Coarse}
	if pp := pc.patch; pp != nil {
		bl.Active, bl.Mesh, bl.Keys, bl.Free, bl.redChildren, bl.free = pp.active, pp.mesh, pp.mkeys, pp.free, pp.redChildren, pp.freeMesh
	} else {
		bl.Mesh = pr.Coarse
		bl.Keys = make([]int32, len(pr.Coarse.Verts))
		for i := range bl.Keys {
			bl.Keys[i] = int32(i)
		}
	}
	pr.Blocks = append(pr.Blocks, bl)
}

// BlockAt returns the block of frame f.
func (pr *PieceResult) BlockAt(f int) *Block {
	i, _ := slices.BinarySearchFunc(pr.Blocks, f, func(b Block, f int) int {
		switch {
		case b.Start > f:
			return 1
		case b.Start < f:
			return -1
		}
		return 0
	})
	if i == len(pr.Blocks) || pr.Blocks[i].Start > f {
		i--
	}
	return &pr.Blocks[max(i, 0)]
}

// FrameMesh returns the piece's refined mesh at frame f with its positions
// (changing topology: the OBJ sequence).
func (pr *PieceResult) FrameMesh(f int) *mesh.Mesh {
	bl := pr.BlockAt(f)
	m := *bl.Mesh
	m.Verts = make([]geom.Vec3, len(bl.ToUnion))
	for i, u := range bl.ToUnion {
		m.Verts[i] = pr.Frames[f][u]
	}
	return &m
}

func collideParams(p Params) collide.Params {
	return collide.Params{Thickness: p.Thickness, Workers: p.Workers, MaxDepth: 0.02}
}
