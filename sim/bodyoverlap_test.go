package sim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/scene"
)

// TestBodyOverlapMinEdge checks which pieces of the procedural suit at 4k
// vertices get a collide.BodyOverlap: every piece by default, the pieces
// whose median rest edge is at least Options.BodyOverlapMinEdge when it
// lies between their medians, none when it is above both; a negative,
// NaN or infinite bound is an error.
func TestBodyOverlapMinEdge(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 4000, End: 1})
	if err != nil {
		t.Fatal(err)
	}
	hooked := func(minEdge float64) []bool {
		t.Helper()
		sm, err := New(s.Character, s.Garments, Options{Workers: 1, BodyOverlapMinEdge: minEdge})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		var out []bool
		for _, c := range sm.cloths {
			out = append(out, slices.ContainsFunc(c.Hooks, func(h cloth.Hook) bool { _, ok := h.(*collide.BodyOverlap); return ok }))
		}
		return out
	}
	medians := func() []float64 {
		sm, err := New(s.Character, s.Garments, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		var out []float64
		for _, c := range sm.cloths {
			r := slices.Sorted(slices.Values(c.EdgeRest()))
			out = append(out, r[len(r)/2])
		}
		return out
	}()
	if len(medians) < 2 {
		t.Fatalf("%d pieces, want at least 2", len(medians))
	}
	lo, hi := slices.Min(medians), slices.Max(medians)
	if !(hi > lo) {
		t.Fatalf("the pieces' median edges are all %g m: no bound between them", lo)
	}
	mid := (lo + hi) / 2
	for _, tc := range []struct {
		minEdge float64
		want    func(median float64) bool
	}{
		{0, func(float64) bool { return true }},
		{mid, func(m float64) bool { return m >= mid }},
		{2 * hi, func(float64) bool { return false }},
	} {
		got := hooked(tc.minEdge)
		for i, m := range medians {
			if got[i] != tc.want(m) {
				t.Errorf("BodyOverlapMinEdge %.4f m: piece %d (median edge %.4f m) hooked %v, want %v", tc.minEdge, i, m, got[i], !got[i])
			}
		}
	}
	for _, bad := range []float64{-0.01, math.NaN(), math.Inf(1)} {
		_, err := New(s.Character, s.Garments, Options{Workers: 1, BodyOverlapMinEdge: bad})
		if err == nil || !strings.Contains(err.Error(), "body-overlap edge") {
			t.Errorf("BodyOverlapMinEdge %g: error %v, want one naming the body-overlap edge", bad, err)
		}
	}
}
