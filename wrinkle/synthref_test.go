package wrinkle

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// refSynthesize is the plain form of Synthesize (doc.go, steps 1–4): per
// role and vertex, the corner samples read from db in float64 and
// interpolated by rotInterp and screwInterp with trigonometry, every DoF
// interpolated even at a fraction of 0 or 1. The corner samples are the
// Synthesizer's stored ones (stored) or db's decoded positions (samples)
// rounded to float32. Synthesize must agree with it to rounding.
func refSynthesize(s *Synthesizer, db *DB, samples [][]geom.Vec3, p skel.Pose, stored bool) []geom.Vec3 {
	rig := s.rig
	n := len(db.Rest)
	skin := skel.SkinMatrices(rig.Skeleton, p, nil)
	acc := make([]geom.Vec3, n)
	for v := range acc {
		if rs, _ := db.Regions.Influences(v); len(rs) == 0 {
			acc[v] = db.Base[v].Sub(db.Rest[v])
		}
	}
	var pos [][]geom.Vec3 // per local sample of the joint
	for ji := 0; ji < db.Spec.NumJoints(); ji++ {
		js := db.Spec.JointSpec(ji)
		role, grid, rj := js.Role, js.Grid(), &rig.Roles[js.Role]
		pos = pos[:0]
		for si, ss := range db.Samples {
			if ss.Role == role {
				pos = append(pos, samples[si])
			}
		}
		a := rig.AnglesOf(role, rig.RoleRotation(role, skin))
		var cell [3]int
		var fr [3]float64
		for d := 0; d < 3; d++ {
			cell[d], fr[d], _ = js.DoF[d].locate(a[d])
			if d < role.NumDoF() {
				a[d] = min(max(a[d], js.DoF[d].Angle(0)), js.DoF[d].Angle(grid[d]-1))
			}
		}
		chainD := make([]geom.Quat, len(rj.Chain))
		rig.chainRotations(role, a, chainD)
		chainT := make([]geom.Rigid, len(chainD))
		for k := range chainT {
			c := rj.Centers[k]
			r := geom.Rigid{R: chainD[k], T: c.Sub(chainD[k].Rotate(c))}
			if k > 0 {
				r = chainT[k-1].Mul(r)
			}
			if r.R.W < 0 {
				r.R = r.R.Scale(-1)
			}
			chainT[k] = r
		}
		grid1 := func(c [3]int) int {
			for d := range c {
				c[d] = min(c[d], grid[d]-1)
			}
			return (c[0]*grid[1]+c[1])*grid[2] + c[2]
		}
		axis := func(i0, i1 int) geom.Vec3 {
			s0 := js.DoF[0].Angle(min(cell[0]+i0, grid[0]-1))
			s1 := js.DoF[1].Angle(min(cell[1]+i1, grid[1]-1))
			rv := rj.Axis[0].Scale(s0).Add(rj.Axis[1].Scale(s1))
			return geom.QuatAxisAngle(rv, rv.Len()).Rotate(rj.Bone)
		}
		c0 := rj.Center
		rd := &s.roles[ji]
		li := -1 // v's index in the role's list
		for v := 0; v < n; v++ {
			rs, ws := db.Regions.Influences(v)
			w := -1.0
			for i, r := range rs {
				if r == role {
					w = float64(ws[i])
				}
			}
			if w < 0 {
				continue
			}
			li++
			at := func(c [3]int) geom.Vec3 {
				ls := grid1(c)
				if stored {
					st := rd.sample(ls*rd.nv, li)
					if role.Hinge() {
						return polarPoint(c0, st)
					}
					return rd.frames[ls/grid[2]].point(st)
				}
				q := pos[ls][v] // float32, as the Synthesizer stores samples
				return geom.Vec3{X: float64(float32(q.X)), Y: float64(float32(q.Y)), Z: float64(float32(q.Z))}
			}
			var y geom.Vec3
			if role.Hinge() {
				y = rotInterp(c0, at(cell), at([3]int{cell[0] + 1, cell[1], cell[2]}), fr[0])
			} else {
				var q [2]geom.Vec3
				for i0 := 0; i0 < 2; i0++ {
					var pp [2]geom.Vec3
					for i1 := 0; i1 < 2; i1++ {
						c := [3]int{cell[0] + i0, cell[1] + i1, cell[2]}
						c1 := [3]int{c[0], c[1], c[2] + 1}
						pp[i1] = screwInterp(c0, axis(i0, i1), at(c), at(c1), fr[2])
					}
					q[i0] = rotInterp(c0, pp[0], pp[1], fr[1])
				}
				y = rotInterp(c0, q[0], q[1], fr[0])
			}
			r := db.Rest[v]
			sk := r
			var rot geom.Quat
			sum := 0.0
			js, jw := db.Weights.Influences(v)
			for k := range chainT {
				al := 0.0
				for i, j := range js {
					if e := chainElem(rig, role, int(j)); e == k {
						al += float64(jw[i])
					}
				}
				if al == 0 {
					continue
				}
				sk = sk.Add(chainT[k].Apply(r).Sub(r).Scale(al))
				rot = rot.Add(chainT[k].R.Scale(al))
				sum += al
			}
			rot.W += 1 - sum
			acc[v] = acc[v].Add(rot.Normalize().Conj().Rotate(y.Sub(sk)).Scale(w))
		}
	}
	out := make([]geom.Vec3, n)
	w := db.Weights
	for v, r := range db.Rest {
		var p geom.Vec3
		var q geom.Quat
		a, e := w.Offsets[v], w.Offsets[v+1]
		for i := a; i < e; i++ {
			m := skin[w.Joints[i]]
			wi := float64(w.W[i])
			p = p.Add(m.Apply(r).Scale(wi))
			mq := m.R
			if i > a && mq.Dot(skin[w.Joints[a]].R) < 0 {
				mq = mq.Scale(-1)
			}
			q = q.Add(mq.Scale(wi))
		}
		out[v] = p.Add(q.Normalize().Rotate(acc[v]))
	}
	return out
}

// TestSynthesizeMatchesReference: Synthesize (series turns, corners
// skipped at fractions 0 and 1, vertex-major blending, any worker count)
// gives refSynthesize's garment to rounding, on poses at, between and
// beyond the samples.
func TestSynthesizeMatchesReference(t *testing.T) {
	f := getFixture(t)
	s, db := testSynth(t, SynthOptions{Workers: 3})
	s.parallel = 1 // split even this small garment
	defer s.Close()
	poses := append(walkPoses(f.rig, 6), offGridPoses(f.rig, 6, rand.New(rand.NewPCG(1, 1)))...)
	for _, ss := range db.Samples[:20] {
		p, err := f.rig.SamplePose(ss.Sample)
		must(t, err)
		poses = append(poses, p)
	}
	samples := make([][]geom.Vec3, len(db.Samples))
	for si := range samples {
		var err error
		samples[si], err = db.Positions(si, nil)
		must(t, err)
	}
	dst := make([]geom.Vec3, s.NumVerts())
	var worst [2]float64
	for k, p := range poses {
		_, err := s.Synthesize(p, dst)
		must(t, err)
		for i, stored := range []bool{true, false} {
			want := refSynthesize(s, db, samples, p, stored)
			// From the same stored samples, the results differ by the
			// float32 rounding of the stored unit directions, which
			// Synthesize uses as they are and the reference renormalises
			// (6e-8 relative, times the radius: ~1e-8 m). From samples
			// stored as float32 positions instead, by the float32
			// rounding of either (~1e-7 m at 1 m from the origin).
			tol := [2]float64{1e-7, 4e-7}[i]
			for v := range dst {
				if d := dst[v].Dist(want[v]); d > tol || math.IsNaN(d) {
					t.Fatalf("pose %d vertex %d: %v, reference (stored %v) %v (%g m)", k, v, dst[v], stored, want[v], d)
				} else {
					worst[i] = math.Max(worst[i], d)
				}
			}
		}
	}
	t.Logf("%d poses: worst %.2g m from the reference on the stored samples, %.2g m on float32 positions", len(poses), worst[0], worst[1])
}

// TestSynthesizeWorkers: the result is bit-identical for any number of
// workers and chunk split.
func TestSynthesizeWorkers(t *testing.T) {
	f := getFixture(t)
	poses := offGridPoses(f.rig, 4, rand.New(rand.NewPCG(1, 2)))
	var ref []geom.Vec3
	for _, workers := range []int{1, 2, 3, 5} {
		s, _ := testSynth(t, SynthOptions{Workers: workers})
		s.parallel = 1
		var all []geom.Vec3
		dst := make([]geom.Vec3, s.NumVerts())
		for _, p := range poses {
			_, err := s.Synthesize(p, dst)
			must(t, err)
			all = append(all, dst...)
		}
		s.Close()
		if ref == nil {
			ref = all
			continue
		}
		for i := range all {
			if all[i] != ref[i] {
				t.Fatalf("workers=%d: entry %d is %v, with one worker %v", workers, i, all[i], ref[i])
			}
		}
	}
}

// chainElem returns the chain element of role whose exclusive subtree
// holds joint j, or -1.
func chainElem(rig *Rig, role Role, j int) int {
	sk := rig.Skeleton
	for ; j >= 0; j = sk.Parent(j) {
		for k, c := range rig.Roles[role].Chain {
			if c == j {
				return k
			}
		}
	}
	return -1
}

// TestSynthesizeNoAllocParallel: with helpers running, a frame still
// allocates nothing once they are started.
func TestSynthesizeNoAllocParallel(t *testing.T) {
	f := getFixture(t)
	s, _ := testSynth(t, SynthOptions{Workers: 2})
	defer s.Close()
	s.parallel = 1
	poses := walkPoses(f.rig, 8)
	dst := make([]geom.Vec3, s.NumVerts())
	_, err := s.Synthesize(poses[0], dst) // starts the helpers
	must(t, err)
	i := 0
	allocs := testing.AllocsPerRun(20, func() {
		_, _ = s.Synthesize(poses[i%len(poses)], dst)
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per frame", allocs)
	}
}
