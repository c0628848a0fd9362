package gltfio

import (
	"fmt"
	"sort"

	"github.com/pleat-dev/pleat/geom"
	"github.com/qmuntal/gltf"
)

// maxAnimValues caps the values of one resampled animation (keys × the
// widths of its channels and joint tracks): resampling onto the union of
// all key times could otherwise multiply small inputs into huge outputs.
const maxAnimValues = 1 << 26

// track is one glTF channel ready for sampling.
type track struct {
	in     []float64
	out    []float64 // width values per key (3·width for CUBICSPLINE)
	width  int
	interp gltf.Interpolation
	quat   bool

	joint int // for rotation / translation
	path  gltf.TRSProperty
	mesh  int // Scene mesh for weights
}

// animation reads animation i; ok is false when none of its channels
// targets a joint rotation, translation or a read mesh's morph weights.
func (sr *sceneReader) animation(i int, s *Scene) (Animation, bool, error) {
	ga := sr.doc.Animations[i]
	el := fmt.Sprintf("animation %d", i)
	if ga == nil {
		return Animation{}, false, sr.errf(el, "null")
	}
	var tracks []track
	for ci, ch := range ga.Channels {
		cel := fmt.Sprintf("%s channel %d", el, ci)
		if ch == nil {
			return Animation{}, false, sr.errf(cel, "null")
		}
		if ch.Target.Node == nil {
			continue
		}
		n := *ch.Target.Node
		if n < 0 || n >= len(sr.doc.Nodes) {
			return Animation{}, false, sr.errf(cel, "node %d out of range", n)
		}
		tr := track{path: ch.Target.Path}
		switch ch.Target.Path {
		case gltf.TRSRotation, gltf.TRSTranslation:
			j, ok := sr.jointOf[n]
			if !ok {
				continue // animated non-joint nodes are not represented
			}
			tr.joint = j
			tr.width, tr.quat = 3, ch.Target.Path == gltf.TRSRotation
			if tr.quat {
				tr.width = 4
			}
		case gltf.TRSWeights:
			m, ok := sr.nodeMesh[n]
			if !ok || len(s.Meshes[m].Morph) == 0 {
				continue
			}
			tr.mesh, tr.width = m, len(s.Meshes[m].Morph)
		default:
			continue // scale
		}
		if ch.Sampler < 0 || ch.Sampler >= len(ga.Samplers) || ga.Samplers[ch.Sampler] == nil {
			return Animation{}, false, sr.errf(cel, "sampler %d out of range", ch.Sampler)
		}
		smp := ga.Samplers[ch.Sampler]
		sel := fmt.Sprintf("%s sampler %d", el, ch.Sampler)
		in, err := sr.accessorOf(smp.Input, 1, "animation input")
		if err != nil {
			return Animation{}, false, err
		}
		for k := 1; k < in.count; k++ {
			if !(in.v[k] > in.v[k-1]) {
				return Animation{}, false, sr.errf(sel, "key times not increasing at key %d", k)
			}
		}
		if in.v[0] < 0 {
			return Animation{}, false, sr.errf(sel, "negative key time")
		}
		out, err := sr.accessor(smp.Output)
		if err != nil {
			return Animation{}, false, err
		}
		per := 1
		if smp.Interpolation == gltf.InterpolationCubicSpline {
			per = 3
		}
		if len(out.v) != in.count*per*tr.width {
			return Animation{}, false, sr.errf(sel, "%d output values for %d keys of %d×%d", len(out.v), in.count, per, tr.width)
		}
		tr.in, tr.out, tr.interp = in.v, out.v, smp.Interpolation
		tracks = append(tracks, tr)
	}
	if len(tracks) == 0 {
		return Animation{}, false, nil
	}
	// Union of key times.
	var times []float64
	for _, tr := range tracks {
		times = append(times, tr.in...)
	}
	sort.Float64s(times)
	u := times[:1]
	for _, t := range times[1:] {
		if t != u[len(u)-1] {
			u = append(u, t)
		}
	}
	times = u
	width := 8 * len(sr.jnodes) // rotation and translation of every joint
	for _, tr := range tracks {
		width += tr.width
	}
	if len(times) > maxAnimValues/width {
		return Animation{}, false, sr.errf(el, "%d keys × %d values per key is too many", len(times), width)
	}
	a := Animation{Name: ga.Name, Times: times}
	nf, nj := len(times), len(sr.jnodes)
	morphOf := map[int]int{}
	maxw := 4
	for _, tr := range tracks {
		maxw = max(maxw, tr.width)
	}
	val := make([]float64, maxw)
	for _, tr := range tracks {
		switch tr.path {
		case gltf.TRSRotation, gltf.TRSTranslation:
			if a.JointRotations == nil {
				a.JointRotations = make([][]geom.Quat, nf)
				a.JointTranslations = make([][]geom.Vec3, nf)
				for f := range a.JointRotations {
					a.JointRotations[f] = make([]geom.Quat, nj)
					a.JointTranslations[f] = make([]geom.Vec3, nj)
					for j := range sr.sk.Joints {
						a.JointRotations[f][j] = sr.sk.Joints[j].Rest.R
						a.JointTranslations[f][j] = sr.sk.Joints[j].Rest.T
					}
				}
			}
		case gltf.TRSWeights:
			if _, ok := morphOf[tr.mesh]; !ok {
				morphOf[tr.mesh] = len(a.Morphs)
				w := make([][]float64, nf)
				for f := range w {
					w[f] = make([]float64, tr.width)
				}
				a.Morphs = append(a.Morphs, MorphTrack{Mesh: tr.mesh, Weights: w})
			}
		}
	}
	// A joint's rotation and translation channels are separate; apply the
	// rotation first so the translation map sees the rest rotation's
	// counterpart (animLocal is separable in R and T).
	for _, tr := range tracks {
		for f, t := range times {
			v := val[:tr.width]
			tr.sample(t, v)
			switch tr.path {
			case gltf.TRSRotation:
				q := geom.Quat{W: v[3], X: v[0], Y: v[1], Z: v[2]}.Normalize()
				a.JointRotations[f][tr.joint] = sr.animLocal(tr.joint, geom.Vec3{}, q).R
			case gltf.TRSTranslation:
				a.JointTranslations[f][tr.joint] = sr.animLocal(tr.joint, geom.Vec3{X: v[0], Y: v[1], Z: v[2]}, geom.QuatIdentity()).T
			case gltf.TRSWeights:
				copy(a.Morphs[morphOf[tr.mesh]].Weights[f], v)
			}
		}
	}
	return a, true, nil
}

// sample evaluates the track at time t into dst (len width): the first or
// last key outside the keyed range, else STEP, LINEAR (slerp for
// rotations) or the cubic Hermite spline of glTF 2.0 Appendix C.
func (tr *track) sample(t float64, dst []float64) {
	w, in := tr.width, tr.in
	val := func(k int) []float64 {
		if tr.interp == gltf.InterpolationCubicSpline {
			return tr.out[(3*k+1)*w : (3*k+2)*w]
		}
		return tr.out[k*w : (k+1)*w]
	}
	n := len(in)
	if t <= in[0] {
		copy(dst, val(0))
		return
	}
	if t >= in[n-1] {
		copy(dst, val(n-1))
		return
	}
	k := sort.SearchFloat64s(in, t) // first key >= t; here 1 <= k <= n-1
	if in[k] == t {
		copy(dst, val(k))
		return
	}
	k--
	t0, t1 := in[k], in[k+1]
	u := (t - t0) / (t1 - t0)
	a, b := val(k), val(k+1)
	switch tr.interp {
	case gltf.InterpolationStep:
		copy(dst, a)
		return
	case gltf.InterpolationCubicSpline:
		dt := t1 - t0
		ob := tr.out[(3*k+2)*w : (3*k+3)*w] // out-tangent of key k
		ib := tr.out[(3*k+3)*w : (3*k+4)*w] // in-tangent of key k+1
		u2, u3 := u*u, u*u*u
		h00, h10, h01, h11 := 2*u3-3*u2+1, u3-2*u2+u, -2*u3+3*u2, u3-u2
		for c := range dst {
			dst[c] = h00*a[c] + h10*dt*ob[c] + h01*b[c] + h11*dt*ib[c]
		}
		if tr.quat {
			q := geom.Quat{W: dst[3], X: dst[0], Y: dst[1], Z: dst[2]}.Normalize()
			dst[0], dst[1], dst[2], dst[3] = q.X, q.Y, q.Z, q.W
		}
		return
	}
	if tr.quat {
		q := geom.Slerp(geom.Quat{W: a[3], X: a[0], Y: a[1], Z: a[2]}.Normalize(),
			geom.Quat{W: b[3], X: b[0], Y: b[1], Z: b[2]}.Normalize(), u)
		dst[0], dst[1], dst[2], dst[3] = q.X, q.Y, q.Z, q.W
		return
	}
	for c := range dst {
		dst[c] = a[c] + u*(b[c]-a[c])
	}
}
