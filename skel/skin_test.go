package skel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func TestSingleInfluenceIsRigid(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	sk := randomSkeleton(rnd, 12)
	skin := SkinMatrices(sk, randomPose(rnd, sk), nil)
	n := 500
	rest, nrm := make([]geom.Vec3, n), make([]geom.Vec3, n)
	lists := make([][]Influence, n)
	for v := range rest {
		rest[v], nrm[v] = randomVec(rnd), randomVec(rnd).Unit()
		lists[v] = []Influence{{Joint: int32(rnd.IntN(12)), W: 1}}
	}
	w := NewWeights(lists)
	lbs, dqs := LBS(rest, w, skin, nil), DQS(rest, w, skin, nil)
	lbsN, dqsN := LBSNormals(nrm, w, skin, nil), DQSNormals(nrm, w, skin, nil)
	for v := range rest {
		m := skin[w.Joints[v]]
		p, q := m.Apply(rest[v]), m.ApplyDir(nrm[v])
		// Coordinates up to ~2 m through a few rotations: 1e-12 m.
		if !nearVec(lbs[v], p, tol) || !nearVec(dqs[v], p, tol) || !nearVec(lbs[v], dqs[v], tol) {
			t.Fatalf("vertex %d: LBS %v DQS %v rigid %v", v, lbs[v], dqs[v], p)
		}
		if !nearVec(lbsN[v], q, tol) || !nearVec(dqsN[v], q, tol) {
			t.Fatalf("normal %d: LBS %v DQS %v rigid %v", v, lbsN[v], dqsN[v], q)
		}
	}
}

// cylinder returns a cylinder of radius r along +Y from y=0 to y=2 with
// rings of k vertices, skinned to joint 0 (at the origin) and joint 1 (at
// y=1) with weights blending linearly over y in [0.5, 1.5].
func cylinder(rings, k int, r float64) ([]geom.Vec3, Weights) {
	var pts []geom.Vec3
	var lists [][]Influence
	for i := range rings {
		y := 2 * float64(i) / float64(rings-1)
		t := float32(min(max(y-0.5, 0), 1))
		for a := range k {
			s, c := math.Sincos(2 * math.Pi * float64(a) / float64(k))
			pts = append(pts, geom.V(r*c, y, r*s))
			lists = append(lists, []Influence{{0, 1 - t}, {1, t}})
		}
	}
	return pts, NewWeights(lists)
}

func TestTwistedCylinder(t *testing.T) {
	sk, err := NewSkeleton([]Joint{
		{Name: "lower", Parent: -1, Rest: geom.RigidIdentity()},
		{Name: "upper", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 1, 0)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	const r = 0.1
	rest, w := cylinder(21, 16, r)
	p := RestPose(sk)
	p.Rot[1] = JointRotation(sk, 1, Angles{Twist: math.Pi}) // 180° about the bone
	skin := SkinMatrices(sk, p, nil)
	radius := func(q geom.Vec3) float64 { return math.Hypot(q.X, q.Z) }
	minR := func(pts []geom.Vec3) float64 {
		m := math.Inf(1)
		for _, q := range pts {
			m = min(m, radius(q))
		}
		return m
	}
	lbs, dqs := LBS(rest, w, skin, nil), DQS(rest, w, skin, nil)
	// LBS: at the half-way ring the blend ½(I + R_π) projects onto the axis.
	if m := minR(lbs); m > 1e-9 {
		t.Errorf("LBS min radius %g, want collapse to 0", m)
	}
	// DQS blends rotations, so every vertex stays at radius r and height.
	for v, q := range dqs {
		if !near(radius(q), r, tol) || !near(q.Y, rest[v].Y, tol) {
			t.Fatalf("DQS vertex %d at radius %g height %g, want %g %g", v, radius(q), q.Y, r, rest[v].Y)
		}
	}
}

// rig returns a random 31-joint skeleton, pose and n vertices with k
// normalised influences each.
func rig(n, k int) (rest []geom.Vec3, w Weights, skin []geom.Rigid) {
	rnd := rand.New(rand.NewPCG(1, 1))
	sk := randomSkeleton(rnd, 31)
	skin = SkinMatrices(sk, randomPose(rnd, sk), nil)
	rest = make([]geom.Vec3, n)
	lists := make([][]Influence, n)
	for v := range rest {
		rest[v] = randomVec(rnd)
		for range k {
			lists[v] = append(lists[v], Influence{Joint: int32(rnd.IntN(31)), W: rnd.Float32() + 0.01})
		}
	}
	w = NewWeights(lists)
	w.Normalize()
	return rest, w, skin
}

func TestParallelDeterministic(t *testing.T) {
	rest, w, skin := rig(10007, 4)
	type fn func([]geom.Vec3, Weights, []geom.Rigid, []geom.Vec3) []geom.Vec3
	for _, tc := range []struct {
		name   string
		serial fn
		par    func(Skinner) fn
	}{
		{"LBS", LBS, func(s Skinner) fn { return s.LBS }},
		{"LBSNormals", LBSNormals, func(s Skinner) fn { return s.LBSNormals }},
		{"DQS", DQS, func(s Skinner) fn { return s.DQS }},
		{"DQSNormals", DQSNormals, func(s Skinner) fn { return s.DQSNormals }},
	} {
		want := tc.serial(rest, w, skin, nil)
		for _, s := range []Skinner{{}, {Workers: 2}, {Workers: 3, Chunk: 1000}, {Workers: 8, Chunk: 7}, {Workers: 64}} {
			got := tc.par(s)(rest, w, skin, make([]geom.Vec3, 3, len(rest)))
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("%s %+v: vertex %d %v != serial %v", tc.name, s, v, got[v], want[v])
				}
			}
		}
	}
}

func TestLBSPart(t *testing.T) {
	rest, w, skin := rig(1001, 4)
	want := LBS(rest, w, skin, nil)
	for _, chunk := range []int{1, 7, 500, 1001, 4096} {
		got := make([]geom.Vec3, len(rest))
		for lo := 0; lo < len(rest); lo += chunk {
			LBSPart(rest, w, skin, got, lo, min(lo+chunk, len(rest)))
		}
		for v := range want {
			if got[v] != want[v] {
				t.Fatalf("chunk %d: vertex %d %v != LBS %v", chunk, v, got[v], want[v])
			}
		}
	}
	// Only the range is written.
	got := make([]geom.Vec3, len(rest))
	LBSPart(rest, w, skin, got, 10, 20)
	for v := range got {
		if in, written := v >= 10 && v < 20, got[v] != (geom.Vec3{}); in != written {
			t.Fatalf("vertex %d written=%v, want %v", v, written, in)
		}
	}
	for _, r := range [][2]int{{-1, 3}, {5, 1002}, {9, 8}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("range %v: no panic", r)
				}
			}()
			LBSPart(rest, w, skin, got, r[0], r[1])
		}()
	}
}

func TestSkinNoAllocs(t *testing.T) {
	rest, w, skin := rig(1000, 4)
	dst := make([]geom.Vec3, len(rest))
	if a := testing.AllocsPerRun(10, func() { LBS(rest, w, skin, dst); DQS(rest, w, skin, dst); LBSPart(rest, w, skin, dst, 3, 900) }); a != 0 {
		t.Errorf("serial skinning allocates %g times", a)
	}
}

func BenchmarkSkin(b *testing.B) {
	for _, n := range []int{1000, 20000, 100000} {
		rest, w, skin := rig(n, 4)
		dst := make([]geom.Vec3, n)
		for _, workers := range []int{1, 4, 8} {
			s := Skinner{Workers: workers}
			for _, m := range []struct {
				name string
				f    func([]geom.Vec3, Weights, []geom.Rigid, []geom.Vec3) []geom.Vec3
			}{{"LBS", s.LBS}, {"DQS", s.DQS}} {
				b.Run(fmt.Sprintf("%s/n=%d/workers=%d", m.name, n, workers), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						dst = m.f(rest, w, skin, dst)
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/vertex")
				})
			}
		}
	}
}
