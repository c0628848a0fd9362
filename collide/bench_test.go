package collide

import (
	"fmt"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// BenchmarkColliderSubstep times Begin+End of one substep (including the
// body's move and BVH refit) for a 25k-vertex garment wrapped
// (3 mm) around a moving 15k-vertex body (a closed cylinder): every vertex is in or near contact, the
// worst case of a tight garment.
func BenchmarkColliderSubstep(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			bm := cylinder(0.1, -0.7, 0.7, 150, 98) // 14852 vertices
			gm := tube(0.103, -0.6, 0.6, 200, 124)  // 25000 vertices
			body := mustBody(bm)
			next := make([]geom.Vec3, len(bm.Verts))
			for i, p := range bm.Verts {
				next[i] = p.Add(geom.V(0.01, 0.005, 0))
			}
			const dt = 1.0 / 30
			body.SetFrames(bm.Verts, next, 0, dt)
			c, err := cloth.NewCloth(gm, material(), cloth.Options{Workers: workers})
			if err != nil {
				b.Fatal(err)
			}
			col := NewCollider(body, Params{Workers: workers})
			h := dt / 4
			c.Hooks = append(c.Hooks, cloth.HookFuncs{BeginFunc: func(ctx *cloth.StepContext) error {
				t0 := ctx.Time
				b.ReportAllocs()
				b.ResetTimer()
				for k := 0; k < b.N; k++ {
					ctx.Time = float64(k%4) * h
					ctx.Dt = h
					if err := col.Begin(ctx); err != nil {
						return err
					}
					if err := col.End(ctx); err != nil {
						return err
					}
				}
				b.StopTimer()
				ctx.Time = t0
				return nil
			}})
			if _, err := c.Step(h); err != nil {
				b.Fatal(err)
			}
			s := col.Stats()
			b.ReportMetric(float64(s.Queried), "queried")
			b.ReportMetric(float64(s.Contacts), "contacts")
		})
	}
}

// BenchmarkBodyUpdate times moving a 15k-vertex body to a new time
// (interpolation and BVH refit), once per substep.
func BenchmarkBodyUpdate(b *testing.B) {
	bm := mesh.UVSphere(0.3, 100, 150)
	body := mustBody(bm)
	next := make([]geom.Vec3, len(bm.Verts))
	for i, p := range bm.Verts {
		next[i] = p.Add(geom.V(0.01, 0, 0))
	}
	body.SetFrames(bm.Verts, next, 0, 1)
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		body.Update(float64(k%8) / 8)
	}
}

// BenchmarkSignedDistance times one exact signed-distance query against a
// 15k-vertex body from points within 1 cm of it.
func BenchmarkSignedDistance(b *testing.B) {
	body := mustBody(mesh.UVSphere(0.3, 100, 150))
	pts := mesh.UVSphere(0.305, 50, 80).Verts
	b.ReportAllocs()
	sink := 0.0
	for k := 0; b.Loop(); k++ {
		sink += body.SignedDistance(pts[k%len(pts)]).Dist
	}
	_ = sink
}
