package geom

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

const tol = 1e-12

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func nearVec(a, b Vec3, eps float64) bool { return a.Sub(b).Len() <= eps }

func randQuat(r *rand.Rand) Quat {
	return Quat{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize()
}

func TestVecBasics(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"dot", V(1, 2, 3).Dot(V(4, -5, 6)), 12},
		{"len", V(3, 4, 12).Len(), 13},
		{"cross.z", V(1, 0, 0).Cross(V(0, 1, 0)).Z, 1},
		{"angle", V(1, 0, 0).Angle(V(0, 2, 0)), math.Pi / 2},
		{"area", TriangleArea(V(0, 0, 0), V(2, 0, 0), V(0, 3, 0)), 3},
		{"unit zero", V(0, 0, 0).Unit().Len(), 0},
	}
	for _, tc := range tests {
		if !near(tc.got, tc.want, tol) {
			t.Errorf("%s: got %v want %v", tc.name, tc.got, tc.want)
		}
	}
	if V(math.NaN(), 0, 0).IsFinite() || V(0, math.Inf(1), 0).IsFinite() || !V(1, 2, 3).IsFinite() {
		t.Error("IsFinite wrong")
	}
	p := V(0.3, -2, 5).AnyPerp()
	if !near(p.Dot(V(0.3, -2, 5)), 0, tol) || !near(p.Len(), 1, tol) {
		t.Errorf("AnyPerp %v not a unit perpendicular", p)
	}
}

func TestMatInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 100; i++ {
		var m Mat3
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				m[a][b] = r.NormFloat64()
			}
		}
		inv, ok := m.Inverse()
		if !ok {
			continue
		}
		id := m.Mul(inv)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				want := 0.0
				if a == b {
					want = 1
				}
				if !near(id[a][b], want, 1e-8) {
					t.Fatalf("m·m⁻¹ = %v", id)
				}
			}
		}
	}
	if _, ok := (Mat3{}).Inverse(); ok {
		t.Error("zero matrix reported invertible")
	}
}

func TestQuatRotateMatchesMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100; i++ {
		q := randQuat(r)
		v := V(r.NormFloat64(), r.NormFloat64(), r.NormFloat64())
		if !nearVec(q.Rotate(v), q.Mat3().MulVec(v), 1e-12) {
			t.Fatal("Rotate and Mat3 disagree")
		}
		q2 := QuatFromMat3(q.Mat3())
		if !near(math.Abs(q2.Dot(q)), 1, 1e-12) {
			t.Fatalf("QuatFromMat3 round trip: %v vs %v", q2, q)
		}
	}
	// Right-hand rule: +90° about +Z takes +X to +Y.
	if got := QuatAxisAngle(V(0, 0, 1), math.Pi/2).Rotate(V(1, 0, 0)); !nearVec(got, V(0, 1, 0), tol) {
		t.Errorf("rotate X about Z: %v", got)
	}
}

func TestQuatBetweenAndAxisAngle(t *testing.T) {
	tests := []struct{ a, b Vec3 }{
		{V(1, 0, 0), V(0, 1, 0)},
		{V(1, 0, 0), V(1, 0, 0)},
		{V(1, 0, 0), V(-1, 0, 0)},
		{V(0.2, 0.5, -1), V(3, -1, 2)},
	}
	for _, tc := range tests {
		q := QuatBetween(tc.a, tc.b)
		if got := q.Rotate(tc.a.Unit()); !nearVec(got, tc.b.Unit(), 1e-9) {
			t.Errorf("QuatBetween(%v,%v) maps to %v", tc.a, tc.b, got)
		}
	}
	axis, ang := QuatAxisAngle(V(0, 2, 0), 1.2).AxisAngle()
	if !nearVec(axis, V(0, 1, 0), tol) || !near(ang, 1.2, tol) {
		t.Errorf("AxisAngle: %v %v", axis, ang)
	}
}

func TestSlerp(t *testing.T) {
	a := QuatIdentity()
	b := QuatAxisAngle(V(0, 1, 0), 2)
	_, ang := Slerp(a, b, 0.25).AxisAngle()
	if !near(ang, 0.5, 1e-12) {
		t.Errorf("slerp quarter angle %v, want 0.5", ang)
	}
	// Shorter arc with a sign-flipped end.
	_, ang = Slerp(a, b.Scale(-1), 0.5).AxisAngle()
	if !near(ang, 1, 1e-12) {
		t.Errorf("slerp antipodal angle %v, want 1", ang)
	}
}

func TestSwingTwist(t *testing.T) {
	axis := V(0, 1, 0)
	tests := []struct {
		name             string
		swingAx          Vec3
		swing, twist     float64
		wantTwist, wantS float64
	}{
		{"pure twist", V(0, 0, 1), 0, 0.7, 0.7, 0},
		{"pure swing", V(1, 0, 0), 0.9, 0, 0, 0.9},
		{"both", V(0.6, 0, 0.8), 1.1, -2.5, -2.5, 1.1},
	}
	for _, tc := range tests {
		q := QuatAxisAngle(tc.swingAx, tc.swing).Mul(QuatAxisAngle(axis, tc.twist))
		sw, tw, ang := SwingTwist(q, axis)
		if !near(ang, tc.wantTwist, 1e-12) {
			t.Errorf("%s: twist %v want %v", tc.name, ang, tc.wantTwist)
		}
		_, sang := sw.AxisAngle()
		if !near(sang, tc.wantS, 1e-12) {
			t.Errorf("%s: swing %v want %v", tc.name, sang, tc.wantS)
		}
		if !near(math.Abs(sw.Mul(tw).Dot(q)), 1, 1e-12) {
			t.Errorf("%s: swing·twist != q", tc.name)
		}
		if !near(sw.Vec().Dot(axis), 0, 1e-12) {
			t.Errorf("%s: swing axis not perpendicular", tc.name)
		}
	}
}

func TestRigid(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := Rigid{randQuat(r), V(1, 2, 3)}
	b := Rigid{randQuat(r), V(-1, 0.5, 2)}
	p := V(0.3, 0.2, -0.7)
	if !nearVec(a.Mul(b).Apply(p), a.Apply(b.Apply(p)), 1e-12) {
		t.Error("Mul is not composition")
	}
	if !nearVec(a.Inverse().Apply(a.Apply(p)), p, 1e-12) {
		t.Error("Inverse")
	}
	m := a.Mat4()
	q := a.Apply(p)
	x := m[0]*p.X + m[4]*p.Y + m[8]*p.Z + m[12]
	if !near(x, q.X, 1e-12) {
		t.Error("Mat4 not column-major")
	}
}

func TestBox(t *testing.T) {
	b := BoxOf([]Vec3{V(0, 0, 0), V(1, 2, 3)})
	if b.LongestAxis() != 2 || !nearVec(b.Center(), V(0.5, 1, 1.5), tol) {
		t.Errorf("box %v", b)
	}
	if !near(b.Dist2(V(2, 1, 1)), 1, tol) || b.Dist2(V(0.5, 0.5, 0.5)) != 0 {
		t.Error("Dist2")
	}
	if !EmptyBox().IsEmpty() || b.IsEmpty() {
		t.Error("IsEmpty")
	}
}

func ExampleSwingTwist() {
	// A bone along +Y, bent 30° forward and twisted 45° about itself.
	q := QuatAxisAngle(V(1, 0, 0), math.Pi/6).Mul(QuatAxisAngle(V(0, 1, 0), math.Pi/4))
	_, _, twist := SwingTwist(q, V(0, 1, 0))
	fmt.Printf("twist %.1f°\n", twist*180/math.Pi)
	// Output: twist 45.0°
}
