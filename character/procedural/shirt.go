package procedural

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Shirt sews a long-sleeved shirt onto b in its T-pose from two T-shaped
// panels (front and back), each a torso piece with a sleeve to either
// side; the warp (pattern V) runs vertically in both, so in the sleeves it
// goes round the arm, as in a kimono-sleeve pattern.
//
// Each panel is a structured grid in pattern space: the torso rows are
// horizontal half rings around the body at fixed heights from the hem up
// to the armpit, resampled at equal arc length; above the armpit a Coons
// patch carries the rows over the shoulder to the top seam; the sleeves
// are half tubes around the arm axis from the armpit seam over the front
// (back) to the top of the arm. The pattern U of a vertex is its arc
// length along its row from the centre line, so the flat panels are
// shaped like the body. Front and back share their vertices along the
// side seams, the under-sleeve seams and the shoulder/top-sleeve seams;
// the surface's only boundaries are the neck, the hem and the two cuffs.
// The sewn surface is then fitted: pushed out to the clearance from the
// body mesh and relaxed by a few Laplacian steps, each followed by a
// push-out. Skin weights are evaluated from the body's primitives at the
// garment vertices. The result is deterministic.
func Shirt(b *Body, opts GarmentOptions) (*Garment, error) {
	if err := checkGarmentOptions(opts); err != nil {
		return nil, err
	}
	clr := opts.Clearance
	if clr == 0 {
		clr = 0.012
	}
	const h0, n0 = 0.024, 1992 // default spacing and the count it gives at 1.75 m
	m, seams := spacedPanels(opts, h0*b.sh.s, n0, func(h float64) *panelGrid { return shirtPanels(b.sh, h, clr+opts.Ease) })
	return finish(b, "shirt", m, seams, clr, 3)
}

func shirtPanels(sh *shape, h, off float64) *panelGrid {
	s := sh.s
	arm := sh.joint["LeftArm"]
	wrist := sh.joint["LeftHand"]
	yArm, zArm := arm.Y, arm.Z
	yHem := 0.93 * s
	xCuff := wrist.X - 0.03*s

	// Sleeve radius profile R(x): the arm's envelope seen from its axis
	// towards the front, top and back, plus the offset.
	const dx = 0.005
	x0 := 0.12 * s
	nx := int((xCuff-x0)/(dx*s)) + 2
	rad := make([]float64, nx)
	for q := range rad {
		o := geom.V(x0+float64(q)*dx*s, yArm, zArm)
		r := 0.0
		for _, th := range []float64{0, math.Pi / 4, math.Pi / 2, 3 * math.Pi / 4, math.Pi} {
			st, ct := math.Sincos(th)
			r = math.Max(r, sh.extent(o, geom.V(0, st, ct), 0.15*s))
		}
		rad[q] = r
	}
	// Running max then average, so the sleeve tapers smoothly.
	rmax := make([]float64, nx)
	for q := range rad {
		for k := max(0, q-4); k <= min(nx-1, q+4); k++ {
			rmax[q] = math.Max(rmax[q], rad[k])
		}
	}
	rad = smooth1(rmax, 4)
	R := func(x float64) float64 {
		t := math.Min(math.Max((x-x0)/(dx*s), 0), float64(nx-1)-1e-9)
		q := int(t)
		return rad[q] + (rad[q+1]-rad[q])*(t-float64(q)) + off
	}

	// Armpit: the sleeve's root circle meets the torso side there.
	xRoot := 0.18 * s
	var yA float64
	for range 4 {
		yA = yArm - R(xRoot)
		xRoot = sh.extent(geom.V(0, yA, zArm), geom.V(1, 0, 0), 0.35*s) + off
	}
	r0 := R(xRoot)

	// Shoulder top line Ytop(x), 0 ≤ x ≤ xRoot, ending on top of the root circle.
	xNeck := 0.085 * s
	top := func(x float64) float64 {
		x = math.Max(x, xNeck)
		o := geom.V(x, yArm-0.05*s, zArm)
		return o.Y + sh.extent(o, geom.V(0, 1, 0), 0.2*s) + off
	}
	topEnd := top(xRoot)
	yTop := func(x float64) float64 {
		return top(x) + (yArm+r0-topEnd)*(x/xRoot)
	}

	// Grid sizes.
	_, quarter := sh.ring(geom.V(0, 1.2*s, zArm), 1, 0, math.Pi/2, off, 8, func(geom.Vec3) float64 { return 0.35 * s })
	nT := max(3, int(math.Round(quarter/h)))
	nS := max(2, int(math.Round((xCuff-xRoot)/h)))
	nA := max(3, int(math.Round(math.Pi*r0/h)))
	jA := max(2, int(math.Round((yA-yHem)/h)))
	nR := jA + nA
	nN := max(1, int(math.Round(float64(nT)*(0.075*s+off)/xRoot)))
	depth := [2]int{max(1, int(math.Round(0.075*s/h))), max(1, int(math.Round(0.02*s/h)))}

	g := newPanelGrid(-nT-nS, nT+nS, nR)
	g.hv = (yA - yHem) / float64(jA)
	g.has = func(p, i, j int) bool {
		ai := abs(i)
		if ai > nT && j < jA {
			return false
		}
		return !(ai < nN && j > nR-depth[p])
	}
	g.seam = func(i, j int) bool {
		ai := abs(i)
		return (j <= jA && ai == nT) || (j == jA && ai >= nT) || (j == nR && ai >= nN)
	}
	maxT := func(geom.Vec3) float64 { return 0.35 * s }
	for p := range 2 {
		sigma := 1 - 2*float64(p)
		// Torso rows.
		for j := 0; j <= jA; j++ {
			y := yHem + (yA-yHem)*float64(j)/float64(jA)
			pts, _ := sh.ring(geom.V(0, y, zArm), sigma, -math.Pi/2, math.Pi/2, off, 2*nT, maxT)
			for i := -nT; i <= nT; i++ {
				g.set(p, i, j, pts[i+nT])
			}
		}
		// Sleeves.
		sleeve := func(x float64, t float64) geom.Vec3 {
			r := R(x)
			st, ct := math.Sincos(-math.Pi/2 + math.Pi*t)
			return geom.V(x, yArm+r*st, zArm+sigma*r*ct)
		}
		for j := jA; j <= nR; j++ {
			t := float64(j-jA) / float64(nA)
			for i := nT; i <= nT+nS; i++ {
				x := xRoot + (xCuff-xRoot)*float64(i-nT)/float64(nS)
				q := sleeve(x, t)
				g.set(p, i, j, q)
				g.set(p, -i, j, mirrorX(q))
			}
		}
		// Upper torso: Coons patch between the armpit row (bottom), the
		// centre line (left), the sleeve root (right) and the shoulder
		// seam (top), per side.
		bot0 := g.at(p, 0, jA)
		top0 := geom.V(0, yTop(0), zArm)
		left := func(t float64) geom.Vec3 {
			sp, cp := math.Sincos(t * math.Pi / 2)
			return geom.V(0, bot0.Y+(top0.Y-bot0.Y)*sp, zArm+(bot0.Z-zArm)*cp)
		}
		for j := jA + 1; j <= nR; j++ {
			t := float64(j-jA) / float64(nA)
			for i := 0; i <= nT; i++ {
				u := float64(i) / float64(nT)
				bs := g.at(p, i, jA)
				bs.X = math.Abs(bs.X)
				b1 := g.at(p, nT, jA)
				b1.X = math.Abs(b1.X)
				ts := geom.V(u*xRoot, yTop(u*xRoot), zArm)
				t1 := geom.V(xRoot, yTop(xRoot), zArm)
				rt := sleeve(xRoot, t)
				q := left(t).Scale(1 - u).Add(rt.Scale(u)).
					Add(bs.Scale(1 - t)).Add(ts.Scale(t)).
					Sub(bot0.Scale((1 - u) * (1 - t))).Sub(b1.Scale(u * (1 - t))).
					Sub(top0.Scale((1 - u) * t)).Sub(t1.Scale(u * t))
				g.set(p, i, j, q)
				if i > 0 {
					g.set(p, -i, j, mirrorX(q))
				}
			}
		}
	}
	return g
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
