package character

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// fitScales are the file units FitPlacement tries, in metres: metres,
// decimetres (MakeHuman), centimetres, millimetres and inches.
var fitScales = [...]float64{1, 0.1, 0.01, 0.001, 0.0254}

// Sample sizes of FitPlacement: the grid search scores each candidate on
// fitCoarse garment vertices, the exact candidates and the refinement on
// fitSamples.
const (
	fitSamples = 400
	fitCoarse  = 100
	fitGridY   = 0.02 // m, vertical grid step
	// fitGain is the factor by which a later stage of FitPlacement must
	// lower the mean distance to replace an earlier stage's placement.
	fitGain = 0.8
)

// sample returns at most n of pts, evenly strided (all of them when there
// are at most n).
func sample(pts []geom.Vec3, n int) []geom.Vec3 {
	if len(pts) <= n {
		return pts
	}
	out := make([]geom.Vec3, n)
	for i := range out {
		out[i] = pts[i*len(pts)/n]
	}
	return out
}

// fitInside is how far (m) a garment vertex may lie inside the body before
// fitScore counts it as FitClamp: garments are worn outside the skin, and
// without this a garment shrunk by a wrong unit hides inside a limb.
const fitInside = 0.005

// fitScore returns the mean distance of the placed points to body's
// surface (bvh is its BVH), each clamped at FitClamp; a point more than
// fitInside below the surface (by the closest triangle's normal) counts
// as FitClamp.
func fitScore(bvh *mesh.BVH, body *mesh.Mesh, pts []geom.Vec3, pl Placement) float64 {
	if len(pts) == 0 {
		return math.Inf(1)
	}
	sum := 0.0
	for _, q := range pts {
		d := FitClamp
		p := pl.apply(q)
		if h, ok := bvh.ClosestPointWithin(p, FitClamp); ok {
			t := body.Tris[h.Tri]
			n := geom.TriangleNormal(body.Verts[t[0]], body.Verts[t[1]], body.Verts[t[2]])
			if p.Sub(h.Point).Dot(n) >= -fitInside*n.Len() {
				d = math.Sqrt(h.Dist2)
			}
		}
		sum += d
	}
	return sum / float64(len(pts))
}

// FitPlacement finds how a garment whose vertices are pts (file units,
// unknown frame) sits on body (metres), by the mean distance of its
// vertices to the body surface (each clamped at FitClamp): the smallest
// wins. It returns the placement and that mean distance.
//
// A vertex more than 5 mm inside the body counts as FitClamp: garments are
// worn outside the skin (without this, a garment shrunk by a wrong unit
// hides inside a limb).
//
// The file's coordinates as they are (metres, body frame) are taken when
// within FitAccept, and a later stage replaces an earlier one's placement
// only when it lowers the mean distance by a fifth. Otherwise each unit of fitScales that gives the garment
// a plausible size (at most 1.5 times the body's largest extent and at
// least a tenth of it) is tried with the offsets 0 and hints (known frames,
// such as the grounding shift of a MakeHuman body), and taken exactly when
// one of them is within FitAccept. Failing that, a vertical search (2 cm
// steps) is refined by a pattern search in all three axes down to 1 mm,
// at most 10 cm from the grid point: garments exported from a body that was
// grounded differently, or with the origin at the hips, are found that way.
// The garment is never moved sideways by more than those 10 cm.
func FitPlacement(body *mesh.Mesh, pts []geom.Vec3, hints []geom.Vec3) (Placement, float64) {
	bvh := mesh.NewBVH(body.Verts, body.Tris)
	fine := sample(pts, fitSamples)
	best := Placement{Scale: 1}
	bestD := fitScore(bvh, body, fine, best)
	if bestD <= FitAccept {
		return best, bestD
	}
	bb := geom.BoxOf(body.Verts)
	bsz := maxDim(bb.Size())
	gb := geom.BoxOf(pts)
	var scales []float64
	for _, s := range fitScales {
		if g := maxDim(gb.Size()) * s; g <= 1.5*bsz && g >= 0.1*bsz {
			scales = append(scales, s)
		}
	}
	// Each stage replaces the placement so far only when clearly better
	// (fitGain), so that a garment that is merely loose keeps its own
	// coordinates, and an exact candidate is not nudged by the search.
	exact, exactD := best, bestD
	for _, s := range scales {
		for _, h := range append([]geom.Vec3{{}}, hints...) {
			pl := Placement{Scale: s, Offset: h}
			if d := fitScore(bvh, body, fine, pl); d < exactD {
				exact, exactD = pl, d
			}
		}
	}
	if exactD < fitGain*bestD {
		best, bestD = exact, exactD
	}
	if bestD <= FitAccept {
		return best, bestD
	}
	coarse := sample(pts, fitCoarse)
	grid, gridD := best, math.Inf(1)
	for _, s := range scales {
		lo := bb.Min.Y - gb.Min.Y*s - 0.1
		hi := bb.Max.Y - gb.Max.Y*s + 0.1
		if lo > hi {
			lo, hi = (lo+hi)/2, (lo+hi)/2
		}
		for y := lo; y <= hi+1e-9; y += fitGridY {
			pl := Placement{Scale: s, Offset: geom.Vec3{Y: y}}
			if d := fitScore(bvh, body, coarse, pl); d < gridD {
				grid, gridD = pl, d
			}
		}
	}
	if math.IsInf(gridD, 1) {
		return best, bestD
	}
	// Pattern search on the offset from the best grid point.
	cur, curD := grid, fitScore(bvh, body, fine, grid)
	for step := 0.016; step >= 0.001; step /= 2 {
		for moved := true; moved; {
			moved = false
			for ax := range 3 {
				for _, sg := range [2]float64{-1, 1} {
					pl := cur
					switch ax {
					case 0:
						pl.Offset.X += sg * step
					case 1:
						pl.Offset.Y += sg * step
					default:
						pl.Offset.Z += sg * step
					}
					if pl.Offset.Sub(grid.Offset).Len() > 0.1 {
						continue
					}
					if d := fitScore(bvh, body, fine, pl); d < curD {
						cur, curD, moved = pl, d, true
					}
				}
			}
		}
	}
	if curD < fitGain*bestD {
		best, bestD = cur, curD
	}
	return best, bestD
}

func maxDim(v geom.Vec3) float64 { return math.Max(v.X, math.Max(v.Y, v.Z)) }
