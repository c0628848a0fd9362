package skel

import (
	"math"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// creaseArm is an arm of two cylinders of radius r around the segments
// shoulder→elbow (0.3 m along −Y) and elbow→wrist (0.25 m), each vertex
// weighted wholly to its segment's joint, and the arm's elbow crease.
func creaseArm(t *testing.T, r float64) (*Skeleton, []geom.Vec3, Weights, Crease) {
	t.Helper()
	sk, err := NewSkeleton([]Joint{
		{Name: "shoulder", Parent: -1, Rest: geom.Rigid{R: geom.QuatIdentity()}},
		{Name: "elbow", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.Vec3{Y: -0.3}}, Kind: Hinge},
		{Name: "wrist", Parent: 1, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.Vec3{Y: -0.25}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var verts []geom.Vec3
	var lists [][]Influence
	for k := 0; k <= 55; k++ {
		y := -0.01 * float64(k)
		j := int32(0)
		if y < -0.3 {
			j = 1
		}
		for a := range 16 {
			s, c := math.Sincos(2 * math.Pi * float64(a) / 16)
			verts = append(verts, geom.Vec3{X: r * c, Y: y, Z: r * s})
			lists = append(lists, []Influence{{Joint: j, W: 1}})
		}
	}
	return sk, verts, NewWeights(lists), Crease{Proximal: 0, Joint: 1, Distal: 2}
}

// bent returns the arm's skinning transforms with the elbow flexed by deg
// degrees about X (the forearm towards +Z).
func bent(sk *Skeleton, deg float64) []geom.Rigid {
	p := RestPose(sk)
	p.Rot[1] = geom.QuatAxisAngle(geom.Vec3{X: -1}, deg*math.Pi/180)
	return SkinMatrices(sk, p, nil)
}

// segDist returns the distance from p to the segment a–b.
func segDist(p, a, b geom.Vec3) float64 {
	ab := b.Sub(a)
	t := max(0, min(1, p.Sub(a).Dot(ab)/ab.Dot(ab)))
	return p.Dist(a.Add(ab.Scale(t)))
}

// TestCreaserSeparates checks that after Apply neither segment has a
// vertex inside the other's solid (its cylinder, cut on the inner side of
// the bend by its flattened face: the planes of the Creaser doc), where
// before it the bent cylinders overlap.
func TestCreaserSeparates(t *testing.T) {
	const r, eps = 0.05, 1e-3
	sk, rest, w, cr := creaseArm(t, r)
	c, err := NewCreaser(sk, w, []Crease{cr})
	if err != nil {
		t.Fatal(err)
	}
	inside := func(x []geom.Vec3, skin []geom.Rigid) int {
		sh, el, wr := skin[0].Apply(geom.Vec3{}), skin[1].Apply(geom.Vec3{Y: -0.3}), skin[2].Apply(geom.Vec3{Y: -0.55})
		dp, dd := sh.Sub(el).Unit(), wr.Sub(el).Unit()
		b, m := dp.Add(dd).Unit(), dd.Sub(dp).Unit()
		so, co := math.Sincos(creaseOpen)
		np, nd := b.Scale(so).Add(m.Scale(co)), b.Scale(-so).Add(m.Scale(co))
		n := 0
		for v, p := range x {
			d := p.Sub(el)
			if d.Len() < r+eps {
				continue // the joint's sphere, which both segments share
			}
			inner := d.Dot(b) > 0
			if w.Joints[w.Offsets[v]] == 0 { // proximal vertex: inside the distal solid?
				if segDist(p, el, wr) < r-eps && (!inner || d.Dot(nd) > eps) {
					n++
				}
			} else if segDist(p, sh, el) < r-eps && (!inner || d.Dot(np) < -eps) {
				n++
			}
		}
		return n
	}
	for _, deg := range []float64{120, 135, 150} {
		skin := bent(sk, deg)
		x := LBS(rest, w, skin, nil)
		before := inside(x, skin)
		c.Apply(skin, x)
		if after := inside(x, skin); before == 0 || after != 0 {
			t.Errorf("flexion %g°: %d vertices inside the other segment before Apply, %d after (want some, then none)", deg, before, after)
		}
	}
}

func TestCreaserLeavesOuterSideAndStraightLimbs(t *testing.T) {
	sk, rest, w, cr := creaseArm(t, 0.05)
	c, err := NewCreaser(sk, w, []Crease{cr})
	if err != nil {
		t.Fatal(err)
	}
	for _, deg := range []float64{0, 30, 45, 90, 150} {
		skin := bent(sk, deg)
		x := LBS(rest, w, skin, nil)
		y := append([]geom.Vec3(nil), x...)
		c.Apply(skin, y)
		el := skin[1].Apply(geom.Vec3{Y: -0.3})
		in := skin[0].Apply(geom.Vec3{}).Sub(el).Unit().Add(skin[2].Apply(geom.Vec3{Y: -0.55}).Sub(el).Unit())
		moved := 0
		for v := range x {
			if x[v] == y[v] {
				continue
			}
			moved++
			if deg <= 45 {
				t.Fatalf("flexion %g°: vertex %d moved (below creaseStart nothing moves)", deg, v)
			}
			if x[v].Sub(el).Dot(in) <= 0 {
				t.Fatalf("flexion %g°: vertex %d on the outer side of the bend moved", deg, v)
			}
		}
		if deg >= 90 && moved == 0 {
			t.Errorf("flexion %g°: nothing moved", deg)
		}
	}
}

// TestCreaserContinuous checks that the flattening grows continuously with
// the bend: between flexions 0.5° apart no vertex's correction changes by
// more than the skinning itself moves the forearm's tip.
func TestCreaserContinuous(t *testing.T) {
	sk, rest, w, cr := creaseArm(t, 0.05)
	c, err := NewCreaser(sk, w, []Crease{cr})
	if err != nil {
		t.Fatal(err)
	}
	var last []geom.Vec3
	for deg := 40.0; deg <= 100; deg += 0.5 {
		skin := bent(sk, deg)
		x := LBS(rest, w, skin, nil)
		y := append([]geom.Vec3(nil), x...)
		c.Apply(skin, y)
		corr := make([]geom.Vec3, len(x))
		for v := range x {
			corr[v] = y[v].Sub(x[v])
		}
		if last != nil {
			step := 0.25 * 0.5 * math.Pi / 180 // the wrist's move, m
			for v := range corr {
				if d := corr[v].Dist(last[v]); d > step {
					t.Fatalf("flexion %g°: vertex %d's correction jumped %.2f mm (wrist moves %.2f mm)", deg, v, d*1000, step*1000)
				}
			}
		}
		last = corr
	}
}

func TestNewCreaserErrors(t *testing.T) {
	sk, _, w, _ := creaseArm(t, 0.05)
	for _, tc := range []struct {
		name string
		c    Crease
	}{
		{"out of range", Crease{Proximal: 0, Joint: 1, Distal: 3}},
		{"negative", Crease{Proximal: -1, Joint: 1, Distal: 2}},
		{"proximal below", Crease{Proximal: 2, Joint: 1, Distal: 2}},
		{"proximal is joint", Crease{Proximal: 1, Joint: 1, Distal: 2}},
		{"distal above", Crease{Proximal: 0, Joint: 1, Distal: 0}},
	} {
		if _, err := NewCreaser(sk, w, []Crease{tc.c}); err == nil {
			t.Errorf("%s: %+v: no error", tc.name, tc.c)
		}
	}
}

// TestCreaserRestBend checks that a rig resting with its elbow bent (an
// A-pose's elbows: 50° here) is untouched at rest, where the artist's
// mesh has no overlap, and flattened once bent well beyond it.
func TestCreaserRestBend(t *testing.T) {
	sk0, rest0, w, cr := creaseArm(t, 0.05)
	// The same arm modelled bent 50°: its rest shape is the straight
	// arm's skinned there.
	skin50 := bent(sk0, 50)
	rest := LBS(rest0, w, skin50, nil)
	joints := sk0.Joints()
	joints[1].Rest.R = geom.QuatAxisAngle(geom.Vec3{X: -1}, 50*math.Pi/180)
	sk, err := NewSkeleton(joints)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCreaser(sk, w, []Crease{cr})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		deg  float64 // beyond the rest bend
		move bool
	}{{0, false}, {-20, false}, {60, true}, {95, true}} {
		skin := bent(sk, tc.deg)
		x := LBS(rest, w, skin, nil)
		y := append([]geom.Vec3(nil), x...)
		c.Apply(skin, y)
		if moved := !slices.Equal(x, y); moved != tc.move {
			t.Errorf("bent %g° beyond a rest bend of 50°: moved %v, want %v", tc.deg, moved, tc.move)
		}
	}
}

// creaseHip is a trunk and a leg: an elliptic cylinder (0.16 m to the
// side, 0.12 m to the front and back, from y = −0.12 to 0.3 m) weighted
// to the pelvis below y = 0.1 and to the spine above, and a thigh of
// radius r from the hip (0.1 m to the side, 0.05 m below the pelvis) to
// the knee 0.45 m below it, weighted to the hip; the crease is
// spine/hip/knee, the spine not an ancestor of the hip.
func creaseHip(t *testing.T, r float64) (*Skeleton, []geom.Vec3, Weights, Crease) {
	t.Helper()
	id := geom.QuatIdentity()
	sk, err := NewSkeleton([]Joint{
		{Name: "pelvis", Parent: -1, Rest: geom.Rigid{R: id}},
		{Name: "spine", Parent: 0, Rest: geom.Rigid{R: id, T: geom.Vec3{Y: 0.3}}},
		{Name: "hip", Parent: 0, Rest: geom.Rigid{R: id, T: geom.Vec3{X: 0.1, Y: -0.05}}},
		{Name: "knee", Parent: 2, Rest: geom.Rigid{R: id, T: geom.Vec3{Y: -0.45}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var verts []geom.Vec3
	var lists [][]Influence
	for k := 0; k <= 42; k++ {
		y := -0.12 + 0.01*float64(k)
		j := int32(0)
		if y >= 0.1 {
			j = 1
		}
		for a := range 32 {
			s, c := math.Sincos(2 * math.Pi * float64(a) / 32)
			verts = append(verts, geom.Vec3{X: 0.16 * c, Y: y, Z: 0.12 * s})
			lists = append(lists, []Influence{{Joint: j, W: 1}})
		}
	}
	for k := 0; k <= 45; k++ {
		for a := range 16 {
			s, c := math.Sincos(2 * math.Pi * float64(a) / 16)
			verts = append(verts, geom.Vec3{X: 0.1 + r*c, Y: -0.05 - 0.01*float64(k), Z: r * s})
			lists = append(lists, []Influence{{Joint: 2, W: 1}})
		}
	}
	return sk, verts, NewWeights(lists), Crease{Proximal: 1, Joint: 2, Distal: 3}
}

// flexHip returns creaseHip's skinning transforms with the hip flexed by
// deg degrees (the thigh forward, towards +Z).
func flexHip(sk *Skeleton, deg float64) []geom.Rigid {
	p := RestPose(sk)
	p.Rot[2] = geom.QuatAxisAngle(geom.Vec3{X: -1}, deg*math.Pi/180)
	return SkinMatrices(sk, p, nil)
}

// TestCreaserTrunk checks a crease whose proximal segment is the trunk
// (a hip): once flexed, the thigh and the trunk beside it overlap; after
// Apply a plane across the bend separates them (the thigh's inner side on
// one side, the trunk's on the other), the trunk's other half (across
// the midline from the thigh) is untouched, and below creaseStart
// (creaseTrunkStart) nothing moves (the trunk's axis leans 16° towards
// the midline, so the flexion the Creaser measures is 16° at rest and 71°
// at a hip flexion of 55°).
func TestCreaserTrunk(t *testing.T) {
	const r = 0.07
	sk, rest, w, cr := creaseHip(t, r)
	c, err := NewCreaser(sk, w, []Crease{cr})
	if err != nil {
		t.Fatal(err)
	}
	// gap returns the least m-coordinate of the thigh's inner side minus
	// the largest of the trunk's beside the thigh (negative: they overlap).
	gap := func(x []geom.Vec3, skin []geom.Rigid) float64 {
		o := skin[2].Apply(geom.Vec3{X: 0.1, Y: -0.05})
		dp := skin[1].Apply(geom.Vec3{Y: 0.3}).Sub(o).Unit()
		dd := skin[3].Apply(geom.Vec3{X: 0.1, Y: -0.5}).Sub(o).Unit()
		b, m := dp.Add(dd).Unit(), dd.Sub(dp).Unit()
		trunk, thigh := math.Inf(-1), math.Inf(1)
		for v, p := range x {
			d := p.Sub(o)
			if d.Dot(b) <= 0 {
				continue
			}
			if w.Joints[w.Offsets[v]] == 2 {
				thigh = min(thigh, d.Dot(m))
			} else if math.Abs(p.X-0.1) < 0.9*r {
				trunk = max(trunk, d.Dot(m))
			}
		}
		return thigh - trunk
	}
	for _, deg := range []float64{105, 120} {
		skin := flexHip(sk, deg)
		x := LBS(rest, w, skin, nil)
		y := append([]geom.Vec3(nil), x...)
		c.Apply(skin, y)
		if before, after := gap(x, skin), gap(y, skin); before >= 0 || after < 0 {
			t.Errorf("flexion %g°: gap between thigh and trunk %.1f mm before Apply, %.1f after (want an overlap, then none)", deg, before*1000, after*1000)
		}
		for v := range x {
			if w.Joints[w.Offsets[v]] != 2 && x[v].X < -0.03 && x[v] != y[v] {
				t.Fatalf("flexion %g°: trunk vertex %d at %v, away from the thigh, moved", deg, v, x[v])
			}
		}
	}
	for _, deg := range []float64{0, 30, 55} {
		skin := flexHip(sk, deg)
		x := LBS(rest, w, skin, nil)
		y := append([]geom.Vec3(nil), x...)
		c.Apply(skin, y)
		if !slices.Equal(x, y) {
			t.Errorf("flexion %g°: vertices moved below creaseStart", deg)
		}
	}
}
