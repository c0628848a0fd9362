package skel

import (
	"math"
	"sync"

	"github.com/pleat-dev/pleat/geom"
)

// affine is a skinning transform as a 3x3 matrix (row-major) plus
// translation: the form LBS blends.
type affine struct {
	m [9]float64
	t geom.Vec3
}

// dualQuat is a unit dual quaternion r + ε·d with d = ½(0, T)·r.
type dualQuat struct{ r, d geom.Quat }

// stackJoints is the joint count up to which the serial kernels keep their
// per-joint scratch on the stack (so they allocate nothing).
const stackJoints = 256

func toAffine(dst []affine, skin []geom.Rigid) {
	for j, s := range skin {
		m := s.R.Mat3()
		dst[j] = affine{m: [9]float64{
			m[0][0], m[0][1], m[0][2],
			m[1][0], m[1][1], m[1][2],
			m[2][0], m[2][1], m[2][2]}, t: s.T}
	}
}

func toDualQuat(dst []dualQuat, skin []geom.Rigid) {
	for j, s := range skin {
		r := s.R.Normalize()
		dst[j] = dualQuat{r: r, d: geom.Quat{X: s.T.X, Y: s.T.Y, Z: s.T.Z}.Mul(r).Scale(0.5)}
	}
}

func checkSkin(src []geom.Vec3, w Weights) {
	if len(src) != w.NumVerts() {
		panic("skel: vertex count does not match weights")
	}
}

// lbsRange skins vertices [lo, hi). With normal set, src are normals and
// are transformed by the cofactor matrix of the blended linear part (the
// inverse transpose up to scale), then normalised.
func lbsRange(dst, src []geom.Vec3, w Weights, mats []affine, normal bool, lo, hi int) {
	for v := lo; v < hi; v++ {
		var m [9]float64
		var t geom.Vec3
		for i := w.Offsets[v]; i < w.Offsets[v+1]; i++ {
			a := &mats[w.Joints[i]]
			x := float64(w.W[i])
			for k := range m {
				m[k] += x * a.m[k]
			}
			t.X += x * a.t.X
			t.Y += x * a.t.Y
			t.Z += x * a.t.Z
		}
		p := src[v]
		if normal {
			r0 := geom.Vec3{X: m[0], Y: m[1], Z: m[2]}
			r1 := geom.Vec3{X: m[3], Y: m[4], Z: m[5]}
			r2 := geom.Vec3{X: m[6], Y: m[7], Z: m[8]}
			// cof(M)·n with cof rows r1×r2, r2×r0, r0×r1.
			dst[v] = geom.Vec3{X: r1.Cross(r2).Dot(p), Y: r2.Cross(r0).Dot(p), Z: r0.Cross(r1).Dot(p)}.Unit()
			continue
		}
		dst[v] = geom.Vec3{
			X: m[0]*p.X + m[1]*p.Y + m[2]*p.Z + t.X,
			Y: m[3]*p.X + m[4]*p.Y + m[5]*p.Z + t.Y,
			Z: m[6]*p.X + m[7]*p.Y + m[8]*p.Z + t.Z,
		}
	}
}

// dqsRange skins vertices [lo, hi) with dual quaternions (Kavan et al.
// 2007, Algorithm 1). With normal set, only the blended rotation is applied.
func dqsRange(dst, src []geom.Vec3, w Weights, dqs []dualQuat, normal bool, lo, hi int) {
	for v := lo; v < hi; v++ {
		a, b := w.Offsets[v], w.Offsets[v+1]
		// Pivot: the largest-weight influence (the first on ties).
		piv := a
		for i := a + 1; i < b; i++ {
			if w.W[i] > w.W[piv] {
				piv = i
			}
		}
		q0 := dqs[w.Joints[piv]].r
		var br, bd geom.Quat
		for i := a; i < b; i++ {
			d := &dqs[w.Joints[i]]
			// Antipodality: take ±qᵢ in the pivot's hemisphere (branch-free;
			// weights are non-negative).
			x := math.Copysign(float64(w.W[i]), d.r.Dot(q0))
			br.W += x * d.r.W
			br.X += x * d.r.X
			br.Y += x * d.r.Y
			br.Z += x * d.r.Z
			bd.W += x * d.d.W
			bd.X += x * d.d.X
			bd.Y += x * d.d.Y
			bd.Z += x * d.d.Z
		}
		l := br.Len()
		if l == 0 {
			dst[v] = src[v]
			continue
		}
		inv := 1 / l
		cr, cd := br.Scale(inv), bd.Scale(inv)
		p := cr.Rotate(src[v])
		if normal {
			dst[v] = p.Unit()
			continue
		}
		// t = 2(cr.w·cd.vec − cd.w·cr.vec + cr.vec × cd.vec)
		rv, dv := cr.Vec(), cd.Vec()
		t := dv.Scale(cr.W).Sub(rv.Scale(cd.W)).Add(rv.Cross(dv))
		dst[v] = p.Add(t.Scale(2))
	}
}

// LBS computes linear blend skinning into dst (reused if large enough) and
// returns it: dst[v] = Σᵢ wᵢ·(Rᵢ·rest[v] + Tᵢ) over v's influences, with
// skin from SkinMatrices. Weights should be normalised (see
// Weights.Normalize) and valid for len(skin) joints; LBS does not
// renormalise. It panics if len(rest) ≠ w.NumVerts(). dst must not alias
// rest. It allocates nothing for skeletons of up to 256 joints.
func LBS(rest []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return skinSerial(rest, w, skin, dst, false, false)
}

// LBSPart computes vertices [lo, hi) of LBS into dst[lo:hi], exactly as
// LBS computes them, and leaves the rest of dst alone. dst must hold
// len(rest) vertices. It lets a caller spread one skinning over chunks that
// it schedules itself (sim prepares a coming frame's body in the time its
// goroutines would otherwise wait). It panics if len(rest) ≠ w.NumVerts(),
// len(dst) ≠ len(rest) or [lo, hi) is not within it.
func LBSPart(rest []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3, lo, hi int) {
	checkSkin(rest, w)
	if len(dst) != len(rest) || lo < 0 || hi > len(rest) || lo > hi {
		panic("skel: LBSPart range or destination out of bounds")
	}
	lbsSpan(dst, rest, w, skin, false, lo, hi)
}

// lbsSpan skins vertices [lo, hi) of src into dst, with the transforms'
// affine form on the stack for up to stackJoints joints.
func lbsSpan(dst, src []geom.Vec3, w Weights, skin []geom.Rigid, normal bool, lo, hi int) {
	var buf [stackJoints]affine
	s := buf[:0]
	if len(skin) > stackJoints {
		s = make([]affine, 0, len(skin))
	}
	s = s[:len(skin)]
	toAffine(s, skin)
	lbsRange(dst, src, w, s, normal, lo, hi)
}

// LBSNormals skins normals the way LBS skins positions: each normal is
// multiplied by the cofactor (inverse transpose times determinant) of the
// blended 3x3 part Σᵢ wᵢRᵢ and normalised. For a single influence this is
// Rᵢ·n.
func LBSNormals(normals []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return skinSerial(normals, w, skin, dst, false, true)
}

// DQS computes dual-quaternion skinning (Kavan, Collins, Žára, O'Sullivan:
// "Skinning with Dual Quaternions", I3D 2007) into dst and returns it. Each
// skin transform becomes a unit dual quaternion qᵢ; the vertex's blend is
// b = Σᵢ sᵢwᵢqᵢ with sᵢ = ±1 chosen so that qᵢ's rotation part lies in the
// same hemisphere as that of the vertex's largest-weight influence
// (antipodality fix); b/|b₀| is applied as a rigid transform. Unlike LBS it
// does not collapse twisted limbs ("candy wrapper"). Conditions as for LBS.
func DQS(rest []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return skinSerial(rest, w, skin, dst, true, false)
}

// DQSNormals skins normals with the blended rotation of DQS.
func DQSNormals(normals []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return skinSerial(normals, w, skin, dst, true, true)
}

func skinSerial(src []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3, dq, normal bool) []geom.Vec3 {
	checkSkin(src, w)
	dst = grow(dst, len(src))
	if dq {
		var buf [stackJoints]dualQuat
		s := buf[:0]
		if len(skin) > stackJoints {
			s = make([]dualQuat, 0, len(skin))
		}
		s = s[:len(skin)]
		toDualQuat(s, skin)
		dqsRange(dst, src, w, s, normal, 0, len(src))
		return dst
	}
	lbsSpan(dst, src, w, skin, normal, 0, len(src))
	return dst
}

// Skinner runs the skinning kernels on several goroutines. Vertices are cut
// into fixed chunks of Chunk vertices and chunk c goes to worker c mod
// Workers; each vertex is computed exactly as in the serial functions, so
// results are bit-for-bit identical to them for any Workers and Chunk. The
// zero value runs serially. A Skinner is a plain value, safe for concurrent
// use.
type Skinner struct {
	// Workers is the number of goroutines; ≤ 1 (the default) runs serially
	// on the calling goroutine.
	Workers int
	// Chunk is the number of vertices per chunk; ≤ 0 means 4096.
	Chunk int
}

// LBS is the parallel form of LBS.
func (s Skinner) LBS(rest []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return s.skin(rest, w, skin, dst, false, false)
}

// LBSNormals is the parallel form of LBSNormals.
func (s Skinner) LBSNormals(normals []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return s.skin(normals, w, skin, dst, false, true)
}

// DQS is the parallel form of DQS.
func (s Skinner) DQS(rest []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return s.skin(rest, w, skin, dst, true, false)
}

// DQSNormals is the parallel form of DQSNormals.
func (s Skinner) DQSNormals(normals []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	return s.skin(normals, w, skin, dst, true, true)
}

func (s Skinner) skin(src []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3, dq, normal bool) []geom.Vec3 {
	chunk := s.Chunk
	if chunk <= 0 {
		chunk = 4096
	}
	n := len(src)
	nc := (n + chunk - 1) / chunk
	workers := min(s.Workers, nc)
	if workers <= 1 {
		return skinSerial(src, w, skin, dst, dq, normal)
	}
	return skinParallel(src, w, skin, dst, dq, normal, workers, chunk)
}

// skinParallel is kept apart from Skinner.skin so that the goroutine
// closure's captures do not make the serial path allocate.
func skinParallel(src []geom.Vec3, w Weights, skin []geom.Rigid, dst []geom.Vec3, dq, normal bool, workers, chunk int) []geom.Vec3 {
	n := len(src)
	nc := (n + chunk - 1) / chunk
	checkSkin(src, w)
	dst = grow(dst, n)
	var mats []affine
	var dqs []dualQuat
	if dq {
		dqs = make([]dualQuat, len(skin))
		toDualQuat(dqs, skin)
	} else {
		mats = make([]affine, len(skin))
		toAffine(mats, skin)
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for c := k; c < nc; c += workers {
				lo, hi := c*chunk, min((c+1)*chunk, n)
				if dq {
					dqsRange(dst, src, w, dqs, normal, lo, hi)
				} else {
					lbsRange(dst, src, w, mats, normal, lo, hi)
				}
			}
		})
	}
	wg.Wait()
	return dst
}
