package resynth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// features computes matching features (paper: "Matching Cost"): for each
// joint that moves the garment, its position in the frame of its parent
// limb (the grandparent joint's frame; the parent's frame for a joint
// whose parent is a root), and the velocity of that position; plus the
// root's velocity in the root's frame, so that walking and standing
// differ. Positions are in metres, velocities in m/s.
type features struct {
	joints []int32 // the joints described
	ref    []int32 // the joint whose frame each is expressed in
	root   int32
	dp, dv int // position and velocity dimensions
}

// minJointMass is the least garment skin weight (in vertices' worth) on a
// joint or its parent for the joint to take part in matching.
const minJointMass = 1.0

func newFeatures(r *Rig, g *Garment) *features {
	nj := r.NumJoints()
	mass := make([]float64, nj)
	for k, j := range g.Weights.Joints {
		mass[j] += float64(g.Weights.W[k])
	}
	fs := &features{root: 0} // joint 0 is a root: parents precede children
	for j := 0; j < nj; j++ {
		if r.Parents[j] < 0 {
			continue
		}
		p := r.Parents[j]
		if mass[j]+mass[p] < minJointMass {
			continue
		}
		ref := p
		if gp := r.Parents[p]; gp >= 0 {
			ref = gp
		}
		fs.joints = append(fs.joints, int32(j))
		fs.ref = append(fs.ref, ref)
	}
	fs.dp = 3 * len(fs.joints)
	fs.dv = fs.dp + 3
	return fs
}

// compute returns the position and velocity features of a clip's frames,
// frame-major (pos[f·dp : (f+1)·dp]). Velocities are backward differences
// (forward at the first frame).
func (fs *features) compute(joints [][]geom.Rigid, fps float64) (pos, vel []float64) {
	nf := len(joints)
	pos = make([]float64, nf*fs.dp)
	vel = make([]float64, nf*fs.dv)
	for f, js := range joints {
		p := pos[f*fs.dp:]
		for k, j := range fs.joints {
			ref := js[fs.ref[k]]
			x := ref.R.Conj().Rotate(js[j].T.Sub(ref.T))
			p[3*k], p[3*k+1], p[3*k+2] = x.X, x.Y, x.Z
		}
	}
	if nf < 2 {
		return pos, vel
	}
	for f := 0; f < nf; f++ {
		a, b := max(f-1, 0), max(f, 1)
		v := vel[f*fs.dv:]
		pa, pb := pos[a*fs.dp:(a+1)*fs.dp], pos[b*fs.dp:(b+1)*fs.dp]
		for i := range pa {
			v[i] = (pb[i] - pa[i]) * fps
		}
		r0, r1 := joints[a][fs.root], joints[b][fs.root]
		rv := r1.R.Conj().Rotate(r1.T.Sub(r0.T)).Scale(fps)
		v[fs.dp], v[fs.dp+1], v[fs.dp+2] = rv.X, rv.Y, rv.Z
	}
	return pos, vel
}

// cost is the matching cost between frame a of (pa, va) and frame b of
// (pb, vb): ‖Δpositions‖ + λ‖Δvelocities‖, λ in seconds.
func (fs *features) cost(pa, va []float64, a int, pb, vb []float64, b int, lambda float64) float64 {
	return math.Sqrt(dist2(pa[a*fs.dp:(a+1)*fs.dp], pb[b*fs.dp:(b+1)*fs.dp])) +
		lambda*math.Sqrt(dist2(va[a*fs.dv:(a+1)*fs.dv], vb[b*fs.dv:(b+1)*fs.dv]))
}

func dist2(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, x := range a {
		d := x - b[i]
		s += d * d
	}
	return s
}
