package character

import (
	"fmt"
	"math"
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
	c, _, err := fromGLTFBody(s, skip)
	return c, err
}

// fromGLTFBody is FromGLTFBody also returning, for each joint of
// s.Skeleton, its index in the character's skeleton.
func fromGLTFBody(s *gltfio.Scene, skip func(name string) bool) (*Character, []int, error) {
	gm := bodyMesh(s, skip)
	if gm == nil || s.Skeleton == nil || len(s.Skeleton.Joints) == 0 {
		return nil, nil, ErrNoSkin
	}
	gj := s.Skeleton.Joints
	n := len(gj)
	for j, jt := range gj {
		if jt.Parent < -1 || jt.Parent >= n || jt.Parent == j {
			return nil, nil, &skel.JointError{Index: j, Name: jt.Name, Err: skel.ErrBadParent}
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
				return nil, nil, &skel.JointError{Index: k, Name: gj[k].Name, Err: skel.ErrCycle}
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
			return nil, nil, fmt.Errorf("character: %d inverse bind transforms for %d joints", len(ib), n)
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
		return nil, nil, err
	}
	nv := len(gm.Mesh.Verts)
	if len(gm.Skin.Influences) != nv {
		return nil, nil, fmt.Errorf("character: %d skin influence lists for %d vertices", len(gm.Skin.Influences), nv)
	}
	lists := make([][]skel.Influence, nv)
	for v, l := range gm.Skin.Influences {
		out := make([]skel.Influence, 0, len(l))
		for _, in := range l {
			if in.Joint < 0 || int(in.Joint) >= n {
				return nil, nil, &skel.VertexError{Vertex: v, Err: skel.ErrBadJoint}
			}
			if in.Weight != 0 {
				out = append(out, skel.Influence{Joint: int32(newIdx[in.Joint]), W: float32(in.Weight)})
			}
		}
		lists[v] = out
	}
	w := skel.NewWeights(lists)
	if err := w.Validate(n); err != nil {
		return nil, nil, err
	}
	w.Normalize()
	return &Character{Name: gm.Name, Body: gm.Mesh.Clone(), Skeleton: sk, Weights: w}, newIdx, nil
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
// when its inverse bind matrices differ from the body's) and keep the
// file's own skin weights (every skin of a file is on one skeleton); a
// static mesh is placed by its node transforms in the file's node rest
// pose and, where the body's bind pose differs from that, carried into
// the bind pose with the body (carryStatic). They are then bound to the
// body like LoadMeshGarment's (BindMesh: closest point on the body; skin
// weights from the body for static meshes), split into connected pieces
// named by node name; opt.Pins
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
	c, newIdx, err := fromGLTFBody(s, skip)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	toBind, err := restToBind(s, body, c, newIdx)
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
		var w [][]skel.Influence
		if gm.Skin != nil {
			if w, err = ownWeights(gm.Skin, len(m.Verts), newIdx); err != nil {
				return nil, nil, fmt.Errorf("%s: mesh %q: %w", file, gm.Name, err)
			}
		} else if toBind != nil {
			if err := c.carryStatic(m, toBind); err != nil {
				return nil, nil, fmt.Errorf("%s: mesh %q: %w", file, gm.Name, err)
			}
		}
		name := gm.Name
		if name == "" {
			name = fmt.Sprintf("mesh%d", i)
		}
		parts = append(parts, garmentPart{name: name, m: m, weights: w})
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

// ownWeights returns a skinned garment's own skin weights (it shares the
// body's skeleton: gltfio merges every skin of a file into one), one list
// per vertex with joints renumbered to the character's skeleton (newIdx).
func ownWeights(sk *gltfio.Skin, nv int, newIdx []int) ([][]skel.Influence, error) {
	if len(sk.Influences) != nv {
		return nil, fmt.Errorf("%d skin influence lists for %d vertices", len(sk.Influences), nv)
	}
	lists := make([][]skel.Influence, nv)
	for v, l := range sk.Influences {
		sum := 0.0
		for _, in := range l {
			if in.Joint < 0 || int(in.Joint) >= len(newIdx) {
				return nil, &skel.VertexError{Vertex: v, Err: skel.ErrBadJoint}
			}
			if !(in.Weight >= 0) || math.IsInf(in.Weight, 0) {
				return nil, &skel.VertexError{Vertex: v, Err: skel.ErrZeroWeight}
			}
			if in.Weight > 0 {
				lists[v] = append(lists[v], skel.Influence{Joint: int32(newIdx[in.Joint]), W: float32(in.Weight)})
				sum += in.Weight
			}
		}
		if !(sum > 0) {
			return nil, &skel.VertexError{Vertex: v, Err: skel.ErrZeroWeight}
		}
	}
	return lists, nil
}

// restToBind returns, per joint of c's skeleton, the transform that
// carries a point from the file's node rest pose (where the reader places
// static meshes, by their node transforms) into the body's bind pose:
// B_j = IB_body[j]⁻¹·W_j⁻¹ with W_j joint j's rest world transform. It is
// nil when the two poses agree (no inverse bind matrices, or ones that
// are the rest pose's own, within 1e-9 m), as in most files.
func restToBind(s *gltfio.Scene, body *gltfio.Mesh, c *Character, newIdx []int) ([]geom.Rigid, error) {
	ib := body.Skin.InverseBind
	if ib == nil {
		return nil, nil
	}
	world := s.Skeleton.WorldRest()
	if len(ib) != len(world) {
		return nil, fmt.Errorf("%d inverse bind transforms for %d joints", len(ib), len(world))
	}
	out := make([]geom.Rigid, c.Skeleton.NumJoints())
	same := true
	probe := []geom.Vec3{{}, {X: 1}, {Y: 1}, {Z: 1}}
	for j := range world {
		b := ib[j].Inverse().Mul(world[j].Inverse())
		out[newIdx[j]] = b
		for _, p := range probe {
			same = same && b.Apply(p).Dist(p) <= 1e-9
		}
	}
	if same {
		return nil, nil
	}
	return out, nil
}

// carryStatic moves a static garment mesh, given in the file's node rest
// pose, into the body's bind pose: each vertex follows the body where it
// is closest to it in the rest pose, p' = Σ_j w_j·toBind[j]·p with w the
// skin weights there (linear blend skinning, inverted; exact where one
// joint moves the body around it).
func (c *Character) carryStatic(m *mesh.Mesh, toBind []geom.Rigid) error {
	rest := make([]geom.Vec3, len(c.Body.Verts))
	for v, p := range c.Body.Verts {
		js, ws := c.Weights.Influences(v)
		var q geom.Vec3
		for k, j := range js {
			q = q.Add(toBind[j].Inverse().Apply(p).Scale(float64(ws[k])))
		}
		rest[v] = q
	}
	sb := BindSurface(&mesh.Mesh{Verts: rest, Tris: c.Body.Tris}, m.Verts)
	w, err := sb.Weights(c.Body.Tris, c.Weights)
	if err != nil {
		return err
	}
	for v, p := range m.Verts {
		js, ws := w.Influences(v)
		var q geom.Vec3
		sum := 0.0
		for k, j := range js {
			q = q.Add(toBind[j].Apply(p).Scale(float64(ws[k])))
			sum += float64(ws[k])
		}
		m.Verts[v] = q.Scale(1 / sum)
	}
	return nil
}
