package build

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/wrinkle"
)

// TestFineStagePart builds the elbow spec with the fine stage on the left
// elbow's part of the suit (the default) and on the whole suit: the
// samples agree where the elbow's influence map reaches (the only
// vertices synthesis reads), and the header says which fine stage ran.
func TestFineStagePart(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3 samples twice")
	}
	part, sum := buildCoarse(t, t.TempDir(), coarseOptions(2, 0, 1))
	opt := coarseOptions(2, 0, 1)
	opt.FullFineStage = true
	whole, _ := buildCoarse(t, t.TempDir(), opt)
	dbs := make([]*wrinkle.DB, 2)
	for k, data := range [][]byte{part, whole} {
		var err error
		if dbs[k], err = wrinkle.Read(bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range sum.Samples {
		if r.CoarseSteps == 0 || r.Stats.Steps == 0 {
			t.Errorf("sample %d: %d coarse and %d fine frames, want both", r.Sample.Index, r.CoarseSteps, r.Stats.Steps)
		}
	}
	for i := range dbs[0].Samples {
		xp, err := dbs[0].Stored(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		xw, err := dbs[1].Stored(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		role := dbs[0].Samples[i].Role
		var wsum, wd float64
		for _, v := range dbs[0].StoredVerts(role) {
			rs, ws := dbs[0].Regions.Influences(int(v))
			for k, rr := range rs {
				if rr == role {
					wsum += float64(ws[k])
					wd += float64(ws[k]) * xp[v].Dist(xw[v])
				}
			}
		}
		// A few millimetres: the two settles end in nearby rest states,
		// as two settles from slightly different starts do.
		if mean := wd / wsum; !(mean < 0.004) {
			t.Errorf("sample %d: the part's settle is %.2f mm from the whole garment's, weighted by the elbow's influence", i, mean*1000)
		} else {
			t.Logf("sample %d: %.2f mm from the whole garment's settle, weighted by the elbow's influence", i, mean*1000)
		}
	}
	for k, want := range []bool{true, false} {
		var rec struct {
			Start string `json:"start"`
		}
		if err := json.Unmarshal(dbs[k].Header.Settings, &rec); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(rec.Start, "only on the vertices the sample's role stores"); got != want {
			t.Errorf("database %d: start %q: records the part's fine stage %v, want %v", k, rec.Start, got, want)
		}
	}
}
