package refine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// ridgeInput is a horizontal 0.4 m sheet (16×16 quads, 25 mm edges) whose
// coarse frames grow a fold along Z (a Gaussian ridge of width sigma, height
// up to amp) and let it go again, with its two rows at z = 0 and 0.4 held.
// The coarse frames do not sag under gravity; the refined cloth does.
func ridgeInput(frames int) Input {
	m := mesh.Grid(0.4, 0.4, 16, 16)
	for v, q := range m.Verts {
		m.Verts[v] = geom.V(q.X, 0, q.Y)
	}
	for t, tr := range m.Tris {
		m.Tris[t] = [3]int32{tr[0], tr[2], tr[1]}
		m.UVTris[t] = [3]int32{m.UVTris[t][0], m.UVTris[t][2], m.UVTris[t][1]}
	}
	var held []int32
	for i := 0; i <= 16; i++ {
		held = append(held, int32(i), int32(16*17+i))
	}
	const sigma, amp = 0.012, 0.03
	fr := make([][]geom.Vec3, frames)
	for f := range fr {
		a := amp * math.Sin(math.Pi*float64(f)/float64(frames-1))
		fr[f] = make([]geom.Vec3, len(m.Verts))
		for v, q := range m.Verts {
			d := q.X - 0.2
			fr[f][v] = geom.V(q.X, a*math.Exp(-d*d/(2*sigma*sigma)), q.Z)
		}
	}
	return Input{FPS: 30, Pieces: []PieceInput{{Name: "sheet", Mesh: m, Rest: m.Verts, Held: held,
		Material: cloth.Material{Model: cloth.MassSpring, Fabric: cloth.Presets()["denim"]}, Frames: fr}}}
}

func TestRunRidge(t *testing.T) {
	in := ridgeInput(30)
	res, err := Run(context.Background(), in, Params{Workers: 1, Peak: 10, Fraction: 0.5, Rings: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Pieces[0]
	if len(pr.Blocks) != 6 || len(pr.Frames) != 30 {
		t.Fatalf("%d blocks, %d frames; want 6, 30", len(pr.Blocks), len(pr.Frames))
	}
	coarseTop, _ := mesh.NewTopology(pr.Coarse)
	wantB := boundaryLength(pr.Coarse, coarseTop)
	refinedAny := false
	for b, bl := range pr.Blocks {
		// Conforming: no T-junction leaves an inner edge with one triangle,
		// so the boundary is the sheet's own, and every edge is manifold.
		top, err := mesh.NewTopology(bl.Mesh)
		if err != nil {
			t.Fatal(err)
		}
		if got := boundaryLength(bl.Mesh, top); math.Abs(got-wantB) > 1e-9 {
			t.Errorf("block %d: boundary length %.6f m, want %.6f (a T-junction)", b, got, wantB)
		}
		if len(top.NonManifoldEdges) > 0 || !top.IsManifold() {
			t.Errorf("block %d: not manifold", b)
		}
		if len(bl.Mesh.Tris) > len(pr.Coarse.Tris) {
			refinedAny = true
		}
	}
	if !refinedAny {
		t.Fatal("no block refined the ridge")
	}
	// The ridge's crest is refined around its peak (frame 15).
	crest := false
	for _, tr := range pr.BlockAt(15).Active {
		for _, v := range pr.Coarse.Tris[tr] {
			if math.Abs(pr.Coarse.Verts[v].X-0.2) < 1e-9 {
				crest = true
			}
		}
	}
	if !crest {
		t.Error("the crest is not refined at frame 15")
	}
}

func boundaryLength(m *mesh.Mesh, top *mesh.Topology) float64 {
	l := 0.0
	for e, ab := range top.Edges {
		if top.IsBoundaryEdge(int32(e)) {
			l += m.Verts[ab[0]].Dist(m.Verts[ab[1]])
		}
	}
	return l
}

// TestAcceleration checks that regions growing, shrinking and fading do
// not pop: no refined vertex accelerates by more than the bound between
// frames of the fixed-topology output.
func TestAcceleration(t *testing.T) {
	in := ridgeInput(40)
	res, err := Run(context.Background(), in, Params{Workers: 1, Peak: 10, Fraction: 0.5, Rings: 3, Every: 4, Lead: 2, Hold: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pieces[0].Blocks) < 3 {
		t.Fatal("too few blocks")
	}
	changes := 0
	for b := 1; b < len(res.Pieces[0].Blocks); b++ {
		if len(res.Pieces[0].Blocks[b].Active) != len(res.Pieces[0].Blocks[b-1].Active) {
			changes++
		}
	}
	if changes < 2 {
		t.Fatalf("the regions changed %d times; the test wants them to grow and shrink", changes)
	}
	coarse := maxAccel(in.Pieces[0].Frames, in.FPS)
	got := maxAccel(res.Pieces[0].Frames, in.FPS)
	t.Logf("max acceleration: coarse %.1f m/s², refined %.1f m/s²", coarse, got)
	if got > accelBound {
		t.Errorf("max acceleration %.1f m/s² > %.0f", got, accelBound)
	}
}

// accelBound (m/s²) bounds the refined vertices' accelerations in
// TestAcceleration: 3 g. The coarse fold accelerates at 0.2 m/s²; the
// refined cloth falls under gravity from the coarse surface when a region
// starts (9.8 m/s²) and is held up again by its boundary. A vertex moved by
// d in one frame at 30 frames/s accelerates by d·900/s² (2·d·900 in the
// frames around a jump that comes back).
const accelBound = 30.0

func maxAccel(fr [][]geom.Vec3, fps float64) float64 {
	a := 0.0
	for f := 1; f+1 < len(fr); f++ {
		for v := range fr[f] {
			d := fr[f+1][v].Sub(fr[f][v].Scale(2)).Add(fr[f-1][v])
			a = math.Max(a, d.Len()*fps*fps)
		}
	}
	return a
}

func TestDeterministic(t *testing.T) {
	in := ridgeInput(12)
	p := Params{Peak: 10, Every: 3}
	a, err := Run(context.Background(), in, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Workers = 1
	b, err := Run(context.Background(), in, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for f := range a.Pieces[0].Frames {
		for v, q := range a.Pieces[0].Frames[f] {
			if q != b.Pieces[0].Frames[f][v] {
				t.Fatalf("frame %d vertex %d: %v then %v", f, v, q, b.Pieces[0].Frames[f][v])
			}
		}
	}
}

// streamed returns in with its frames moved to Next, and the count of
// frames Next has given.
func streamed(in Input) (Input, *int) {
	frames := make([][][]geom.Vec3, len(in.Pieces))
	pieces := slices.Clone(in.Pieces)
	for i := range pieces {
		frames[i], pieces[i].Frames = pieces[i].Frames, nil
	}
	in.Pieces, in.Frames = pieces, len(frames[0])
	given := new(int)
	in.Next = func() ([][]geom.Vec3, error) {
		if *given == in.Frames {
			return nil, errors.New("past the end")
		}
		x := make([][]geom.Vec3, len(frames))
		for i := range x {
			x[i] = frames[i][*given]
		}
		*given++
		return x, nil
	}
	return in, given
}

// TestStream checks that frames streamed through Next give the result
// of the same frames given whole, bit for bit, and that Run takes a
// frame only when the block it starts needs it (Every + Lead ahead).
func TestStream(t *testing.T) {
	in := bodyInput(14)
	p := Params{Peak: 10, Every: 3, Lead: 2, Hold: 3}
	want, err := Run(context.Background(), in, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	sin, given := streamed(in)
	got, err := Run(context.Background(), sin, p, func(done, total int) {
		f := done - 1
		if most := min((f/p.Every+1)*p.Every+p.Lead, total); *given > most {
			t.Errorf("frame %d refined with %d frames taken, want at most %d", f, *given, most)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	refined := 0
	for i, pr := range want.Pieces {
		if len(got.Pieces[i].Frames) != len(pr.Frames) || len(got.Pieces[i].Blocks) != len(pr.Blocks) {
			t.Fatalf("piece %d: %d frames, %d blocks streamed; %d, %d whole", i, len(got.Pieces[i].Frames), len(got.Pieces[i].Blocks), len(pr.Frames), len(pr.Blocks))
		}
		for f, x := range pr.Frames {
			if !slices.Equal(x, got.Pieces[i].Frames[f]) {
				t.Fatalf("piece %d frame %d differs streamed", i, f)
			}
		}
		for _, bl := range pr.Blocks {
			refined += len(bl.Active)
		}
	}
	if refined == 0 {
		t.Error("nothing refined: the test compares nothing")
	}

	sin, given = streamed(in)
	next := sin.Next
	sin.Next = func() ([][]geom.Vec3, error) {
		x, err := next()
		if *given == 8 {
			return nil, errors.New("coarse run failed")
		}
		return x, err
	}
	if _, err := Run(context.Background(), sin, p, nil); err == nil || !strings.Contains(err.Error(), "coarse frame 7: coarse run failed") {
		t.Errorf("failing Next: %v", err)
	}
	sin, _ = streamed(in)
	next = sin.Next
	sin.Next = func() ([][]geom.Vec3, error) {
		x, err := next()
		return x[:1], err
	}
	if _, err := Run(context.Background(), sin, p, nil); err == nil || !strings.Contains(err.Error(), "1 pieces, want 2") {
		t.Errorf("a piece missing: %v", err)
	}
	sin.Pieces[0].Frames = in.Pieces[0].Frames
	if _, err := Run(context.Background(), sin, p, nil); err == nil || !strings.Contains(err.Error(), "besides Next") {
		t.Errorf("frames and Next: %v", err)
	}
}

// bodyInput is ridgeInput with a second sheet beside the first (0.5 m
// along X) and a sphere under the first sheet's fold, bobbing by 2 mm, that
// the refined cloth rests on.
func bodyInput(frames int) Input {
	in := ridgeInput(frames)
	a := in.Pieces[0]
	b := a
	b.Name = "sheet2"
	shift := geom.V(0.5, 0, 0)
	b.Mesh = &mesh.Mesh{Tris: a.Mesh.Tris, UVs: a.Mesh.UVs, UVTris: a.Mesh.UVTris}
	for _, q := range a.Mesh.Verts {
		b.Mesh.Verts = append(b.Mesh.Verts, q.Add(shift))
	}
	b.Rest = b.Mesh.Verts
	b.Frames = make([][]geom.Vec3, frames)
	for f, x := range a.Frames {
		for _, q := range x {
			b.Frames[f] = append(b.Frames[f], q.Add(shift))
		}
	}
	in.Pieces = append(in.Pieces, b)
	const r = 0.1
	in.Body = mesh.UVSphere(r, 12, 24)
	in.BodyAt = func(f int, dst []geom.Vec3) ([]geom.Vec3, error) {
		c := geom.V(0.2, -r-0.001+0.002*math.Sin(float64(f)), 0.2)
		dst = dst[:0]
		for _, q := range in.Body.Verts {
			dst = append(dst, q.Add(c))
		}
		return dst, nil
	}
	return in
}

// TestPiecesIndependent checks that pieces refined together collide each
// with its own copy of the body: a piece's frames are bit-identical to its
// frames refined alone, and do not depend on the worker count.
func TestPiecesIndependent(t *testing.T) {
	in := bodyInput(12)
	p := Params{Peak: 10, Every: 3}
	both, err := Run(context.Background(), in, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	alone := in
	alone.Pieces = in.Pieces[1:]
	p.Workers = 1
	one, err := Run(context.Background(), alone, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for f, x := range one.Pieces[0].Frames {
		for v, q := range x {
			if q != both.Pieces[1].Frames[f][v] {
				t.Fatalf("frame %d vertex %d: %v refined with the other piece, %v alone", f, v, both.Pieces[1].Frames[f][v], q)
			}
		}
	}
	// The first sheet's refined cloth rests on the sphere, kept out of it.
	pr := both.Pieces[0]
	closest := math.Inf(1)
	for f, x := range pr.Frames {
		c, err := in.BodyAt(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		centre := c[0].Add(c[len(c)-1]).Scale(0.5) // the poles
		for v, k := range pr.UnionKeys {
			if k < int32(len(pr.Coarse.Verts)) && x[v] != in.Pieces[0].Frames[f][k] {
				moved = true
			}
			closest = math.Min(closest, x[v].Dist(centre)-0.1)
		}
	}
	t.Logf("closest refined vertex: %.2f mm from the sphere", closest*1000)
	if !moved {
		t.Error("the first sheet was not refined")
	}
	if closest > 0.006 || closest < -0.002 {
		t.Errorf("closest refined vertex %.2f mm from the sphere, want within [-2, 6] mm (resting on it)", closest*1000)
	}
}

// TestMaterial checks that the refined patch is the same material: its
// mass is the coarse triangles' (density × area) and its rest edges half
// the coarse ones.
func TestMaterial(t *testing.T) {
	in := ridgeInput(2)
	pi := in.Pieces[0]
	pc, err := newPiece(pi.Name, pi.Mesh, pi.Rest, nil, pi.Material)
	if err != nil {
		t.Fatal(err)
	}
	pc.frames = pi.Frames
	p := Params{}
	if err := p.defaults(); err != nil {
		t.Fatal(err)
	}
	tris := []int32{100, 101, 102, 103, 132, 133}
	if err := pc.rebuild(tris, nil, 0, 30, &p, nil, collideParams(p)); err != nil {
		t.Fatal(err)
	}
	mass := 0.0
	for _, m := range pc.patch.cl.Mass {
		mass += m
	}
	area := 0.0
	for _, t := range pc.redList {
		tr := pi.Mesh.Tris[t]
		area += geom.TriangleArea(pi.Rest[tr[0]], pi.Rest[tr[1]], pi.Rest[tr[2]])
	}
	want := area * pi.Material.Fabric.Density
	if math.Abs(mass-want) > 1e-12*want {
		t.Errorf("patch mass %.9g kg, want %.9g", mass, want)
	}
	for e, L := range pc.patch.cl.EdgeRest() {
		if math.Abs(L-0.0125) > 1e-9 && math.Abs(L-0.0125*math.Sqrt2) > 1e-9 {
			t.Errorf("edge %d rest length %.6f m, want 12.5 mm or its diagonal", e, L)
		}
	}
}

func BenchmarkRunRidge(b *testing.B) {
	in := ridgeInput(30)
	for b.Loop() {
		if _, err := Run(context.Background(), in, Params{Peak: 10}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestScheduleTable(t *testing.T) {
	for _, c := range []struct {
		name  string
		found []int // frames where triangle 0 is marked
		p     Params
		want  []int // blocks holding it
	}{
		{"none", nil, Params{Every: 2, Lead: 1, Hold: 1}, nil},
		{"lead into the block before", []int{4}, Params{Every: 2, Lead: 1, Hold: 1}, []int{1, 2}},
		{"hold past the end", []int{9}, Params{Every: 2, Lead: 1, Hold: 5}, []int{4}},
		{"gap closed by hold", []int{1, 6}, Params{Every: 2, Lead: 1, Hold: 4}, []int{0, 1, 2, 3, 4}},
		{"gap kept", []int{0, 9}, Params{Every: 2, Lead: 1, Hold: 1}, []int{0, 4}},
	} {
		marks := make([][]bool, 10)
		for f := range marks {
			marks[f] = make([]bool, 1)
		}
		for _, f := range c.found {
			marks[f][0] = true
		}
		blocks, err := Schedule(marks, c.p)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for b, tris := range blocks {
			if len(tris) > 0 {
				got = append(got, b)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: blocks %v, want %v", c.name, got, c.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	in := ridgeInput(3)
	in.Pieces[0].Frames[1] = in.Pieces[0].Frames[1][:5]
	if _, err := Run(context.Background(), in, Params{}, nil); err == nil || !strings.Contains(err.Error(), "frame 1") {
		t.Errorf("short frame: %v", err)
	}
	in = ridgeInput(3)
	in.Pieces[0].Frames[2][7].X = math.NaN()
	if _, err := Run(context.Background(), in, Params{}, nil); err == nil || !strings.Contains(err.Error(), "vertex 7") {
		t.Errorf("NaN: %v", err)
	}
	if _, err := Run(context.Background(), ridgeInput(3), Params{Fraction: 2}, nil); err == nil {
		t.Error("Fraction 2: no error")
	}
}

// TestMeasureReferenceDeep checks that Measure counts the reference's
// vertices more than 2 mm inside the body as it counts the coarse ones:
// a sphere of radius 0.1 m at the origin, reference points placed at
// given distances from its centre.
func TestMeasureReferenceDeep(t *testing.T) {
	in := ridgeInput(3)
	res, err := Run(context.Background(), in, Params{Workers: 1, Peak: 10, Fraction: 0.5, Rings: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := mesh.UVSphere(0.1, 24, 48)
	bodyAt := func(f int, dst []geom.Vec3) ([]geom.Vec3, error) { return append(dst[:0], body.Verts...), nil }
	for _, tc := range []struct {
		name  string
		radii []float64 // reference points' distances from the centre, m
		want  int       // per frame
	}{
		{"outside", []float64{0.2, 0.15, 0.101}, 0},
		{"shallow", []float64{0.099, 0.1}, 0},
		{"deep", []float64{0.05, 0.09, 0.2}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var frames [][]geom.Vec3
			for range res.Stats {
				var x []geom.Vec3
				for i, r := range tc.radii {
					a := float64(i)
					x = append(x, geom.V(math.Cos(a), 0.3, math.Sin(a)).Unit().Scale(r))
				}
				frames = append(frames, x)
			}
			ms, err := res.Measure(&Reference{All: [][][]geom.Vec3{frames}, Meshes: []*mesh.Mesh{res.Pieces[0].Union},
				Keys: [][]int32{identityKeys(res.Pieces[0])}, Frames: [][][]geom.Vec3{res.Pieces[0].Frames}}, body, bodyAt)
			if err != nil {
				t.Fatal(err)
			}
			for f, m := range ms {
				if m.ReferenceDeep != tc.want || m.ReferenceVerts != len(tc.radii) {
					t.Errorf("frame %d: %d of %d reference vertices deep, want %d of %d", f, m.ReferenceDeep, m.ReferenceVerts, tc.want, len(tc.radii))
				}
			}
		})
	}
}

// identityKeys maps every key of a piece to its union vertex (the refined
// result as its own reference).
func identityKeys(pr *PieceResult) []int32 {
	n := slices.Max(pr.UnionKeys) + 1
	keys := make([]int32, n)
	for k := range keys {
		keys[k] = -1
	}
	for v, k := range pr.UnionKeys {
		keys[k] = int32(v)
	}
	return keys
}

// TestMeasurePaired checks the paired penetration counts: with the refined
// result as its own reference they agree, and with the reference lifted
// clear of the body only the refined ones count. The body is a sphere of
// radius 0.05 m on the ridge's crest.
func TestMeasurePaired(t *testing.T) {
	in := ridgeInput(5)
	res, err := Run(context.Background(), in, Params{Workers: 1, Peak: 10, Fraction: 0.5, Rings: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := mesh.UVSphere(0.05, 24, 48)
	for v := range body.Verts {
		body.Verts[v] = body.Verts[v].Add(geom.V(0.2, 0, 0.2))
	}
	bodyAt := func(f int, dst []geom.Vec3) ([]geom.Vec3, error) { return append(dst[:0], body.Verts...), nil }
	pr := res.Pieces[0]
	for _, tc := range []struct {
		name   string
		lift   float64 // m, of the reference over the refined frames
		sameAs bool    // PairedRefDeep == PairedDeep
	}{
		{"itself", 0, true},
		{"lifted", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frames := make([][]geom.Vec3, len(pr.Frames))
			for f, x := range pr.Frames {
				for _, q := range x {
					frames[f] = append(frames[f], q.Add(geom.V(0, tc.lift, 0)))
				}
			}
			ref := &Reference{Meshes: []*mesh.Mesh{pr.Union}, Keys: [][]int32{identityKeys(pr)}, Frames: [][][]geom.Vec3{frames}}
			ms, err := res.Measure(ref, body, bodyAt)
			if err != nil {
				t.Fatal(err)
			}
			paired, deep, refDeep := 0, 0, 0
			for _, m := range ms {
				paired, deep, refDeep = paired+m.Paired, deep+m.PairedDeep, refDeep+m.PairedRefDeep
			}
			if paired == 0 || deep == 0 {
				t.Fatalf("%d paired vertex-frames, %d deep: the test sees nothing", paired, deep)
			}
			if tc.sameAs && refDeep != deep || !tc.sameAs && refDeep != 0 {
				t.Errorf("refined %d, reference %d deep of %d paired", deep, refDeep, paired)
			}
		})
	}
}
