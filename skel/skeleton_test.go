package skel

import (
	"errors"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// tol is the tolerance for results of a few float64 rotations composed:
// each costs a few ulps, so 1e-12 leaves ample margin at metre scale.
const tol = 1e-12

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func nearVec(a, b geom.Vec3, eps float64) bool { return a.Sub(b).Len() <= eps }

// nearRot compares rotations, treating q and -q as equal.
func nearRot(a, b geom.Quat, eps float64) bool { return 1-math.Abs(a.Dot(b)) <= eps }

func TestNewSkeletonErrors(t *testing.T) {
	id := geom.RigidIdentity()
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		joints []Joint
		index  int
		err    error
	}{
		{"empty name", []Joint{{Name: "", Parent: -1, Rest: id}}, 0, ErrEmptyName},
		{"duplicate", []Joint{{Name: "a", Parent: -1, Rest: id}, {Name: "a", Parent: 0, Rest: id}}, 1, ErrDuplicateName},
		{"parent self", []Joint{{Name: "a", Parent: 0, Rest: id}}, 0, ErrBadParent},
		{"parent after", []Joint{{Name: "a", Parent: -1, Rest: id}, {Name: "b", Parent: 2, Rest: id}, {Name: "c", Parent: 0, Rest: id}}, 1, ErrBadParent},
		{"parent -2", []Joint{{Name: "a", Parent: -2, Rest: id}}, 0, ErrBadParent},
		{"nan offset", []Joint{{Name: "a", Parent: -1, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(nan, 0, 0)}}}, 0, ErrNotFinite},
		{"inf axis", []Joint{{Name: "a", Parent: -1, Rest: id, Axis: geom.V(0, math.Inf(1), 0)}}, 0, ErrNotFinite},
		{"zero rotation", []Joint{{Name: "a", Parent: -1}}, 0, ErrBadRotation},
		{"bad kind", []Joint{{Name: "a", Parent: -1, Rest: id, Kind: 7}}, 0, ErrBadKind},
	} {
		_, err := NewSkeleton(tc.joints)
		var je *JointError
		if !errors.As(err, &je) || !errors.Is(err, tc.err) || je.Index != tc.index || je.Name != tc.joints[tc.index].Name {
			t.Errorf("%s: got %v, want joint %d %v", tc.name, err, tc.index, tc.err)
		}
	}
}

func TestSkeletonQueries(t *testing.T) {
	id := geom.RigidIdentity()
	sk, err := NewSkeleton([]Joint{
		{Name: "hips", Parent: -1, Rest: geom.Rigid{R: geom.Quat{W: 2}, T: geom.V(0, 1, 0)}},
		{Name: "spine", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 0.2, 0)}},
		{Name: "thigh.L", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0.1, 0, 0)}},
		{Name: "prop", Parent: -1, Rest: id},
	})
	if err != nil {
		t.Fatal(err)
	}
	if sk.NumJoints() != 4 || sk.Joint(0).Rest.R != geom.QuatIdentity() {
		t.Errorf("joints not copied/normalised: %+v", sk.Joint(0))
	}
	if j, ok := sk.Index("thigh.L"); !ok || j != 2 {
		t.Errorf("Index(thigh.L) = %d, %v", j, ok)
	}
	if _, ok := sk.Index("nope"); ok {
		t.Error("Index(nope) found")
	}
	if c := sk.Children(0); len(c) != 2 || c[0] != 1 || c[1] != 2 {
		t.Errorf("Children(0) = %v", c)
	}
	if r := sk.Roots(); len(r) != 2 || r[0] != 0 || r[1] != 3 {
		t.Errorf("Roots = %v", r)
	}
	if w := sk.RestWorld(); !nearVec(w[2].T, geom.V(0.1, 1, 0), tol) {
		t.Errorf("RestWorld[2] = %v", w[2])
	}
	// Bone axis of hips: to its first child (spine), +Y.
	if a, u, v := sk.Axes(0); !nearVec(a, geom.V(0, 1, 0), tol) || !nearVec(u, geom.V(1, 0, 0), tol) || !nearVec(v, geom.V(0, 0, 1), tol) {
		t.Errorf("Axes(0) = %v %v %v", a, u, v)
	}
	// thigh.L has no children: +Y; prop too.
	if a, _, _ := sk.Axes(2); a != geom.V(0, 1, 0) {
		t.Errorf("Axes(2) = %v", a)
	}
}

func TestBoneRotation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		head, tail geom.Vec3
		roll       float64
		x, y       geom.Vec3 // images of +X and +Y
	}{
		{"up", geom.V(0, 0, 0), geom.V(0, 2, 0), 0, geom.V(1, 0, 0), geom.V(0, 1, 0)},
		{"up roll 90", geom.V(0, 0, 0), geom.V(0, 2, 0), math.Pi / 2, geom.V(0, 0, -1), geom.V(0, 1, 0)},
		{"down", geom.V(1, 1, 1), geom.V(1, 0, 1), 0, geom.V(-1, 0, 0), geom.V(0, -1, 0)},
		{"+x", geom.V(0, 0, 0), geom.V(3, 0, 0), 0, geom.V(0, -1, 0), geom.V(1, 0, 0)},
		{"+z", geom.V(0, 0, 0), geom.V(0, 0, 1), 0, geom.V(1, 0, 0), geom.V(0, 0, 1)},
	} {
		q := BoneRotation(tc.head, tc.tail, tc.roll)
		if x, y := q.Rotate(geom.V(1, 0, 0)), q.Rotate(geom.V(0, 1, 0)); !nearVec(x, tc.x, tol) || !nearVec(y, tc.y, tol) {
			t.Errorf("%s: X→%v Y→%v, want %v %v", tc.name, x, y, tc.x, tc.y)
		}
	}
}

func TestFromBones(t *testing.T) {
	// An arm given child-first: shoulder at (0.2,1.4,0) pointing +X, elbow, hand.
	bones := []Bone{
		{Name: "hand", Parent: "forearm", Head: geom.V(0.7, 1.4, 0), Tail: geom.V(0.8, 1.4, 0)},
		{Name: "forearm", Parent: "upperarm", Head: geom.V(0.45, 1.4, 0), Tail: geom.V(0.7, 1.4, 0), Kind: Hinge, Axis: geom.V(0, 0, 1)},
		{Name: "upperarm", Head: geom.V(0.2, 1.4, 0), Tail: geom.V(0.45, 1.4, 0), Roll: 0.3},
	}
	sk, err := FromBones(bones)
	if err != nil {
		t.Fatal(err)
	}
	for j, name := range []string{"upperarm", "forearm", "hand"} {
		if sk.Joint(j).Name != name || sk.Parent(j) != j-1 {
			t.Fatalf("joint %d = %q parent %d", j, sk.Joint(j).Name, sk.Parent(j))
		}
	}
	w := sk.RestWorld()
	for j, b := range []Bone{bones[2], bones[1], bones[0]} {
		if !nearVec(w[j].T, b.Head, tol) || !nearRot(w[j].R, BoneRotation(b.Head, b.Tail, b.Roll), tol) {
			t.Errorf("%s: world %v", b.Name, w[j])
		}
		// The bone's local +Y (its Ball twist axis) points at the tail.
		if a, _, _ := sk.Axes(j); sk.Joint(j).Kind == Ball && !nearVec(w[j].ApplyDir(a), b.Tail.Sub(b.Head).Unit(), tol) {
			t.Errorf("%s: bone axis %v", b.Name, w[j].ApplyDir(a))
		}
	}
	if sk.Joint(1).Kind != Hinge {
		t.Error("kind lost")
	}

	for _, tc := range []struct {
		name  string
		bones []Bone
		index int
		err   error
	}{
		{"unknown parent", []Bone{{Name: "a", Parent: "zz", Tail: geom.V(0, 1, 0)}}, 0, ErrUnknownParent},
		{"cycle", []Bone{{Name: "r", Tail: geom.V(0, 1, 0)}, {Name: "a", Parent: "b", Tail: geom.V(0, 1, 0)}, {Name: "b", Parent: "a", Tail: geom.V(0, 1, 0)}}, 1, ErrCycle},
		{"zero bone", []Bone{{Name: "a", Head: geom.V(1, 1, 1), Tail: geom.V(1, 1, 1)}}, 0, ErrZeroBone},
		{"duplicate", []Bone{{Name: "a", Tail: geom.V(0, 1, 0)}, {Name: "a", Tail: geom.V(0, 1, 0)}}, 1, ErrDuplicateName},
		{"nan roll", []Bone{{Name: "a", Tail: geom.V(0, 1, 0), Roll: math.NaN()}}, 0, ErrNotFinite},
		{"bad kind", []Bone{{Name: "r", Tail: geom.V(0, 1, 0)}, {Name: "a", Parent: "b", Tail: geom.V(0, 1, 0), Kind: 9}, {Name: "b", Parent: "r", Tail: geom.V(0, 1, 0)}}, 1, ErrBadKind},
	} {
		_, err := FromBones(tc.bones)
		var je *JointError
		if !errors.As(err, &je) || !errors.Is(err, tc.err) || je.Index != tc.index {
			t.Errorf("%s: got %v, want bone %d %v", tc.name, err, tc.index, tc.err)
		}
	}
}

func TestIsAncestor(t *testing.T) {
	id := geom.Rigid{R: geom.QuatIdentity()}
	sk, err := NewSkeleton([]Joint{
		{Name: "root", Parent: -1, Rest: id},
		{Name: "a", Parent: 0, Rest: id},
		{Name: "b", Parent: 1, Rest: id},
		{Name: "c", Parent: 0, Rest: id},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, j int
		want bool
	}{{0, 2, true}, {1, 2, true}, {0, 3, true}, {2, 2, false}, {3, 2, false}, {2, 1, false}, {0, 0, false}} {
		if got := sk.IsAncestor(tc.a, tc.j); got != tc.want {
			t.Errorf("IsAncestor(%d, %d) = %v, want %v", tc.a, tc.j, got, tc.want)
		}
	}
}
