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
	// Frames[f] are the coarse positions at frame f.
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
	if n == 0 {
		return 0, ErrNoFrames
	}
	for i, p := range in.Pieces {
		if p.Mesh == nil {
			return 0, fmt.Errorf("refine: piece %d (%s) has no mesh", i, p.Name)
		}
		if err := p.Mesh.Validate(); err != nil {
			return 0, fmt.Errorf("refine: piece %d (%s): %w", i, p.Name, err)
		}
		nv := len(p.Mesh.Verts)
		if len(p.Rest) != nv {
			return 0, fmt.Errorf("refine: piece %d (%s): %d rest positions for %d vertices", i, p.Name, len(p.Rest), nv)
		}
		if len(p.Frames) != n {
			return 0, fmt.Errorf("refine: piece %d (%s): %d frames, piece 0 has %d", i, p.Name, len(p.Frames), n)
		}
		for f, x := range p.Frames {
			if len(x) != nv {
				return 0, fmt.Errorf("refine: piece %d (%s) frame %d: %d positions for %d vertices", i, p.Name, f, len(x), nv)
			}
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
// again block by block. The context stops it between frames.
func Run(ctx context.Context, in Input, p Params, progress Progress) (*Result, error) {
	if err := p.defaults(); err != nil {
		return nil, err
	}
	n, err := in.check()
	if err != nil {
		return nil, err
	}
	res := &Result{FPS: in.FPS, Params: p}
	t0 := time.Now()
	pcs := make([]*piece, len(in.Pieces))
	blocks := make([][][]int32, len(in.Pieces))
	for i, pi := range in.Pieces {
		if pcs[i], err = newPiece(pi.Name, pi.Mesh, pi.Rest, pi.Held, pi.Material, pi.Frames); err != nil {
			return nil, err
		}
		if blocks[i], err = detect(ctx, pi, p); err != nil {
			return nil, err
		}
		pr := unionOf(pcs[i], blocks[i], p.Every)
		pr.CoarseFrames = pi.Frames
		res.Pieces = append(res.Pieces, pr)
	}
	res.Detect = time.Since(t0)

	// Each piece's patch collides with its own copy of the body (a
	// collider's distance bounds then follow that copy's motion alone); the
	// copies form a group that refits once per time for all of them.
	var bodies []*collide.Body
	var group *collide.BodyGroup
	var bPrev, bCur []geom.Vec3
	cp := collideParams(p)
	if in.Body != nil && !p.NoBody {
		if bCur, err = in.BodyAt(0, nil); err != nil {
			return nil, err
		}
		if bodies, err = collide.NewBodies(&mesh.Mesh{Verts: bCur, Tris: in.Body.Tris}, len(pcs)); err != nil {
			return nil, fmt.Errorf("refine: body: %w", err)
		}
		if group, err = collide.NewBodyGroup(bodies...); err != nil {
			return nil, fmt.Errorf("refine: body: %w", err)
		}
	}
	for f := 0; f < n; f++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		start := time.Now()
		st := FrameStats{Frame: f}
		b := f / p.Every
		if f%p.Every == 0 {
			for i, pc := range pcs {
				var fading []int32
				if b > 0 {
					fading = minus(blocks[i][b-1], blocks[i][b])
				}
				var body *collide.Body
				if bodies != nil {
					body = bodies[i]
				}
				if err := pc.rebuild(blocks[i][b], fading, max(f-1, 0), in.FPS, &p, body, cp); err != nil {
					return res, err
				}
				res.Pieces[i].addBlock(pc, f)
			}
		}
		if f > 0 {
			if group != nil {
				bPrev = append(bPrev[:0], bCur...)
				if bCur, err = in.BodyAt(f, bCur); err != nil {
					return res, err
				}
				if len(bCur) != len(bPrev) {
					return res, fmt.Errorf("refine: body frame %d: %d vertices, want %d", f, len(bCur), len(bPrev))
				}
				group.SetFrames(bPrev, bCur, float64(f-1)/in.FPS, float64(f)/in.FPS)
			}
			ss, err := stepAll(pcs, f, in.FPS, p.Every)
			if err != nil {
				return res, err
			}
			st.CGIterations += ss.CGIterations
			st.Substeps += ss.Substeps
		}
		for i, pc := range pcs {
			pc.keysAt(f)
			pr := res.Pieces[i]
			x := make([]geom.Vec3, len(pr.UnionKeys))
			for v, k := range pr.UnionKeys {
				x[v] = pc.positionOf(k)
			}
			pr.Frames = append(pr.Frames, x)
			bl := pr.Blocks[len(pr.Blocks)-1]
			st.Verts += len(bl.Mesh.Verts)
			st.Free += bl.Free
			for _, t := range bl.Active {
				tr := pc.coarse.Tris[t]
				st.Area += geom.TriangleArea(pc.keyRest[tr[0]], pc.keyRest[tr[1]], pc.keyRest[tr[2]])
			}
		}
		st.Wall = time.Since(start)
		res.Stats = append(res.Stats, st)
		if progress != nil {
			progress(f+1, n)
		}
	}
	return res, nil
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

// detect marks every frame of a piece and schedules its blocks.
func detect(ctx context.Context, pi PieceInput, p Params) ([][]int32, error) {
	d, err := NewDetector(pi.Mesh, p)
	if err != nil {
		return nil, fmt.Errorf("refine: %s: %w", pi.Name, err)
	}
	marks := make([][]bool, len(pi.Frames))
	for f, x := range pi.Frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		marks[f] = make([]bool, len(pi.Mesh.Tris))
		if _, err := d.Mark(x, marks[f]); err != nil {
			return nil, fmt.Errorf("refine: %s: frame %d: %w", pi.Name, f, err)
		}
	}
	return Schedule(marks, p)
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

// unionOf builds a piece's fixed-topology mesh over every block's
// triangles (active and fading).
func unionOf(pc *piece, blocks [][]int32, every int) *PieceResult {
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
	coarse := *pc.coarse
	coarse.Verts = pc.keyRest[:len(pc.coarse.Verts)]
	m, _, keys := refined(pc.coarse, pc.top, all, pc.keyRest)
	pc.unionIdx = make([]int32, pc.nKeys)
	for i := range pc.unionIdx {
		pc.unionIdx[i] = -1
	}
	for i, k := range keys {
		pc.unionIdx[k] = int32(i)
	}
	return &PieceResult{Name: pc.name, Coarse: &coarse, Union: m, UnionKeys: keys}
}

// addBlock records the piece's new block starting at frame f.
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
	bl.ToUnion = make([]int32, len(bl.Keys))
	for i, k := range bl.Keys {
		bl.ToUnion[i] = pc.unionIdx[k]
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
