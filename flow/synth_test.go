package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// synth is a synthetic garment animation standing in for a simulation: the
// procedural shirt skinned through the procedural walk with its own
// weights, plus bind-space folds at elbows, shoulders and waist whose
// amplitude and phase follow the joint angles, a hem flutter driven by the
// lagged root velocity, a world-space swing of the cloth below the
// shoulders, a few smooth random "dynamics" modes, a world-space
// sag of the sleeves, and 0.01 mm white noise (so the flow has full rank).
type synth struct {
	anim Animation
	rig  Rig
	sc   *scene.Scene
}

// newSynth builds the animation with about res/2 shirt vertices over
// seconds at 30 fps.
func newSynth(t testing.TB, res int, seconds float64) synth {
	t.Helper()
	sc, err := scene.Load(scene.Spec{Resolution: res, Seconds: seconds})
	if err != nil {
		t.Fatal(err)
	}
	g := sc.Garments[0]
	return synthOn(t, sc, g.Name, g.Mesh, g.Weights)
}

// synthOn animates garment gm (skinned with gw) on scene sc.
func synthOn(t testing.TB, sc *scene.Scene, name string, gm *mesh.Mesh, gw skel.Weights) synth {
	t.Helper()
	sk := sc.Character.Skeleton
	rest := gm.Verts
	nrm := mesh.VertexNormals(gm, nil)
	restW := sk.RestWorld()
	n, m := len(rest), len(sc.Clip.Poses)

	type fold struct {
		joint       int
		axis        geom.Vec3 // bone direction, world rest
		amp, lambda float64   // m
		radius      float64   // m
		phase       float64   // rad per rad of joint angle
	}
	var folds []fold
	add := func(name, child string, amp, lambda, radius, phase float64) {
		j, ok := sk.Index(name)
		c, ok2 := sk.Index(child)
		if !ok || !ok2 {
			t.Logf("synthetic folds: no joint %s/%s", name, child)
			return
		}
		ax := restW[c].T.Sub(restW[j].T).Unit()
		folds = append(folds, fold{j, ax, amp, lambda, radius, phase})
	}
	add("LeftForeArm", "LeftHand", 0.025, 0.035, 0.09, 2.5)
	add("RightForeArm", "RightHand", 0.025, 0.035, 0.09, 2.5)
	add("LeftArm", "LeftForeArm", 0.02, 0.05, 0.10, 1.5)
	add("RightArm", "RightForeArm", 0.02, 0.05, 0.10, 1.5)
	add("Spine1", "Neck", 0.015, 0.06, 0.15, 2)
	add("LowerBack", "Spine", 0.012, 0.07, 0.15, 2)

	// Hem: the lowest 12 cm of the shirt.
	lowY := math.Inf(1)
	for _, p := range rest {
		lowY = min(lowY, p.Y)
	}
	shoulderY := restW[sk.NumJoints()-1].T.Y
	if j, ok := sk.Index("LeftArm"); ok {
		shoulderY = restW[j].T.Y
	}
	// Root velocity, lagged (first-order filter, 0.15 s).
	vel := make([]geom.Vec3, m)
	lag := geom.Vec3{}
	for f := 1; f < m; f++ {
		v := sc.Clip.Poses[f].Root.Sub(sc.Clip.Poses[f-1].Root).Scale(sc.Clip.FPS)
		lag = lag.Add(v.Sub(lag).Scale(1 / (0.15*sc.Clip.FPS + 1)))
		vel[f] = lag
	}
	// Smooth random modes with AR(1) time series.
	rng := rand.New(rand.NewPCG(1, 1))
	const nModes = 12
	type mode struct {
		k   geom.Vec3
		psi float64
		z   []float64
	}
	modes := make([]mode, nModes)
	for q := range modes {
		md := mode{k: geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(25), psi: rng.Float64() * 2 * math.Pi, z: make([]float64, m)}
		x := 0.0
		for f := range md.z {
			x = 0.9*x + 0.3*rng.NormFloat64()
			md.z[f] = x * 0.006 / math.Sqrt(float64(q+1))
		}
		modes[q] = md
	}

	frames := make([][]geom.Vec3, m)
	bind := make([]geom.Vec3, n)
	for f := 0; f < m; f++ {
		p := sc.Clip.Poses[f]
		for v, r := range rest {
			d := 0.0
			for _, fo := range folds {
				q := p.Rot[fo.joint]
				ang := 2 * math.Acos(min(1, math.Abs(q.W)))
				c := restW[fo.joint].T
				rel := r.Sub(c)
				gauss := math.Exp(-rel.Len2() / (2 * fo.radius * fo.radius))
				if gauss < 1e-4 {
					continue
				}
				s := rel.Dot(fo.axis)
				d += fo.amp * math.Pow(min(ang, 1.5)/1.5, 1.3) * gauss * math.Sin(2*math.Pi*s/fo.lambda+fo.phase*ang)
			}
			if h := r.Y - lowY; h < 0.12 {
				w := 1 - h/0.12
				sp := vel[f].Len()
				d += 0.03 * w * w * sp * math.Sin(2*math.Pi*(r.X+r.Z)/0.12+3*float64(f)/sc.Clip.FPS)
			}
			for _, md := range modes {
				d += md.z[f] * math.Sin(md.k.Dot(r)+md.psi)
			}
			bind[v] = r.AddScaled(d, nrm[v])
		}
		x := skel.LBS(bind, gw, skel.SkinMatrices(sk, p, nil), nil)
		// Swing: the cloth below the shoulders lags the body, in world
		// space, by 0.2 s of the root's velocity change.
		swing := vel[f].Sub(sc.Clip.Poses[max(f-1, 0)].Root.Sub(sc.Clip.Poses[max(f-2, 0)].Root).Scale(sc.Clip.FPS)).Scale(-0.2)
		swing.Y = 0
		for v := range x {
			if h := shoulderY - rest[v].Y; h > 0 {
				x[v] = x[v].AddScaled(min(1, h/0.5), swing)
			}
			// Sleeves sag 3 mm in world space (outside |x| > 0.25 m at rest).
			if a := math.Abs(rest[v].X); a > 0.25 {
				x[v].Y -= 0.003 * min(1, (a-0.25)/0.1)
			}
			x[v] = x[v].Add(geom.Vec3{X: rng.NormFloat64(), Y: rng.NormFloat64(), Z: rng.NormFloat64()}.Scale(0.00001))
		}
		frames[f] = x
	}
	anim := Animation{Name: name, Rest: gm, Frames: frames}
	rig := NewRig(sc.Character, sc.Clip, gw)
	return synth{anim: anim, rig: rig, sc: sc}
}
