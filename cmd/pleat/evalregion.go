package main

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/metrics"
	"github.com/pleat-dev/pleat/wrinkle"
)

// curvMeter measures one mesh's curvature sum Σ|H|A per frame and, with
// regions, its split by garment region (wrinkle.Regions: a role, or
// wrinkle.RootRegion).
type curvMeter struct {
	c      *metrics.Curvature
	region []uint8 // per vertex; nil: no regions
	sums   []float64
}

func newCurvMeter(m *mesh.Mesh, region []uint8) (*curvMeter, error) {
	c, err := metrics.NewCurvature(m)
	if err != nil {
		return nil, err
	}
	return &curvMeter{c: c, region: region, sums: make([]float64, wrinkle.NumRoles+1)}, nil
}

// sum returns the curvature sum at positions x and, with regions, its
// parts by region (valid until the next call; nil without regions).
func (cm *curvMeter) sum(x []geom.Vec3) (float64, []float64, error) {
	if cm.region == nil {
		c, err := cm.c.Sum(x)
		return c, nil, err
	}
	c, err := cm.c.SumBy(x, cm.region, cm.sums)
	return c, cm.sums, err
}

// addRegionCurv appends one frame's curvature sums by region of series s
// (evalMethods, then diagMethods); nil sums (no regions) add nothing.
func (ev *evalRun) addRegionCurv(s int, sums []float64) {
	if sums == nil {
		return
	}
	for len(ev.regCurv) <= s {
		ev.regCurv = append(ev.regCurv, [wrinkle.NumRoles + 1][]float64{})
	}
	for r, c := range sums {
		ev.regCurv[s][r] = append(ev.regCurv[s][r], c)
	}
}

// addRegionErrors adds one frame's per-vertex errors of every method to
// ev.regErr by the vertices' regions.
func (ev *evalRun) addRegionErrors(region []uint8, ref []geom.Vec3, fines [][]geom.Vec3) {
	if ev.regErr == nil {
		ev.regErr = make([][wrinkle.NumRoles + 1]float64, len(fines))
	}
	for v, r := range region {
		ev.regN[r]++
		for m, xs := range fines {
			ev.regErr[m][r] += xs[v].Dist(ref[v])
		}
	}
}

// regionRows returns per garment region its vertices and each method's
// mean error (mm) against the reference.
func regionRows(ev *evalRun) [][]string {
	var rows [][]string
	for r := range ev.regN {
		if ev.regN[r] == 0 {
			continue
		}
		row := []string{regionName(r), fmt.Sprint(ev.regN[r] / max(1, len(ev.stats)))}
		for m := 1; m < len(ev.regErr); m++ {
			row = append(row, fmt.Sprintf("%.1f", 1000*ev.regErr[m][r]/float64(ev.regN[r])))
		}
		rows = append(rows, row)
	}
	return rows
}

func regionHeader(ev *evalRun) []string {
	h := []string{"region", "vertices"}
	for _, m := range evalMethods[1:] {
		h = append(h, m+" (mm)")
	}
	if len(ev.regErr) > len(evalMethods) {
		for _, m := range diagMethods {
			h = append(h, m+" (mm)")
		}
	}
	return h
}

// regionName names region r: a role, or the vertices no joint moves.
func regionName(r int) string {
	if r < int(wrinkle.NumRoles) {
		return wrinkle.Role(r).String()
	}
	return "root (no joint)"
}

// regionCurvRows returns per garment region the reference's curvature sum
// over the region (mean over frames and its standard deviation, m) and,
// per method and diagnostic result, the Pearson r of its sum over the
// region with the reference's frame by frame: which regions' wrinkles
// follow the reference's as the pose changes (the whole garment's r is
// evalRows').
func regionCurvRows(ev *evalRun) [][]string {
	if len(ev.regCurv) == 0 {
		return nil
	}
	var rows [][]string
	for r := range ev.regCurv[0] {
		ref := ev.regCurv[0][r]
		if ev.regN[r] == 0 || len(ref) == 0 {
			continue
		}
		m := meanOf(ref)
		v := 0.0
		for _, c := range ref {
			v += (c - m) * (c - m)
		}
		row := []string{regionName(r), fmt.Sprintf("%.3f", m), fmt.Sprintf("%.3f", math.Sqrt(v/float64(len(ref))))}
		for s := 1; s < len(ev.regCurv); s++ {
			row = append(row, fmt.Sprintf("%.2f", pearson(ev.regCurv[s][r], ref)))
		}
		rows = append(rows, row)
	}
	return rows
}

func regionCurvHeader(ev *evalRun) []string {
	h := []string{"region", "reference Σ|H|A (m)", "its std over frames (m)"}
	for s := 1; s < len(ev.regCurv); s++ {
		name := ""
		if s < len(evalMethods) {
			name = evalMethods[s]
		} else {
			name = diagMethods[s-len(evalMethods)]
		}
		h = append(h, name+" (r)")
	}
	return h
}
