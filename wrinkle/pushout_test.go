package wrinkle

import (
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestBodyPushWorkers checks that Push in chunks gives bit-identical
// points and stats for any worker count, over frames (the hints carry
// over), with points inside, near and outside a sphere.
func TestBodyPushWorkers(t *testing.T) {
	body := mesh.UVSphere(0.1, 30, 40)
	rnd := rand.New(rand.NewPCG(1, 1))
	pts := make([]geom.Vec3, 3000)
	for i := range pts {
		d := geom.V(rnd.NormFloat64(), rnd.NormFloat64(), rnd.NormFloat64())
		pts[i] = d.Scale((0.09 + 0.04*rnd.Float64()) / d.Len())
	}
	moved := make([]geom.Vec3, len(body.Verts))
	defer func(n int) { transferSerialBelow = n }(transferSerialBelow)
	transferSerialBelow = 0
	var ref [][]geom.Vec3
	var refSt []PushStats
	for _, workers := range []int{1, 2, 3} {
		bp, err := NewBodyPush(body.Verts, body.Tris, len(pts), 0, 0)
		must(t, err)
		bp.Workers = workers
		for frame := 0; frame < 3; frame++ {
			for v, p := range body.Verts {
				moved[v] = p.Add(geom.V(0.01*float64(frame), 0, 0))
			}
			must(t, bp.SetBody(moved))
			x := append([]geom.Vec3(nil), pts...)
			st, err := bp.Push(x)
			must(t, err)
			if workers == 1 {
				if st.Pushed == 0 || st.Inside == 0 || st.Pushed == len(pts) {
					t.Fatalf("frame %d: %+v: want some points pushed, some not", frame, st)
				}
				ref, refSt = append(ref, x), append(refSt, st)
				continue
			}
			if st != refSt[frame] {
				t.Errorf("%d workers, frame %d: %+v, with 1 worker %+v", workers, frame, st, refSt[frame])
			}
			for i := range x {
				if x[i] != ref[frame][i] {
					t.Fatalf("%d workers, frame %d: point %d at %v, with 1 worker %v", workers, frame, i, x[i], ref[frame][i])
				}
			}
		}
		bp.Close()
	}
}
