package resynth

import (
	"context"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// refFrame reconstructs a frame the direct way: every blended database
// frame decomposed afresh in float64, rotations blended with the closed
// forms of the log and exp maps (math.Atan2, math.Sin, math.Cos).
func refFrame(s *Synth, bl []blend, joints []geom.Rigid) []geom.Vec3 {
	ref := 0
	for k, b := range bl {
		if b.w > bl[ref].w {
			ref = k
		}
	}
	ls := make([]local, len(bl))
	for k, b := range bl {
		if b.frame == restFrame {
			ls[k].l, ls[k].o = make([]geom.Mat3, len(s.vinv)), s.rest.o
			for t := range ls[k].l {
				ls[k].l[t] = geom.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
			}
			continue
		}
		s.computeLocal(b.frame, &ls[k], nil, nil)
	}
	skin := s.db.Rig.SkinTransforms(joints, nil)
	f := make([]geom.Mat3, len(s.vinv))
	for t := range f {
		qr, st := polar(ls[ref].l[t])
		for c := range st {
			st[c] *= bl[ref].w
		}
		var v geom.Vec3
		for k, b := range bl {
			if k == ref {
				continue
			}
			q, sk := polar(ls[k].l[t])
			d := qr.Conj().Mul(q)
			if d.W < 0 {
				d = d.Scale(-1)
			}
			u := geom.Vec3{X: d.X, Y: d.Y, Z: d.Z}
			if n := u.Len(); n > 0 {
				v = v.Add(u.Scale(b.w * math.Atan2(n, d.W) / n))
			}
			for c := range st {
				st[c] += b.w * sk[c]
			}
		}
		if a := v.Len(); a > 0 {
			u := v.Scale(math.Sin(a) / a)
			qr = qr.Mul(geom.Quat{W: math.Cos(a), X: u.X, Y: u.Y, Z: u.Z})
		}
		f[t] = s.ts[t].rotation(skin).Mul(qr).Mat3().Mul(st.mat())
	}
	y := make([]geom.Vec3, len(s.cons))
	for k := range s.cons {
		var o geom.Vec3
		for i, b := range bl {
			o = o.Add(ls[i].o[k].Scale(b.w))
		}
		y[k] = skin[s.cjnt[k]].Apply(o)
	}
	b := make([]float64, 3*s.nverts)
	s.sys.rhs(b, f, y)
	x := make([]geom.Vec3, s.nverts)
	s.sys.solve(b, x)
	return x
}

// Reconstruction from the lazily filled float32 cache of polar factors,
// with the series forms of the log and exp maps, agrees with the direct
// float64 computation to rounding (float32 storage: about 1e-7
// relative), for single frames, pairs and transition windows, whichever
// frames are decomposed first.
func TestCachedBlendsMatchDirect(t *testing.T) {
	db := tubeDB(8, 10, 12)
	s, err := New(db, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	blends := [][]blend{
		{{3, 1}},
		{{5, 0.6}, {6, 0.4}},
		{{2, 0.2}, {3, 0.3}, {14, 0.2}, {15, 0.3}},
		{{1, 0.1}, {13, 0.5}, {30, 0.4}},
		{{7, 0.7}, {restFrame, 0.3}},
	}
	joints := make([][]geom.Rigid, len(blends))
	for f := range joints {
		joints[f] = tubeJoints(0.05*float64(f), 0.3+0.1*float64(f))
	}
	got, err := s.reconstruct(context.Background(), blends, joints, nil)
	if err != nil {
		t.Fatal(err)
	}
	for f, bl := range blends {
		want := refFrame(s, bl, joints[f])
		worst := 0.0
		for v := range want {
			worst = max(worst, got[f][v].Sub(want[v]).Len())
		}
		if worst > 1e-5 {
			t.Errorf("blend %d: cached reconstruction differs from direct by %.3g m", f, worst)
		}
	}
	for i, q := range s.fc.q {
		if used := q != nil; used != (i == 1 || i == 2 || i == 3 || i == 5 || i == 6 || i == 7 || i == 13 || i == 14 || i == 15 || i == 30) {
			t.Errorf("database frame %d decomposed: %v", i, used)
		}
	}
}
