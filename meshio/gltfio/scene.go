package gltfio

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Scene is a plain-data description of what a glTF file holds for pleat:
// meshes, at most one skeleton shared by all skinned meshes, and animations.
type Scene struct {
	Meshes []Mesh
	// Skeleton is nil for a scene without skinning.
	Skeleton *Skeleton
	// Animations play joint transforms and morph weights over time.
	Animations []Animation
}

// Mesh is one triangle mesh of a scene, optionally skinned and with morph
// targets.
type Mesh struct {
	Name string
	// Mesh holds positions in metres, triangles, and optional per-corner UVs
	// and normals (Groups are not written).
	Mesh *mesh.Mesh
	// Skin binds the mesh to Scene.Skeleton; nil for a rigid mesh.
	Skin *Skin
	// Morph are morph targets: Morph[k][v] is the displacement in metres
	// of vertex v in target k. A displayed vertex is
	// Verts[v] + Σ_k w_k·Morph[k][v], before skinning.
	Morph [][]geom.Vec3
	// MorphNames name the targets (optional; glTF mesh.extras.targetNames,
	// which three.js and Blender read).
	MorphNames []string
}

// Skin holds a mesh's linear blend skinning data.
type Skin struct {
	// Influences[v] lists the joints moving vertex v, any number of them.
	// The writer keeps the four largest weights and renormalises them.
	Influences [][]Influence
	// InverseBind[j] maps the mesh's bind space into joint j's local space.
	// Nil means the inverse of the rest world transform of each joint
	// (mesh in the rest pose); otherwise one per skeleton joint.
	InverseBind []geom.Rigid
}

// Influence is one joint's weight on a vertex.
type Influence struct {
	Joint  int32
	Weight float64
}

// Skeleton is a joint hierarchy.
type Skeleton struct {
	Joints []Joint
}

// Joint is one bone of a skeleton.
type Joint struct {
	Name string
	// Parent is the index of the parent joint, -1 for a root. Parents may
	// come before or after their children, but the hierarchy is acyclic.
	Parent int
	// Rest is the local transform relative to the parent joint (to the
	// scene for a root): a child at local point p sits at Rest.Apply(p) in
	// its parent's frame.
	Rest geom.Rigid
}

// Animation is a set of keyframe tracks sharing key times; values between
// keys are interpolated linearly (slerp for rotations), and held before the
// first and after the last key.
type Animation struct {
	Name string
	// Times are the key times in seconds, strictly increasing.
	Times []float64
	// JointRotations[f][j] is joint j's local rotation at key f (nil: no
	// rotation tracks).
	JointRotations [][]geom.Quat
	// JointTranslations[f][j] is joint j's local translation at key f in
	// metres (nil: no translation tracks). The writer emits a track only
	// for joints whose translation leaves the rest value.
	JointTranslations [][]geom.Vec3
	// Morphs animate morph target weights of meshes.
	Morphs []MorphTrack
}

// MorphTrack animates the morph weights of one mesh.
type MorphTrack struct {
	// Mesh indexes Scene.Meshes.
	Mesh int
	// Weights[f][k] is the weight of target k at key f.
	Weights [][]float64
}

// WorldRest returns the rest world transform of every joint (the product of
// the Rest transforms from its root down). It panics on a cyclic hierarchy;
// Scene.Validate reports those.
func (s *Skeleton) WorldRest() []geom.Rigid {
	n := len(s.Joints)
	w := make([]geom.Rigid, n)
	state := make([]uint8, n) // 0 new, 1 in progress, 2 done
	var visit func(j int)
	visit = func(j int) {
		switch state[j] {
		case 2:
			return
		case 1:
			panic("gltfio: cyclic joint hierarchy")
		}
		state[j] = 1
		p := s.Joints[j].Parent
		if p < 0 {
			w[j] = s.Joints[j].Rest
		} else {
			visit(p)
			w[j] = w[p].Mul(s.Joints[j].Rest)
		}
		state[j] = 2
	}
	for j := range s.Joints {
		visit(j)
	}
	return w
}

// SceneError reports an inconsistent Scene given to the writer: the element
// (such as "mesh 0 (shirt): skin: vertex 12") and what is wrong.
type SceneError struct {
	Elem string
	Msg  string
}

func (e *SceneError) Error() string { return "gltfio: " + e.Elem + ": " + e.Msg }

func serr(elem, format string, args ...any) error {
	return &SceneError{Elem: elem, Msg: fmt.Sprintf(format, args...)}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks that s can be written: at least one valid mesh, slice
// lengths that agree, indices in range, finite values, an acyclic skeleton,
// and strictly increasing key times (also after rounding to float32).
func (s *Scene) Validate() error {
	if len(s.Meshes) == 0 {
		return serr("scene", "no meshes")
	}
	nj := 0
	if s.Skeleton != nil {
		nj = len(s.Skeleton.Joints)
		if nj == 0 {
			return serr("skeleton", "no joints")
		}
		for j, jt := range s.Skeleton.Joints {
			if jt.Parent < -1 || jt.Parent >= nj || jt.Parent == j {
				return serr(fmt.Sprintf("joint %d (%s)", j, jt.Name), "parent %d out of range", jt.Parent)
			}
			if !jt.Rest.R.IsFinite() || !jt.Rest.T.IsFinite() || jt.Rest.R.Len() < 1e-6 {
				return serr(fmt.Sprintf("joint %d (%s)", j, jt.Name), "bad rest transform %v", jt.Rest)
			}
		}
		// Cycle check: walking up from any joint must end within nj steps.
		for j := range s.Skeleton.Joints {
			k, steps := j, 0
			for k >= 0 {
				k = s.Skeleton.Joints[k].Parent
				if steps++; steps > nj {
					return serr(fmt.Sprintf("joint %d (%s)", j, s.Skeleton.Joints[j].Name), "cyclic parent chain")
				}
			}
		}
	}
	for i := range s.Meshes {
		if err := s.Meshes[i].validate(i, nj); err != nil {
			return err
		}
	}
	for a := range s.Animations {
		if err := s.Animations[a].validate(a, s, nj); err != nil {
			return err
		}
	}
	return nil
}

func (m *Mesh) elem(i int) string {
	if m.Name != "" {
		return fmt.Sprintf("mesh %d (%s)", i, m.Name)
	}
	return fmt.Sprintf("mesh %d", i)
}

func (m *Mesh) validate(i, nj int) error {
	el := m.elem(i)
	if m.Mesh == nil {
		return serr(el, "nil mesh")
	}
	if err := m.Mesh.Validate(); err != nil {
		return serr(el, "%v", err)
	}
	nv := len(m.Mesh.Verts)
	if m.Skin != nil {
		if nj == 0 {
			return serr(el, "skinned but the scene has no skeleton")
		}
		if len(m.Skin.Influences) != nv {
			return serr(el+": skin", "%d influence lists for %d vertices", len(m.Skin.Influences), nv)
		}
		for v, inf := range m.Skin.Influences {
			sum := 0.0
			for _, in := range inf {
				if in.Joint < 0 || int(in.Joint) >= nj {
					return serr(fmt.Sprintf("%s: skin: vertex %d", el, v), "joint %d out of range [0,%d)", in.Joint, nj)
				}
				if !finite(in.Weight) || in.Weight < 0 {
					return serr(fmt.Sprintf("%s: skin: vertex %d", el, v), "bad weight %v", in.Weight)
				}
				sum += in.Weight
			}
			if !(sum > 0) || !finite(sum) {
				return serr(fmt.Sprintf("%s: skin: vertex %d", el, v), "no positive weight")
			}
		}
		if m.Skin.InverseBind != nil {
			if len(m.Skin.InverseBind) != nj {
				return serr(el+": skin", "%d inverse bind transforms for %d joints", len(m.Skin.InverseBind), nj)
			}
			for j, r := range m.Skin.InverseBind {
				if !r.R.IsFinite() || !r.T.IsFinite() || r.R.Len() < 1e-6 {
					return serr(fmt.Sprintf("%s: skin: inverse bind %d", el, j), "bad transform %v", r)
				}
			}
		}
	}
	for k, t := range m.Morph {
		if len(t) != nv {
			return serr(fmt.Sprintf("%s: morph target %d", el, k), "%d displacements for %d vertices", len(t), nv)
		}
		for v, d := range t {
			if !d.IsFinite() {
				return serr(fmt.Sprintf("%s: morph target %d: vertex %d", el, k, v), "non-finite displacement")
			}
		}
	}
	if m.MorphNames != nil && len(m.MorphNames) != len(m.Morph) {
		return serr(el, "%d morph names for %d targets", len(m.MorphNames), len(m.Morph))
	}
	return nil
}

func (a *Animation) validate(i int, s *Scene, nj int) error {
	el := fmt.Sprintf("animation %d", i)
	if a.Name != "" {
		el += " (" + a.Name + ")"
	}
	nf := len(a.Times)
	if nf == 0 {
		return serr(el, "no key times")
	}
	for f, t := range a.Times {
		if !finite(t) || t < 0 {
			return serr(el, "key %d: bad time %v", f, t)
		}
		if f > 0 && float32(t) <= float32(a.Times[f-1]) {
			return serr(el, "key %d: time %v not after %v (as float32)", f, t, a.Times[f-1])
		}
	}
	if a.JointRotations == nil && a.JointTranslations == nil && len(a.Morphs) == 0 {
		return serr(el, "no tracks")
	}
	if a.JointRotations != nil || a.JointTranslations != nil {
		if nj == 0 {
			return serr(el, "joint tracks but no skeleton")
		}
	}
	if a.JointRotations != nil {
		if len(a.JointRotations) != nf {
			return serr(el, "%d rotation frames for %d keys", len(a.JointRotations), nf)
		}
		for f, fr := range a.JointRotations {
			if len(fr) != nj {
				return serr(el, "key %d: %d rotations for %d joints", f, len(fr), nj)
			}
			for j, q := range fr {
				if !q.IsFinite() || q.Len() < 1e-6 {
					return serr(el, "key %d: joint %d: bad rotation %v", f, j, q)
				}
			}
		}
	}
	if a.JointTranslations != nil {
		if len(a.JointTranslations) != nf {
			return serr(el, "%d translation frames for %d keys", len(a.JointTranslations), nf)
		}
		for f, fr := range a.JointTranslations {
			if len(fr) != nj {
				return serr(el, "key %d: %d translations for %d joints", f, len(fr), nj)
			}
			for j, t := range fr {
				if !t.IsFinite() {
					return serr(el, "key %d: joint %d: non-finite translation", f, j)
				}
			}
		}
	}
	seen := map[int]bool{}
	for k, mt := range a.Morphs {
		if mt.Mesh < 0 || mt.Mesh >= len(s.Meshes) {
			return serr(el, "morph track %d: mesh %d out of range", k, mt.Mesh)
		}
		if seen[mt.Mesh] {
			return serr(el, "morph track %d: mesh %d animated twice", k, mt.Mesh)
		}
		seen[mt.Mesh] = true
		nt := len(s.Meshes[mt.Mesh].Morph)
		if nt == 0 {
			return serr(el, "morph track %d: mesh %d has no morph targets", k, mt.Mesh)
		}
		if len(mt.Weights) != nf {
			return serr(el, "morph track %d: %d frames for %d keys", k, len(mt.Weights), nf)
		}
		for f, w := range mt.Weights {
			if len(w) != nt {
				return serr(el, "morph track %d: key %d: %d weights for %d targets", k, f, len(w), nt)
			}
			for _, x := range w {
				if !finite(x) {
					return serr(el, "morph track %d: key %d: non-finite weight", k, f)
				}
			}
		}
	}
	return nil
}
