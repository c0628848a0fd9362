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
// x = Σ_J w_J (g_J + T(g_J)) with a whole transfer per role (at blend
// vertices and at those of one blending role alone), and that
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
			// A vertex of this role alone: its one term, g = f there.
			for v := range x {
				if rs, _ := db.Regions.Influences(v); len(rs) == 1 && rs[0] == ar.role {
					acc[v] = g[v].Add(up[v])
					blend[v] = true
				}
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

// TestPrealignShare checks that a Prealign sharing the main Synthesizer
// (Share) gets each role's own mesh bit for bit as its own synthesizers
// make it, for any worker count, with the blended mesh unchanged, and that
// a synthesizer of a vertex subset is refused.
func TestPrealignShare(t *testing.T) {
	f := getFixture(t)
	db, err := Read(bytes.NewReader(oneMachine(t)))
	must(t, err)
	fine := &mesh.Mesh{Verts: db.Rest, Tris: db.Tris}
	c, err := NewCoarse(fine, db.Weights, CoarseOptions{Verts: 200})
	must(t, err)
	tr, err := NewTransfer(fine, c.Mesh, c.FinePiece, c.VertPiece, TransferOptions{Workers: 1})
	must(t, err)
	defer tr.Close()
	poses := walkPoses(f.rig, 4)
	own, err := NewPrealign(db, f.rig, tr)
	must(t, err)
	defer own.Close()
	plain, err := NewSynthesizer(db, f.rig, SynthOptions{Workers: 1})
	must(t, err)
	defer plain.Close()
	coarse := make([]geom.Vec3, len(c.Mesh.Verts))
	for _, workers := range []int{1, 3} {
		s, err := NewSynthesizer(db, f.rig, SynthOptions{Workers: workers})
		must(t, err)
		s.parallel = 1 // chunks even on this small shirt
		a, err := NewPrealign(db, f.rig, tr)
		must(t, err)
		must(t, a.Share(s))
		for k, p := range poses {
			want := make([]geom.Vec3, len(db.Rest))
			_, err := plain.Synthesize(p, want)
			must(t, err)
			must(t, own.Synthesize(p))
			got := make([]geom.Vec3, len(db.Rest))
			_, err = s.Synthesize(p, got)
			must(t, err)
			must(t, a.Synthesize(p)) // nothing to do
			for v := range got {
				if got[v] != want[v] {
					t.Fatalf("%d workers, pose %d: vertex %d at %v, without sharing %v", workers, k, v, got[v], want[v])
				}
			}
			for r := range a.roles {
				for i, v := range a.roles[r].verts {
					j := a.roles[r].slot[i]
					if a.g[j] != own.g[j] {
						t.Fatalf("%d workers, pose %d: role %s vertex %d at %v, own synthesizer %v",
							workers, k, a.roles[r].role, v, a.g[j], own.g[j])
					}
				}
			}
			for v, kk := range c.Kept {
				coarse[v] = got[kk].Add(geom.V(0, -0.003, 0))
			}
			d1, d2 := make([]geom.Vec3, len(got)), make([]geom.Vec3, len(got))
			must(t, a.Apply(got, coarse, d1))
			must(t, own.Apply(want, coarse, d2))
			for v := range d1 {
				if d1[v] != d2[v] {
					t.Fatalf("%d workers, pose %d: applied vertex %d at %v, without sharing %v", workers, k, v, d1[v], d2[v])
				}
			}
		}
		a.Close()
		s.Close()
	}
	sub, err := NewSynthesizer(db, f.rig, SynthOptions{Workers: 1, Verts: []int32{0, 1, 2}})
	must(t, err)
	defer sub.Close()
	a, err := NewPrealign(db, f.rig, tr)
	must(t, err)
	defer a.Close()
	if err := a.Share(sub); err == nil {
		t.Error("a synthesizer of 3 vertices accepted")
	}
}
