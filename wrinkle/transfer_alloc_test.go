package wrinkle_test

import (
	"fmt"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/wrinkle"
)

// TestTransferAllocs checks the per-frame calls allocate nothing.
func TestTransferAllocs(t *testing.T) {
	fine := tube(0.05, 0.4, 60, 80)
	c := coarseOf(t, fine, 250)
	tr, err := wrinkle.NewTransfer(fine, c.Mesh, c.FinePiece, c.VertPiece, wrinkle.TransferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body := mesh.UVSphere(0.04, 30, 40)
	bp, err := wrinkle.NewBodyPush(body.Verts, body.Tris, len(fine.Verts), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]geom.Vec3, len(fine.Verts))
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Transfer.Apply", func() { _ = tr.Apply(fine.Verts, c.Mesh.Verts, dst) }},
		{"BodyPush.SetBody+Push", func() { _ = bp.SetBody(body.Verts); _, _ = bp.Push(dst) }},
	} {
		if n := testing.AllocsPerRun(5, tc.f); n != 0 {
			t.Errorf("%s: %v allocations per call", tc.name, n)
		}
	}
}

// BenchmarkTransfer times one frame's transfer (Eqs. 5–6 with 10
// smoothing steps) over fine mesh sizes, onto a 700-vertex coarse mesh.
func BenchmarkTransfer(b *testing.B) {
	for _, nv := range []int{40, 120} {
		fine := tube(0.05, 0.4, 4*nv, nv)
		c, err := wrinkle.NewCoarse(fine, oneJoint(len(fine.Verts)), wrinkle.CoarseOptions{Verts: 700})
		if err != nil {
			b.Fatal(err)
		}
		tr, err := wrinkle.NewTransfer(fine, c.Mesh, nil, nil, wrinkle.TransferOptions{})
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]geom.Vec3, len(fine.Verts))
		b.Run(fmt.Sprintf("verts=%d", len(fine.Verts)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = tr.Apply(fine.Verts, c.Mesh.Verts, dst)
			}
		})
	}
}
