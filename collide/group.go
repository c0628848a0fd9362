package collide

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// BodyGroup moves copies of one body together and shares their refits.
//
// Garments stepped concurrently each collide with their own copy of the
// body (Update moves a body and refits its BVH, which is not safe
// concurrently with another garment's queries). The copies of a group get
// the same frames (SetFrames), so at a given time their positions and BVHs
// are the same: the first copy to Update to a time computes them into a
// fit of the group's, and the others take that fit rather than refit their
// own. A fit stays unchanged while any copy uses it, so the copies may be
// at different times at once (one garment at the start of a substep,
// another at its end, or one retrying a smaller step). For copies made
// alike (NewBody of the same mesh, which builds the same tree) results are
// bit-identical to copies that refit their own BVHs.
type BodyGroup struct {
	bodies          []*Body
	epoch           uint64
	proto           *mesh.BVH
	prev, next, vel []geom.Vec3 // the frames of the last SetFrames

	mu   sync.Mutex
	fits []*groupFit
}

// NewBodyGroup groups bodies with the same triangles. A body may belong to
// one group; bodies that follow a cloth (FollowCloth) cannot be grouped.
func NewBodyGroup(bodies ...*Body) (*BodyGroup, error) {
	if len(bodies) == 0 {
		return nil, fmt.Errorf("collide: NewBodyGroup: no bodies")
	}
	g := &BodyGroup{bodies: bodies, proto: bodies[0].ownBVH}
	for k, b := range bodies {
		switch {
		case b.follow != nil:
			return nil, fmt.Errorf("collide: NewBodyGroup: body %d follows a cloth", k)
		case b.group != nil:
			return nil, fmt.Errorf("collide: NewBodyGroup: body %d is already in a group", k)
		case len(b.own) != len(bodies[0].own) || !slices.Equal(b.tris, bodies[0].tris):
			return nil, fmt.Errorf("collide: NewBodyGroup: body %d has other triangles than body 0", k)
		}
	}
	for _, b := range bodies {
		b.group = g
	}
	return g, nil
}

// SetFrames does Body.SetFrames(prev, next, t0, t1) for every body of the
// group, with one copy of the frames that they share, as they share their
// refits, until one of them is set on its own. It must not run
// concurrently with the bodies' Updates or queries.
func (g *BodyGroup) SetFrames(prev, next []geom.Vec3, t0, t1 float64) {
	b0 := g.bodies[0]
	b0.checkLen(prev)
	b0.checkLen(next)
	if g.prev == nil {
		n := len(prev)
		g.prev, g.next, g.vel = make([]geom.Vec3, n), make([]geom.Vec3, n), make([]geom.Vec3, n)
	}
	// The bodies read the frames, never write them: they share one copy.
	speed := setFrames(g.prev, g.next, g.vel, prev, next, t0, t1)
	g.epoch++
	for _, b := range g.bodies {
		b.prev, b.next, b.vel, b.sharedFrames = g.prev, g.next, g.vel, true
		b.t0, b.t1, b.interp, b.maxSpeed, b.epoch, b.xInterp = t0, t1, true, speed, g.epoch, false
		b.fresh.Store(false)
	}
}

// groupFit is the positions and refitted BVH of the group's body at time t
// of the frames of epoch. While it is computed, the members that ask for
// it share the work (fill).
type groupFit struct {
	epoch uint64
	t     float64
	x     []geom.Vec3
	bvh   *mesh.BVH
	refs  int // members using it, and the ones computing it (under mu)

	// The computation: positions at interpolation parameter a of src's
	// frames in chunks of fitChunk vertices, then the BVH's parts, then its
	// top; next* hand out chunks and parts, done* count the finished ones.
	src                *Body
	a                  float64
	nextX, doneX       atomic.Int32
	nextPart, donePart atomic.Int32
	ready              atomic.Bool

	// A member that finds no chunk or part left while others still compute
	// theirs parks on cond (with mu) until the positions are all computed,
	// or the BVH is ready; the member that finishes the last one wakes it.
	mu   sync.Mutex
	cond sync.Cond
}

// fitChunk is the number of vertices per chunk of a fit's positions.
const fitChunk = 1024

// work does chunks and parts of f's computation until none is left, then
// waits until f is ready, parked rather than spinning: the member computing
// the last chunk or part may be waiting for a CPU, and a spinning member
// would compete with it for one.
func (f *groupFit) work() {
	n := len(f.x)
	nx := int32((n + fitChunk - 1) / fitChunk)
	for {
		c := f.nextX.Add(1) - 1
		if c >= nx {
			break
		}
		for i := int(c) * fitChunk; i < min(int(c+1)*fitChunk, n); i++ {
			f.x[i] = f.src.at(i, f.a)
		}
		if f.doneX.Add(1) == nx {
			f.wake()
		}
	}
	if f.doneX.Load() < nx {
		f.mu.Lock()
		for f.doneX.Load() < nx {
			f.cond.Wait()
		}
		f.mu.Unlock()
	}
	np := int32(f.bvh.RefitParts())
	for {
		c := f.nextPart.Add(1) - 1
		if c >= np {
			break
		}
		f.bvh.RefitPart(f.x, int(c))
		if f.donePart.Add(1) == np {
			f.bvh.RefitTop()
			f.ready.Store(true)
			f.wake()
		}
	}
	if !f.ready.Load() {
		f.mu.Lock()
		for !f.ready.Load() {
			f.cond.Wait()
		}
		f.mu.Unlock()
	}
}

// wake wakes the members parked in work after a phase of the computation
// ended. Taking mu orders it after a waiter's check of the phase and before
// its next one, so no wake is lost.
func (f *groupFit) wake() {
	f.mu.Lock()
	f.cond.Broadcast()
	f.mu.Unlock()
}

// acquire returns the group's fit at time t of epoch, at interpolation
// parameter a of src's frames: computed into a free fit if no member has
// asked for it yet, or with the member computing it. The caller releases it
// when done.
func (g *BodyGroup) acquire(epoch uint64, t float64, src *Body, a float64) *groupFit {
	g.mu.Lock()
	if i := slices.IndexFunc(g.fits, func(f *groupFit) bool { return f.epoch == epoch && f.t == t }); i >= 0 {
		f := g.fits[i]
		f.refs++
		g.mu.Unlock()
		f.work()
		return f
	}
	var f *groupFit
	for _, c := range g.fits {
		if c.refs == 0 {
			f = c
			break
		}
	}
	if f == nil {
		f = &groupFit{x: make([]geom.Vec3, len(g.bodies[0].own)), bvh: g.proto.Clone()}
		f.cond.L = &f.mu
		g.fits = append(g.fits, f)
	}
	f.epoch, f.t, f.refs, f.src, f.a = epoch, t, 1, src, a
	f.nextX.Store(0)
	f.doneX.Store(0)
	f.nextPart.Store(0)
	f.donePart.Store(0)
	f.ready.Store(false)
	g.mu.Unlock()
	f.work()
	return f
}

// release ends a member's use of f.
func (g *BodyGroup) release(f *groupFit) {
	g.mu.Lock()
	f.refs--
	g.mu.Unlock()
}
