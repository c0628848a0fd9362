package resynth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// The test fixture: a tube ("trouser leg") of rings×segs vertices hanging
// from a three-joint chain (hip at y = 1, knee at 0.5, ankle at 0), skinned
// to the hip above the knee and the knee below it with a blend between,
// and animated by a hip yaw φ(t) and a knee bend θ(t). Its "cloth" frames
// are the skinned tube plus folds that depend on the pose and its speed,
// so that a database of other clips can predict them and skinning alone
// cannot.

func tubeRig() Rig {
	r := Rig{Names: []string{"hip", "knee", "ankle"}, Parents: []int32{-1, 0, 1}}
	r.Rest = tubeJoints(0, 0)
	return r
}

// tubeJoints returns the world joint transforms for hip yaw phi and knee
// bend theta (radians).
func tubeJoints(phi, theta float64) []geom.Rigid {
	g0 := geom.Rigid{R: geom.QuatAxisAngle(geom.V(0, 1, 0), phi), T: geom.V(0, 1, 0)}
	g1 := g0.Mul(geom.Rigid{R: geom.QuatAxisAngle(geom.V(1, 0, 0), theta), T: geom.V(0, -0.5, 0)})
	g2 := g1.Mul(geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, -0.5, 0)})
	return []geom.Rigid{g0, g1, g2}
}

func tubeGarment(rings, segs int) Garment {
	var g Garment
	var lists [][]skel.Influence
	for i := 0; i < rings; i++ {
		y := 0.95 - 0.9*float64(i)/float64(rings-1)
		for k := 0; k < segs; k++ {
			a := 2 * math.Pi * float64(k) / float64(segs)
			g.Rest = append(g.Rest, geom.V(0.12*math.Cos(a), y, 0.12*math.Sin(a)))
			// Blend from the hip to the knee over y in [0.4, 0.6].
			u := min(max((0.6-y)/0.2, 0), 1)
			lists = append(lists, []skel.Influence{{Joint: 0, W: float32(1 - u)}, {Joint: 1, W: float32(u)}})
		}
	}
	for i := 0; i+1 < rings; i++ {
		for k := 0; k < segs; k++ {
			a, b := int32(i*segs+k), int32(i*segs+(k+1)%segs)
			c, d := a+int32(segs), b+int32(segs)
			g.Tris = append(g.Tris, [3]int32{a, c, b}, [3]int32{b, c, d})
		}
	}
	g.Weights = skel.NewWeights(lists)
	return g
}

// tubeClip animates the tube with yaw phi(t) and bend theta(t) for n
// frames at 30 frames/s.
func tubeClip(name string, g *Garment, r *Rig, n int, phi, theta func(t float64) float64) Clip {
	c := Clip{Name: name, FPS: 30}
	var x []geom.Vec3
	for f := 0; f < n; f++ {
		t := float64(f) / 30
		p, th := phi(t), theta(t)
		dth := (theta(t+1e-3) - theta(t-1e-3)) / 2e-3
		js := tubeJoints(p, th)
		skin := r.SkinTransforms(js, nil)
		// Folds in the tube's rest frame: radial ripples that grow with
		// the bend and lag behind its speed.
		fold := make([]geom.Vec3, len(g.Rest))
		for v, q := range g.Rest {
			rad := geom.V(q.X, 0, q.Z).Unit()
			amp := 0.01*th*math.Sin(25*q.Y) + 0.004*dth*math.Cos(17*q.Y+3*math.Atan2(q.Z, q.X))
			fold[v] = q.Add(rad.Scale(amp))
		}
		x = skel.LBS(fold, g.Weights, skin, x)
		c.AppendFrame(js, x)
	}
	return c
}

// tubeDB returns a database of four clips of n frames each on a tube of
// rings×segs vertices.
func tubeDB(rings, segs, n int) *DB {
	db := &DB{Rig: tubeRig(), Garment: tubeGarment(rings, segs)}
	g, r := &db.Garment, &db.Rig
	db.Clips = []Clip{
		tubeClip("swing", g, r, n, func(t float64) float64 { return 0.3 * math.Sin(2*t) }, func(t float64) float64 { return 0.6 + 0.5*math.Sin(3*t) }),
		tubeClip("kick", g, r, n, func(t float64) float64 { return 0 }, func(t float64) float64 { return 1.0 * math.Max(0, math.Sin(4*t)) }),
		tubeClip("turn", g, r, n, func(t float64) float64 { return 0.8 * t }, func(t float64) float64 { return 0.3 + 0.2*math.Cos(5*t) }),
		tubeClip("walk", g, r, n, func(t float64) float64 { return 0.1 * math.Sin(t) }, func(t float64) float64 { return 0.5 + 0.45*math.Sin(2.5*t+1) }),
	}
	return db
}
