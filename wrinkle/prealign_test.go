package wrinkle

import (
	"bytes"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// TestPrealignMatchesDefinition checks Prealign.Apply, which moves each
// role's wrinkle mesh by the transfer's offsets of the blended mesh less
// the down-sampled differences (T is affine), against the definition
// x = Σ_J w_J (g_J + T(g_J)) with a whole transfer per role, and that
// frames are bit-identical for any worker count and allocate nothing.
func TestPrealignMatchesDefinition(t *testing.T) {
	f := getFixture(t)
	db, err := Read(bytes.NewReader(oneMachine(t)))
	must(t, err)
	fine := &mesh.Mesh{Verts: db.Rest, Tris: db.Tris}
	c, err := NewCoarse(fine, db.Weights, CoarseOptions{Verts: 200})
	must(t, err)
	pose := walkPoses(f.rig, 4)[3]
	s, err := NewSynthesizer(db, f.rig, SynthOptions{Workers: 1})
	must(t, err)
	defer s.Close()
	x := make([]geom.Vec3, len(db.Rest))
	_, err = s.Synthesize(pose, x)
	must(t, err)
	coarse := make([]geom.Vec3, len(c.Mesh.Verts))
	for v, k := range c.Kept {
		coarse[v] = x[k].Add(geom.V(0.002*math.Sin(9*x[k].Y), -0.004, 0))
	}
	defer func(n int) { transferSerialBelow = n }(transferSerialBelow)
	var ref []geom.Vec3
	for _, workers := range []int{1, 2} {
		transferSerialBelow = 0 // chunks even on this small shirt
		tr, err := NewTransfer(fine, c.Mesh, c.FinePiece, c.VertPiece, TransferOptions{Workers: workers})
		must(t, err)
		a, err := NewPrealign(db, f.rig, tr)
		must(t, err)
		must(t, a.Synthesize(pose))
		got := make([]geom.Vec3, len(x))
		must(t, a.Apply(x, coarse, got))
		if n := testing.AllocsPerRun(3, func() { _ = a.Apply(x, coarse, got) }); n != 0 {
			t.Errorf("%d workers: Apply makes %v allocations", workers, n)
		}
		if ref != nil {
			for v := range got {
				if got[v] != ref[v] {
					t.Fatalf("%d workers: vertex %d at %v, with 1 worker %v", workers, v, got[v], ref[v])
				}
			}
			a.Close()
			tr.Close()
			continue
		}
		ref = got
		// The definition, one whole transfer per role.
		want := make([]geom.Vec3, len(x))
		up := make([]geom.Vec3, len(x))
		must(t, tr.Apply(x, coarse, want))
		acc := make([]geom.Vec3, len(x))
		blend := make([]bool, len(x))
		g := make([]geom.Vec3, len(x))
		for k := range a.roles {
			ar := &a.roles[k]
			copy(g, x)
			for _, v := range ar.verts {
				g[v] = ar.x[v]
			}
			tr.Offsets(g, coarse, up)
			for _, v := range ar.verts {
				rs, ws := db.Regions.Influences(int(v))
				w := 0.0
				for i, r := range rs {
					if r == ar.role {
						w = float64(ws[i])
					}
				}
				acc[v] = acc[v].Add(g[v].Add(up[v]).Scale(w))
				blend[v] = true
			}
		}
		worst, nb := 0.0, 0
		for v, b := range blend {
			if b {
				want[v] = acc[v]
				nb++
			}
			worst = math.Max(worst, got[v].Dist(want[v]))
		}
		t.Logf("%d roles, %d of %d vertices blended: largest difference from the definition %.3g m", len(a.roles), nb, len(x), worst)
		if nb == 0 || worst > 1e-12 {
			t.Errorf("%d blend vertices; largest difference from the definition %.3g m, want ≤ 1e-12", nb, worst)
		}
		a.Close()
		tr.Close()
	}
}
