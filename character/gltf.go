package character

import (
	"fmt"
	"path/filepath"
	"strings"

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
	var gm *gltfio.Mesh
	for i := range s.Meshes {
		if s.Meshes[i].Skin != nil {
			gm = &s.Meshes[i]
			break
		}
	}
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
