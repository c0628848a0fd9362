package mesh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// sdQuad is two triangles sharing the diagonal 0-2, with a UV seam on it:
// the second triangle uses its own copies (uv 4, 5) of the diagonal's ends.
func sdQuad() *Mesh {
	return &Mesh{
		Verts:  []geom.Vec3{geom.V(0, 0, 0), geom.V(1, 0, 0), geom.V(1, 1, 0), geom.V(0, 1, 0)},
		Tris:   [][3]int32{{0, 1, 2}, {0, 2, 3}},
		UVs:    []geom.Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 0, Y: 1}, {X: 2, Y: 0}, {X: 3, Y: 1}},
		UVTris: [][3]int32{{0, 1, 2}, {4, 5, 3}},
		Groups: []Group{{Name: "second", Tris: []int32{1}}},
	}
}

func TestSubdivideGolden(t *testing.T) {
	out, sm := Subdivide(sdQuad())
	// Edges in first-appearance order: 0-1, 1-2, 2-0, 2-3, 3-0 → ids 4..8.
	wantParents := [][2]int32{{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 0}}
	wantTris := [][3]int32{
		{0, 4, 6}, {1, 5, 4}, {2, 6, 5}, {4, 5, 6}, // (0,1,2): m0=4 m1=5 m2=6
		{0, 6, 8}, {2, 7, 6}, {3, 8, 7}, {6, 7, 8}, // (0,2,3): m0=6 m1=7 m2=8
	}
	// UV midpoints in order of first use: (0,1) (1,2) (2,0) then the seam
	// copy (4,5), then (5,3), (3,4).
	wantUVs := append(slices.Clone(sdQuad().UVs),
		geom.Vec2{X: 0.5, Y: 0}, geom.Vec2{X: 1, Y: 0.5}, geom.Vec2{X: 0.5, Y: 0.5},
		geom.Vec2{X: 2.5, Y: 0.5}, geom.Vec2{X: 1.5, Y: 1}, geom.Vec2{X: 1, Y: 0.5})
	wantUVTris := [][3]int32{
		{0, 6, 8}, {1, 7, 6}, {2, 8, 7}, {6, 7, 8},
		{4, 9, 11}, {5, 10, 9}, {3, 11, 10}, {9, 10, 11},
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Parents", sm.Parents, wantParents},
		{"Tris", out.Tris, wantTris},
		{"UVs", out.UVs, wantUVs},
		{"UVTris", out.UVTris, wantUVTris},
		{"TriStart", sm.TriStart, []int32{0, 4, 8}},
		{"TriParent", sm.TriParent, []int32{0, 0, 0, 0, 1, 1, 1, 1}},
		{"Groups", out.Groups, []Group{{Name: "second", Tris: []int32{4, 5, 6, 7}}}},
		{"Vert 6", out.Verts[6], geom.V(0.5, 0.5, 0)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestSubdivideGlobal(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Mesh
		// closed meshes must stay watertight
		closed bool
	}{
		{"grid 3x2", Grid(2, 1, 3, 2), false},
		{"grid 7x5", Grid(1.5, 0.7, 7, 5), false},
		{"sphere 4x6", UVSphere(1, 4, 6), true},
		{"sphere 9x13", UVSphere(0.5, 9, 13), true},
		{"sphere with normals", sdWithNormals(UVSphere(1, 5, 7)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, sm := Subdivide(tc.m)
			if len(out.Tris) != 4*len(tc.m.Tris) {
				t.Errorf("tris = %d, want 4×%d", len(out.Tris), len(tc.m.Tris))
			}
			ne := len(sdBuildEdges(len(tc.m.Verts), tc.m.Tris).ends)
			if len(out.Verts) != len(tc.m.Verts)+ne || sm.NumVerts() != len(out.Verts) {
				t.Errorf("verts = %d (map %d), want %d+%d", len(out.Verts), sm.NumVerts(), len(tc.m.Verts), ne)
			}
			sdCheckRefinement(t, tc.m, out, sm, tc.closed)
		})
	}
}

func TestSubdivideTris(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	sdRandomSubset := func(n int, frac float64) []int32 {
		var s []int32
		for i := 0; i < n; i++ {
			if rnd.Float64() < frac {
				s = append(s, int32(i))
			}
		}
		return s
	}
	sphere := UVSphere(1, 12, 16)
	grid := Grid(1, 1, 8, 8)
	for _, tc := range []struct {
		name   string
		m      *Mesh
		tris   []int32
		closed bool
	}{
		{"grid none", grid, nil, false},
		{"grid one interior", grid, []int32{40}, false},
		{"grid one corner", grid, []int32{0}, false},
		{"grid repeated", grid, []int32{9, 9, 10}, false},
		{"grid scattered", grid, []int32{0, 5, 17, 63, 64, 100, 127}, false},
		{"grid random 20%", grid, sdRandomSubset(len(grid.Tris), 0.2), false},
		{"sphere pole cap", sphere, []int32{0, 1, 2, 3}, true},
		{"sphere seam", sphere, []int32{15, 16, 47, 31}, true},
		{"sphere random 10%", sphere, sdRandomSubset(len(sphere.Tris), 0.1), true},
		{"sphere random 40%", sphere, sdRandomSubset(len(sphere.Tris), 0.4), true},
		{"sphere with normals", sdWithNormals(sphere), []int32{3, 50, 51, 200}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, sm := SubdivideTris(tc.m, tc.tris)
			for _, r := range tc.tris {
				if n := sm.TriStart[r+1] - sm.TriStart[r]; n != 4 {
					t.Errorf("listed triangle %d has %d children, want 4", r, n)
				}
			}
			sdCheckRefinement(t, tc.m, out, sm, tc.closed)
		})
	}

	// All triangles listed is the global subdivision, exactly.
	all := make([]int32, len(sphere.Tris))
	for i := range all {
		all[i] = int32(i)
	}
	a, am := SubdivideTris(sphere, all)
	b, bm := Subdivide(sphere)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(am, bm) {
		t.Error("SubdivideTris(all) differs from Subdivide")
	}
}

func TestSubdivideTrisPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for out-of-range triangle")
		}
	}()
	SubdivideTris(Grid(1, 1, 1, 1), []int32{2})
}

func TestSubdivMapInterpolate(t *testing.T) {
	m := UVSphere(1, 5, 6)
	out, sm := Subdivide(m)
	got := sm.InterpolateVec3(nil, m.Verts)
	if !reflect.DeepEqual(got, out.Verts) {
		t.Error("InterpolateVec3(verts) != subdivided verts")
	}
	// Two weights per vertex: w0 = y, w1 = 1-y; rows stay convex.
	w := make([]float64, 2*len(m.Verts))
	for i, v := range m.Verts {
		w[2*i], w[2*i+1] = v.Y, 1-v.Y
	}
	dst := make([]float64, 0, 4*len(w))
	ow := sm.InterpolateFloats(dst, w, 2)
	if &ow[0] != &dst[:1][0] {
		t.Error("InterpolateFloats did not reuse dst")
	}
	for i, v := range out.Verts {
		// Midpoints are affine, so w0 = y holds exactly up to rounding.
		if math.Abs(ow[2*i]-v.Y) > 1e-15 || math.Abs(ow[2*i]+ow[2*i+1]-1) > 1e-15 {
			t.Fatalf("vertex %d: weights %v, y %v", i, ow[2*i:2*i+2], v.Y)
		}
	}
}

// sdWithNormals gives m per-corner normals: shared unit vertex normals
// (the radial direction, for a sphere), except that every triangle touching
// vertex 0 gets its own copy, making a normal seam.
func sdWithNormals(m *Mesh) *Mesh {
	c := m.Clone()
	for _, v := range m.Verts {
		c.Normals = append(c.Normals, v.Unit())
	}
	c.NormalTris = slices.Clone(m.Tris)
	for t, tri := range c.NormalTris {
		for k, v := range tri {
			if v == 0 {
				c.NormalTris[t][k] = int32(len(c.Normals))
				c.Normals = append(c.Normals, m.Verts[0].Unit())
			}
		}
	}
	return c
}

type sdEdge [2]int32

func sdKey(a, b int32) sdEdge { return sdEdge{min(a, b), max(a, b)} }

// sdCheckRefinement checks the invariants every refinement must satisfy:
// valid output, midpoint positions, conserved area, kept orientation,
// per-corner attributes that interpolate the parent's linearly, groups
// carried, and a conforming result (no T-junctions, the right boundary).
func sdCheckRefinement(t *testing.T, in, out *Mesh, sm *SubdivMap, closed bool) {
	t.Helper()
	if err := out.Validate(); err != nil {
		t.Fatalf("output invalid: %v", err)
	}
	if sm.NumOrig != len(in.Verts) || sm.NumVerts() != len(out.Verts) || len(sm.TriParent) != len(out.Tris) {
		t.Fatalf("map sizes: NumOrig %d/%d, NumVerts %d/%d, TriParent %d/%d",
			sm.NumOrig, len(in.Verts), sm.NumVerts(), len(out.Verts), len(sm.TriParent), len(out.Tris))
	}
	for i, v := range in.Verts {
		if out.Verts[i] != v {
			t.Fatalf("vertex %d moved", i)
		}
	}
	for j, p := range sm.Parents {
		if out.Verts[sm.NumOrig+j] != in.Verts[p[0]].Add(in.Verts[p[1]]).Scale(0.5) {
			t.Fatalf("new vertex %d is not the midpoint of %v", sm.NumOrig+j, p)
		}
	}

	// Area (tolerance: rounding of sums over a few hundred triangles) and
	// orientation (each child's normal points along its parent's).
	var ain, aout float64
	for _, tr := range in.Tris {
		ain += geom.TriangleArea(in.Verts[tr[0]], in.Verts[tr[1]], in.Verts[tr[2]])
	}
	for s, tr := range out.Tris {
		a, b, c := out.Verts[tr[0]], out.Verts[tr[1]], out.Verts[tr[2]]
		aout += geom.TriangleArea(a, b, c)
		p := in.Tris[sm.TriParent[s]]
		np := geom.TriangleNormal(in.Verts[p[0]], in.Verts[p[1]], in.Verts[p[2]])
		if geom.TriangleNormal(a, b, c).Dot(np) <= 0 {
			t.Fatalf("child %d of %d flipped", s, sm.TriParent[s])
		}
		if s < int(sm.TriStart[sm.TriParent[s]]) || s >= int(sm.TriStart[sm.TriParent[s]+1]) {
			t.Fatalf("TriStart/TriParent disagree at %d", s)
		}
	}
	if math.Abs(ain-aout) > 1e-12*ain {
		t.Errorf("area %v → %v", ain, aout)
	}

	// Per-corner attributes: each child corner's value is the parent's
	// corner values interpolated at the corner's barycentrics in the parent.
	for s, tr := range out.Tris {
		pt := sm.TriParent[s]
		p := in.Tris[pt]
		for k, v := range tr {
			bc := sdBary(in.Verts[p[0]], in.Verts[p[1]], in.Verts[p[2]], out.Verts[v])
			if in.HasUVs() {
				pu := in.UVTris[pt]
				want := in.UVs[pu[0]].Scale(bc[0]).Add(in.UVs[pu[1]].Scale(bc[1])).Add(in.UVs[pu[2]].Scale(bc[2]))
				got := out.UVs[out.UVTris[s][k]]
				if math.Hypot(got.X-want.X, got.Y-want.Y) > 1e-12 {
					t.Fatalf("child %d corner %d: uv %v, want %v", s, k, got, want)
				}
			}
			if in.NormalTris != nil {
				pn := in.NormalTris[pt]
				got := out.Normals[out.NormalTris[s][k]]
				// Corners are parent corners or edge midpoints: bary has
				// one or two non-zero entries, each 1 or 1/2.
				var want geom.Vec3
				for i := range 3 {
					want = want.AddScaled(bc[i], in.Normals[pn[i]])
				}
				if got.Dist(want.Unit()) > 1e-12 {
					t.Fatalf("child %d corner %d: normal %v, want %v", s, k, got, want.Unit())
				}
			}
		}
	}
	if in.HasUVs() && !out.HasUVs() {
		t.Error("UVs dropped")
	}

	// Groups keep the children of their triangles.
	for gi, g := range in.Groups {
		var want []int32
		for _, pt := range g.Tris {
			for s := sm.TriStart[pt]; s < sm.TriStart[pt+1]; s++ {
				want = append(want, s)
			}
		}
		if og := out.Groups[gi]; og.Name != g.Name || !slices.Equal(og.Tris, want) {
			t.Errorf("group %q: got %v, want %v", g.Name, og.Tris, want)
		}
	}

	// Conformity. Directed edges used once (consistent orientation,
	// manifold), no edge with more than 2 triangles.
	directed := map[sdEdge]int{}
	undirected := map[sdEdge]int{}
	for _, tr := range out.Tris {
		for k := range 3 {
			a, b := tr[k], tr[(k+1)%3]
			directed[sdEdge{a, b}]++
			undirected[sdKey(a, b)]++
		}
	}
	for e, n := range directed {
		if n > 1 {
			t.Fatalf("directed edge %v used %d times", e, n)
		}
	}
	for e, n := range undirected {
		if n > 2 || (closed && n != 2) {
			t.Fatalf("edge %v has %d triangles (closed=%v)", e, n, closed)
		}
	}
	// No T-junction: a split edge must not survive whole.
	mid := map[sdEdge]int32{}
	for j, p := range sm.Parents {
		e := sdKey(p[0], p[1])
		if undirected[e] > 0 {
			t.Fatalf("edge %v split by vertex %d but still present (T-junction)", e, sm.NumOrig+j)
		}
		mid[e] = int32(sm.NumOrig + j)
	}
	// Boundary of the output = input boundary edges, halved where split.
	inUndirected := map[sdEdge]int{}
	for _, tr := range in.Tris {
		for k := range 3 {
			inUndirected[sdKey(tr[k], tr[(k+1)%3])]++
		}
	}
	want := map[sdEdge]bool{}
	for e, n := range inUndirected {
		if n != 1 {
			continue
		}
		if m, ok := mid[e]; ok {
			want[sdKey(e[0], m)], want[sdKey(m, e[1])] = true, true
		} else {
			want[e] = true
		}
	}
	got := map[sdEdge]bool{}
	for e, n := range undirected {
		if n == 1 {
			got[e] = true
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("boundary: got %d edges, want %d", len(got), len(want))
	}
}

// sdBary returns the barycentric coordinates of p (in the plane of a, b, c)
// by least squares on the edge vectors.
func sdBary(a, b, c, p geom.Vec3) [3]float64 {
	e1, e2, d := b.Sub(a), c.Sub(a), p.Sub(a)
	d11, d12, d22 := e1.Dot(e1), e1.Dot(e2), e2.Dot(e2)
	r1, r2 := d.Dot(e1), d.Dot(e2)
	det := d11*d22 - d12*d12
	v := (d22*r1 - d12*r2) / det
	w := (d11*r2 - d12*r1) / det
	return [3]float64{1 - v - w, v, w}
}

func BenchmarkSubdivide(b *testing.B) {
	// Input sizes chosen so the output has about 3k, 12k and 46k vertices.
	for _, sz := range []struct{ lat, lon int }{{20, 38}, {38, 76}, {76, 152}} {
		m := UVSphere(1, sz.lat, sz.lon)
		out, _ := Subdivide(m)
		b.Run(fmt.Sprintf("in=%dv/out=%dv", len(m.Verts), len(out.Verts)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, _ = Subdivide(m)
			}
			sdSink = out
		})
	}
	m := UVSphere(1, 76, 152)
	var sel []int32
	for i := 0; i < len(m.Tris); i += 4 {
		sel = append(sel, int32(i))
	}
	b.Run(fmt.Sprintf("tris-25%%/in=%dv", len(m.Verts)), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sdSink, _ = SubdivideTris(m, sel)
		}
	})
}

var sdSink *Mesh
