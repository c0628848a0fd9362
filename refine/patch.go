package refine

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// piece is the refinement state of one coarse piece.
type piece struct {
	name    string
	coarse  *mesh.Mesh // rest-pose triangles (and UVs)
	top     *mesh.Topology
	mat     cloth.Material
	keyRest []geom.Vec3 // rest position of every key
	held0   []bool      // coarse vertices always held (attached loop, pins)
	nKeys   int

	// frames are the coarse frames received; kPrev and kCur their key
	// positions at the frames around the step.
	frames      [][]geom.Vec3
	kPrev, kCur []geom.Vec3
	kFrame      int // frame of kCur
	nrm         []geom.Vec3
	patch       *patch
	local       []int32 // per key: the patch vertex (-1 none)
	kin         []int32 // per key: its entry in the patch's kinKeys (-1 none)
	red, fade   []bool  // per coarse triangle, this block
	redList     []int32
}

// patch is the refined cloth of one block.
type patch struct {
	cl          *cloth.Cloth
	col         *collide.Collider
	keys        []int32     // per patch vertex
	held        []int32     // patch vertices pinned, in attachment order
	off         []geom.Vec3 // their offsets from the coarse surface at f0
	f0          int         // frame the patch starts from
	mesh        *mesh.Mesh  // the block's refined mesh (all its triangles)
	mkeys       []int32     // its vertices' keys
	rest        *mesh.Mesh  // the patch's rest mesh (red children only)
	redChildren []int32     // mesh triangles that are children of red ones
	freeMesh    []bool      // per mesh vertex: simulated
	active      []int32     // active (not fading) coarse triangles
	free        int
	every       int // frames of the block
	// kinKeys are the keys of the fading triangles' children that no
	// simulated triangle has: they follow their held targets (the coarse
	// surface plus kinOff, faded by ramp) without being simulated.
	kinKeys []int32
	kinOff  []geom.Vec3
}

func newPiece(name string, m *mesh.Mesh, rest []geom.Vec3, held []int32, mat cloth.Material) (*piece, error) {
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("refine: %s: %w", name, err)
	}
	pc := &piece{name: name, coarse: m, top: top, mat: mat, nKeys: len(m.Verts) + len(top.Edges)}
	pc.keyRest, _ = keyPositions(top, m.Tris, rest, nil, nil)
	pc.held0 = make([]bool, len(m.Verts))
	for _, v := range held {
		if v < 0 || int(v) >= len(m.Verts) {
			return nil, fmt.Errorf("refine: %s: held vertex %d out of range", name, v)
		}
		pc.held0[v] = true
	}
	pc.local = make([]int32, pc.nKeys)
	pc.kin = make([]int32, pc.nKeys)
	for i := range pc.local {
		pc.local[i], pc.kin[i] = -1, -1
	}
	pc.red = make([]bool, len(m.Tris))
	pc.fade = make([]bool, len(m.Tris))
	return pc, nil
}

// keysAt makes kCur the key positions of frame f and kPrev those of f−1
// (of f at frame 0).
func (pc *piece) keysAt(f int) {
	if pc.kCur != nil && pc.kFrame == f {
		return
	}
	if pc.kCur != nil && pc.kFrame == f-1 {
		pc.kPrev, pc.kCur = pc.kCur, pc.kPrev
	} else {
		g := max(f-1, 0)
		pc.kPrev, pc.nrm = keyPositions(pc.top, pc.coarse.Tris, pc.frames[g], pc.kPrev, pc.nrm)
	}
	pc.kCur, pc.nrm = keyPositions(pc.top, pc.coarse.Tris, pc.frames[f], pc.kCur, pc.nrm)
	pc.kFrame = f
}

// isFree reports whether key k is simulated: every coarse triangle around
// it is refined and not fading, and it is no held coarse vertex.
func (pc *piece) isFree(k int32) bool {
	n := int32(len(pc.coarse.Verts))
	var tris []int32
	if k < n {
		if pc.held0[k] {
			return false
		}
		tris = pc.top.VertTriangles(k)
	} else {
		tris = pc.top.EdgeTriangles(k - n)
	}
	for _, t := range tris {
		if !pc.red[t] || pc.fade[t] {
			return false
		}
	}
	return true
}

// rebuild replaces the patch by one refining active ∪ fading, starting at
// frame f0 from the old patch's state where it has the keys and from the
// coarse surface elsewhere.
func (pc *piece) rebuild(active, fading []int32, f0 int, fps float64, p *Params, body *collide.Body, cp collide.Params) error {
	pc.keysAt(f0)
	old := pc.patch
	clear(pc.red)
	clear(pc.fade)
	list := append(append([]int32(nil), active...), fading...)
	for _, t := range fading {
		pc.fade[t] = true
	}
	pc.patch = nil
	if len(list) == 0 {
		pc.release(old)
		return nil
	}
	m, sm, keys := refined(pc.coarse, pc.top, list, pc.keyRest)
	pc.redList = pc.redList[:0]
	for t := range pc.coarse.Tris {
		if sm.TriStart[t+1]-sm.TriStart[t] == 4 {
			pc.red[t] = true
			pc.redList = append(pc.redList, int32(t))
		}
	}
	np := &patch{f0: f0, mesh: m, mkeys: keys, active: active, every: p.Every}
	// The patch: the red triangles' children, on their own vertices. A
	// fading triangle's children only hold vertices (see isFree), whose
	// springs pull nothing free: those not shared with a simulated triangle
	// follow their targets kinematically instead.
	loc := make([]int32, len(m.Verts))
	for i := range loc {
		loc[i] = -1
	}
	rest := &mesh.Mesh{}
	for _, t := range pc.redList {
		for s := sm.TriStart[t]; s < sm.TriStart[t+1]; s++ {
			np.redChildren = append(np.redChildren, s)
			if pc.fade[t] {
				continue
			}
			var tri [3]int32
			for c, v := range m.Tris[s] {
				if loc[v] < 0 {
					loc[v] = int32(len(rest.Verts))
					rest.Verts = append(rest.Verts, m.Verts[v])
					np.keys = append(np.keys, keys[v])
				}
				tri[c] = loc[v]
			}
			rest.Tris = append(rest.Tris, tri)
			if m.UVTris != nil {
				rest.UVTris = append(rest.UVTris, m.UVTris[s])
			}
		}
	}
	if m.UVTris != nil {
		rest.UVs = m.UVs
	}
	// Number the patch's vertices in reverse Cuthill–McKee order (see
	// rcmPositions): its IC preconditioner then needs fewer CG iterations.
	pos := rcmPositions(len(rest.Verts), rest.Tris)
	permute(rest, np.keys, pos)
	for v, i := range loc {
		if i >= 0 {
			loc[v] = pos[i]
		}
	}
	np.rest = rest
	for _, t := range fading {
		for s := sm.TriStart[t]; s < sm.TriStart[t+1]; s++ {
			for _, v := range m.Tris[s] {
				if loc[v] != -1 {
					continue
				}
				loc[v] = -2 // kinematic, listed once
				k := keys[v]
				x, _ := pc.startState(old, k, fps, f0)
				np.kinKeys = append(np.kinKeys, k)
				np.kinOff = append(np.kinOff, x.Sub(pc.kCur[k]))
			}
		}
	}
	for v := range loc {
		if loc[v] == -2 {
			loc[v] = -1
		}
	}
	if len(rest.Tris) == 0 {
		np.freeMesh = make([]bool, len(m.Verts))
		pc.release(old)
		for i, k := range np.kinKeys {
			pc.kin[k] = int32(i)
		}
		pc.patch = np
		return nil
	}
	copts := cloth.Options{MaxDt: p.MaxDt, Workers: p.Workers, SkipDegenerate: true, StrainLimit: 0.95 * p.StrainLimit,
		CGTol: p.CGTol, SpeedClamp: p.SpeedClamp, ContactSlack: p.Thickness, RestFromMesh: true}
	c, err := cloth.NewCloth(rest, pc.mat, copts)
	if err != nil {
		return fmt.Errorf("refine: %s: frame %d: %w", pc.name, f0, err)
	}
	c.Time = float64(f0) / fps
	// Start state: carried over, or the coarse surface moving with the
	// coarse frames.
	for i, k := range np.keys {
		c.X[i], c.V[i] = pc.startState(old, k, fps, f0)
	}
	np.freeMesh = make([]bool, len(m.Verts))
	for v, i := range loc {
		np.freeMesh[v] = i >= 0 && pc.isFree(keys[v])
	}
	for i, k := range np.keys {
		if pc.isFree(k) {
			np.free++
			continue
		}
		np.held = append(np.held, int32(i))
		np.off = append(np.off, c.X[i].Sub(pc.kCur[k]))
		c.Attach(cloth.Attachment{Vertex: i, Stiffness: holdStiffness, Damping: 2 * math.Sqrt(holdStiffness*c.Mass[i])})
	}
	if body != nil {
		np.col = collide.NewCollider(body, cp)
		c.Hooks = append(c.Hooks, np.col)
	}
	np.cl = c
	pc.release(old)
	for i, k := range np.keys {
		pc.local[k] = int32(i)
	}
	for i, k := range np.kinKeys {
		pc.kin[k] = int32(i)
	}
	pc.patch = np
	if f0 == 0 && old == nil {
		return pc.relax(fps)
	}
	return nil
}

// startState is key k's position and velocity at frame f0 for a new patch:
// the old patch's, simulated or kinematic, or the coarse surface's.
func (pc *piece) startState(old *patch, k int32, fps float64, f0 int) (geom.Vec3, geom.Vec3) {
	if old != nil && old.cl != nil && pc.local[k] >= 0 {
		j := pc.local[k]
		return old.cl.X[j], old.cl.V[j]
	}
	if old != nil && pc.kin[k] >= 0 {
		off := old.kinOff[pc.kin[k]]
		x := pc.kCur[k].AddScaled(ramp(f0, old.f0, old.every), off)
		if f0 == 0 {
			return x, geom.Vec3{}
		}
		xp := pc.kPrev[k].AddScaled(ramp(f0-1, old.f0, old.every), off)
		return x, x.Sub(xp).Scale(fps)
	}
	if f0 == 0 {
		return pc.kCur[k], geom.Vec3{}
	}
	return pc.kCur[k], pc.kCur[k].Sub(pc.kPrev[k]).Scale(fps)
}

// relax lets a patch made at frame 0, from the coarse frame alone, settle
// for one frame with its boundary and the body still: the smooth surface
// through a coarse fold stretches some new edges (up to 30 % on the
// procedural suit's first frame), which the cloth's strain limit takes
// back within its first step. Velocities are zeroed afterwards and the
// clock put back.
func (pc *piece) relax(fps float64) error {
	c := pc.patch.cl
	t := c.Time
	if _, err := c.Step(1 / fps); err != nil {
		return fmt.Errorf("refine: %s: settling the first frame: %w", pc.name, err)
	}
	c.Time = t
	clear(c.V)
	return nil
}

// release forgets the old patch's keys.
func (pc *piece) release(old *patch) {
	if old == nil {
		return
	}
	for _, k := range old.keys {
		pc.local[k] = -1
	}
	for _, k := range old.kinKeys {
		pc.kin[k] = -1
	}
}

// ramp is the weight of a held vertex's start offset at frame f of a patch
// started at f0: it fades linearly to 0 over every frames.
func ramp(f, f0, every int) float64 {
	return math.Max(0, 1-float64(f-f0)/float64(every))
}

// step advances the patch from frame f−1 to frame f.
func (pc *piece) step(f int, fps float64, every int) (cloth.StepStats, error) {
	pp := pc.patch
	if pp == nil || pp.cl == nil {
		return cloth.StepStats{}, nil
	}
	pc.keysAt(f)
	w := ramp(f, pp.f0, every)
	for a, i := range pp.held {
		k := pp.keys[i]
		pp.cl.SetTarget(a, pc.kCur[k].AddScaled(w, pp.off[a]))
	}
	st, err := pp.cl.Step(1 / fps)
	if err != nil {
		return st, fmt.Errorf("refine: %s: frame %d: %w", pc.name, f, err)
	}
	for i, q := range pp.cl.X {
		if !finite(q) {
			return st, fmt.Errorf("refine: %s: frame %d: vertex %d diverged", pc.name, f, i)
		}
	}
	return st, nil
}

// positionOf returns key k's position at the current frame: the patch's,
// or the coarse surface's.
func (pc *piece) positionOf(k int32) geom.Vec3 {
	if pp := pc.patch; pp != nil {
		if i := pc.local[k]; i >= 0 {
			return pp.cl.X[i]
		}
		if i := pc.kin[k]; i >= 0 {
			return pc.kCur[k].AddScaled(ramp(pc.kFrame, pp.f0, pp.every), pp.kinOff[i])
		}
	}
	return pc.kCur[k]
}

// holdStiffness (N/m) is the stiffness of the zero-length springs that
// hold a patch's boundary to the coarse surface (critically damped per
// vertex), as sim holds its attached loops (3000 N/m). A hard pin left
// edges from a simulated vertex in body contact to a held one stretched
// by up to 15 % (the strain limit may not move either end).
const holdStiffness = 3000.0
