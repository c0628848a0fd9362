package build

import (
	"image/color"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestMarkDeep moves garment points off one vertex of the mannequin's
// body along its normal: only those more than 2 mm inside are drawn green
// and counted, and the deepest is reported with the joint of that skin.
func TestMarkDeep(t *testing.T) {
	ch := coarseScene(t).Character
	body := ch.Body.Verts
	nrm := mesh.VertexNormals(ch.Body, nil)
	// A vertex held by one joint alone, so that the skin around it is that
	// joint's whichever corner is closest.
	v := -1
	for i := range body {
		js, ws := ch.Weights.Influences(i)
		if len(js) == 1 && ws[0] == 1 && body[i].Y > 1 {
			v = i
			break
		}
	}
	if v < 0 {
		t.Fatal("no vertex with a single joint above 1 m")
	}
	want := ch.Skeleton.Joint(ch.Weights.Dominant(v)).Name
	offsets := []struct {
		d    float64 // m along the outward normal
		deep bool
	}{{-0.010, true}, {-0.004, true}, {-0.001, false}, {0.005, false}}
	garment := make([]geom.Vec3, len(offsets))
	heat := make([]color.NRGBA, len(offsets))
	for k, o := range offsets {
		garment[k] = body[v].AddScaled(o.d, nrm[v])
		heat[k] = color.NRGBA{R: 1, A: 255}
	}
	rep, err := markDeep(ch, body, garment, heat)
	if err != nil {
		t.Fatal(err)
	}
	for k, o := range offsets {
		if got := heat[k] == deepGreen; got != o.deep {
			t.Errorf("point %g mm along the normal: drawn deep %v, want %v", o.d*1000, got, o.deep)
		}
	}
	if rep.Verts != 2 || math.Abs(rep.MaxDepth-0.010) > 0.002 || rep.Joint != want {
		t.Errorf("report %+v, want 2 vertices, the deepest about 10 mm under %s", rep, want)
	}
	none, err := markDeep(ch, body, garment[2:], heat[2:])
	if err != nil || none != (DeepReport{}) {
		t.Errorf("points outside or shallow: report %+v, %v; want none", none, err)
	}
}
