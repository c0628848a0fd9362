package mesh

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
)

// topoCylinder returns an open cylinder of radius r and height h about the
// Y axis, nAround segments and nUp bands, triangles facing outward.
func topoCylinder(r, h float64, nAround, nUp int) *Mesh {
	m := &Mesh{}
	for j := 0; j <= nUp; j++ {
		for i := 0; i < nAround; i++ {
			a := 2 * math.Pi * float64(i) / float64(nAround)
			m.Verts = append(m.Verts, geom.V(r*math.Cos(a), h*float64(j)/float64(nUp), -r*math.Sin(a)))
		}
	}
	id := func(i, j int) int32 { return int32(j*nAround + i%nAround) }
	for j := 0; j < nUp; j++ {
		for i := 0; i < nAround; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	return m
}

// topoTorus returns a closed torus about the Y axis with major radius R and
// minor radius r, triangles facing outward. Vertex (i, j) has id j·nu+i, at
// angle u = 2πi/nu around the axis and v = 2πj/nv around the tube (v = 0 on
// the outer equator).
func topoTorus(R, r float64, nu, nv int) *Mesh {
	m := &Mesh{}
	for j := 0; j < nv; j++ {
		v := 2 * math.Pi * float64(j) / float64(nv)
		for i := 0; i < nu; i++ {
			u := 2 * math.Pi * float64(i) / float64(nu)
			rr := R + r*math.Cos(v)
			m.Verts = append(m.Verts, geom.V(rr*math.Cos(u), r*math.Sin(v), -rr*math.Sin(u)))
		}
	}
	id := func(i, j int) int32 { return int32((j%nv)*nu + i%nu) }
	for j := 0; j < nv; j++ {
		for i := 0; i < nu; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	return m
}

// topoFlip reverses the orientation of every triangle.
func topoFlip(m *Mesh) *Mesh {
	c := m.Clone()
	for i, t := range c.Tris {
		c.Tris[i] = [3]int32{t[0], t[2], t[1]}
	}
	return c
}

// topoLoadOBJ reads the positions and faces of a Wavefront OBJ file, fan
// triangulating polygons; with group set, only the faces of that g group.
// Enough for the MakeHuman base mesh.
func topoLoadOBJ(path, group string) (*Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Mesh{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	cur := ""
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "g":
			cur = strings.Join(fs[1:], " ")
		case "v":
			if len(fs) < 4 {
				return nil, fmt.Errorf("%s:%d: short vertex", path, line)
			}
			var p [3]float64
			for k := range p {
				if p[k], err = strconv.ParseFloat(fs[k+1], 64); err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, line, err)
				}
			}
			m.Verts = append(m.Verts, geom.V(p[0], p[1], p[2]))
		case "f":
			if group != "" && cur != group {
				continue
			}
			var ids []int32
			for _, s := range fs[1:] {
				s, _, _ = strings.Cut(s, "/")
				k, err := strconv.Atoi(s)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %v", path, line, err)
				}
				if k < 0 {
					k += len(m.Verts) + 1
				}
				ids = append(ids, int32(k-1))
			}
			for k := 1; k+1 < len(ids); k++ {
				m.Tris = append(m.Tris, [3]int32{ids[0], ids[k], ids[k+1]})
			}
		}
	}
	return m, sc.Err()
}

func TestNewTopology(t *testing.T) {
	tri := &Mesh{Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}}, Tris: [][3]int32{{0, 1, 2}}}
	bowtie := &Mesh{
		Verts: []geom.Vec3{{}, {X: 1}, {X: 1, Y: 1}, {X: -1}, {X: -1, Y: -1}},
		Tris:  [][3]int32{{0, 1, 2}, {0, 3, 4}},
	}
	fin := &Mesh{ // three triangles on edge 0-1
		Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}, {Y: -1}, {Z: 1}},
		Tris:  [][3]int32{{0, 1, 2}, {1, 0, 3}, {0, 1, 4}},
	}
	flipped := &Mesh{ // two triangles traverse 0→1
		Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}, {Y: -1}},
		Tris:  [][3]int32{{0, 1, 2}, {0, 1, 3}},
	}
	islands := &Mesh{ // two triangles apart and an unused vertex 3
		Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}, {Z: 5}, {X: 3}, {X: 4}, {X: 3, Y: 1}},
		Tris:  [][3]int32{{4, 5, 6}, {0, 1, 2}},
	}
	for _, tc := range []struct {
		name                        string
		m                           *Mesh
		edges, loops, comps, isol   int
		loopLen                     int // length of loop 0
		chi                         int
		nmEdges, nmVerts, inconsist int
	}{
		{"triangle", tri, 3, 1, 1, 0, 3, 1, 0, 0, 0},
		{"grid3x2", Grid(3, 2, 3, 2), 3*3 + 4*2 + 6, 1, 1, 0, 10, 1, 0, 0, 0},
		{"sphere", UVSphere(1, 8, 12), 3 * (2 * 12 * 7) / 2, 0, 1, 0, 0, 2, 0, 0, 0},
		{"cylinder", topoCylinder(1, 1, 10, 3), 10*4 + 10*3 + 30, 2, 1, 0, 10, 0, 0, 0, 0},
		{"torus", topoTorus(3, 1, 12, 8), 3 * 96, 0, 1, 0, 0, 0, 0, 0, 0},
		{"bowtie", bowtie, 6, 2, 1, 0, 3, 1, 0, 1, 0},
		{"fin", fin, 7, 2, 1, 0, 4, 1, 1, 2, 0},
		{"flipped", flipped, 5, 1, 1, 0, 4, 1, 0, 0, 1},
		{"islands", islands, 6, 2, 2, 1, 3, 2, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := NewTopology(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			got := []int{tp.NumEdges(), len(tp.BoundaryLoops), tp.NumComps, tp.NumIsolated, tp.EulerCharacteristic(),
				len(tp.NonManifoldEdges), len(tp.NonManifoldVerts), len(tp.InconsistentEdges)}
			want := []int{tc.edges, tc.loops, tc.comps, tc.isol, tc.chi, tc.nmEdges, tc.nmVerts, tc.inconsist}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("edges, loops, comps, isolated, χ, nm edges, nm verts, inconsistent = %v, want %v", got, want)
			}
			if tc.loops > 0 && len(tp.BoundaryLoops[0]) != tc.loopLen {
				t.Errorf("loop 0 has %d vertices, want %d: %v", len(tp.BoundaryLoops[0]), tc.loopLen, tp.BoundaryLoops[0])
			}
			if tp.IsClosed() != (tc.loops == 0) {
				t.Errorf("IsClosed = %v", tp.IsClosed())
			}
			if tp.IsManifold() != (tc.nmEdges == 0 && tc.nmVerts == 0) {
				t.Errorf("IsManifold = %v", tp.IsManifold())
			}
			topoCheckInvariants(t, tc.m, tp)
		})
	}
}

// topoCheckInvariants checks the relations every Topology must satisfy.
func topoCheckInvariants(t *testing.T, m *Mesh, tp *Topology) {
	t.Helper()
	for ti, tr := range m.Tris {
		for k := 0; k < 3; k++ {
			e, ok := tp.Edge(tr[(k+1)%3], tr[k])
			if !ok || e != tp.TriEdges[ti][k] {
				t.Fatalf("tri %d side %d: Edge = %d,%v, TriEdges %d", ti, k, e, ok, tp.TriEdges[ti][k])
			}
			found := false
			for _, x := range tp.EdgeTriangles(e) {
				found = found || int(x) == ti
			}
			if !found {
				t.Fatalf("edge %d does not list triangle %d", e, ti)
			}
			found = false
			for _, x := range tp.VertTriangles(tr[k]) {
				found = found || int(x) == ti
			}
			if !found {
				t.Fatalf("vertex %d does not list triangle %d", tr[k], ti)
			}
			if tp.TriComp[ti] != tp.VertComp[tr[k]] {
				t.Fatalf("tri %d comp %d, vertex %d comp %d", ti, tp.TriComp[ti], tr[k], tp.VertComp[tr[k]])
			}
		}
	}
	for e := 1; e < len(tp.Edges); e++ {
		a, b := tp.Edges[e-1], tp.Edges[e]
		if !(a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])) || b[0] >= b[1] {
			t.Fatalf("edges %d,%d not sorted: %v %v", e-1, e, a, b)
		}
	}
	for v := int32(0); int(v) < tp.NumVerts; v++ {
		ring := tp.Neighbors(v)
		seen := map[int32]bool{}
		for k, u := range ring {
			if seen[u] {
				t.Fatalf("vertex %d ring repeats %d: %v", v, u, ring)
			}
			seen[u] = true
			if e, ok := tp.Edge(v, u); !ok || e != tp.RingEdges[tp.RingStart[v]+int32(k)] {
				t.Fatalf("vertex %d ring edge to %d wrong", v, u)
			}
		}
		if tp.Flags[v]&(VertNonManifold|VertIsolated) != 0 {
			continue
		}
		// Consecutive ring entries span a counter-clockwise triangle (v, a, b).
		n := len(ring)
		last := n - 1
		if tp.Flags[v]&VertBoundary == 0 {
			last = n
		}
		for k := 0; k < last; k++ {
			a, b := ring[k], ring[(k+1)%n]
			ok := false
			for _, ti := range tp.VertTriangles(v) {
				tr := m.Tris[ti]
				for c := 0; c < 3; c++ {
					ok = ok || (tr[c] == v && tr[(c+1)%3] == a && tr[(c+2)%3] == b)
				}
			}
			if !ok && len(tp.InconsistentEdges) == 0 {
				t.Fatalf("vertex %d ring %v: no ccw triangle (%d,%d,%d)", v, ring, v, a, b)
			}
		}
		if tp.Flags[v]&VertBoundary != 0 {
			if e, _ := tp.Edge(v, ring[0]); !tp.IsBoundaryEdge(e) {
				t.Fatalf("boundary vertex %d ring %v does not start on the boundary", v, ring)
			}
		}
	}
	for _, loop := range tp.BoundaryLoops {
		for k := range loop {
			e, ok := tp.Edge(loop[k], loop[(k+1)%len(loop)])
			if len(loop) > 2 && (!ok || !tp.IsBoundaryEdge(e)) && tp.IsManifold() {
				t.Fatalf("loop %v: %d-%d is not a boundary edge", loop, loop[k], loop[(k+1)%len(loop)])
			}
		}
	}
}

func TestTopologyBoundaryOrientation(t *testing.T) {
	// Grid faces +Z, so its boundary runs counter-clockwise seen from +Z.
	m := Grid(2, 1, 4, 3)
	tp, err := NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	loop := tp.BoundaryLoops[0]
	var area2 float64 // shoelace
	for k := range loop {
		p, q := m.Verts[loop[k]], m.Verts[loop[(k+1)%len(loop)]]
		area2 += p.X*q.Y - q.X*p.Y
	}
	if math.Abs(area2/2-2) > 1e-12 {
		t.Errorf("signed area enclosed by boundary = %g, want +2", area2/2)
	}
}

func TestNewTopologyErrors(t *testing.T) {
	v := []geom.Vec3{{}, {X: 1}, {Y: 1}}
	for _, tc := range []struct {
		name string
		tris [][3]int32
		idx  int
	}{
		{"out of range", [][3]int32{{0, 1, 2}, {0, 1, 3}}, 1},
		{"negative", [][3]int32{{0, -1, 2}}, 0},
		{"repeat", [][3]int32{{0, 1, 2}, {2, 1, 2}}, 1},
	} {
		_, err := NewTopology(&Mesh{Verts: v, Tris: tc.tris})
		var ee *ElementError
		if !errors.As(err, &ee) || ee.Kind != "triangle" || ee.Index != tc.idx {
			t.Errorf("%s: err = %v, want triangle %d", tc.name, err, tc.idx)
		}
	}
}

func TestTopologyEmpty(t *testing.T) {
	tp, err := NewTopology(&Mesh{Verts: make([]geom.Vec3, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if tp.NumEdges() != 0 || tp.NumComps != 0 || tp.NumIsolated != 2 || tp.Valence(1) != 0 || !tp.IsClosed() {
		t.Errorf("empty mesh topology: %+v", tp)
	}
	h := MeanCurvature(&Mesh{Verts: make([]geom.Vec3, 2)}, tp, CurvatureCotan, nil)
	if len(h) != 2 || h[0] != 0 {
		t.Errorf("H = %v", h)
	}
}

func TestTopologyRandomSoup(t *testing.T) {
	// Arbitrary non-manifold soups: construction must not fail and all
	// adjacency invariants must hold; curvature must stay finite.
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 20; trial++ {
		nv := 5 + rng.IntN(30)
		m := &Mesh{}
		for i := 0; i < nv; i++ {
			m.Verts = append(m.Verts, geom.V(rng.Float64(), rng.Float64(), rng.Float64()))
		}
		for i := rng.IntN(3 * nv); i >= 0; i-- {
			a, b, c := int32(rng.IntN(nv)), int32(rng.IntN(nv)), int32(rng.IntN(nv))
			if a != b && b != c && a != c {
				m.Tris = append(m.Tris, [3]int32{a, b, c})
			}
		}
		tp, err := NewTopology(m)
		if err != nil {
			t.Fatal(err)
		}
		topoCheckInvariants(t, m, tp)
		for _, method := range topoMethods {
			for i, h := range MeanCurvature(m, tp, method, nil) {
				if math.IsNaN(h) || math.IsInf(h, 0) {
					t.Fatalf("trial %d %v: H[%d] = %g", trial, method, i, h)
				}
			}
		}
	}
}

func TestEdgeLookupMissing(t *testing.T) {
	tp, _ := NewTopology(Grid(1, 1, 2, 2))
	for _, p := range [][2]int32{{0, 8}, {0, 0}, {-1, 2}, {2, 100}} {
		if e, ok := tp.Edge(p[0], p[1]); ok {
			t.Errorf("Edge(%d,%d) = %d, want none", p[0], p[1], e)
		}
	}
}

func TestDegenerateTris(t *testing.T) {
	m := &Mesh{
		Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}, {X: 2}, {X: 1, Y: 1e-9}},
		Tris:  [][3]int32{{0, 1, 2}, {0, 1, 3}, {0, 3, 4}, {0, 0, 1}},
	}
	for _, tc := range []struct {
		eps  float64
		want string
	}{{0, "[1 3]"}, {1e-8, "[1 2 3]"}, {1, "[0 1 2 3]"}} {
		if got := fmt.Sprint(DegenerateTris(m, tc.eps)); got != tc.want {
			t.Errorf("eps %g: %s, want %s", tc.eps, got, tc.want)
		}
	}
}

// TestTopologyMakeHuman builds the topology of the MakeHuman base mesh,
// which carries many separate helper pieces (joint cubes, eyes, teeth).
func TestTopologyMakeHuman(t *testing.T) {
	dir := assets.Dir()
	if dir == "" {
		t.Skip("PLEAT_ASSETS not set (e.g. /work/shared/assets): skipping MakeHuman base.obj")
	}
	m, err := topoLoadOBJ(filepath.Join(dir, "makehuman", "body", "base.obj"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Verts) != 19158 || len(m.Tris) != 36972 {
		t.Fatalf("base.obj: %d verts, %d tris, want 19158, 36972", len(m.Verts), len(m.Tris))
	}
	tp, err := NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("edges %d, components %d, isolated %d, boundary loops %d, χ %d, non-manifold edges %d verts %d, inconsistent %d, degenerate %d",
		tp.NumEdges(), tp.NumComps, tp.NumIsolated, len(tp.BoundaryLoops), tp.EulerCharacteristic(),
		len(tp.NonManifoldEdges), len(tp.NonManifoldVerts), len(tp.InconsistentEdges), len(DegenerateTris(m, 0)))
	if tp.NumComps < 125 {
		t.Errorf("%d components, want at least the 125 joint cubes", tp.NumComps)
	}
	topoCheckInvariants(t, m, tp)
	c := NewCurvature(tp)
	h := c.Mean(m, CurvatureCotan, nil)
	st := SummarizeCurvature(h, c.Areas(), tp)
	t.Logf("cotan H (dm⁻¹): %+v", st)
	if st.N == 0 || math.IsNaN(st.RMS) || math.IsInf(st.RMS, 0) {
		t.Errorf("bad stats %+v", st)
	}
}

func ExampleNewTopology() {
	m := Grid(1, 1, 2, 2) // 3×3 vertices, 8 triangles
	tp, err := NewTopology(m)
	if err != nil {
		panic(err)
	}
	fmt.Println("edges:", tp.NumEdges(), "χ:", tp.EulerCharacteristic())
	fmt.Println("boundary:", tp.BoundaryLoops[0])
	fmt.Println("ring of centre vertex 4:", tp.Neighbors(4))
	// Output:
	// edges: 16 χ: 1
	// boundary: [0 1 2 5 8 7 6 3]
	// ring of centre vertex 4: [0 1 2 5 8 7 6 3]
}
