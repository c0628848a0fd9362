package character

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// Character is a skinned body: a triangle mesh in its rest pose, the
// skeleton whose rest pose it is, and per-vertex skinning weights.
type Character struct {
	Name string
	// Body is the skin in the rest pose, in metres, +Y up, facing +Z.
	Body *mesh.Mesh
	// Skeleton's rest pose is the pose of Body.
	Skeleton *skel.Skeleton
	// Weights has one normalised influence list per Body vertex.
	Weights skel.Weights
	// Base is the full MakeHuman base mesh the body was cut from, which
	// garment bindings refer to; nil for characters from other sources.
	Base *BaseMesh
}

// BaseMesh is the complete source mesh of a MakeHuman character: body,
// helper geometry (tights, skirt, hair, eyes, joint cubes) and their
// weights. .mhskel, .mhw and .mhclo files index its vertices.
type BaseMesh struct {
	// Verts are all base.obj vertices in metres.
	Verts []geom.Vec3
	// Weights has one normalised influence list per base vertex. Vertices
	// outside the body that the weights file leaves empty are bound to the
	// root joint.
	Weights skel.Weights
	// BodyVert maps a base vertex to its Body vertex, -1 if not kept.
	BodyVert []int32
	// BaseVert maps a Body vertex to its base vertex.
	BaseVert []int32
	// Shift is the translation (metres) added to base.obj's coordinates
	// after scaling them by MHUnit (MakeHumanOptions.Ground), so that files
	// in base.obj's frame can be placed on the body.
	Shift geom.Vec3
}

// Garment is a piece of clothing fitted to a character's rest pose.
type Garment struct {
	Name string
	// Mesh is the garment in metres, placed on the body in its rest pose.
	// Its UVs (when the source has them) are the pattern (fabric)
	// coordinates; its groups are those of the source OBJ.
	Mesh *mesh.Mesh
	// Weights are skinning weights for the character's skeleton, one
	// normalised list per garment vertex, blended from the body's (or the
	// file's own, for a skinned garment of a glTF character's file).
	Weights skel.Weights
	// Binding records how each vertex was placed on the base mesh (.mhclo
	// garments); empty for garments bound by BindMesh.
	Binding Binding
	// Surface records how each vertex was bound to the body surface
	// (garments from plain meshes, BindMesh); nil for .mhclo garments.
	Surface *SurfaceBinding
	// Pins are the garment vertices a user asked to hold to the body (the
	// vertices of the pin groups named when loading), sorted; nil for none.
	Pins []int32
	// DeleteVerts are base-mesh vertices hidden under the garment, sorted
	// (see Character.HiddenBody).
	DeleteVerts []int32
}

// LoadGarment loads a .mhclo garment onto c, which must come from
// LoadMakeHuman (it needs c.Base). See the package function LoadGarment.
func (c *Character) LoadGarment(path string) (*Garment, error) {
	if c.Base == nil {
		return nil, perr(path, 0, "", "character %q has no MakeHuman base mesh", c.Name)
	}
	return LoadGarment(path, c.Base.Verts, c.Base.Weights)
}

// PinGroups sets g.Pins to the vertices of g.Mesh's groups named in names
// (sorted, distinct) and marks each name found in found (when not nil).
// A name that is no group of g is skipped; the error is for a group
// holding an out-of-range triangle.
func (g *Garment) PinGroups(names []string, found map[string]bool) error {
	if len(names) == 0 {
		return nil
	}
	pin := make([]bool, len(g.Mesh.Verts))
	any := false
	for _, n := range names {
		grp := g.Mesh.Group(n)
		if grp == nil {
			continue
		}
		for _, t := range grp.Tris {
			if t < 0 || int(t) >= len(g.Mesh.Tris) {
				return fmt.Errorf("garment %s: group %q: triangle %d out of range", g.Name, n, t)
			}
			for _, v := range g.Mesh.Tris[t] {
				pin[v] = true
			}
		}
		any = true
		if found != nil {
			found[n] = true
		}
	}
	if !any {
		return nil
	}
	g.Pins = g.Pins[:0]
	for v, p := range pin {
		if p {
			g.Pins = append(g.Pins, int32(v))
		}
	}
	return nil
}

// HiddenBody returns the body mesh without the triangles that touch a
// vertex hidden under any of the garments (their DeleteVerts), for
// rendering: skin that would poke through clothes. Vertices are kept, so
// Weights and any per-vertex data still apply; only triangles (with their
// UV and normal corners) and group entries are dropped. Base vertices not
// in the body are ignored. Without a Base, the body is returned unchanged
// (as a copy).
func (c *Character) HiddenBody(garments ...*Garment) *mesh.Mesh {
	hide := make([]bool, len(c.Body.Verts))
	if c.Base != nil {
		for _, g := range garments {
			for _, v := range g.DeleteVerts {
				if int(v) < len(c.Base.BodyVert) {
					if b := c.Base.BodyVert[v]; b >= 0 {
						hide[b] = true
					}
				}
			}
		}
	}
	return DropTris(c.Body, hide)
}

// DropTris returns a copy of m without the triangles that have a corner
// with hide[v] true. Vertices, UVs and normals are kept (so vertex ids are
// unchanged); UVTris, NormalTris and groups follow the kept triangles. It
// panics if len(hide) != len(m.Verts).
func DropTris(m *mesh.Mesh, hide []bool) *mesh.Mesh {
	if len(hide) != len(m.Verts) {
		panic("character: DropTris: len(hide) != number of vertices")
	}
	out := &mesh.Mesh{
		Verts:   append([]geom.Vec3(nil), m.Verts...),
		UVs:     append([]geom.Vec2(nil), m.UVs...),
		Normals: append([]geom.Vec3(nil), m.Normals...),
	}
	newID := make([]int32, len(m.Tris))
	for i, t := range m.Tris {
		if hide[t[0]] || hide[t[1]] || hide[t[2]] {
			newID[i] = -1
			continue
		}
		newID[i] = int32(len(out.Tris))
		out.Tris = append(out.Tris, t)
		if m.UVTris != nil {
			out.UVTris = append(out.UVTris, m.UVTris[i])
		}
		if m.NormalTris != nil {
			out.NormalTris = append(out.NormalTris, m.NormalTris[i])
		}
	}
	if m.UVTris != nil && out.UVTris == nil {
		out.UVTris = [][3]int32{}
	}
	if m.NormalTris != nil && out.NormalTris == nil {
		out.NormalTris = [][3]int32{}
	}
	for _, g := range m.Groups {
		ng := mesh.Group{Name: g.Name}
		for _, t := range g.Tris {
			if id := newID[t]; id >= 0 {
				ng.Tris = append(ng.Tris, id)
			}
		}
		out.Groups = append(out.Groups, ng)
	}
	return out
}
