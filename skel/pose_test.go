package skel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

func rz(a float64) geom.Quat { return geom.QuatAxisAngle(geom.V(0, 0, 1), a) }

// chain returns a root at rootT with two children each offset by (0, 1, 0)
// in its parent's frame; rootR is the root's rest rotation.
func chain(t *testing.T, rootR geom.Quat, rootT geom.Vec3) *Skeleton {
	t.Helper()
	up := geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 1, 0)}
	sk, err := NewSkeleton([]Joint{
		{Name: "a", Parent: -1, Rest: geom.Rigid{R: rootR, T: rootT}},
		{Name: "b", Parent: 0, Rest: up},
		{Name: "c", Parent: 1, Rest: up},
	})
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func TestFKChain(t *testing.T) {
	id := geom.QuatIdentity()
	q := math.Pi / 2
	for _, tc := range []struct {
		name  string
		rootR geom.Quat
		root  geom.Vec3
		rot   []geom.Quat
		pos   []geom.Vec3 // hand-computed world joint positions
	}{
		{"rest", id, geom.Vec3{}, []geom.Quat{id, id, id},
			[]geom.Vec3{geom.V(0, 1, 0), geom.V(0, 2, 0), geom.V(0, 3, 0)}},
		{"root 90 z", id, geom.Vec3{}, []geom.Quat{rz(q), id, id},
			[]geom.Vec3{geom.V(0, 1, 0), geom.V(-1, 1, 0), geom.V(-2, 1, 0)}},
		{"root and mid 90 z, displaced", id, geom.V(1, 0, 0.5), []geom.Quat{rz(q), rz(q), id},
			[]geom.Vec3{geom.V(1, 1, 0.5), geom.V(0, 1, 0.5), geom.V(0, 0, 0.5)}},
		{"rest-rotated root", rz(q), geom.Vec3{}, []geom.Quat{id, rz(-q), id},
			[]geom.Vec3{geom.V(0, 1, 0), geom.V(-1, 1, 0), geom.V(-1, 2, 0)}},
	} {
		sk := chain(t, tc.rootR, geom.V(0, 1, 0))
		w := FK(sk, Pose{Root: tc.root, Rot: tc.rot}, nil)
		for j, want := range tc.pos {
			if !nearVec(w[j].T, want, tol) {
				t.Errorf("%s: joint %d at %v, want %v", tc.name, j, w[j].T, want)
			}
		}
	}
}

func TestSkinMatricesRest(t *testing.T) {
	sk := randomSkeleton(rand.New(rand.NewPCG(1, 1)), 40)
	s := SkinMatrices(sk, RestPose(sk), nil)
	for j, m := range s {
		if !nearRot(m.R, geom.QuatIdentity(), tol) || m.T.Len() > 1e-12 {
			t.Errorf("joint %d: rest skin matrix %v", j, m)
		}
	}
	// A posed joint carries its rest world frame onto its posed one.
	rnd := rand.New(rand.NewPCG(1, 2))
	p := randomPose(rnd, sk)
	w, rw := FK(sk, p, nil), sk.RestWorld()
	s = SkinMatrices(sk, p, s)
	for j := range s {
		got := s[j].Mul(rw[j])
		if !nearVec(got.T, w[j].T, 1e-11) || !nearRot(got.R, w[j].R, tol) {
			t.Errorf("joint %d: skin·rest = %v, world %v", j, got, w[j])
		}
	}
}

func TestInterpPose(t *testing.T) {
	a := Pose{Root: geom.V(0, 0, 0), Rot: []geom.Quat{geom.QuatIdentity(), rz(1)}}
	b := Pose{Root: geom.V(2, 0, 0), Rot: []geom.Quat{rz(1), rz(-1).Scale(-1)}}
	var d Pose
	InterpPose(&d, a, b, 0.5)
	if !nearVec(d.Root, geom.V(1, 0, 0), tol) || !nearRot(d.Rot[0], rz(0.5), tol) || !nearRot(d.Rot[1], geom.QuatIdentity(), tol) {
		t.Errorf("mid pose %+v", d)
	}
	InterpPose(&a, a, b, 1) // aliasing dst and a
	if !nearRot(a.Rot[0], rz(1), tol) || a.Root != b.Root {
		t.Errorf("end pose %+v", a)
	}
}

// randomSkeleton returns n joints; joint j's parent is random among 0..j-1,
// with random offsets (up to 0.3 m) and rest rotations, every third a hinge.
func randomSkeleton(rnd *rand.Rand, n int) *Skeleton {
	js := make([]Joint, n)
	for j := range js {
		js[j] = Joint{Name: string(rune('A'+j%26)) + string(rune('a'+j/26)), Parent: -1,
			Rest: geom.Rigid{R: randomQuat(rnd), T: randomVec(rnd).Scale(0.3)}}
		if j > 0 {
			js[j].Parent = rnd.IntN(j)
		}
		if j%3 == 2 {
			js[j].Kind = Hinge
			js[j].Axis = randomVec(rnd)
		}
	}
	sk, err := NewSkeleton(js)
	if err != nil {
		panic(err)
	}
	return sk
}

func randomVec(rnd *rand.Rand) geom.Vec3 {
	return geom.V(2*rnd.Float64()-1, 2*rnd.Float64()-1, 2*rnd.Float64()-1)
}

func randomQuat(rnd *rand.Rand) geom.Quat {
	return geom.Quat{W: rnd.NormFloat64(), X: rnd.NormFloat64(), Y: rnd.NormFloat64(), Z: rnd.NormFloat64()}.Normalize()
}

func randomPose(rnd *rand.Rand, sk *Skeleton) Pose {
	p := RestPose(sk)
	p.Root = randomVec(rnd)
	for j := range p.Rot {
		p.Rot[j] = randomQuat(rnd)
	}
	return p
}

func BenchmarkFK(b *testing.B) {
	sk := randomSkeleton(rand.New(rand.NewPCG(1, 1)), 163)
	p := randomPose(rand.New(rand.NewPCG(1, 2)), sk)
	dst := FK(sk, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		dst = FK(sk, p, dst)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/163, "ns/joint")
}

func BenchmarkSkinMatrices(b *testing.B) {
	sk := randomSkeleton(rand.New(rand.NewPCG(1, 1)), 163)
	p := randomPose(rand.New(rand.NewPCG(1, 2)), sk)
	dst := SkinMatrices(sk, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		dst = SkinMatrices(sk, p, dst)
	}
}
