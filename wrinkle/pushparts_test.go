package wrinkle

import (
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// twoSpheres returns two spheres of radius 0.1 m, the second's centre
// at (gap + 0.2, 0, 0) so that gap separates them, and skin weights
// binding each wholly to its own joint (0, then 1).
func twoSpheres(gap float64) (*mesh.Mesh, skel.Weights) {
	a := mesh.UVSphere(0.1, 12, 16)
	nv := len(a.Verts)
	m := &mesh.Mesh{}
	m.Verts = append(m.Verts, a.Verts...)
	for _, p := range a.Verts {
		m.Verts = append(m.Verts, p.Add(geom.V(0.2+gap, 0, 0)))
	}
	m.Tris = append(m.Tris, a.Tris...)
	for _, t := range a.Tris {
		m.Tris = append(m.Tris, [3]int32{t[0] + int32(nv), t[1] + int32(nv), t[2] + int32(nv)})
	}
	w := skel.Weights{Offsets: []int32{0}}
	for v := range m.Verts {
		w.Joints = append(w.Joints, int32(v/nv))
		w.W = append(w.W, 1)
		w.Offsets = append(w.Offsets, int32(len(w.Joints)))
	}
	return m, w
}

// TestBodyParts checks the dominant-joint labels and the errors for
// triangles without weights and for bad labels.
func TestBodyParts(t *testing.T) {
	m, w := twoSpheres(0.05)
	part, err := BodyParts(m.Tris, w)
	must(t, err)
	for i, p := range part {
		if want := int32(2 * i / len(m.Tris)); p != want {
			t.Fatalf("triangle %d: part %d, want %d", i, p, want)
		}
	}
	// A triangle with corners weighted 0.6/0.4, 0.3/0.7 and 0.2/0.8 to
	// joints 3 and 5: 1.1 against 1.9.
	mixed := skel.Weights{Offsets: []int32{0, 2, 4, 6}, Joints: []int32{3, 5, 3, 5, 3, 5}, W: []float32{0.6, 0.4, 0.3, 0.7, 0.2, 0.8}}
	if p, err := BodyParts([][3]int32{{0, 1, 2}}, mixed); err != nil || p[0] != 5 {
		t.Errorf("mixed weights: part %v, %v; want joint 5", p, err)
	}
	if _, err := BodyParts([][3]int32{{0, 1, 7}}, mixed); err == nil || !strings.Contains(err.Error(), "triangle 0") {
		t.Errorf("vertex without weights: %v, want an error naming triangle 0", err)
	}
	bp, err := NewBodyPush(m.Verts, m.Tris, 1, 0, 0)
	must(t, err)
	if err := bp.SetParts(part[1:]); err == nil {
		t.Error("SetParts with a label short: no error")
	}
	bad := append([]int32(nil), part...)
	bad[7] = -1
	if err := bp.SetParts(bad); err == nil || !strings.Contains(err.Error(), "triangle 7") {
		t.Errorf("negative label: %v, want an error naming triangle 7", err)
	}
	must(t, bp.SetParts(nil))
	if bp.apart(geom.V(0.2, 0, 0), 0, 0, bp.Thickness) {
		t.Error("apart without parts: true")
	}
}

// TestBodyPushApart checks the parts' test on two spheres: a point 5 mm
// outside the first is apart while the second's box is farther than
// Thickness (3 mm) from it, in the rest shape and after SetBody moves
// the second sphere, and not apart once the box comes nearer.
func TestBodyPushApart(t *testing.T) {
	m, w := twoSpheres(0.05)
	part, err := BodyParts(m.Tris, w)
	must(t, err)
	bp, err := NewBodyPush(m.Verts, m.Tris, 1, 0, 0)
	must(t, err)
	must(t, bp.SetParts(part))
	x := geom.V(0.105, 0, 0) // 5 mm outside sphere 0 towards sphere 1
	own := int32(0)          // a triangle of sphere 0
	moved := make([]geom.Vec3, len(m.Verts))
	for _, tc := range []struct {
		gap   float64 // between x and sphere 1's box, m
		apart bool
	}{
		{0.045, true},
		{0.0035, true},
		{0.0025, false},
		{-0.01, false}, // x inside sphere 1's box
	} {
		for v, p := range m.Verts {
			if v >= len(m.Verts)/2 {
				// Sphere 1's box starts at 0.2 + 0.05 − 0.1 = 0.15 m.
				p = p.Add(geom.V(tc.gap-0.045, 0, 0))
			}
			moved[v] = p
		}
		must(t, bp.SetBody(moved))
		lo := bp.partBox[1][0].X
		if got := bp.apart(x, own, 0.005*0.005, bp.Thickness); got != tc.apart {
			t.Errorf("box of sphere 1 from x = %.4f m: apart %v, want %v", lo-x.X, got, tc.apart)
		}
		// Seen from sphere 1, a point 2 mm from sphere 0 is not apart.
		if bp.apart(geom.V(0.102, 0, 0), int32(len(m.Tris)-1), 0.045*0.045, bp.Thickness) {
			t.Errorf("gap %g: 2 mm from sphere 0, from sphere 1's triangle: apart", tc.gap)
		}
	}
}
