package mesh

import (
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// RefitVerts after moving some vertices leaves every node box and the
// vertex copy exactly as a whole Refit of the same positions does.
func TestBVHRefitVerts(t *testing.T) {
	m := UVSphere(1, 14, 20)
	n := len(m.Verts)
	cases := []struct {
		name  string
		moved func(rnd *rand.Rand) []int32
	}{
		{"none", func(*rand.Rand) []int32 { return nil }},
		{"one", func(rnd *rand.Rand) []int32 { return []int32{int32(rnd.IntN(n))} }},
		{"a patch of 30 ids", func(rnd *rand.Rand) []int32 {
			v0 := rnd.IntN(n - 30)
			ids := make([]int32, 30)
			for k := range ids {
				ids[k] = int32(v0 + k)
			}
			return ids
		}},
		{"scattered, repeated", func(rnd *rand.Rand) []int32 {
			ids := make([]int32, 60)
			for k := range ids {
				ids[k] = int32(rnd.IntN(n))
			}
			return append(ids, ids[:10]...)
		}},
		{"all", func(*rand.Rand) []int32 {
			ids := make([]int32, n)
			for k := range ids {
				ids[k] = int32(k)
			}
			return ids
		}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rnd := rand.New(rand.NewPCG(7, uint64(ci)))
			part := NewBVH(m.Verts, m.Tris)
			whole := NewBVH(m.Verts, m.Tris)
			x := append([]geom.Vec3(nil), m.Verts...)
			for round := range 3 {
				ids := c.moved(rnd)
				for _, v := range ids {
					x[v] = x[v].Add(bvhRandVec(rnd, -0.3, 0.3))
				}
				part.RefitVerts(x, ids)
				whole.Refit(x)
				for j := range whole.nodes {
					if part.nodes[j] != whole.nodes[j] {
						t.Fatalf("round %d: node %d %+v, whole refit %+v", round, j, part.nodes[j], whole.nodes[j])
					}
				}
				for v := range x {
					if part.vx[v] != whole.vx[v] {
						t.Fatalf("round %d: vertex copy %d differs", round, v)
					}
				}
				bvhCheckTree(t, part)
			}
		})
	}
}

// RefitVerts refuses a vertex id out of range by panicking, as Refit does
// a wrong count.
func TestBVHRefitVertsRange(t *testing.T) {
	m := UVSphere(1, 6, 8)
	b := NewBVH(m.Verts, m.Tris)
	defer func() {
		if recover() == nil {
			t.Error("no panic for an out-of-range vertex")
		}
	}()
	b.RefitVerts(m.Verts, []int32{int32(len(m.Verts))})
}
