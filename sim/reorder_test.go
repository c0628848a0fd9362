package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// bandwidth is the largest id difference across an edge of m.
func bandwidth(m *mesh.Mesh) int {
	b := 0
	for _, t := range m.Tris {
		for k := range 3 {
			b = max(b, int(t[k]-t[(k+1)%3]), int(t[(k+1)%3]-t[k]))
		}
	}
	return b
}

// TestReorder shuffles a 40×40 grid's vertices, reorders it and restores
// it: the reordered ids are spatially coherent again (bandwidth of the
// order of a grid row, not of the mesh), the triangles are the same
// geometric triangles, and restore gives back the piece and frames.
func TestReorder(t *testing.T) {
	g := mesh.Grid(1, 1, 40, 40)
	rng := rand.New(rand.NewPCG(1, 2))
	shuf := rng.Perm(len(g.Verts))
	m := &mesh.Mesh{Verts: make([]geom.Vec3, len(g.Verts))}
	for old, nw := range shuf {
		m.Verts[nw] = g.Verts[old]
	}
	for _, tr := range g.Tris {
		m.Tris = append(m.Tris, [3]int32{int32(shuf[tr[0]]), int32(shuf[tr[1]]), int32(shuf[tr[2]])})
	}
	lists := make([][]skel.Influence, len(m.Verts))
	src := make([]int32, len(m.Verts))
	for i := range lists {
		lists[i] = []skel.Influence{{Joint: int32(i % 7), W: 1}}
		src[i] = int32(i)
	}
	p := &Piece{Name: "grid", Mesh: m, Weights: skel.NewWeights(lists), Source: src}
	before := bandwidth(m)
	p.reorder()
	after := bandwidth(p.Mesh)
	t.Logf("bandwidth %d → %d (%d vertices)", before, after, len(m.Verts))
	if after > 2*42 {
		t.Errorf("bandwidth after reorder %d, want about a grid row (≤ 84)", after)
	}
	for k, tr := range p.Mesh.Tris {
		for c := range 3 {
			if p.Mesh.Verts[tr[c]] != m.Verts[m.Tris[k][c]] {
				t.Fatalf("triangle %d corner %d moved", k, c)
			}
		}
	}
	for i := range p.Mesh.Verts {
		j, _ := p.Weights.Influences(i)
		if old := p.Source[i]; p.Mesh.Verts[i] != m.Verts[old] || j[0] != old%7 {
			t.Fatalf("vertex %d: position, weights or source do not follow it", i)
		}
	}
	p.Attach = []int32{0, 5}
	want := []int32{p.order.perm[0], p.order.perm[5]}
	frames := [][]geom.Vec3{append([]geom.Vec3(nil), p.Mesh.Verts...)}
	p.restore(frames)
	if p.Mesh != m || p.order != nil || p.Attach[0] != want[0] || p.Attach[1] != want[1] {
		t.Fatalf("restore: piece not restored (attach %v, want %v)", p.Attach, want)
	}
	for i, x := range frames[0] {
		if x != m.Verts[i] {
			t.Fatalf("restored frame: vertex %d at %v, want %v", i, x, m.Verts[i])
		}
	}
}

// TestRunKeepsVertexOrder checks that Run's frames are in the garment
// pieces' own vertex order: each vertex of the first frame lies near its
// skinned rest position in the first pose, which a permuted frame would
// not.
func TestRunKeepsVertexOrder(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s, Options{Settle: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]*Piece{}
	for _, g := range s.Garments {
		ps, err := SplitPieces(g.Name, g.Mesh, g.Weights)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			own[p.Name] = p
		}
	}
	skin := skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[0], nil)
	for i, p := range res.Pieces {
		if o := own[p.Name]; o == nil || len(o.Mesh.Verts) != len(p.Mesh.Verts) || o.Mesh.Verts[0] != p.Mesh.Verts[0] || o.Mesh.Verts[len(o.Mesh.Verts)-1] != p.Mesh.Verts[len(p.Mesh.Verts)-1] {
			t.Errorf("%s: vertices not in the piece's own order", p.Name)
		}
		x := skel.LBS(p.Mesh.Verts, p.Weights, skin, nil)
		worst := 0.0
		for v, y := range res.Frames[i][0] {
			worst = max(worst, y.Dist(x[v]))
		}
		if worst > 0.05 {
			t.Errorf("%s: a vertex of frame 0 is %.0f mm from its skinned position", p.Name, worst*1000)
		}
		if p.order != nil {
			t.Errorf("%s: still reordered", p.Name)
		}
		// The rest shape used, in the same order: the mesh moved by the
		// initial push-out (at most a few millimetres).
		if len(p.Rest) != len(p.Mesh.Verts) {
			t.Fatalf("%s: %d rest positions for %d vertices", p.Name, len(p.Rest), len(p.Mesh.Verts))
		}
		moved := 0.0
		for v, q := range p.Rest {
			moved = max(moved, q.Dist(p.Mesh.Verts[v]))
		}
		if moved > 0.01 {
			t.Errorf("%s: a rest position is %.1f mm from its mesh vertex", p.Name, moved*1000)
		}
	}
}

// TestKeepLoop pushes a ring of attachment targets outward unevenly: the
// pushes are applied, and every loop edge (and the chord of a triangle
// with two loop edges) ends within the limit; without pushes nothing moves.
func TestKeepLoop(t *testing.T) {
	const n = 12
	var rest []geom.Vec3
	var attach []int32
	var tris [][3]int32
	for j := range n {
		a := 2 * math.Pi * float64(j) / n
		rest = append(rest, geom.V(0.1*math.Cos(a), 0, 0.1*math.Sin(a)))
		attach = append(attach, int32(j))
		tris = append(tris, [3]int32{int32(j), int32((j + 1) % n), n}) // fan to a centre vertex n
	}
	tris = append(tris, [3]int32{0, 1, 2}) // an ear: chord 0–2
	pairs := loopPairs(tris, attach)
	if len(pairs) != n+1 {
		t.Fatalf("%d pairs, want %d loop edges and one chord", len(pairs), n+1)
	}
	for _, tc := range []struct {
		name string
		push func(j int) float64 // outward push, m
	}{
		{"none", func(int) float64 { return 0 }},
		{"uneven", func(j int) float64 { return 0.004 * float64(j%3) }},
		{"one", func(j int) float64 {
			if j == 5 {
				return 0.01
			}
			return 0
		}},
	} {
		x := append([]geom.Vec3(nil), rest...)
		push := make([]geom.Vec3, n)
		for j := range push {
			push[j] = rest[j].Unit().Scale(tc.push(j))
		}
		keepLoop(x, push, rest, pairs, 0.05)
		for _, p := range pairs {
			L, l := rest[p[0]].Dist(rest[p[1]]), x[p[0]].Dist(x[p[1]])
			if l > 1.05*L*(1+1e-9) {
				t.Errorf("%s: pair %v stretched %.1f %%", tc.name, p, 100*(l/L-1))
			}
		}
		moved := 0.0
		for j := range x {
			moved = max(moved, x[j].Dist(rest[j]))
		}
		if tc.name == "none" && moved != 0 {
			t.Errorf("none: a target moved by %g m", moved)
		}
		if tc.name != "none" && moved < 0.001 {
			t.Errorf("%s: pushes not applied (largest move %g m)", tc.name, moved)
		}
	}
}

// TestNearBody keeps the triangles with a corner near the points, maps its
// vertices back to the body's, and returns no body when nothing is near.
func TestNearBody(t *testing.T) {
	body := mesh.UVSphere(0.1, 16, 32)
	for _, tc := range []struct {
		name     string
		pts      []geom.Vec3
		r        float64
		min, max int // triangles kept
	}{
		{"cap", []geom.Vec3{geom.V(0, 0.1, 0)}, 0.03, 1, len(body.Tris) / 4},
		{"all", []geom.Vec3{geom.V(0, 0, 0)}, 0.2, len(body.Tris), len(body.Tris)},
		{"none", []geom.Vec3{geom.V(1, 1, 1)}, 0.05, 0, 0},
	} {
		b, ids, err := nearBody(body.Verts, body.Tris, tc.pts, tc.r)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.max == 0 {
			if b != nil {
				t.Errorf("%s: a body of %d triangles, want none", tc.name, len(b.Tris()))
			}
			continue
		}
		if n := len(b.Tris()); n < tc.min || n > tc.max {
			t.Errorf("%s: %d triangles, want %d to %d", tc.name, n, tc.min, tc.max)
		}
		if len(ids) != b.NumVerts() {
			t.Fatalf("%s: %d ids for %d vertices", tc.name, len(ids), b.NumVerts())
		}
		for _, tr := range b.Tris() {
			near := false
			for _, v := range tr {
				for _, p := range tc.pts {
					near = near || body.Verts[ids[v]].Dist(p) <= tc.r
				}
			}
			if !near {
				t.Errorf("%s: a kept triangle has no corner within %g m", tc.name, tc.r)
			}
		}
	}
}

// TestLoopPushOut sinks a ring of loop targets 2 cm into a large sphere:
// on a creased body (newLoops' creased) they are pushed out to the safety
// distance outside it; otherwise each moves by at most the safety
// distance, as a target in a skinned body's self-overlap must.
func TestLoopPushOut(t *testing.T) {
	const R, thick, n = 0.5, 0.003, 12
	body := mesh.UVSphere(R, 48, 96)
	var ring []geom.Vec3
	var pairs [][2]int32
	for j := range n {
		a := 2 * math.Pi * float64(j) / n
		ring = append(ring, geom.V(0.03*math.Cos(a), R-0.02, 0.03*math.Sin(a)))
		pairs = append(pairs, [2]int32{int32(j), int32((j + 1) % n)})
	}
	for _, creased := range []bool{false, true} {
		l, err := newLoops(nil, nil, nil, nil, 0, thick, 0.1, creased)
		if err != nil {
			t.Fatal(err)
		}
		l.nLoop, l.rest, l.pairs = []int{n}, [][]geom.Vec3{ring}, [][][2]int32{pairs}
		if l.body, l.verts, err = nearBody(body.Verts, body.Tris, ring, tgtRadius); err != nil || l.body == nil {
			t.Fatalf("creased %v: no body near the ring (%v)", creased, err)
		}
		dst := [][]geom.Vec3{append([]geom.Vec3(nil), ring...)}
		l.pushOut(body.Verts, dst)
		for j, p := range dst[0] {
			moved, out := p.Dist(ring[j]), p.Len()-R
			switch {
			case creased && out < thick-0.001:
				t.Errorf("creased: target %d %.1f mm from the surface after the push-out, want %.0f mm outside", j, out*1000, thick*1000)
			case !creased && moved > thick+1e-9:
				t.Errorf("not creased: target %d moved %.1f mm, want at most %.0f mm", j, moved*1000, thick*1000)
			}
		}
	}
}
