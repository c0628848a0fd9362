package procedural

import (
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

var (
	defOnce sync.Once
	defBody *Body
	defErr  error
)

// body returns the default mannequin, built once per test binary.
func body(t testing.TB) *Body {
	defOnce.Do(func() { defBody, defErr = Mannequin(MannequinOptions{}) })
	if defErr != nil {
		t.Fatal(defErr)
	}
	return defBody
}

func signedVolume(m *mesh.Mesh) float64 {
	v := 0.0
	for _, t := range m.Tris {
		v += m.Verts[t[0]].Dot(m.Verts[t[1]].Cross(m.Verts[t[2]])) / 6
	}
	return v
}

func topo(t *testing.T, m *mesh.Mesh) *mesh.Topology {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	tp, err := mesh.NewTopology(m)
	if err != nil {
		t.Fatal(err)
	}
	if !tp.IsManifold() || len(tp.InconsistentEdges) > 0 || tp.NumComps != 1 {
		t.Fatalf("manifold %v, %d inconsistent edges, %d components", tp.IsManifold(), len(tp.InconsistentEdges), tp.NumComps)
	}
	for e := range tp.Edges {
		if n := tp.EdgeTriStart[e+1] - tp.EdgeTriStart[e]; n < 1 || n > 2 {
			t.Fatalf("edge %d has %d triangles", e, n)
		}
	}
	return tp
}

// minAngles returns the smallest triangle angle in degrees and the
// fraction of triangles with a smallest angle below 20°.
func minAngles(m *mesh.Mesh) (worst, fracBelow20 float64) {
	worst = 180
	n := 0
	for _, t := range m.Tris {
		a := 180.0
		for k := range 3 {
			p, q, r := m.Verts[t[k]], m.Verts[t[(k+1)%3]], m.Verts[t[(k+2)%3]]
			a = math.Min(a, q.Sub(p).Angle(r.Sub(p))*180/math.Pi)
		}
		worst = math.Min(worst, a)
		if a < 20 {
			n++
		}
	}
	return worst, float64(n) / float64(len(m.Tris))
}

func checkWeights(t *testing.T, w skel.Weights, nv, nj int) {
	t.Helper()
	if w.NumVerts() != nv {
		t.Fatalf("weights for %d vertices, want %d", w.NumVerts(), nv)
	}
	if err := w.Validate(nj); err != nil {
		t.Fatal(err)
	}
	if w.MaxInfluences() > maxInfluences {
		t.Fatalf("%d influences", w.MaxInfluences())
	}
	for v := range nv {
		_, ws := w.Influences(v)
		s := 0.0
		for _, x := range ws {
			s += float64(x)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Fatalf("vertex %d weights sum to %g", v, s)
		}
	}
}

func TestMannequin(t *testing.T) {
	b := body(t)
	m := b.Mesh
	tp := topo(t, m)
	if !tp.IsClosed() {
		t.Fatalf("%d boundary loops", len(tp.BoundaryLoops))
	}
	if n := len(m.Verts); n < 8000 || n > 16000 {
		t.Errorf("%d vertices, want 8k-16k", n)
	}
	if v := signedVolume(m); v < 0.055 || v > 0.095 {
		t.Errorf("volume %g m³, want 0.06-0.09 (positive: outward normals)", v)
	}
	bx := m.Bounds()
	if math.Abs(bx.Min.Y) > 0.003 || math.Abs(bx.Max.Y-1.75) > 0.02 || bx.Max.X < 0.85 || bx.Min.X > -0.85 {
		t.Errorf("bounds %v", bx)
	}
	if w, f := minAngles(m); w < 1 || f > 0.1 {
		t.Errorf("worst angle %.2f°, %.1f%% of triangles below 20°", w, 100*f)
	}
	sk := b.Skeleton
	for _, n := range []string{"Hips", "LowerBack", "Spine", "Spine1", "Neck", "Neck1", "Head",
		"LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand", "RightShoulder", "RightArm", "RightForeArm", "RightHand",
		"LHipJoint", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase", "RHipJoint", "RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"} {
		if _, ok := sk.Index(n); !ok {
			t.Errorf("no joint %q", n)
		}
	}
	// Hinges flex the anatomical way: 90° moves the forearm forward (+Z)
	// and the shank backward (−Z).
	for _, tc := range []struct {
		hinge, child string
		dz           float64
	}{{"LeftForeArm", "LeftHand", 1}, {"RightForeArm", "RightHand", 1}, {"LeftLeg", "LeftFoot", -1}, {"RightLeg", "RightFoot", -1}} {
		j, _ := sk.Index(tc.hinge)
		c, _ := sk.Index(tc.child)
		if sk.Joint(j).Kind != skel.Hinge {
			t.Errorf("%s is not a hinge", tc.hinge)
		}
		p := skel.RestPose(sk)
		p.Rot[j] = skel.JointRotation(sk, j, skel.Angles{Flex: math.Pi / 2})
		w, rw := skel.FK(sk, p, nil), sk.RestWorld()
		l := rw[c].T.Dist(rw[j].T)
		if dz := (w[c].T.Z - w[j].T.Z) * tc.dz; math.Abs(dz-l) > 0.01 { // shanks are tilted a little in x
			t.Errorf("%s flexed 90°: child moved %g along ±Z, want %g", tc.hinge, dz, l)
		}
	}
	checkWeights(t, b.Weights, len(m.Verts), sk.NumJoints())
	// A hand vertex follows the hand, a shin vertex the shank.
	for _, tc := range []struct {
		p     geom.Vec3
		joint string
	}{{geom.V(0.85, 1.40, -0.03), "LeftHand"}, {geom.V(-0.112, 0.3, 0.04), "RightLeg"}, {geom.V(0, 1.7, 0.05), "Head"}} {
		var in []skel.Influence
		in = b.sh.weightsAt(tc.p, make([]float64, sk.NumJoints()), in)
		if sk.Joint(int(in[0].Joint)).Name != tc.joint || in[0].W < 0.9 {
			t.Errorf("weights at %v: %v, want mostly %s", tc.p, in, tc.joint)
		}
	}
}

func TestGarments(t *testing.T) {
	b := body(t)
	for _, tc := range []struct {
		name  string
		make  func(*Body, GarmentOptions) (*Garment, error)
		loops int
	}{
		{"shirt", Shirt, 4},       // neck, hem, two cuffs
		{"trousers", Trousers, 3}, // waist, two hems
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.make(b, GarmentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m := g.Mesh
			tp := topo(t, m)
			if len(tp.BoundaryLoops) != tc.loops {
				t.Errorf("%d boundary loops, want %d", len(tp.BoundaryLoops), tc.loops)
			}
			if !m.HasUVs() || m.Group("front") == nil || m.Group("back") == nil || len(g.Seams) == 0 {
				t.Fatal("missing UVs, panel groups or seams")
			}
			// Clearance: nothing inside the body, median gap under 3 cm.
			ds := make([]float64, len(m.Verts))
			for v, p := range m.Verts {
				ds[v], _ = b.SignedDistance(p)
				if ds[v] <= 0 || b.Implicit(p) <= 0 {
					t.Fatalf("vertex %d inside the body (d = %g)", v, ds[v])
				}
			}
			slices.Sort(ds)
			if med := ds[len(ds)/2]; med > 0.03 || ds[0] < 0.5*g.Clearance {
				t.Errorf("distance to body: min %g, median %g m", ds[0], med)
			}
			// Outward orientation: faces point away from the body.
			out := 0
			for _, tri := range m.Tris {
				a, c, d := m.Verts[tri[0]], m.Verts[tri[1]], m.Verts[tri[2]]
				cen := a.Add(c).Add(d).Scale(1.0 / 3)
				_, cp := b.SignedDistance(cen)
				if geom.TriangleNormal(a, c, d).Dot(cen.Sub(cp)) > 0 {
					out++
				}
			}
			if f := float64(out) / float64(len(m.Tris)); f < 0.97 {
				t.Errorf("only %.1f%% of faces point outward", 100*f)
			}
			if w, f := minAngles(m); w < 5 || f > 0.15 {
				t.Errorf("worst angle %.2f°, %.1f%% of triangles below 20°", w, 100*f)
			}
			// UV triangles are counter-clockwise too (panels seen from outside)
			// and their edge lengths are metric, close to the 3D ones.
			ratio := 0.0
			for i, ut := range m.UVTris {
				p, q, r := m.UVs[ut[0]], m.UVs[ut[1]], m.UVs[ut[2]]
				if (q.X-p.X)*(r.Y-p.Y)-(q.Y-p.Y)*(r.X-p.X) <= 0 {
					t.Fatalf("uv triangle %d is clockwise or flat", i)
				}
				l2 := math.Hypot(q.X-p.X, q.Y-p.Y)
				l3 := m.Verts[m.Tris[i][0]].Dist(m.Verts[m.Tris[i][1]])
				ratio += l2 / l3
			}
			if ratio /= float64(len(m.UVTris)); ratio < 0.8 || ratio > 1.25 {
				t.Errorf("mean pattern/3D edge length ratio %g", ratio)
			}
			checkWeights(t, g.Weights, len(m.Verts), b.Skeleton.NumJoints())
		})
	}
}

func TestGarmentResolution(t *testing.T) {
	b := body(t)
	// At coarse spacings the count moves in steps of a whole row of the
	// panels (tens of vertices), so the nearest count can be ~10 % off;
	// fine ones meet the target within targetTol.
	for _, tc := range []struct {
		name   string
		make   func(*Body, GarmentOptions) (*Garment, error)
		target int
		tol    float64
	}{
		{"shirt", Shirt, 350, 0.10},
		{"shirt", Shirt, 700, 0.05},
		{"shirt", Shirt, 50000, targetTol},
		{"trousers", Trousers, 350, 0.10},
		{"trousers", Trousers, 700, 0.05},
		{"trousers", Trousers, 50000, targetTol},
	} {
		g, err := tc.make(b, GarmentOptions{TargetVerts: tc.target})
		if err != nil {
			t.Fatalf("%s %d: %v", tc.name, tc.target, err)
		}
		n := len(g.Mesh.Verts)
		if math.Abs(float64(n)/float64(tc.target)-1) > tc.tol {
			t.Errorf("%s: %d vertices for target %d (more than %.0f %% off)", tc.name, n, tc.target, 100*tc.tol)
		}
		topo(t, g.Mesh)
	}
	if _, err := Shirt(b, GarmentOptions{TargetVerts: 10}); err == nil {
		t.Error("TargetVerts 10 accepted")
	}
}

func TestDeterministic(t *testing.T) {
	build := func() (*Body, *Garment) {
		b, err := Mannequin(MannequinOptions{Cell: 0.025, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		g, err := Trousers(b, GarmentOptions{TargetVerts: 800})
		if err != nil {
			t.Fatal(err)
		}
		return b, g
	}
	b1, g1 := build()
	b2, g2 := build()
	if !slices.Equal(b1.Mesh.Verts, b2.Mesh.Verts) || !slices.Equal(b1.Mesh.Tris, b2.Mesh.Tris) ||
		!slices.Equal(b1.Weights.W, b2.Weights.W) || !slices.Equal(g1.Mesh.Verts, g2.Mesh.Verts) ||
		!slices.Equal(g1.Mesh.UVs, g2.Mesh.UVs) || !slices.Equal(g1.Weights.W, g2.Weights.W) {
		t.Error("two builds differ")
	}
}

func TestClips(t *testing.T) {
	sk := body(t).Skeleton
	const fps = 30
	for _, name := range Clips() {
		t.Run(name, func(t *testing.T) {
			secs := 2.2
			if name != "walk" {
				secs = 2
			}
			poses, err := ClipByName(name, sk, secs, fps)
			if err != nil {
				t.Fatal(err)
			}
			if len(poses) != int(secs*fps)+1 {
				t.Fatalf("%d frames", len(poses))
			}
			first, last := poses[0], poses[len(poses)-1]
			maxStep := 0.0
			for k, p := range poses {
				for j, q := range p.Rot {
					if math.Abs(q.Len()-1) > 1e-9 {
						t.Fatalf("frame %d joint %d: quaternion length %g", k, j, q.Len())
					}
					if k > 0 {
						d := p.Rot[j].Dot(poses[k-1].Rot[j])
						maxStep = math.Max(maxStep, 2*math.Acos(math.Min(math.Abs(d), 1)))
					}
				}
			}
			// Smooth: no joint turns more than 10° between frames at 30 fps.
			if maxStep > 10*math.Pi/180 {
				t.Errorf("max rotation step %.1f°", maxStep*180/math.Pi)
			}
			// Loops: the last frame is one period after the first.
			for j := range first.Rot {
				if d := math.Abs(first.Rot[j].Dot(last.Rot[j])); d < 1-1e-9 {
					t.Errorf("joint %d does not loop (dot %g)", j, d)
				}
			}
			// Feet stay at or above the floor (a margin for the sole).
			w := skel.FK(sk, poses[len(poses)/3], nil)
			for _, f := range []string{"LeftFoot", "RightFoot"} {
				j, _ := sk.Index(f)
				if w[j].T.Y < 0.06 {
					t.Errorf("%s ankle at %g m", f, w[j].T.Y)
				}
			}
		})
	}
	if _, err := ClipByName("moonwalk", sk, 1, 30); err == nil {
		t.Error("unknown clip accepted")
	}
}

func TestDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the full default scene")
	}
	sc, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(sc.Shirt.Mesh.Verts) + len(sc.Trousers.Mesh.Verts); n < 3000 || n > 6000 {
		t.Errorf("%d garment vertices, want 3k-6k", n)
	}
	if len(sc.Walk) != int(DefaultWalkSeconds*DefaultFPS)+1 || sc.FPS != DefaultFPS {
		t.Errorf("walk: %d frames at %g fps", len(sc.Walk), sc.FPS)
	}
}

var sinkVerts int

func BenchmarkMannequin(b *testing.B) {
	for _, tc := range []struct {
		name string
		cell float64
	}{{"default", 0}, {"max", 0.006}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := Mannequin(MannequinOptions{Cell: tc.cell})
				if err != nil {
					b.Fatal(err)
				}
				sinkVerts = len(m.Mesh.Verts)
			}
			b.ReportMetric(float64(sinkVerts), "verts")
		})
	}
}

func BenchmarkShirt(b *testing.B) {
	bd := body(b)
	for _, tc := range []struct {
		name   string
		target int
	}{{"default", 0}, {"max", 50000}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g, err := Shirt(bd, GarmentOptions{TargetVerts: tc.target})
				if err != nil {
					b.Fatal(err)
				}
				sinkVerts = len(g.Mesh.Verts)
			}
			b.ReportMetric(float64(sinkVerts), "verts")
		})
	}
}
