package layers

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// Animator animates an outfit on a character, one pose at a time.
type Animator struct {
	ch       *character.Character
	opt      Options
	outfit   *mesh.Mesh
	weights  skel.Weights
	offsets  []int
	names    []string
	garments []*character.Garment
	class    *Classification
	caps     []Capsule

	loose   *looseLayer
	float   *floatLayer
	bind    *surfaceBinding
	bindAll bool // every vertex bound: no LBS fallback needed

	skin        []geom.Rigid
	tight, prev []geom.Vec3 // skinned outfit at this frame and the last
	nrm, lnrm   []geom.Vec3 // skin normals under the outfit, under the loose vertices
	frames      int
	stats       Stats
}

// Stats describe the last Step.
type Stats struct {
	// CGIters is the conjugate gradient iterations of the floating layer
	// in the frame's last substep.
	CGIters int
	// Contacts is the number of capsule contacts in the last substep.
	Contacts int
}

// New prepares an Animator for the garments on ch: merges them into one
// outfit, classifies its vertices (Classify), fits the leg capsules and
// precomputes their candidate lists.
func New(ch *character.Character, garments []*character.Garment, opt Options) (*Animator, error) {
	if ch == nil || ch.Body == nil || ch.Skeleton == nil {
		return nil, fmt.Errorf("layers: no character")
	}
	if len(garments) == 0 {
		return nil, fmt.Errorf("layers: no garments")
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	a := &Animator{ch: ch, opt: opt, outfit: &mesh.Mesh{}, garments: garments}
	var lists [][]skel.Influence
	var groups [][]string
	for gi, g := range garments {
		if g == nil || g.Mesh == nil {
			return nil, fmt.Errorf("layers: garment %d is empty", gi)
		}
		if g.Weights.NumVerts() != len(g.Mesh.Verts) {
			return nil, fmt.Errorf("layers: garment %s: %d skin weight lists for %d vertices", g.Name, g.Weights.NumVerts(), len(g.Mesh.Verts))
		}
		v0 := int32(len(a.outfit.Verts))
		a.offsets = append(a.offsets, int(v0))
		a.names = append(a.names, g.Name)
		for v, p := range g.Mesh.Verts {
			if !p.IsFinite() {
				return nil, fmt.Errorf("layers: garment %s: vertex %d is not finite", g.Name, v)
			}
			js, ws := g.Weights.Influences(v)
			l := make([]skel.Influence, len(js))
			for k := range js {
				if int(js[k]) >= ch.Skeleton.NumJoints() || js[k] < 0 {
					return nil, fmt.Errorf("layers: garment %s: vertex %d: joint %d not in the skeleton", g.Name, v, js[k])
				}
				l[k] = skel.Influence{Joint: js[k], W: ws[k]}
			}
			lists = append(lists, l)
			groups = append(groups, []string{g.Name})
		}
		a.outfit.Verts = append(a.outfit.Verts, g.Mesh.Verts...)
		for t, tri := range g.Mesh.Tris {
			for _, v := range tri {
				if v < 0 || int(v) >= len(g.Mesh.Verts) {
					return nil, fmt.Errorf("layers: garment %s: triangle %d: vertex %d out of range", g.Name, t, v)
				}
			}
			a.outfit.Tris = append(a.outfit.Tris, [3]int32{tri[0] + v0, tri[1] + v0, tri[2] + v0})
		}
		for _, gr := range g.Mesh.Groups {
			for _, t := range gr.Tris {
				if int(t) < len(g.Mesh.Tris) {
					for _, v := range g.Mesh.Tris[t] {
						gs := groups[int(v0)+int(v)]
						if gs[len(gs)-1] != gr.Name {
							groups[int(v0)+int(v)] = append(gs, gr.Name)
						}
					}
				}
			}
		}
	}
	a.offsets = append(a.offsets, len(a.outfit.Verts))
	a.weights = skel.NewWeights(lists)
	c, err := Classify(ch, a.outfit, a.weights, groups, opt)
	if err != nil {
		return nil, err
	}
	a.class = c
	a.caps = FitLegCapsules(ch)
	top, err := mesh.NewTopology(a.outfit)
	if err != nil {
		return nil, fmt.Errorf("layers: outfit: %w", err)
	}
	normals := mesh.VertexNormals(a.outfit, nil)
	// cross planes for the vertices mostly not loose: pushing a loose
	// sphere's anchor or a loose particle out of another part squeezes it
	// into its own limb where the two overlap (loose vertex-frames inside
	// the body 2.9 % -> 5.4 % on the procedural walk)
	a.bind = newSurfaceBinding(ch, a.outfit.Verts, a.outfit.Tris, opt.Thickness, func(v int) bool { return c.Loose[v] >= 0.5 },
		func(v int) bool { return c.Float[v] >= 0.5 })
	localY := make([]float64, len(a.outfit.Verts))
	for v := range localY {
		localY[v] = math.NaN()
		if a.bind.valid[v] {
			localY[v] = a.bind.local[v].Y
		}
	}
	a.float = newFloatLayer(a.outfit, top, c, a.caps, normals, localY, a.bind.clr, opt)
	a.loose = newLooseLayer(c, opt)
	a.loose.bindCross(a.bind)
	a.bindAll = true
	for _, ok := range a.bind.valid {
		a.bindAll = a.bindAll && ok
	}
	n := len(a.outfit.Verts)
	a.nrm = make([]geom.Vec3, n)
	a.tight, a.prev = make([]geom.Vec3, n), make([]geom.Vec3, n)
	a.lnrm = make([]geom.Vec3, len(a.loose.idx))
	return a, nil
}

// NumVerts returns the number of outfit vertices (the length of Step's
// output).
func (a *Animator) NumVerts() int { return len(a.outfit.Verts) }

// Offsets returns where each garment's vertices start in the outfit, and
// the outfit's length last.
func (a *Animator) Offsets() []int { return append([]int(nil), a.offsets...) }

// Outfit returns the merged garments in the rest pose and their weights.
func (a *Animator) Outfit() (*mesh.Mesh, skel.Weights) { return a.outfit, a.weights }

// Classification returns the layer assignment.
func (a *Animator) Classification() *Classification { return a.class }

// Capsules returns the leg capsules (rest pose); nil for a rig without
// recognised legs.
func (a *Animator) Capsules() []Capsule { return append([]Capsule(nil), a.caps...) }

// Stats returns the statistics of the last Step.
func (a *Animator) Stats() Stats { return a.stats }

// Step advances the outfit to pose (one frame of 1/Options.FPS s after the
// last; the first Step settles in pose for Options.Settle s) and writes
// its vertices into dst, which is grown when too short and returned.
func (a *Animator) Step(pose skel.Pose, dst []geom.Vec3) ([]geom.Vec3, error) {
	sk := a.ch.Skeleton
	if len(pose.Rot) != sk.NumJoints() {
		return dst, fmt.Errorf("layers: pose has %d joint rotations for %d joints", len(pose.Rot), sk.NumJoints())
	}
	if !pose.Root.IsFinite() {
		return dst, fmt.Errorf("layers: pose root %v is not finite", pose.Root)
	}
	for j, q := range pose.Rot {
		if l := q.Dot(q); !(l > 0.25 && l < 4) {
			return dst, fmt.Errorf("layers: pose joint %d (%s): rotation %v is not a unit quaternion", j, sk.Joint(j).Name, q)
		}
	}
	a.skin = skel.SkinMatrices(sk, pose, a.skin)
	a.tight, a.prev = a.prev, a.tight
	if !a.bindAll {
		a.tight = skel.LBS(a.outfit.Verts, a.weights, a.skin, a.tight)
	}
	a.bind.place(a.skin, a.tight, a.nrm)
	for i, v := range a.loose.idx {
		a.lnrm[i] = a.nrm[v]
		if a.lnrm[i] == (geom.Vec3{}) {
			a.lnrm[i] = a.class.Dir[v]
		}
	}
	dt := 1 / a.opt.FPS
	for c := range a.float.caps {
		a.float.caps[c].pose(a.skin)
	}
	first := a.frames == 0
	if first {
		copy(a.prev, a.tight)
		for i, v := range a.float.idx {
			a.float.x[i] = a.tight[v]
		}
		for c := range a.float.caps {
			a.float.caps[c].pose(a.skin) // no motion before the first frame
		}
		a.loose.frame(a.tight, a.lnrm, dt)
		a.substeps(true)
		if a.opt.Settle > 0 {
			for range int(a.opt.Settle*a.opt.FPS + 0.5) {
				a.loose.frame(a.tight, a.lnrm, dt)
				a.substeps(false)
			}
		}
		a.loose.still()
	} else {
		a.loose.frame(a.tight, a.lnrm, dt)
		a.substeps(false)
	}
	a.frames++
	dst = a.output(dst)
	return dst, nil
}

// substeps advances the dynamic layers one frame.
func (a *Animator) substeps(first bool) {
	ns := a.opt.Substeps
	dt := 1 / a.opt.FPS
	h := dt / float64(ns)
	for k := 1; k <= ns; k++ {
		s := float64(k) / float64(ns)
		a.loose.step(a.prev, a.tight, s, h, first && k == 1)
		if len(a.float.idx) > 0 {
			a.float.setTargets(a.prev, a.tight, a.nrm, s, dt)
			for c := range a.float.caps {
				a.float.caps[c].at(s, dt)
			}
			a.float.step(h)
		}
	}
	a.stats = Stats{CGIters: a.float.iters, Contacts: a.float.contacts}
}

// output blends the layers: lerp(lerp(tight, loose, Loose), floating, Float).
func (a *Animator) output(dst []geom.Vec3) []geom.Vec3 {
	n := len(a.tight)
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	copy(dst, a.tight)
	c := a.class
	for i, v := range a.loose.idx {
		dst[v] = dst[v].Lerp(a.loose.x[i], float64(c.Loose[v]))
	}
	for i, v := range a.float.idx {
		if f := float64(c.Float[v]); f > 0 {
			dst[v] = dst[v].Lerp(a.float.x[i], f)
		}
	}
	if a.bind.faces != nil {
		a.bind.faces.apply(dst, a.bind.posed, a.bind.w, a.bind.mats)
	}
	a.bind.keepOut(dst, a.nrm)
	a.bind.push(dst, false)
	return dst
}
