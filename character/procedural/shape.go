package procedural

import (
	"math"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// refHeight is the height in metres of the reference figure all the
// measurements below are written for; MannequinOptions.Height scales them.
const refHeight = 1.75

// boneDef is one bone of the reference T-pose skeleton (left side and
// centre; the right side is mirrored in x). hinge, when non-zero, is the
// world-space hinge axis: positive flexion bends the limb the anatomical way.
type boneDef struct {
	name, parent string
	head, tail   geom.Vec3
	hinge        geom.Vec3
}

// refBones is the T-pose skeleton of the 1.75 m reference figure, with
// CMU/MotionBuilder joint names. The elbow axis is vertical (palms down:
// flexion swings the forearm forward, +Z), the knee axis +X (flexion swings
// the shank backward, −Z).
var refBones = []boneDef{
	{"Hips", "", geom.V(0, 0.95, 0), geom.V(0, 1.02, -0.01), geom.Vec3{}},
	{"LHipJoint", "Hips", geom.V(0, 0.95, 0), geom.V(0.09, 0.90, 0), geom.Vec3{}},
	{"LeftUpLeg", "LHipJoint", geom.V(0.09, 0.90, 0), geom.V(0.105, 0.50, 0.01), geom.Vec3{}},
	{"LeftLeg", "LeftUpLeg", geom.V(0.105, 0.50, 0.01), geom.V(0.12, 0.09, -0.015), geom.V(1, 0, 0)},
	{"LeftFoot", "LeftLeg", geom.V(0.12, 0.09, -0.015), geom.V(0.13, 0.025, 0.12), geom.Vec3{}},
	{"LeftToeBase", "LeftFoot", geom.V(0.13, 0.025, 0.12), geom.V(0.135, 0.02, 0.19), geom.Vec3{}},
	{"LowerBack", "Hips", geom.V(0, 1.02, -0.01), geom.V(0, 1.12, -0.02), geom.Vec3{}},
	{"Spine", "LowerBack", geom.V(0, 1.12, -0.02), geom.V(0, 1.24, -0.02), geom.Vec3{}},
	{"Spine1", "Spine", geom.V(0, 1.24, -0.02), geom.V(0, 1.42, -0.03), geom.Vec3{}},
	{"Neck", "Spine1", geom.V(0, 1.42, -0.03), geom.V(0, 1.51, -0.015), geom.Vec3{}},
	{"Neck1", "Neck", geom.V(0, 1.51, -0.015), geom.V(0, 1.58, 0), geom.Vec3{}},
	{"Head", "Neck1", geom.V(0, 1.58, 0), geom.V(0, 1.75, 0.01), geom.Vec3{}},
	{"LeftShoulder", "Spine1", geom.V(0.02, 1.41, -0.03), geom.V(0.18, 1.40, -0.03), geom.Vec3{}},
	{"LeftArm", "LeftShoulder", geom.V(0.18, 1.40, -0.03), geom.V(0.46, 1.40, -0.03), geom.Vec3{}},
	{"LeftForeArm", "LeftArm", geom.V(0.46, 1.40, -0.03), geom.V(0.715, 1.40, -0.03), geom.V(0, -1, 0)},
	{"LeftHand", "LeftForeArm", geom.V(0.715, 1.40, -0.03), geom.V(0.88, 1.40, -0.03), geom.Vec3{}},
}

// mirrorName maps a left-side joint name to its right-side twin; centre
// names are returned unchanged.
func mirrorName(n string) string {
	switch {
	case strings.HasPrefix(n, "Left"):
		return "Right" + n[4:]
	case n == "LHipJoint":
		return "RHipJoint"
	}
	return n
}

func isLeft(n string) bool { return strings.HasPrefix(n, "Left") || n == "LHipJoint" }

func mirrorX(v geom.Vec3) geom.Vec3 { return geom.V(-v.X, v.Y, v.Z) }

// buildSkeleton returns the T-pose skeleton scaled by s.
func buildSkeleton(s float64) (*skel.Skeleton, error) { return skeletonOf(refBones, s) }

// skeletonOf returns the skeleton of the left-side and centre bones defs
// (mirrored to the right) scaled by s.
func skeletonOf(defs []boneDef, s float64) (*skel.Skeleton, error) {
	var bones []skel.Bone
	hinge := map[string]geom.Vec3{}
	add := func(b boneDef, mirror bool) {
		name, parent, h, t, ax := b.name, b.parent, b.head.Scale(s), b.tail.Scale(s), b.hinge
		if mirror {
			name, parent, h, t = mirrorName(name), mirrorName(parent), mirrorX(h), mirrorX(t)
			ax = geom.V(ax.X, -ax.Y, -ax.Z) // mirrored rotations: axial vector reflects
		}
		kind := skel.Ball
		if ax != (geom.Vec3{}) {
			kind = skel.Hinge
			hinge[name] = ax
		}
		bones = append(bones, skel.Bone{Name: name, Parent: parent, Head: h, Tail: t, Kind: kind})
	}
	for _, b := range defs {
		add(b, false)
		if isLeft(b.name) {
			add(b, true)
		}
	}
	sk, err := skel.FromBones(bones)
	if err != nil {
		return nil, err
	}
	// Express each hinge axis in its joint's rest frame.
	rw := sk.RestWorld()
	js := sk.Joints()
	for j := range js {
		if ax, ok := hinge[js[j].Name]; ok {
			js[j].Axis = rw[j].R.Conj().Rotate(ax)
		}
	}
	return skel.NewSkeleton(js)
}

// primKind selects a primitive's distance function.
type primKind uint8

const (
	primCone      primKind = iota // round cone (tapered capsule) a→b, radii ra, rb
	primEllipsoid                 // axis-aligned ellipsoid at c with radii r
	primTorso                     // elliptic sweep along +Y (see torsoKeys)
)

// prim is one primitive of the implicit body. Its weight goes to joints;
// with several joints the weight is split along axis by piecewise-linear
// hats over knots (one knot per joint, increasing).
type prim struct {
	kind   primKind
	a, b   geom.Vec3 // cone ends
	ra, rb float64   // cone radii
	c, r   geom.Vec3 // ellipsoid centre and radii
	floor  bool      // clip to y ≥ 0 (flat sole)
	joints []int
	axis   geom.Vec3
	knots  []float64
	// bounding sphere, for culling
	bc geom.Vec3
	br float64
}

// torsoKey is one cross-section of the torso sweep at height y: an ellipse
// with half-width a (x), half-depth b (z) centred at z = c.
type torsoKey struct{ y, a, b, c float64 }

// torsoKeys are the reference torso cross-sections; below the first and
// above the last key the ellipse shrinks to a point over torsoCap* metres.
var torsoKeys = []torsoKey{
	{0.86, 0.150, 0.105, -0.010},
	{0.93, 0.168, 0.115, -0.015},
	{1.00, 0.160, 0.105, -0.010},
	{1.07, 0.145, 0.098, -0.005},
	{1.18, 0.155, 0.106, 0.005},
	{1.27, 0.163, 0.110, 0.005},
	{1.35, 0.163, 0.100, -0.008},
	{1.42, 0.140, 0.075, -0.025},
}

const (
	torsoCapLo = 0.08 // bottom cap height (m, reference scale)
	torsoCapHi = 0.06 // top cap height
	blendK     = 0.025
)

// shape is the implicit reference body scaled to a height.
type shape struct {
	s     float64 // scale = height / refHeight
	prims []prim
	keys  []torsoKey
	sk    *skel.Skeleton
	joint map[string]geom.Vec3 // rest joint positions
	k     float64              // smooth-union radius
	tau   float64              // weight softness
}

func newShape(height float64) (*shape, error) {
	s := height / refHeight
	sk, err := buildSkeleton(s)
	if err != nil {
		return nil, err
	}
	sh := &shape{s: s, sk: sk, joint: map[string]geom.Vec3{}, k: blendK * s, tau: 0.012 * s}
	for j, r := range sk.RestWorld() {
		sh.joint[sk.Joint(j).Name] = r.T
	}
	for _, k := range torsoKeys {
		sh.keys = append(sh.keys, torsoKey{k.y * s, k.a * s, k.b * s, k.c * s})
	}
	J := func(names ...string) []int {
		out := make([]int, len(names))
		for i, n := range names {
			out[i], _ = sk.Index(n)
		}
		return out
	}
	V := func(x, y, z float64) geom.Vec3 { return geom.V(x, y, z).Scale(s) }
	cone := func(a, b geom.Vec3, ra, rb float64, j []int) prim {
		return prim{kind: primCone, a: a, b: b, ra: ra * s, rb: rb * s, joints: j}
	}
	ell := func(c, r geom.Vec3, j []int) prim {
		return prim{kind: primEllipsoid, c: c, r: r, joints: j}
	}
	split := func(p prim, axis geom.Vec3, knots ...float64) prim {
		p.axis = axis
		for _, k := range knots {
			p.knots = append(p.knots, k*s)
		}
		return p
	}
	Y, Z := geom.V(0, 1, 0), geom.V(0, 0, 1)
	centre := []prim{
		split(prim{kind: primTorso, joints: J("Hips", "LowerBack", "Spine", "Spine1")}, Y, 0.96, 1.06, 1.17, 1.30),
		split(cone(V(0, 1.40, -0.03), V(0, 1.58, -0.005), 0.056, 0.05, J("Neck", "Neck1")), Y, 1.48, 1.54),
		ell(V(0, 1.645, 0.015), V(0.077, 0.105, 0.097), J("Head")),
		ell(V(0, 1.583, 0.045), V(0.052, 0.04, 0.05), J("Head")),
		ell(V(0, 1.632, 0.108), V(0.013, 0.024, 0.02), J("Head")),
	}
	left := []prim{
		cone(V(0.09, 0.90, 0), V(0.105, 0.50, 0.01), 0.082, 0.052, J("LeftUpLeg")),
		cone(V(0.105, 0.50, 0.01), V(0.12, 0.09, -0.015), 0.05, 0.034, J("LeftLeg")),
		ell(V(0.108, 0.36, -0.02), V(0.048, 0.11, 0.05), J("LeftLeg")),
		split(func() prim {
			p := ell(V(0.125, 0.035, 0.055), V(0.045, 0.05, 0.125), J("LeftFoot", "LeftToeBase"))
			p.floor = true
			return p
		}(), Z, 0.09, 0.14),
		cone(V(0.04, 1.43, -0.03), V(0.17, 1.415, -0.03), 0.05, 0.042, J("LeftShoulder")),
		ell(V(0.19, 1.405, -0.03), V(0.07, 0.055, 0.055), J("LeftArm")),
		cone(V(0.18, 1.40, -0.03), V(0.46, 1.40, -0.03), 0.047, 0.036, J("LeftArm")),
		cone(V(0.46, 1.40, -0.03), V(0.715, 1.40, -0.03), 0.035, 0.026, J("LeftForeArm")),
		ell(V(0.53, 1.40, -0.03), V(0.09, 0.036, 0.041), J("LeftForeArm")),
		ell(V(0.80, 1.397, -0.03), V(0.095, 0.024, 0.047), J("LeftHand")),
		ell(V(0.755, 1.392, 0.015), V(0.045, 0.016, 0.018), J("LeftHand")),
	}
	sh.prims = append(sh.prims, centre...)
	for _, p := range left {
		sh.prims = append(sh.prims, p)
		q := p
		q.a, q.b, q.c = mirrorX(p.a), mirrorX(p.b), mirrorX(p.c)
		q.joints = make([]int, len(p.joints))
		for i, j := range p.joints {
			q.joints[i], _ = sk.Index(mirrorName(sk.Joint(j).Name))
		}
		sh.prims = append(sh.prims, q)
	}
	for i := range sh.prims {
		sh.prims[i].bound(sh)
	}
	return sh, nil
}

// bound sets the primitive's bounding sphere.
func (p *prim) bound(sh *shape) {
	switch p.kind {
	case primCone:
		p.bc = p.a.Add(p.b).Scale(0.5)
		p.br = p.a.Dist(p.b)/2 + math.Max(p.ra, p.rb)
	case primEllipsoid:
		p.bc = p.c
		p.br = math.Max(p.r.X, math.Max(p.r.Y, p.r.Z))
	case primTorso:
		lo, hi := sh.keys[0].y-torsoCapLo*sh.s, sh.keys[len(sh.keys)-1].y+torsoCapHi*sh.s
		p.bc = geom.V(0, (lo+hi)/2, 0)
		p.br = (hi - lo) / 2 * 1.2
	}
}

// dist returns the primitive's (approximate) signed distance at q in metres,
// negative inside.
func (p *prim) dist(sh *shape, q geom.Vec3) float64 {
	var d float64
	switch p.kind {
	case primCone:
		d = roundCone(q, p.a, p.b, p.ra, p.rb)
	case primEllipsoid:
		d = ellipsoid(q.Sub(p.c), p.r)
	case primTorso:
		d = sh.torsoDist(q)
	}
	if p.floor {
		d = smax(d, -q.Y, 0.01*sh.s)
	}
	return d
}

// roundCone is the exact distance to a round cone (a capsule whose radius
// tapers linearly from ra at a to rb at b), after Inigo Quilez,
// https://iquilezles.org/articles/distfunctions/.
func roundCone(p, a, b geom.Vec3, r1, r2 float64) float64 {
	ba := b.Sub(a)
	l2 := ba.Dot(ba)
	rr := r1 - r2
	a2 := l2 - rr*rr
	il2 := 1 / l2
	pa := p.Sub(a)
	y := pa.Dot(ba)
	z := y - l2
	x2 := pa.Scale(l2).Sub(ba.Scale(y)).Len2()
	y2 := y * y * l2
	z2 := z * z * l2
	k := math.Copysign(1, rr) * rr * rr * x2
	if math.Copysign(1, z)*a2*z2 > k {
		return math.Sqrt(x2+z2)*il2 - r2
	}
	if math.Copysign(1, y)*a2*y2 < k {
		return math.Sqrt(x2+y2)*il2 - r1
	}
	return (math.Sqrt(x2*a2*il2)+y*rr)*il2 - r1
}

// ellipsoid is Quilez's first-order distance estimate k0(k0−1)/k1 to an
// axis-aligned ellipsoid with radii r centred at the origin (exact on the
// surface, a fair bound near it).
func ellipsoid(p, r geom.Vec3) float64 {
	k0 := geom.V(p.X/r.X, p.Y/r.Y, p.Z/r.Z).Len()
	k1 := geom.V(p.X/(r.X*r.X), p.Y/(r.Y*r.Y), p.Z/(r.Z*r.Z)).Len()
	if k1 == 0 {
		return -math.Min(r.X, math.Min(r.Y, r.Z))
	}
	return k0 * (k0 - 1) / k1
}

// ellipse2 is the 2D version of ellipsoid.
func ellipse2(x, z, a, b float64) float64 {
	k0 := math.Hypot(x/a, z/b)
	k1 := math.Hypot(x/(a*a), z/(b*b))
	if k1 == 0 {
		return -math.Min(a, b)
	}
	return k0 * (k0 - 1) / k1
}

// smin is the polynomial smooth minimum of radius k (Quilez): equal to
// min(a, b) when |a−b| ≥ k, and at most k/4 below it.
func smin(a, b, k float64) float64 {
	h := math.Max(k-math.Abs(a-b), 0) / k
	return math.Min(a, b) - h*h*k/4
}

func smax(a, b, k float64) float64 { return -smin(-a, -b, k) }

// torsoSection returns the torso ellipse (a, b, c) at height y and the cap
// scale factor in [0, 1]; y is clamped to the sweep's range, whose end
// heights are returned as lo, hi.
func (sh *shape) torsoSection(y float64) (a, b, c, scale float64) {
	ks := sh.keys
	lo, hi := ks[0].y, ks[len(ks)-1].y
	scale = 1
	switch {
	case y <= lo:
		t := math.Min((lo-y)/(torsoCapLo*sh.s), 1)
		scale = math.Sqrt(math.Max(1-t*t, 0))
		return ks[0].a, ks[0].b, ks[0].c, scale
	case y >= hi:
		t := math.Min((y-hi)/(torsoCapHi*sh.s), 1)
		scale = math.Sqrt(math.Max(1-t*t, 0))
		return ks[len(ks)-1].a, ks[len(ks)-1].b, ks[len(ks)-1].c, scale
	}
	i := 0
	for i+2 < len(ks) && ks[i+1].y < y {
		i++
	}
	k0, k1 := ks[i], ks[i+1]
	h := k1.y - k0.y
	t := (y - k0.y) / h
	slope := func(k int, f func(torsoKey) float64) float64 {
		switch {
		case k == 0:
			return (f(ks[1]) - f(ks[0])) / (ks[1].y - ks[0].y)
		case k == len(ks)-1:
			return (f(ks[k]) - f(ks[k-1])) / (ks[k].y - ks[k-1].y)
		}
		return (f(ks[k+1]) - f(ks[k-1])) / (ks[k+1].y - ks[k-1].y)
	}
	herm := func(f func(torsoKey) float64) float64 {
		t2, t3 := t*t, t*t*t
		return (2*t3-3*t2+1)*f(k0) + (t3-2*t2+t)*h*slope(i, f) + (-2*t3+3*t2)*f(k1) + (t3-t2)*h*slope(i+1, f)
	}
	a = herm(func(k torsoKey) float64 { return k.a })
	b = herm(func(k torsoKey) float64 { return k.b })
	c = herm(func(k torsoKey) float64 { return k.c })
	return a, b, c, scale
}

// torsoDist is the distance estimate to the torso sweep.
func (sh *shape) torsoDist(p geom.Vec3) float64 {
	ks := sh.keys
	lo, hi := ks[0].y-torsoCapLo*sh.s, ks[len(ks)-1].y+torsoCapHi*sh.s
	yc := math.Min(math.Max(p.Y, lo), hi)
	a, b, c, sc := sh.torsoSection(yc)
	const minScale = 1e-3
	sc = math.Max(sc, minScale)
	d := ellipse2(p.X, p.Z-c, a*sc, b*sc)
	if dy := p.Y - yc; dy != 0 {
		return math.Hypot(math.Max(d, 0), dy)
	}
	return d
}

// eval returns the implicit body function at p: an approximate signed
// distance in metres, negative inside.
func (sh *shape) eval(p geom.Vec3) float64 { return sh.evalCap(p, math.Inf(1)) }

// evalCap is eval where primitives whose bounding sphere is farther than
// limit are skipped: the result is exact where eval < limit − k and at
// least limit − 5k/4 elsewhere (so its sign is right for limit > 2k).
func (sh *shape) evalCap(p geom.Vec3, limit float64) float64 {
	d := math.Inf(1)
	for i := range sh.prims {
		pr := &sh.prims[i]
		if lb := p.Dist(pr.bc) - pr.br - 0.02*sh.s; lb > limit || lb > d+sh.k {
			continue
		}
		d = smin(d, pr.dist(sh, p), sh.k)
	}
	if d > limit {
		return limit
	}
	return d
}

// grad returns the central-difference gradient of eval at p.
func (sh *shape) grad(p geom.Vec3) geom.Vec3 {
	const e = 1e-4
	return geom.V(
		sh.eval(p.Add(geom.V(e, 0, 0)))-sh.eval(p.Sub(geom.V(e, 0, 0))),
		sh.eval(p.Add(geom.V(0, e, 0)))-sh.eval(p.Sub(geom.V(0, e, 0))),
		sh.eval(p.Add(geom.V(0, 0, e)))-sh.eval(p.Sub(geom.V(0, 0, e))),
	).Scale(1 / (2 * e))
}

// maxInfluences is the number of joints kept per vertex.
const maxInfluences = 4

// weightsAt returns the skinning influences at p (body or garment point):
// each primitive gets exp(−(dᵢ−d_min)/τ) of its distance dᵢ, shared among
// its joints by the hat functions along its split axis; the four largest
// joint sums are kept and normalised. Points between primitives (joints,
// the smooth unions) therefore blend smoothly over a few τ.
func (sh *shape) weightsAt(p geom.Vec3, acc []float64, dst []skel.Influence) []skel.Influence {
	for i := range acc {
		acc[i] = 0
	}
	ds := make([]float64, len(sh.prims)) // small; escapes nothing
	dmin := math.Inf(1)
	for i := range sh.prims {
		ds[i] = sh.prims[i].dist(sh, p)
		dmin = math.Min(dmin, ds[i])
	}
	for i := range sh.prims {
		x := (ds[i] - dmin) / sh.tau
		if x > 8 {
			continue
		}
		w := math.Exp(-x)
		pr := &sh.prims[i]
		if len(pr.joints) == 1 {
			acc[pr.joints[0]] += w
			continue
		}
		t := p.Dot(pr.axis)
		for k, j := range pr.joints {
			acc[j] += w * hat(pr.knots, k, t)
		}
	}
	dst = dst[:0]
	for range maxInfluences {
		best, bj := 0.0, -1
		for j, w := range acc {
			if w > best {
				best, bj = w, j
			}
		}
		if bj < 0 || best < 1e-3 {
			break
		}
		dst = append(dst, skel.Influence{Joint: int32(bj), W: float32(best)})
		acc[bj] = 0
	}
	sum := 0.0
	for _, in := range dst {
		sum += float64(in.W)
	}
	for i := range dst {
		dst[i].W = float32(float64(dst[i].W) / sum)
	}
	return dst
}

// hat returns the k-th piecewise-linear partition-of-unity weight over the
// increasing knots at t (smoothstepped, so the sum stays 1 and the blend is
// C¹); the first and last hats extend as 1 beyond the end knots.
func hat(knots []float64, k int, t float64) float64 {
	n := len(knots)
	switch {
	case t <= knots[0]:
		return b2f(k == 0)
	case t >= knots[n-1]:
		return b2f(k == n-1)
	}
	i := 0
	for knots[i+1] < t {
		i++
	}
	u := smoothstep((t - knots[i]) / (knots[i+1] - knots[i]))
	switch k {
	case i:
		return 1 - u
	case i + 1:
		return u
	}
	return 0
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// smoothstep is 3t²−2t³ on [0, 1], clamped outside.
func smoothstep(t float64) float64 {
	t = math.Min(math.Max(t, 0), 1)
	return t * t * (3 - 2*t)
}

// weights returns the skin weights of points pts.
func (sh *shape) weights(pts []geom.Vec3) skel.Weights {
	lists := make([][]skel.Influence, len(pts))
	acc := make([]float64, sh.sk.NumJoints())
	var tmp []skel.Influence
	for i, p := range pts {
		tmp = sh.weightsAt(p, acc, tmp)
		lists[i] = append([]skel.Influence(nil), tmp...)
	}
	return skel.NewWeights(lists)
}
