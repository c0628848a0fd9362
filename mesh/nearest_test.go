package mesh

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/geom"
)

// nearBrute returns all vertices sorted by (Dist2, ID).
func nearBrute(verts []geom.Vec3, p geom.Vec3) []Neighbor {
	out := make([]Neighbor, len(verts))
	for i, v := range verts {
		out[i] = Neighbor{ID: int32(i), Dist2: v.Dist2(p)}
	}
	slices.SortFunc(out, func(a, b Neighbor) int {
		if c := cmp.Compare(a.Dist2, b.Dist2); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

func nearDists(ns []Neighbor) []float64 {
	d := make([]float64, len(ns))
	for i, n := range ns {
		d[i] = n.Dist2
	}
	return d
}

func TestVertexIndex(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	cloud := make([]geom.Vec3, 2000)
	for i := range cloud {
		cloud[i] = bvhRandVec(rnd, -1, 1)
	}
	for _, tc := range []struct {
		name  string
		verts []geom.Vec3
		// ties: equidistant vertices exist, so ids of k-nearest may differ
		// from the brute force order at the k-th place; compare distances.
		ties bool
	}{
		{"cloud", cloud, false},
		{"sphere", UVSphere(1, 20, 30).Verts, true},
		{"grid", Grid(1, 1, 20, 20).Verts, true},
		{"duplicates", append(slices.Clone(cloud[:50]), cloud[:50]...), true},
		{"single", cloud[:1], false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewVertexIndex(tc.verts)
			if x.Len() != len(tc.verts) {
				t.Fatalf("Len = %d", x.Len())
			}
			var buf []Neighbor
			for i := 0; i < 300; i++ {
				p := bvhRandVec(rnd, -1.2, 1.2)
				if i%3 == 0 { // exactly on a vertex
					p = tc.verts[rnd.IntN(len(tc.verts))]
				}
				all := nearBrute(tc.verts, p)
				id, d2 := x.Nearest(p)
				if d2 != all[0].Dist2 || tc.verts[id].Dist2(p) != d2 {
					t.Fatalf("p %v: Nearest %d %v, brute %v", p, id, d2, all[0])
				}
				for _, k := range []int{1, 4, 17} {
					buf = x.KNearest(buf, p, k)
					want := all[:min(k, len(all))]
					if tc.ties {
						if !slices.Equal(nearDists(buf), nearDists(want)) {
							t.Fatalf("p %v k %d: %v, want %v", p, k, buf, want)
						}
					} else if !slices.Equal(buf, want) {
						t.Fatalf("p %v k %d: %v, want %v", p, k, buf, want)
					}
				}
				r := 0.1 + 0.2*rnd.Float64()
				buf = x.Within(buf, p, r)
				n, _ := slices.BinarySearchFunc(all, r*r, func(a Neighbor, d float64) int {
					if a.Dist2 <= d {
						return -1
					}
					return 1
				})
				if !slices.Equal(buf, all[:n]) {
					t.Fatalf("p %v r %v: %d found, want %d", p, r, len(buf), n)
				}
			}
		})
	}
}

func TestVertexIndexEmpty(t *testing.T) {
	x := NewVertexIndex(nil)
	if id, d := x.Nearest(geom.V(0, 0, 0)); id != -1 || !math.IsInf(d, 1) {
		t.Errorf("Nearest = %d %v", id, d)
	}
	if got := x.KNearest(nil, geom.V(0, 0, 0), 3); len(got) != 0 {
		t.Errorf("KNearest = %v", got)
	}
	if got := x.Within(nil, geom.V(0, 0, 0), 1); len(got) != 0 {
		t.Errorf("Within = %v", got)
	}
}

func TestVertexIndexDeterministic(t *testing.T) {
	// Ties everywhere: the chosen vertex must not depend on the build.
	g := Grid(1, 1, 30, 30).Verts
	a, b := NewVertexIndex(g), NewVertexIndex(g)
	rnd := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 500; i++ {
		p := geom.V(float64(rnd.IntN(61))/60, float64(rnd.IntN(61))/60, 0)
		ia, _ := a.Nearest(p)
		ib, _ := b.Nearest(p)
		if ia != ib {
			t.Fatalf("p %v: %d vs %d", p, ia, ib)
		}
	}
}

func BenchmarkNearestVertex(b *testing.B) {
	// 18,911 body vertices; 45,906 query points around them (see bvhBody).
	verts := UVSphere(1, 100, 191).Verts
	_, q := bvhBody()
	x := NewVertexIndex(verts)
	b.Run(fmt.Sprintf("build/verts=%d", len(verts)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x = NewVertexIndex(verts)
		}
	})
	b.Run(fmt.Sprintf("nearest/verts=%d/queries=%d", len(verts), len(q)), func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		var id int32
		for b.Loop() {
			for _, p := range q {
				id, _ = x.Nearest(p)
			}
		}
		el := time.Since(start).Seconds() / float64(b.N)
		b.ReportMetric(el*1e9/float64(len(q)), "ns/query")
		b.ReportMetric(el*1e3, "ms/batch")
		nearSinkID = id
	})
	b.Run(fmt.Sprintf("knearest8/verts=%d/queries=%d", len(verts), len(q)), func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		var buf []Neighbor
		for b.Loop() {
			for _, p := range q {
				buf = x.KNearest(buf, p, 8)
			}
		}
		el := time.Since(start).Seconds() / float64(b.N)
		b.ReportMetric(el*1e9/float64(len(q)), "ns/query")
		b.ReportMetric(el*1e3, "ms/batch")
		nearSinkID = buf[0].ID
	})
}

var nearSinkID int32
