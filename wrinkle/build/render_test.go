package build

import (
	"image/color"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
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
	// The garment points' own skinning: all on joint 0, the root.
	own := skel.Weights{Offsets: make([]int32, len(garment)+1)}
	for k := range garment {
		own.Joints = append(own.Joints, 0)
		own.W = append(own.W, 1)
		own.Offsets[k+1] = int32(k + 1)
	}
	rep, err := markDeep(ch, body, garment, own, heat)
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
	root := ch.Skeleton.Joint(0).Name
	if len(rep.Own) != 1 || rep.Own[0] != (JointCount{root, 2}) {
		t.Errorf("deep vertices by their own joint %+v, want 2 of %s", rep.Own, root)
	}
	none, err := markDeep(ch, body, garment[2:], skel.Weights{}, heat[2:])
	if err != nil || none.Verts != 0 || none.MaxDepth != 0 || none.Joint != "" || none.Own != nil {
		t.Errorf("points outside or shallow: report %+v, %v; want none", none, err)
	}
}
