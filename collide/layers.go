package collide

import (
	"fmt"
	"slices"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/mesh"
)

// Layers makes garments worn in layers collide with each other. garments
// are listed from the innermost to the outermost, meshes[i] being the mesh
// garments[i] was built from (its triangles, consistently oriented with
// normals pointing away from the body).
//
// Following wang2010 §3.2, an inner layer acts as a collision body for the
// outer ones: for every pair i < j, garment j's vertices collide with
// garment i's triangles at their current positions and velocities
// (FollowCloth; the BVH is refitted each substep), so that the outer layer
// stays at least p.Thickness outside the inner one where they overlap.
// Where the inner layer ends (a hem, a waistband), the closest feature is a
// boundary and the outer vertex counts as outside, kept at p.Thickness from
// the rim.
// With reverse set, garment i's vertices also collide with garment j's
// triangles flipped (kept inside them), which is wang2010's own test (a
// vertex of the pants that jumps outside the shirt) and makes the pair
// robust when the inner layer is pushed outward. It pushes the inner layer
// inward, against the body under it: on the MakeHuman suit (sim.Run) the
// jeans diverged within a second of the walk whatever its MaxDepth (3–20
// mm); Overlaps pushes the outer layer outward instead.
//
// p.MaxDepth defaults to 0.02 m here: a vertex more than 2 cm behind another
// layer is taken to be elsewhere (e.g. on the far side of a limb). The
// colliders are inserted at the front of each cloth's Hooks, so that body
// colliders added before or after them run their End last and have the last
// word. When the garments are stepped one after the other, each sees the
// others' latest state. It returns the colliders added.
func Layers(garments []*cloth.Cloth, meshes []*mesh.Mesh, p Params, reverse bool) ([]*Collider, error) {
	if len(garments) != len(meshes) {
		panic("collide: Layers needs one mesh per garment")
	}
	if p.MaxDepth == 0 {
		p.MaxDepth = 0.02
	}
	var out []*Collider
	add := func(c *cloth.Cloth, col *Collider) {
		c.Hooks = slices.Insert(c.Hooks, 0, cloth.Hook(col))
		out = append(out, col)
	}
	for j := range garments {
		for i := 0; i < j; i++ {
			inner, err := FollowCloth(garments[i], meshes[i])
			if err != nil {
				return nil, fmt.Errorf("collide: layer %d: %w", i, err)
			}
			add(garments[j], NewCollider(inner, p))
			if reverse {
				outer, err := FollowCloth(garments[j], meshes[j])
				if err != nil {
					return nil, fmt.Errorf("collide: layer %d: %w", j, err)
				}
				outer.Flip = true
				add(garments[i], NewCollider(outer, p))
			}
		}
	}
	return out, nil
}
