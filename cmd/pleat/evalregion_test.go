package main

import (
	"testing"

	"github.com/pleat-dev/pleat/wrinkle"
)

func TestRegionCurvRows(t *testing.T) {
	ev := &evalRun{}
	ev.regN[wrinkle.LeftHip] = 3
	ev.regN[wrinkle.RootRegion] = 3
	ref := []float64{1, 2, 4}
	series := [][]float64{
		ref,
		{2, 4, 8},    // synthesized+transfer: follows the reference
		{4, 2, 1},    // synthesized: against it
		{1, 1, 1},    // coarse: constant
		{1, 2, 4.01}, // skinning
	}
	for s, y := range series {
		for f := range y {
			sums := make([]float64, wrinkle.NumRoles+1)
			sums[wrinkle.LeftHip] = y[f]
			sums[wrinkle.RootRegion] = 0.5
			ev.addRegionCurv(s, sums)
		}
	}
	rows := regionCurvRows(ev)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want the two regions with vertices: %v", len(rows), rows)
	}
	want := []string{"left_hip", "2.333", "1.247", "1.00", "-0.93", "0.00", "1.00"}
	for i, w := range want {
		if rows[0][i] != w {
			t.Errorf("left_hip column %d (%s) = %q, want %q", i, regionCurvHeader(ev)[i], rows[0][i], w)
		}
	}
	if rows[1][0] != "root (no joint)" || rows[1][2] != "0.000" || rows[1][3] != "0.00" {
		t.Errorf("root row %v: want a constant region, std 0 and r 0", rows[1])
	}
	if h := regionCurvHeader(ev); len(h) != len(rows[0]) {
		t.Errorf("header %v has %d columns, rows %d", h, len(h), len(rows[0]))
	}
	if regionCurvRows(&evalRun{}) != nil {
		t.Error("rows without regions")
	}
}
