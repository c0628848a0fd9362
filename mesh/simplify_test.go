package mesh

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/assets"
)

// simplifyTorus returns a closed torus (χ = 0) with major radius R, minor
// radius r, nu×nv quads split into triangles, outward oriented.
func simplifyTorus(R, r float64, nu, nv int) *Mesh {
	m := &Mesh{}
	for i := 0; i < nu; i++ {
		u := 2 * math.Pi * float64(i) / float64(nu)
		for j := 0; j < nv; j++ {
			v := 2 * math.Pi * float64(j) / float64(nv)
			m.Verts = append(m.Verts, geom.V((R+r*math.Cos(v))*math.Cos(u), r*math.Sin(v), (R+r*math.Cos(v))*math.Sin(u)))
		}
	}
	id := func(i, j int) int32 { return int32((i%nu)*nv + j%nv) }
	for i := 0; i < nu; i++ {
		for j := 0; j < nv; j++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.Tris = append(m.Tris, [3]int32{a, c, b}, [3]int32{a, d, c})
		}
	}
	return m
}

// simplifyJitter moves every vertex of m by a deterministic pseudo-random
// offset of at most amp along each axis.
func simplifyJitter(m *Mesh, amp float64) *Mesh {
	c := m.Clone()
	x := uint64(88172645463325252)
	rnd := func() float64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x>>11)/float64(1<<53)*2 - 1
	}
	for i := range c.Verts {
		c.Verts[i] = c.Verts[i].Add(geom.V(rnd(), rnd(), rnd()).Scale(amp))
	}
	return c
}

// simplifySin2Min returns sin² of the smallest angle of a triangle.
func simplifySin2Min(a, b, c geom.Vec3) float64 {
	return b.Sub(a).Cross(c.Sub(a)).Len2() / triLongPairLen2(a, b, c)
}

// simplifyMaxDev returns the largest distance of a vertex of m from the
// surface of out.
func simplifyMaxDev(m, out *Mesh) float64 {
	bvh := NewBVH(out.Verts, out.Tris)
	dev := 0.0
	for _, p := range m.Verts {
		dev = max(dev, math.Sqrt(bvh.ClosestPoint(p).Dist2))
	}
	return dev
}

// simplifyCheck verifies the invariants every Simplify result must have:
// valid, output vertices are the kept input vertices, same topology
// (manifold, oriented, same χ, components and boundary loops), boundary
// vertices kept, no duplicate or degenerate triangles, no new slivers.
func simplifyCheck(t *testing.T, m, out *Mesh, kept []int32) {
	t.Helper()
	if err := out.Validate(); err != nil {
		t.Fatalf("output invalid: %v", err)
	}
	if len(kept) != len(out.Verts) {
		t.Fatalf("%d kept for %d output vertices", len(kept), len(out.Verts))
	}
	for i, k := range kept {
		if i > 0 && k <= kept[i-1] {
			t.Fatalf("kept not increasing at %d: %d after %d", i, k, kept[i-1])
		}
		if out.Verts[i] != m.Verts[k] {
			t.Fatalf("output vertex %d = %v, input vertex %d = %v", i, out.Verts[i], k, m.Verts[k])
		}
	}
	tin, err := NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	tout, err := NewTopology(out)
	if err != nil {
		t.Fatal(err)
	}
	if !tout.IsManifold() || len(tout.InconsistentEdges) > 0 {
		t.Errorf("output: manifold %v, %d inconsistent edges", tout.IsManifold(), len(tout.InconsistentEdges))
	}
	if tout.NumIsolated != 0 {
		t.Errorf("output has %d unused vertices", tout.NumIsolated)
	}
	if tin.EulerCharacteristic() != tout.EulerCharacteristic() || tin.NumComps != tout.NumComps ||
		len(tin.BoundaryLoops) != len(tout.BoundaryLoops) {
		t.Errorf("topology changed: χ %d → %d, components %d → %d, boundary loops %d → %d",
			tin.EulerCharacteristic(), tout.EulerCharacteristic(), tin.NumComps, tout.NumComps,
			len(tin.BoundaryLoops), len(tout.BoundaryLoops))
	}
	for v := range m.Verts {
		if tin.IsBoundary(int32(v)) {
			if _, ok := slices.BinarySearch(kept, int32(v)); !ok {
				t.Errorf("boundary vertex %d removed", v)
			}
		}
	}
	seen := make(map[[3]int32]int, len(out.Tris))
	minSin2In := math.Inf(1)
	for _, tr := range m.Tris {
		minSin2In = min(minSin2In, simplifySin2Min(m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]]))
	}
	limit := min(minSin2In, math.Pow(math.Sin(simplifyMinAngle), 2))
	for i, tr := range out.Tris {
		k := tr
		slices.Sort(k[:])
		if j, ok := seen[k]; ok {
			t.Fatalf("output triangles %d and %d repeat vertices %v", j, i, tr)
		}
		seen[k] = i
		if s := simplifySin2Min(out.Verts[tr[0]], out.Verts[tr[1]], out.Verts[tr[2]]); !(s >= limit*0.999) {
			t.Errorf("output triangle %d: smallest angle %.3g° below %.3g°", i,
				math.Asin(math.Sqrt(s))*180/math.Pi, math.Asin(math.Sqrt(limit))*180/math.Pi)
		}
	}
}

func TestSimplifyClosed(t *testing.T) {
	tests := []struct {
		name        string
		m           *Mesh
		opt         SimplifyOptions
		maxFrac     float64 // output triangles at most this fraction of input
		devTol      float64 // max deviation of input vertices from output, m (0: unchecked)
		outward     bool    // output normals point away from the origin
		inward      bool    // ... towards the origin
		minTris     int
		maxTrisLeft int // if > 0, at most this many triangles
	}{
		{name: "sphere 1mm", m: UVSphere(0.1, 64, 128), opt: SimplifyOptions{MaxError: 1e-3},
			maxFrac: 0.25, devTol: 1e-3, outward: true},
		{name: "sphere 1mm inward", m: topoFlip(UVSphere(0.1, 64, 128)), opt: SimplifyOptions{MaxError: 1e-3},
			maxFrac: 0.25, devTol: 1e-3, inward: true},
		{name: "sphere 0.1mm", m: UVSphere(0.1, 64, 128), opt: SimplifyOptions{MaxError: 1e-4},
			maxFrac: 0.85, devTol: 1e-4, outward: true},
		{name: "jittered sphere 1mm", m: simplifyJitter(UVSphere(0.1, 48, 96), 2e-4), opt: SimplifyOptions{MaxError: 1e-3},
			maxFrac: 0.4, devTol: 1.2e-3, outward: true},
		{name: "sphere unlimited", m: UVSphere(0.1, 32, 64), opt: SimplifyOptions{},
			maxFrac: 0.05, outward: true},
		{name: "sphere MinTris", m: UVSphere(0.1, 32, 64), opt: SimplifyOptions{MinTris: 300},
			minTris: 300, maxTrisLeft: 301, outward: true},
		{name: "sphere MinTris above input", m: UVSphere(0.1, 8, 16), opt: SimplifyOptions{MinTris: 1000},
			minTris: 8*16*2 - 2*16, maxTrisLeft: 8*16*2 - 2*16, outward: true},
		{name: "torus unlimited", m: simplifyTorus(0.2, 0.05, 64, 24), opt: SimplifyOptions{},
			maxFrac: 0.1},
		{name: "torus 1mm", m: simplifyTorus(0.2, 0.05, 96, 32), opt: SimplifyOptions{MaxError: 1e-3},
			maxFrac: 0.75, devTol: 1e-3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := tc.m.Clone()
			out, kept, err := Simplify(tc.m, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(orig.Verts, tc.m.Verts) || !slices.Equal(orig.Tris, tc.m.Tris) {
				t.Fatal("input modified")
			}
			simplifyCheck(t, tc.m, out, kept)
			tout, _ := NewTopology(out)
			if !tout.IsClosed() {
				t.Errorf("output not closed: %d boundary loops", len(tout.BoundaryLoops))
			}
			if tc.maxFrac > 0 && float64(len(out.Tris)) > tc.maxFrac*float64(len(tc.m.Tris)) {
				t.Errorf("%d → %d triangles, want at most %.0f", len(tc.m.Tris), len(out.Tris), tc.maxFrac*float64(len(tc.m.Tris)))
			}
			if len(out.Tris) < tc.minTris || (tc.maxTrisLeft > 0 && len(out.Tris) > tc.maxTrisLeft) {
				t.Errorf("%d triangles, want in [%d, %d]", len(out.Tris), tc.minTris, tc.maxTrisLeft)
			}
			dev := simplifyMaxDev(tc.m, out)
			if tc.devTol > 0 && dev > tc.devTol {
				t.Errorf("input vertex %.3g m from the output surface, want ≤ %.3g", dev, tc.devTol)
			}
			// Orientation: the signed volume keeps its sign; where the
			// output is close to the sphere every face points outward
			// (or inward).
			vol := 0.0
			for i, tr := range out.Tris {
				a, b, c := out.Verts[tr[0]], out.Verts[tr[1]], out.Verts[tr[2]]
				vol += a.Dot(b.Cross(c)) / 6
				d := geom.TriangleNormal(a, b, c).Dot(a.Add(b).Add(c))
				if tc.devTol > 0 && ((tc.outward && d <= 0) || (tc.inward && d >= 0)) {
					t.Errorf("triangle %d %v has the wrong orientation", i, tr)
					break
				}
			}
			if (tc.outward && vol <= 0) || (tc.inward && vol >= 0) {
				t.Errorf("signed volume %g has the wrong sign", vol)
			}
			t.Logf("%d verts %d tris → %d verts %d tris, χ %d, max deviation %.3g mm",
				len(tc.m.Verts), len(tc.m.Tris), len(out.Verts), len(out.Tris), tout.EulerCharacteristic(), dev*1e3)
		})
	}
}

func TestSimplifyOpen(t *testing.T) {
	tests := []struct {
		name    string
		m       *Mesh
		opt     SimplifyOptions
		maxTris int
	}{
		{"grid 16×16", Grid(1, 1, 16, 16), SimplifyOptions{MaxError: 1e-6}, 128},
		{"grid 7×5 unlimited", Grid(0.7, 0.5, 7, 5), SimplifyOptions{}, 40},
		{"jittered-in-plane grid", simplifyFlatJitter(Grid(1, 1, 12, 12), 0.02), SimplifyOptions{MaxError: 1e-6}, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, kept, err := Simplify(tc.m, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			simplifyCheck(t, tc.m, out, kept)
			if len(out.Tris) > tc.maxTris {
				t.Errorf("%d → %d triangles, want at most %d", len(tc.m.Tris), len(out.Tris), tc.maxTris)
			}
			area := 0.0
			for i, tr := range out.Tris {
				n := geom.TriangleNormal(out.Verts[tr[0]], out.Verts[tr[1]], out.Verts[tr[2]])
				if n.Z <= 0 || math.Abs(out.Verts[tr[0]].Z) > 1e-12 {
					t.Fatalf("triangle %d %v: normal %v, want +Z in the plane", i, tr, n)
				}
				area += n.Z / 2
			}
			want := tc.m.Bounds().Size().X * tc.m.Bounds().Size().Y
			if math.Abs(area-want) > 1e-9 {
				t.Errorf("area %.12g, want %.12g", area, want)
			}
			t.Logf("%d verts %d tris → %d verts %d tris", len(tc.m.Verts), len(tc.m.Tris), len(out.Verts), len(out.Tris))
		})
	}
}

// simplifyFlatJitter moves the interior vertices of a flat grid within the
// plane, by at most amp along X and Y.
func simplifyFlatJitter(m *Mesh, amp float64) *Mesh {
	j := simplifyJitter(m, amp)
	tp, _ := NewTopology(m)
	for i := range j.Verts {
		if tp.IsBoundary(int32(i)) {
			j.Verts[i] = m.Verts[i]
		}
		j.Verts[i].Z = 0
	}
	return j
}

func TestSimplifyDeterministic(t *testing.T) {
	for _, m := range []*Mesh{simplifyJitter(UVSphere(0.1, 40, 80), 1e-4), simplifyTorus(0.2, 0.05, 48, 16), Grid(1, 1, 10, 10)} {
		opt := SimplifyOptions{MaxError: 2e-3}
		out1, kept1, err := Simplify(m, opt)
		if err != nil {
			t.Fatal(err)
		}
		out2, kept2, err := Simplify(m.Clone(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(kept1, kept2) || !slices.Equal(out1.Tris, out2.Tris) || !slices.Equal(out1.Verts, out2.Verts) {
			t.Errorf("two runs differ: %d/%d vs %d/%d verts/tris", len(out1.Verts), len(out1.Tris), len(out2.Verts), len(out2.Tris))
		}
	}
}

// TestSimplifyMaxAngle checks that a tighter normal-rotation limit keeps
// more triangles and that no kept triangle rotated past it relative to the
// original surface normal of a fine sphere (where normals ≈ positions).
func TestSimplifyMaxAngle(t *testing.T) {
	m := UVSphere(0.1, 32, 64)
	var counts []int
	for _, ang := range []float64{5, 20, 60} {
		out, kept, err := Simplify(m, SimplifyOptions{MaxAngle: ang * math.Pi / 180})
		if err != nil {
			t.Fatal(err)
		}
		simplifyCheck(t, m, out, kept)
		counts = append(counts, len(out.Tris))
	}
	if !(counts[0] > counts[1] && counts[1] > counts[2]) {
		t.Errorf("triangle counts for MaxAngle 5°, 20°, 60°: %v, want decreasing", counts)
	}
	t.Logf("triangles for MaxAngle 5°, 20°, 60°: %v", counts)
}

func TestSimplifyIsolatedVertexDropped(t *testing.T) {
	m := UVSphere(0.1, 8, 16)
	m.Verts = append([]geom.Vec3{geom.V(5, 5, 5)}, m.Verts...)
	for i := range m.Tris {
		for k := range m.Tris[i] {
			m.Tris[i][k]++
		}
	}
	out, kept, err := Simplify(m, SimplifyOptions{MaxError: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if kept[0] == 0 {
		t.Error("isolated vertex 0 kept")
	}
	simplifyCheck(t, m, out, kept)
}

func TestSimplifyErrors(t *testing.T) {
	tet := func() *Mesh {
		return &Mesh{
			Verts: []geom.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, {X: 0, Y: 0, Z: 1}},
			Tris:  [][3]int32{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}},
		}
	}
	nan := tet()
	nan.Verts[2].Y = math.NaN()
	oob := tet()
	oob.Tris[1][2] = 9
	// Three triangles on edge 0-1.
	fin := &Mesh{
		Verts: []geom.Vec3{{}, {X: 1}, {Y: 1}, {Y: -1}, {Z: 1}},
		Tris:  [][3]int32{{0, 1, 2}, {1, 0, 3}, {0, 1, 4}},
	}
	// Two triangles touching at vertex 0 only.
	bow := &Mesh{
		Verts: []geom.Vec3{{}, {X: 1}, {X: 1, Y: 1}, {X: -1}, {X: -1, Y: -1}},
		Tris:  [][3]int32{{0, 1, 2}, {0, 3, 4}},
	}
	flip := tet()
	flip.Tris[3] = [3]int32{1, 3, 2}
	tests := []struct {
		name    string
		m       *Mesh
		opt     SimplifyOptions
		kind    string // ElementError kind, "" for another error
		index   int
		contain string
	}{
		{"empty", &Mesh{}, SimplifyOptions{}, "", 0, "empty"},
		{"nan", nan, SimplifyOptions{}, "vertex", 2, "non-finite"},
		{"index", oob, SimplifyOptions{}, "triangle", 1, "out of range"},
		{"non-manifold edge", fin, SimplifyOptions{}, "edge", 0, "edge 0-1 is shared by 3 triangles"},
		{"bow-tie vertex", bow, SimplifyOptions{}, "vertex", 0, "non-manifold"},
		{"inconsistent", flip, SimplifyOptions{}, "edge", -1, "inconsistent orientation"},
		{"negative MaxError", tet(), SimplifyOptions{MaxError: -1}, "", 0, "MaxError"},
		{"NaN MaxError", tet(), SimplifyOptions{MaxError: math.NaN()}, "", 0, "MaxError"},
		{"negative MinTris", tet(), SimplifyOptions{MinTris: -1}, "", 0, "MinTris"},
		{"negative MaxAngle", tet(), SimplifyOptions{MaxAngle: -0.1}, "", 0, "MaxAngle"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, kept, err := Simplify(tc.m, tc.opt)
			if err == nil {
				t.Fatalf("no error; got %d tris, %d kept", len(out.Tris), len(kept))
			}
			if out != nil || kept != nil {
				t.Errorf("non-nil result with error %v", err)
			}
			if !strings.Contains(err.Error(), tc.contain) {
				t.Errorf("error %q does not mention %q", err, tc.contain)
			}
			var ee *ElementError
			if tc.kind != "" {
				if !errors.As(err, &ee) || ee.Kind != tc.kind || (tc.index >= 0 && ee.Index != tc.index) {
					t.Errorf("error %v (%T), want *ElementError %s %d", err, err, tc.kind, tc.index)
				}
			}
		})
	}
	// A tetrahedron cannot be simplified further (a collapse would make a
	// duplicate triangle): the result is the input.
	out, kept, err := Simplify(tet(), SimplifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Tris) != 4 || len(kept) != 4 {
		t.Errorf("tetrahedron simplified to %d tris, %d verts", len(out.Tris), len(kept))
	}
}

// simplifyLoadMHBody reads the "body" group of the MakeHuman base.obj in
// metres (decimetre file units), vertices compacted in increasing order.
func simplifyLoadMHBody(path string) (*Mesh, error) {
	all, err := topoLoadOBJ(path, "body")
	if err != nil {
		return nil, err
	}
	verts, tris := all.Verts, all.Tris
	for i := range verts {
		verts[i] = verts[i].Scale(0.1)
	}
	remap := make([]int32, len(verts))
	for i := range remap {
		remap[i] = -1
	}
	for _, t := range tris {
		for _, v := range t {
			if v < 0 || int(v) >= len(verts) {
				return nil, fmt.Errorf("%s: vertex index %d out of range", path, v)
			}
			remap[v] = 0
		}
	}
	m := &Mesh{}
	for v, r := range remap {
		if r == 0 {
			remap[v] = int32(len(m.Verts))
			m.Verts = append(m.Verts, verts[v])
		}
	}
	for _, t := range tris {
		m.Tris = append(m.Tris, [3]int32{remap[t[0]], remap[t[1]], remap[t[2]]})
	}
	return m, nil
}

func simplifyMakeHuman(tb testing.TB) *Mesh {
	dir := assets.Dir()
	if dir == "" {
		tb.Skip("PLEAT_ASSETS not set (e.g. /work/shared/assets): skipping the MakeHuman body")
	}
	m, err := simplifyLoadMHBody(filepath.Join(dir, "makehuman", "body", "base.obj"))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestSimplifyMakeHuman decimates the MakeHuman skin (group "body") at 1
// and 2 mm and checks topology and deviation (it logs the time;
// BenchmarkSimplify measures it).
func TestSimplifyMakeHuman(t *testing.T) {
	m := simplifyMakeHuman(t)
	for _, tc := range []struct{ maxErr, maxFrac float64 }{{1e-3, 0.75}, {2e-3, 0.55}} {
		maxErr := tc.maxErr
		t0 := time.Now()
		out, kept, err := Simplify(m, SimplifyOptions{MaxError: maxErr})
		el := time.Since(t0)
		if err != nil {
			t.Fatal(err)
		}
		simplifyCheck(t, m, out, kept)
		dev := simplifyMaxDev(m, out)
		t.Logf("MaxError %g mm: %d verts %d tris → %d verts %d tris, max deviation %.3g mm, %v",
			maxErr*1e3, len(m.Verts), len(m.Tris), len(out.Verts), len(out.Tris), dev*1e3, el)
		if dev > maxErr {
			t.Errorf("max deviation %.3g mm > MaxError", dev*1e3)
		}
		if float64(len(out.Tris)) > tc.maxFrac*float64(len(m.Tris)) {
			t.Errorf("only %d → %d triangles, want at most %.0f%%", len(m.Tris), len(out.Tris), 100*tc.maxFrac)
		}
	}
}

func BenchmarkSimplify(b *testing.B) {
	cases := []struct {
		name string
		m    func(testing.TB) *Mesh
		err  float64
	}{
		{"sphere27k/1mm", func(testing.TB) *Mesh { return simplifyJitter(UVSphere(0.1, 100, 136), 5e-5) }, 1e-3},
		{"sphere27k/unlimited", func(testing.TB) *Mesh { return UVSphere(0.1, 100, 136) }, 0},
		{"makehuman/1mm", simplifyMakeHuman, 1e-3},
		{"makehuman/2mm", simplifyMakeHuman, 2e-3},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			m := c.m(b)
			var out *Mesh
			b.ResetTimer()
			for b.Loop() {
				var err error
				if out, _, err = Simplify(m, SimplifyOptions{MaxError: c.err}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(m.Tris)), "tris-in")
			b.ReportMetric(float64(len(out.Tris)), "tris-out")
		})
	}
}

// FuzzSimplify feeds Simplify arbitrary small meshes (positions and
// triangles from the input bytes): it must return an error or a valid mesh
// whose vertices are input vertices, never panic.
func FuzzSimplify(f *testing.F) {
	f.Add([]byte{4, 0, 0, 0, 9, 0, 0, 0, 9, 0, 0, 0, 9, 0, 1, 2, 0, 3, 1, 1, 3, 2, 2, 3, 0}, 0.0)
	f.Add([]byte{3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2}, 0.001)
	f.Fuzz(func(t *testing.T, data []byte, tol float64) {
		if len(data) < 1 {
			return
		}
		n := int(data[0]%32) + 1
		data = data[1:]
		m := &Mesh{}
		for i := 0; i < n && len(data) >= 3; i++ {
			m.Verts = append(m.Verts, geom.V(float64(data[0]), float64(data[1]), float64(data[2])).Scale(0.01))
			data = data[3:]
		}
		for len(data) >= 3 && len(m.Verts) > 0 {
			k := int32(len(m.Verts))
			m.Tris = append(m.Tris, [3]int32{int32(data[0]) % k, int32(data[1]) % k, int32(data[2]) % k})
			data = data[3:]
		}
		out, kept, err := Simplify(m, SimplifyOptions{MaxError: tol})
		if err != nil {
			return
		}
		if err := out.Validate(); err != nil && len(out.Tris) > 0 {
			t.Fatalf("invalid output: %v", err)
		}
		if len(kept) != len(out.Verts) {
			t.Fatalf("%d kept for %d vertices", len(kept), len(out.Verts))
		}
		for i, k := range kept {
			if k < 0 || int(k) >= len(m.Verts) || (i > 0 && k <= kept[i-1]) || out.Verts[i] != m.Verts[k] {
				t.Fatalf("kept[%d] = %d: not an increasing input vertex", i, k)
			}
		}
	})
}
