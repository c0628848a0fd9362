package wrinkle_test

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// tube is an open cylinder (a sleeve) of radius r along Y: open
// boundaries exercise the rim bias of Eq. 5.
func tube(r, h float64, nu, nv int) *mesh.Mesh {
	g := mesh.Grid(1, 1, nu, nv)
	m := &mesh.Mesh{Tris: g.Tris}
	for _, p := range g.Verts {
		a := 2 * math.Pi * p.X * float64(nu) / float64(nu+1)
		m.Verts = append(m.Verts, geom.V(r*math.Cos(a), h*p.Y, r*math.Sin(a)))
	}
	return m
}

// oneJoint gives every vertex full weight on joint 0.
func oneJoint(n int) skel.Weights {
	l := make([][]skel.Influence, n)
	for i := range l {
		l[i] = []skel.Influence{{Joint: 0, W: 1}}
	}
	return skel.NewWeights(l)
}

func coarseOf(t *testing.T, m *mesh.Mesh, verts int) *wrinkle.Coarse {
	t.Helper()
	c, err := wrinkle.NewCoarse(m, oneJoint(len(m.Verts)), wrinkle.CoarseOptions{Verts: verts})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func maxDist(a, b []geom.Vec3) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, a[i].Dist(b[i]))
	}
	return d
}

func TestNewCoarse(t *testing.T) {
	sphere := mesh.UVSphere(0.1, 40, 60)
	two := &mesh.Mesh{Verts: append([]geom.Vec3(nil), sphere.Verts...), Tris: append([][3]int32(nil), sphere.Tris...)}
	off := int32(len(two.Verts))
	for _, p := range sphere.Verts {
		two.Verts = append(two.Verts, p.Add(geom.V(1, 0, 0)))
	}
	for _, tr := range sphere.Tris {
		two.Tris = append(two.Tris, [3]int32{tr[0] + off, tr[1] + off, tr[2] + off})
	}
	for _, tc := range []struct {
		name   string
		m      *mesh.Mesh
		budget int
		pieces int
	}{
		{"sphere 300", sphere, 300, 1},
		{"sphere 700", sphere, 0, 1},
		{"two spheres 400", two, 400, 2},
		{"tube 200", tube(0.05, 0.4, 40, 40), 200, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := coarseOf(t, tc.m, tc.budget)
			want := tc.budget
			if want == 0 {
				want = wrinkle.DefaultCoarseVerts
			}
			n := len(c.Mesh.Verts)
			// The tube keeps its two rims (82 vertices) exactly, so it
			// gets a looser bound.
			if math.Abs(float64(n-want)) > 0.1*float64(want)+2 && tc.name != "tube 200" {
				t.Errorf("%d coarse vertices, want about %d", n, want)
			}
			if len(c.Pieces) != tc.pieces {
				t.Errorf("%d pieces, want %d", len(c.Pieces), tc.pieces)
			}
			if err := c.Mesh.Validate(); err != nil {
				t.Fatal(err)
			}
			for i, k := range c.Kept {
				if c.Mesh.Verts[i] != tc.m.Verts[k] {
					t.Fatalf("coarse vertex %d is not fine vertex %d", i, k)
				}
				if c.VertPiece[i] != c.FinePiece[k] {
					t.Fatalf("coarse vertex %d in piece %d, its fine vertex in %d", i, c.VertPiece[i], c.FinePiece[k])
				}
			}
			if c.Weights.NumVerts() != n {
				t.Errorf("weights for %d vertices, want %d", c.Weights.NumVerts(), n)
			}
		})
	}
	for _, uniform := range []bool{false, true} {
		c, err := wrinkle.NewCoarse(sphere, oneJoint(len(sphere.Verts)), wrinkle.CoarseOptions{Verts: 300, Quadric: !uniform})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(c.Mesh.Verts); n < 270 || n > 330 {
			t.Errorf("uniform %v: %d vertices, want about 300", uniform, n)
		}
	}
	if _, err := wrinkle.NewCoarse(sphere, oneJoint(3), wrinkle.CoarseOptions{Verts: 100}); err == nil {
		t.Error("weights of the wrong length accepted")
	}
}

// TestTransfer checks Eqs. 5–6 on cases with a known answer: the rest
// shapes map onto each other unchanged (the bias b(v) is what makes this
// hold on a curved, open tube); a coarse mesh translated or turned
// rigidly carries the fine one with it; a fine wrinkle (a bump the coarse
// mesh does not have) survives the transfer.
func TestTransfer(t *testing.T) {
	fine := tube(0.05, 0.4, 60, 80)
	c := coarseOf(t, fine, 250)
	tr, err := wrinkle.NewTransfer(fine, c.Mesh, c.FinePiece, c.VertPiece, wrinkle.TransferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rot := geom.QuatAxisAngle(geom.V(0.3, 1, 0.2).Unit(), 0.7)
	move := func(xs []geom.Vec3) []geom.Vec3 {
		out := make([]geom.Vec3, len(xs))
		for i, x := range xs {
			out[i] = rot.Rotate(x).Add(geom.V(0.1, -0.2, 0.3))
		}
		return out
	}
	bump := append([]geom.Vec3(nil), fine.Verts...)
	for i, p := range bump {
		if p.Y > 0.15 && p.Y < 0.25 {
			bump[i] = p.Add(geom.V(p.X, 0, p.Z).Unit().Scale(0.004 * math.Sin(p.Y*2*math.Pi/0.02)))
		}
	}
	for _, tc := range []struct {
		name           string
		fineX, coarseX []geom.Vec3
		want           []geom.Vec3
		tol            float64 // m
	}{
		// Rounding only.
		{name: "rest", fineX: fine.Verts, coarseX: c.Mesh.Verts, want: fine.Verts, tol: 1e-12},
		{name: "translated coarse", fineX: fine.Verts, coarseX: translate(c.Mesh.Verts, geom.V(0, 0.05, 0.01)), want: translate(fine.Verts, geom.V(0, 0.05, 0.01)), tol: 1e-12},
		// The bias turns with the coarse vertex frames; rounding only.
		{name: "rigid", fineX: move(fine.Verts), coarseX: move(c.Mesh.Verts), want: move(fine.Verts), tol: 1e-9},
		// The 4 mm, 2 cm wavelength ripple is the fine mesh's own detail
		// (the coarse edges are about 3 cm) and is kept to 0.5 mm.
		{name: "fine bump kept", fineX: bump, coarseX: c.Mesh.Verts, want: bump, tol: 5e-4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]geom.Vec3, len(fine.Verts))
			if err := tr.Apply(tc.fineX, tc.coarseX, dst); err != nil {
				t.Fatal(err)
			}
			if d := maxDist(dst, tc.want); !(d <= tc.tol) {
				t.Errorf("max distance %.3g m from the expected result, tolerance %.3g", d, tc.tol)
			}
		})
	}
	// Without the bias, Eq. 5 as printed would move the rest shapes.
	if err := tr.Apply(fine.Verts, c.Mesh.Verts[:3], make([]geom.Vec3, len(fine.Verts))); err == nil {
		t.Error("coarse positions of the wrong length accepted")
	}
}

func translate(xs []geom.Vec3, d geom.Vec3) []geom.Vec3 {
	out := make([]geom.Vec3, len(xs))
	for i, x := range xs {
		out[i] = x.Add(d)
	}
	return out
}

// TestTransferFollowsCoarse moves the coarse tube's middle outward (a
// bulge the synthesis knows nothing about) and checks the fine mesh
// follows it there and stays put far from it.
func TestTransferFollowsCoarse(t *testing.T) {
	// Few rim vertices, so that decimation leaves the coarse tube's
	// middle with short edges (Simplify keeps open rims exactly).
	fine := tube(0.05, 0.4, 30, 60)
	c := coarseOf(t, fine, 300)
	tr, err := wrinkle.NewTransfer(fine, c.Mesh, nil, nil, wrinkle.TransferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cx := append([]geom.Vec3(nil), c.Mesh.Verts...)
	for i, p := range cx {
		cx[i] = p.Add(geom.V(p.X, 0, p.Z).Unit().Scale(0.01 * math.Exp(-math.Pow((p.Y-0.2)/0.05, 2))))
	}
	dst := make([]geom.Vec3, len(fine.Verts))
	if err := tr.Apply(fine.Verts, cx, dst); err != nil {
		t.Fatal(err)
	}
	for i, p := range fine.Verts {
		r := math.Hypot(dst[i].X, dst[i].Z)
		want := 0.05 + 0.01*math.Exp(-math.Pow((p.Y-0.2)/0.05, 2))
		// Linear interpolation of the 1 cm bulge over ~3 cm coarse edges,
		// then the offsets' smoothing, which lowers its peak by 1.5 mm:
		// the fine mesh follows within 2 mm.
		if math.Abs(r-want) > 2e-3 {
			t.Fatalf("vertex %d at height %.3f: radius %.4f, want %.4f", i, p.Y, r, want)
		}
	}
}

// TestBodyPush pushes points out of a sphere of radius 0.1 with a 3 mm
// safety distance.
func TestBodyPush(t *testing.T) {
	body := mesh.UVSphere(0.1, 60, 90)
	pts := []geom.Vec3{
		geom.V(0, 0, 0.09),   // 10 mm inside: pushed, deep
		geom.V(0.0995, 0, 0), // ~0.5 mm inside: pushed, not deep
		geom.V(0, 0.1015, 0), // 1.5 mm out: pushed to 3 mm
		geom.V(0.2, 0, 0),    // far: untouched
	}
	bp, err := wrinkle.NewBodyPush(body.Verts, body.Tris, len(pts), 0.003, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	x := append([]geom.Vec3(nil), pts...)
	st, err := bp.Push(x)
	if err != nil {
		t.Fatal(err)
	}
	if st.Inside != 2 || st.Deep != 1 || st.Pushed != 3 {
		t.Errorf("stats %+v, want 2 inside, 1 deep, 3 pushed", st)
	}
	// The sphere's facets lie up to 0.14 mm inside the true sphere.
	for i, p := range x[:3] {
		if r := p.Len(); math.Abs(r-0.103) > 3e-4 {
			t.Errorf("point %d at radius %.5f, want 0.103", i, r)
		}
	}
	if x[3] != pts[3] {
		t.Errorf("far point moved to %v", x[3])
	}
	if _, err := bp.Push(x[:2]); err == nil {
		t.Error("wrong point count accepted")
	}
	if _, err := wrinkle.NewBodyPush(body.Verts, [][3]int32{{0, 1, int32(len(body.Verts))}}, 1, 0, 0); err == nil {
		t.Error("bad body triangle accepted")
	}
}

// TestTransferSmoothOperator checks that the folded operator S^n A gives
// the n Jacobi steps of mesh.Smoother on the up-sampled offsets (to the
// rows' pruning, a few 1e-7 of the offsets), and that frames are
// bit-identical for any worker count.
func TestTransferSmoothOperator(t *testing.T) {
	fine := tube(0.05, 0.4, 80, 100) // 8181 vertices: frames run in chunks
	c := coarseOf(t, fine, 300)
	coarse := append([]geom.Vec3(nil), c.Mesh.Verts...)
	for v, p := range coarse {
		coarse[v] = p.Add(geom.V(0.01*math.Sin(20*p.Y), 0.003*p.X, 0.02*p.Y*p.Y))
	}
	raw, err := wrinkle.NewTransfer(fine, c.Mesh, c.FinePiece, c.VertPiece, wrinkle.TransferOptions{Smooth: -1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]geom.Vec3, len(fine.Verts))
	raw.Offsets(fine.Verts, coarse, want)
	top, err := mesh.NewTopology(fine)
	if err != nil {
		t.Fatal(err)
	}
	mesh.NewSmoother(mesh.NewUniformLaplacian(top)).Vec3(want, mesh.SmoothParams{Lambda: 0.5, Iterations: 10})
	var ref []geom.Vec3
	for _, workers := range []int{1, 2, 3} {
		tr, err := wrinkle.NewTransfer(fine, c.Mesh, c.FinePiece, c.VertPiece, wrinkle.TransferOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]geom.Vec3, len(fine.Verts))
		tr.Offsets(fine.Verts, coarse, got)
		tr.Close()
		if ref == nil {
			ref = got
			scale := 0.0
			for _, w := range want {
				scale = math.Max(scale, w.Len())
			}
			d := maxDist(got, want)
			t.Logf("folded smoothing against the Jacobi steps: %.3g m (offsets up to %.3g m)", d, scale)
			// The folded rows drop weights summing to at most 1e-4 each
			// (transferPrune): the offsets move by a few 1e-4 of their scale.
			if d > 4e-4*scale {
				t.Errorf("folded smoothing differs from the Jacobi steps by %.3g m (offsets up to %.3g m)", d, scale)
			}
			continue
		}
		for u := range got {
			if got[u] != ref[u] {
				t.Fatalf("%d workers: vertex %d offset %v, with 1 worker %v", workers, u, got[u], ref[u])
			}
		}
	}
}
