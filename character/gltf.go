package character

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/skel"
)

// LoadGLTF reads a skinned character from a .glb or .gltf file (see
// FromGLTF).
func LoadGLTF(path string) (*Character, error) {
	s, err := gltfio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := FromGLTF(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return c, nil
}

// FromGLTF makes a Character of the first skinned mesh of s: the mesh (as
// stored, in bind pose) is the Body, the scene skeleton the Skeleton and
// the skin the Weights (renormalised per vertex).
//
// The skeleton's rest pose is the bind pose: joint j's world rest transform
// is InverseBind[j]⁻¹, so that skinning the rest pose reproduces the body
// exactly even when the file's node transforms hold another pose. Joints
// are reordered so that parents precede children (glTF does not require
// it), keeping file order otherwise; weights are renumbered to match.
// Errors: ErrNoSkin, an invalid skeleton (*skel.JointError), or a vertex
// without positive weight (*skel.VertexError).
func FromGLTF(s *gltfio.Scene) (*Character, error) {
	return FromGLTFBody(s, nil)
}

// FromGLTFBody is FromGLTF taking as the body the first skinned mesh whose
// name skip rejects (all of them when skip is nil).
func FromGLTFBody(s *gltfio.Scene, skip func(name string) bool) (*Character, error) {
	gm := bodyMesh(s, skip)
	if gm == nil || s.Skeleton == nil || len(s.Skeleton.Joints) == 0 {
		return nil, ErrNoSkin
	}
	gj := s.Skeleton.Joints
	n := len(gj)
	for j, jt := range gj {
		if jt.Parent < -1 || jt.Parent >= n || jt.Parent == j {
			return nil, &skel.JointError{Index: j, Name: jt.Name, Err: skel.ErrBadParent}
		}
	}
	// Stable topological order: each joint after its ancestor chain.
	order := make([]int, 0, n)
	newIdx := make([]int, n)
	state := make([]uint8, n) // 0 new, 1 on chain, 2 placed
	var chain []int
	for j := range gj {
		chain = chain[:0]
		for k := j; k >= 0 && state[k] != 2; k = gj[k].Parent {
			if state[k] == 1 {
				return nil, &skel.JointError{Index: k, Name: gj[k].Name, Err: skel.ErrCycle}
			}
			state[k] = 1
			chain = append(chain, k)
		}
		for c := len(chain) - 1; c >= 0; c-- {
			k := chain[c]
			state[k] = 2
			newIdx[k] = len(order)
			order = append(order, k)
		}
	}
	world := s.Skeleton.WorldRest()
	if ib := gm.Skin.InverseBind; ib != nil {
		if len(ib) != n {
			return nil, fmt.Errorf("character: %d inverse bind transforms for %d joints", len(ib), n)
		}
		for j := range world {
			world[j] = ib[j].Inverse()
		}
	}
	joints := make([]skel.Joint, n)
	for nj, j := range order {
		jt := skel.Joint{Name: gj[j].Name, Parent: -1, Rest: world[j]}
		if jt.Name == "" {
			jt.Name = fmt.Sprintf("joint%d", j)
		}
		if p := gj[j].Parent; p >= 0 {
			jt.Parent = newIdx[p]
			jt.Rest = world[p].Inverse().Mul(world[j])
		}
		joints[nj] = jt
	}
	sk, err := skel.NewSkeleton(joints)
	if err != nil {
		return nil, err
	}
	nv := len(gm.Mesh.Verts)
	if len(gm.Skin.Influences) != nv {
		return nil, fmt.Errorf("character: %d skin influence lists for %d vertices", len(gm.Skin.Influences), nv)
	}
	lists := make([][]skel.Influence, nv)
	for v, l := range gm.Skin.Influences {
		out := make([]skel.Influence, 0, len(l))
		for _, in := range l {
			if in.Joint < 0 || int(in.Joint) >= n {
				return nil, &skel.VertexError{Vertex: v, Err: skel.ErrBadJoint}
			}
			if in.Weight != 0 {
				out = append(out, skel.Influence{Joint: int32(newIdx[in.Joint]), W: float32(in.Weight)})
			}
		}
		lists[v] = out
	}
	w := skel.NewWeights(lists)
	if err := w.Validate(n); err != nil {
		return nil, err
	}
	w.Normalize()
	return &Character{Name: gm.Name, Body: gm.Mesh.Clone(), Skeleton: sk, Weights: w}, nil
}

// bodyMesh returns the first skinned mesh of s that skip does not reject.
func bodyMesh(s *gltfio.Scene, skip func(name string) bool) *gltfio.Mesh {
	for i := range s.Meshes {
		if s.Meshes[i].Skin != nil && (skip == nil || !skip(s.Meshes[i].Name)) {
			return &s.Meshes[i]
		}
	}
	return nil
}

// AllGarments, as the only name given to LoadGLTFDressed, wears every mesh
// of the file but the body.
const AllGarments = "all"

// LoadGLTFDressed reads a skinned character from a .glb or .gltf file
// together with garments modelled inside the same file: names lists the
// meshes (glTF node names) to wear, or is []string{AllGarments} for every
// mesh but the body. The body is the first skinned mesh not named (with
// AllGarments, the first skinned mesh). The garments are other skinned or
// static meshes in the character's rest pose: a skinned mesh's vertices
// are carried from its own bind pose into the body's (through its skin,
// when its inverse bind matrices differ from the body's), a static mesh is
// placed by its node transforms. They are then bound to the body like
// LoadMeshGarment's (BindMesh: closest point on the body, skin weights
// from the body), split into connected pieces named by node name; opt.Pins
// and opt.Name apply, opt.Place is ignored (the file's own placement is
// used). A name that is no mesh of the file, or naming the only skinned
// mesh, is an error listing the meshes there are.
func LoadGLTFDressed(path string, names []string, opt GarmentOptions) (*Character, *MeshGarment, error) {
	file := filepath.Base(path)
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("%s: no garment meshes named", file)
	}
	s, err := gltfio.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	all := len(names) == 1 && names[0] == AllGarments
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var skip func(string) bool
	if !all {
		skip = func(n string) bool { return want[n] }
	}
	var have []string
	for _, m := range s.Meshes {
		have = append(have, fmt.Sprintf("%q", m.Name))
	}
	body := bodyMesh(s, skip)
	if body == nil {
		return nil, nil, fmt.Errorf("%s: no skinned mesh is left for the body once the garments (%s) are taken; its meshes: %s", file, strings.Join(names, ", "), strings.Join(have, ", "))
	}
	c, err := FromGLTFBody(s, skip)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(file, filepath.Ext(file))
	}
	found := map[string]bool{}
	var parts []garmentPart
	for i := range s.Meshes {
		gm := &s.Meshes[i]
		if gm == body || (!all && !want[gm.Name]) || gm.Mesh == nil || len(gm.Mesh.Tris) == 0 {
			continue
		}
		found[gm.Name] = true
		m, err := toBodyBind(gm, body)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: mesh %q: %w", file, gm.Name, err)
		}
		name := gm.Name
		if name == "" {
			name = fmt.Sprintf("mesh%d", i)
		}
		parts = append(parts, garmentPart{name: name, m: m})
	}
	if !all {
		var missing []string
		for _, n := range names {
			if !found[n] {
				missing = append(missing, fmt.Sprintf("%q", n))
			}
		}
		if len(missing) > 0 {
			return nil, nil, fmt.Errorf("%s: no garment mesh named %s; its meshes: %s (the body is %q)", file, strings.Join(missing, ", "), strings.Join(have, ", "), body.Name)
		}
	}
	if len(parts) == 0 {
		return nil, nil, fmt.Errorf("%s: no mesh but the body %q to wear as a garment", file, body.Name)
	}
	opt.Place = &Placement{Scale: 1}
	mg, err := c.bindParts(file, parts, opt)
	if err != nil {
		return nil, nil, err
	}
	return c, mg, nil
}

// toBodyBind returns a copy of gm's mesh in the body's bind pose: a
// skinned mesh whose inverse bind matrices differ from the body's is
// carried by its skin, p = Σ_j w_j·IB_body[j]⁻¹·IB_gm[j]·v (linear blend
// skinning from one bind pose to the other); otherwise positions are kept.
func toBodyBind(gm, body *gltfio.Mesh) (*mesh.Mesh, error) {
	m := gm.Mesh.Clone()
	if gm.Skin == nil || gm.Skin.InverseBind == nil || body.Skin.InverseBind == nil {
		return m, nil
	}
	ib, bb := gm.Skin.InverseBind, body.Skin.InverseBind
	if len(ib) != len(bb) {
		return nil, fmt.Errorf("%d inverse bind transforms, the body has %d", len(ib), len(bb))
	}
	same := true
	for j := range ib {
		same = same && ib[j] == bb[j]
	}
	if same {
		return m, nil
	}
	if len(gm.Skin.Influences) != len(m.Verts) {
		return nil, fmt.Errorf("%d skin influence lists for %d vertices", len(gm.Skin.Influences), len(m.Verts))
	}
	for v, l := range gm.Skin.Influences {
		var p geom.Vec3
		sum := 0.0
		for _, in := range l {
			if in.Joint < 0 || int(in.Joint) >= len(ib) {
				return nil, &skel.VertexError{Vertex: v, Err: skel.ErrBadJoint}
			}
			p = p.Add(bb[in.Joint].Inverse().Mul(ib[in.Joint]).Apply(m.Verts[v]).Scale(in.Weight))
			sum += in.Weight
		}
		if !(sum > 0) {
			return nil, &skel.VertexError{Vertex: v, Err: skel.ErrZeroWeight}
		}
		m.Verts[v] = p.Scale(1 / sum)
	}
	return m, nil
}
