package layers

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// catenaryGap returns the largest gap −C (m, ≥ 0) between a limb of radius
// r and the cloth hanging across it (Eq. 16), for cloth whose rest offset
// from the skin is d0: the catenary's scale a is chosen so that its arc
// between x = ±r, 2a·sinh(r/a), is the half circumference π(r+d0) of the
// garment's cross-section (the garment's own slack; Largeness scales the
// result). Eq. 13 puts the catenary through (±r, 0); its lowest point is
// a(1 − cosh(r/a)) below them, and C = a(1 − cosh(r/a)) + r (Eq. 16) is
// that depth measured from the bottom of the limb (y = −r, Eq. 12).
func catenaryGap(r, d0 float64) float64 {
	if !(r > 0) || math.IsInf(d0, 0) || math.IsNaN(d0) {
		return 0
	}
	// sinh(u)/u = s with u = r/a, s = π(r+d0)/(2r) ≥ π/2; bisection on u
	s := math.Pi * (r + max(d0, 0)) / (2 * r)
	lo, hi := 1e-9, 1.0
	for math.Sinh(hi)/hi < s && hi < 700 {
		hi *= 2
	}
	for range 60 {
		mid := (lo + hi) / 2
		if math.Sinh(mid)/mid < s {
			lo = mid
		} else {
			hi = mid
		}
	}
	u := (lo + hi) / 2
	a := r / u
	C := a*(1-math.Cosh(r/a)) + r // Eq. 16
	return max(0, -C)
}

// sphereDiameter is Eq. 15 with x/r = sin θ: P = −C(1 − sin²θ) = gap·cos²θ
// where the cloth's effective acceleration acc points out of the skin
// (cos θ = n·acc/|acc| > 0, the lower half of the limb's circle, Eq. 12's
// minus branch); where it points into the skin the cloth lies on it (0).
func sphereDiameter(gap float64, n, acc geom.Vec3) float64 {
	l := acc.Len()
	if l == 0 {
		return 0
	}
	c := n.Dot(acc) / l
	if c <= 0 {
		return 0
	}
	return gap * c * c
}

// looseLayer animates the loose vertices (§3.2).
type looseLayer struct {
	idx   []int32     // outfit vertex of each loose particle
	gap   []float64   // −C of Eq. 16 times Largeness
	inset []float64   // rest distance from the vertex to the sphere's tangent point (m)
	n0    []geom.Vec3 // rest direction from skin to vertex
	x, v  []geom.Vec3
	// per frame: skinned anchor (tight position), its normal, and the
	// anchor's last positions for the skin acceleration
	n        []geom.Vec3
	pm1, pm2 []geom.Vec3 // tight positions one and two frames back
	acc      []geom.Vec3 // smoothed skin acceleration
	centre   []geom.Vec3 // sphere centre at the last substep
	// cross bounds each sphere outside the tangent plane of another body
	// part (an index into the binding's cross list; −1 for none)
	cross  []int32
	bind   *surfaceBinding
	frames int
	damp   float64
	grav   geom.Vec3
}

// newLooseLayer sets up the loose particles. The sphere keeps the
// thickness to the skin, not the sag clearance: the particle moves
// within it, away from the bound point whose curvature that clearance
// assumes, and the face push keeps the skin out of its faces (a loose
// sphere pushed out by the clearance squeezed the shirt into the other
// parts: male kick vertex-frames > 2 mm inside 0.0223 -> 0.0242 %).
func newLooseLayer(c *Classification, opt Options) *looseLayer {
	l := &looseLayer{damp: opt.LooseDamping, grav: opt.Gravity}
	for v := range c.Loose {
		if c.Loose[v] > 0 && c.Float[v] < 1 {
			l.idx = append(l.idx, int32(v))
			l.gap = append(l.gap, opt.Largeness*catenaryGap(c.Radius[v], c.Dist[v]))
			l.inset = append(l.inset, max(0, c.Dist[v]-opt.Thickness))
			l.n0 = append(l.n0, c.Dir[v])
		}
	}
	k := len(l.idx)
	l.x, l.v, l.n = make([]geom.Vec3, k), make([]geom.Vec3, k), make([]geom.Vec3, k)
	l.pm1, l.pm2, l.acc = make([]geom.Vec3, k), make([]geom.Vec3, k), make([]geom.Vec3, k)
	l.centre = make([]geom.Vec3, k)
	return l
}

// bindCross gives each particle its cross binding, if any.
func (l *looseLayer) bindCross(sb *surfaceBinding) {
	l.bind = sb
	l.cross = make([]int32, len(l.idx))
	at := make(map[int32]int32, len(sb.cross))
	for k, cb := range sb.cross {
		if !cb.adj && !cb.self {
			at[cb.v] = int32(k)
		}
	}
	for i, v := range l.idx {
		l.cross[i] = -1
		if k, ok := at[v]; ok {
			l.cross[i] = k
		}
	}
}

// frame takes the frame's tight positions (all outfit vertices) and the
// skinned normals of the loose ones, and updates the skin accelerations
// (second differences over frames of length dt, exponentially smoothed).
func (l *looseLayer) frame(tight, normals []geom.Vec3, dt float64) {
	for i, v := range l.idx {
		p := tight[v]
		l.n[i] = normals[i]
		if l.frames == 0 {
			l.x[i], l.pm1[i], l.pm2[i] = p, p, p
		}
		if l.frames >= 2 {
			a := p.Sub(l.pm1[i].Scale(2)).Add(l.pm2[i]).Scale(1 / (dt * dt))
			l.acc[i] = l.acc[i].Lerp(a, 0.5)
		}
		l.pm2[i], l.pm1[i] = l.pm1[i], p
	}
	l.frames++
}

// reset forgets the skin's motion (after settling: the held pose had none).
func (l *looseLayer) still() {
	for i := range l.idx {
		l.pm2[i] = l.pm1[i]
		l.acc[i] = geom.Vec3{}
	}
}

// step advances the particles by h, with the anchors (tight positions)
// interpolated at fraction s of the frame between prev and cur.
func (l *looseLayer) step(prev, cur []geom.Vec3, s, h float64, first bool) {
	damp := 1 / (1 + h*l.damp)
	for i, v := range l.idx {
		n := l.n[i]
		anchor := prev[v].Lerp(cur[v], s)
		// OA: gravity minus the skin's acceleration (Fig. 12)
		d := sphereDiameter(l.gap[i], n, l.grav.Sub(l.acc[i]))
		// the sphere touches the skin-side point (skin + thickness) and
		// grows outwards along the normal
		c := anchor.AddScaled(d/2-l.inset[i], n)
		var cv geom.Vec3
		if !first {
			cv = c.Sub(l.centre[i]).Scale(1 / h)
		}
		l.centre[i] = c
		// rigid body (free particle) motion, damped relative to the sphere
		vel := l.v[i].AddScaled(h, l.grav)
		vel = cv.Add(vel.Sub(cv).Scale(damp))
		x := l.x[i].AddScaled(h, vel)
		// kinematic correction back into the sphere
		r := d / 2
		if k := l.cross[i]; k >= 0 {
			// the sphere lies outside the skin (§3.2: attached at the
			// skin, outside it); where another part (the torso, for a
			// sleeve) comes within its reach it shrinks to stay outside
			// that part's tangent plane too
			cb := &l.bind.cross[k]
			if c.Dist2(cb.p) <= (cb.reach+r)*(cb.reach+r) {
				r = min(r, max(0, c.Sub(cb.p).Dot(cb.n)-l.bind.thick))
			}
		}
		off := x.Sub(c)
		if dl := off.Len(); dl > r {
			u := n
			if dl > 1e-12 {
				u = off.Scale(1 / dl)
			}
			x = c.AddScaled(r, u)
			if vr := vel.Sub(cv).Dot(u); vr > 0 {
				vel = vel.AddScaled(-vr, u)
			}
		}
		l.x[i], l.v[i] = x, vel
	}
}
