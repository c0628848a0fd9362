package procedural

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Trousers sews full-length trousers onto b from two panels (front and
// back), each an inverted U: a hip piece from the crotch up to the
// waistband and two legs down to just above the ankles; the warp (pattern
// V) runs vertically.
//
// The leg rows are horizontal half rings around each leg from the inseam
// over the front (back) to the outer side seam, the hip rows half rings
// around the pelvis, blended from the crotch row (both legs' rings joined
// by a short crotch seam) into the pelvis rings over the lower hip rows;
// rows are resampled at equal arc length and the pattern U is the arc
// length from the centre line. Front and back share their vertices along
// the outer side seams, the inseams and the crotch seam; the boundaries
// are the waist and the two ankle hems. The surface is then fitted and
// skinned as in Shirt. The result is deterministic.
func Trousers(b *Body, opts GarmentOptions) (*Garment, error) {
	if err := checkGarmentOptions(opts); err != nil {
		return nil, err
	}
	clr := opts.Clearance
	if clr == 0 {
		clr = 0.006
	}
	const h0, n0 = 0.024, 1645 // default spacing and the count it gives at 1.75 m
	m, seams := spacedPanels(opts, h0*b.sh.s, n0, func(h float64) *panelGrid { return trouserPanels(b.sh, h, clr+opts.Ease) })
	return finish(b, "trousers", m, seams, clr, 3)
}

func trouserPanels(sh *shape, h, off float64) *panelGrid {
	s := sh.s
	hip, knee, ankle := sh.joint["LeftUpLeg"], sh.joint["LeftLeg"], sh.joint["LeftFoot"]
	yWaist := 1.03 * s
	yHem := ankle.Y + 0.02*s
	zHip := -0.01 * s

	// Crotch: lowest body point on the mid-plane, below the pelvis.
	yCrotch := 0.95*s - sh.extent(geom.V(0, 0.95*s, zHip), geom.V(0, -1, 0), 0.3*s)
	yC := yCrotch - off

	// Leg axis at height y (piecewise linear through hip, knee, ankle).
	axis := func(y float64) geom.Vec3 {
		if y >= knee.Y {
			return knee.Lerp(hip, (y-knee.Y)/(hip.Y-knee.Y))
		}
		return ankle.Lerp(knee, (y-ankle.Y)/(knee.Y-ankle.Y))
	}
	// Rays from a leg axis stay on the leg's own side of the mid-plane.
	legMax := func(o geom.Vec3) func(geom.Vec3) float64 {
		return func(d geom.Vec3) float64 {
			t := 0.25 * s
			if d.X < -1e-9 {
				t = math.Min(t, (o.X-0.003*s)/(-d.X))
			}
			return t
		}
	}
	hipMax := func(geom.Vec3) float64 { return 0.35 * s }

	_, legHalf := sh.ring(axis(yC), 1, -math.Pi/2, math.Pi/2, off, 8, legMax(axis(yC)))
	_, hipQuarter := sh.ring(geom.V(0, 0.93*s, zHip), 1, 0, math.Pi/2, off, 8, hipMax)
	nL := max(3, int(math.Round(legHalf/h)))
	nH := max(nL+1, int(math.Round(hipQuarter/h)))
	nG := nH - nL // crotch seam columns either side of the centre
	jC := max(2, int(math.Round((yC-yHem)/h)))
	nW := max(2, int(math.Round((yWaist-yC)/h)))
	nR := jC + nW
	blendRows := float64(nW) * 0.45

	g := newPanelGrid(-nH, nH, nR)
	g.hv = (yC - yHem) / float64(jC)
	g.has = func(_, i, j int) bool { return j >= jC || abs(i) >= nG }
	g.seam = func(i, j int) bool {
		ai := abs(i)
		return ai == nH || (j <= jC && ai == nG) || (j == jC && ai <= nG)
	}
	for p := range 2 {
		sigma := 1 - 2*float64(p)
		// Leg rows (and the crotch row jC).
		for j := 0; j <= jC; j++ {
			y := yHem + (yC-yHem)*float64(j)/float64(jC)
			o := axis(y)
			pts, _ := sh.ring(o, sigma, -math.Pi/2, math.Pi/2, off, nL, legMax(o))
			for k := 0; k <= nL; k++ {
				q := pts[k]
				g.set(p, nG+k, j, q)
				g.set(p, -nG-k, j, mirrorX(q))
			}
			// Crotch columns: a straight line between the inseams (only a
			// seam on row jC; elsewhere it measures the pattern gap).
			a, c := g.at(p, -nG, j), g.at(p, nG, j)
			for i := -nG + 1; i < nG; i++ {
				g.set(p, i, j, a.Lerp(c, float64(i+nG)/float64(2*nG)))
			}
		}
		// Hip rows, blended from the crotch row.
		for j := jC + 1; j <= nR; j++ {
			y := yC + (yWaist-yC)*float64(j-jC)/float64(nW)
			pts, _ := sh.ring(geom.V(0, y, zHip), sigma, -math.Pi/2, math.Pi/2, off, 2*nH, hipMax)
			w := smoothstep(float64(j-jC) / blendRows)
			for i := -nH; i <= nH; i++ {
				k := g.at(p, i, jC)
				k.Y = y
				g.set(p, i, j, k.Lerp(pts[i+nH], w))
			}
		}
	}
	return g
}
