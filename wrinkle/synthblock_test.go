package wrinkle

import (
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// local returns listed vertex i's wrinkle offset for the role in its
// local skinning frame, δ_J = R_J(v)ᵀ (y_J(v) − s_J(v)) (doc.go, step 3),
// for its interpolated position y = y_J(v).
func (rd *roleData) local(i int, y geom.Vec3) geom.Vec3 {
	r := rd.rest[i]
	// The skinned rest shape in the role's pose and its rotation.
	// rot = (1 − Σα)·identity + Σ αₖ·qₖ, normalised.
	sk := r
	var rot geom.Quat
	sum := 0.0
	for k := 0; k < rd.nc; k++ {
		al := rd.alpha[i*rd.nc+k]
		if al == 0 {
			continue
		}
		ct := &rd.chainT[k]
		sk = sk.Add(rd.chainM[k].apply(r).Add(ct.T).Sub(r).Scale(al))
		rot = rot.Add(ct.R.Scale(al))
		sum += al
	}
	rot.W += 1 - sum
	return rotateInv(rot, y.Sub(sk))
}

// rotateInv returns x turned by the inverse of the rotation of q/|q|
// (the identity for a zero q), without a square root: with u = −q's
// vector part and s = 2/|q|², x + s·(w u×x + u×(u×x)).
func rotateInv(q geom.Quat, x geom.Vec3) geom.Vec3 {
	n := q.Dot(q)
	if n == 0 {
		return x
	}
	s := 2 / n
	u := geom.Vec3{X: -q.X, Y: -q.Y, Z: -q.Z}
	c := u.Cross(x)
	d := u.Cross(c)
	return geom.Vec3{X: x.X + s*(q.W*c.X+d.X), Y: x.Y + s*(q.W*c.Y+d.Y), Z: x.Z + s*(q.W*c.Z+d.Z)}
}

// sample returns listed vertex i's stored coordinates in the sample that
// starts at entry o of pos.
func (rd *roleData) sample(o, i int) *[4]float32 { return &rd.pos[o+i] }

// interpolate returns y_J for listed vertex i: the plan's corner samples
// interpolated one DoF at a time in a fixed order, twist with the screw
// scheme about the bone as swung at that corner (Eqs. 2–3), then the
// second and first swing angles, or a hinge's flexion, with the rotational
// scheme about the joint centre (Eq. 1).
func (rd *roleData) interpolate(i int) geom.Vec3 {
	pl := &rd.plan
	if rd.frames == nil {
		s0 := rd.sample(pl.corner[0], i)
		if pl.n[0] == 1 {
			return polarPoint(rd.center, s0)
		}
		return rotPolar(rd.center, s0, rd.sample(pl.corner[4], i), &pl.coef[0])
	}
	// Relative to the joint centre, with each point's distance to it
	// carried along (screwRel, rotRel).
	var q [2]geom.Vec3
	var ql [2]float64
	for i0 := 0; i0 < pl.n[0]; i0++ {
		var p [2]geom.Vec3
		var pl2 [2]float64
		for i1 := 0; i1 < pl.n[1]; i1++ {
			k := (i0*2 + i1) * 2
			f := pl.frame[i0][i1]
			if pl.n[2] == 2 {
				p[i1], pl2[i1] = f.screwRel(rd.sample(pl.corner[k], i), rd.sample(pl.corner[k+1], i), &pl.coef[2])
			} else {
				p[i1] = f.point(rd.sample(pl.corner[k], i)).Sub(f.C)
				pl2[i1] = p[i1].Len()
			}
		}
		q[i0], ql[i0] = p[0], pl2[0]
		if pl.n[1] == 2 {
			q[i0], ql[i0] = rotRel(p[0], pl2[0], p[1], pl2[1], &pl.coef[1])
		}
	}
	if pl.n[0] == 2 {
		q[0], _ = rotRel(q[0], ql[0], q[1], ql[1], &pl.coef[0])
	}
	return rd.center.Add(q[0])
}

// skinning returns LBS(rest_v) and sets *rv to R_v, the rotation of the
// normalised blend of the vertex's joints' rotations (sign-aligned to the
// first): x = LBS(rest_v) + R_v·acc carries a blended local offset acc
// into the pose. (R_v is written in place: a returned 72-byte matrix is
// copied through the stack.)
func (s *Synthesizer) skinning(v int, rv *rot3) geom.Vec3 {
	w := &s.weights
	r := s.rest[v]
	a, e := w.Offsets[v], w.Offsets[v+1]
	js, ws := w.Joints[a:e], w.W[a:e:e]
	var px, py, pz float64
	var q, q0 geom.Quat
	for i, j := range js {
		m := &s.joints[j]
		wi := float64(ws[i])
		px += (m.M[0]*r.X + m.M[1]*r.Y + m.M[2]*r.Z + m.T.X) * wi
		py += (m.M[3]*r.X + m.M[4]*r.Y + m.M[5]*r.Z + m.T.Y) * wi
		pz += (m.M[6]*r.X + m.M[7]*r.Y + m.M[8]*r.Z + m.T.Z) * wi
		mq := m.Q
		if i == 0 {
			q0 = mq
		} else if mq.Dot(q0) < 0 {
			wi = -wi
		}
		q.W += mq.W * wi
		q.X += mq.X * wi
		q.Y += mq.Y * wi
		q.Z += mq.Z * wi
	}
	rv.setQuat(q)
	return geom.Vec3{X: px, Y: py, Z: pz}
}

// vertexRef is vertex's per-vertex form through skinning.
func (s *Synthesizer) vertexRef(v int) geom.Vec3 {
	ins := s.infl[s.inflOff[v]:s.inflOff[v+1]]
	acc := s.restOff[v]
	for _, in := range ins {
		acc = acc.Add(s.off[in.i].Scale(float64(in.w)))
	}
	var q rot3
	p := s.skinning(v, &q)
	return p.Add(q.apply(acc))
}

// TestSynthesizeBlocks: the block kernels of offsets (interpblock.go,
// localBlock) give the per-vertex form local(i, interpolate(i)) bit for
// bit, for every role, plan (walk and sample poses leave DoFs on grid
// lines; offgrid and clamped poses interpolate all) and listed vertex.
func TestSynthesizeBlocks(t *testing.T) {
	f := getFixture(t)
	s, db := testSynth(t, SynthOptions{Workers: 2})
	s.parallel = 1
	defer s.Close()
	poses := append(walkPoses(f.rig, 6), offGridPoses(f.rig, 6, rand.New(rand.NewPCG(1, 3)))...)
	for _, ss := range db.Samples[:12] {
		p, err := f.rig.SamplePose(ss.Sample)
		must(t, err)
		poses = append(poses, p)
	}
	far := skel.RestPose(f.rig.Skeleton)
	for r := Role(0); r < NumRoles; r++ {
		_ = f.rig.SetRole(&far, r, DoFs{2.5, 1.2, -1.3})
	}
	poses = append(poses, far)
	// Every DoF of every sampled role inside its first cell.
	for _, fr := range []float64{0.3, 0.8} {
		p := skel.RestPose(f.rig.Skeleton)
		for j := 0; j < db.Spec.NumJoints(); j++ {
			js := db.Spec.JointSpec(j)
			var a DoFs
			for d := 0; d < js.Role.NumDoF(); d++ {
				a[d] = js.DoF[d].Angle(0)
				if js.DoF[d].Len() > 1 {
					a[d] += fr * (js.DoF[d].Angle(1) - a[d])
				}
			}
			must(t, f.rig.SetRole(&p, js.Role, a))
		}
		poses = append(poses, p)
	}
	dst := make([]geom.Vec3, s.NumVerts())
	plans := map[[3]int]int{}
	for k, p := range poses {
		_, err := s.Synthesize(p, dst)
		must(t, err)
		for ri := range s.roles {
			rd := &s.roles[ri]
			plans[rd.plan.n]++
			for i := 0; i < rd.nv; i++ {
				want := rd.local(i, rd.interpolate(i))
				if got := rd.off[i]; got != want {
					t.Fatalf("pose %d %s (plan %v) vertex %d: %v, per vertex %v", k, rd.role, rd.plan.n, i, got, want)
				}
			}
		}
		for v := range dst {
			if want := s.vertexRef(v); dst[v] != want {
				t.Fatalf("pose %d vertex %d: %v, per vertex %v", k, v, dst[v], want)
			}
		}
	}
	t.Logf("%d poses, plans (DoFs interpolated: count of role-frames) %v", len(poses), plans)
}
