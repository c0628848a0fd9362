package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// hookCollisions adds the collision hooks to the cloths: layered
// cloth–cloth collision between pieces, self-collision, and the body.
func (s *Simulator) hookCollisions() error {
	opt := s.opt
	cp := collide.Params{Thickness: s.thick, Frictionless: opt.Frictionless, Workers: opt.Workers, MaxDepth: 0.02, SqueezeFolds: opt.SqueezeFolds}
	s.colliders = make([][]*collide.Collider, len(s.cloths))
	s.snaps = make([]*collide.Snapshot, len(s.cloths))
	if !opt.NoLayers && len(s.cloths) > 1 {
		if err := s.hookLayers(cp); err != nil {
			return err
		}
	}
	if opt.SelfCollide {
		for i, c := range s.cloths {
			sc, err := collide.NewSelfCollider(s.meshes[i], collide.SelfParams{Thickness: math.Min(s.thick, 0.002), Workers: opt.Workers})
			if err != nil {
				return err
			}
			c.Hooks = append(c.Hooks, sc)
		}
	}
	if !opt.NoBody {
		for i, c := range s.cloths {
			if err := s.hookBodyOverlap(i, cp); err != nil {
				return err
			}
			col := collide.NewCollider(s.body.copies[i], cp)
			c.Hooks = append(c.Hooks, col)
			s.colliders[i] = append(s.colliders[i], col)
		}
	}
	return nil
}

// hookBodyOverlap adds to piece i the hook that pushes its triangles out
// where the body's vertices come through them between its vertices (a knee
// through a skirt; collide.BodyOverlap), before its body collider, which
// then has the last word on its vertices; not to a piece whose median rest
// edge is longer than bodyOverlapMaxEdge or shorter than
// Options.BodyOverlapMinEdge, and to none with Options.NoBodyOverlap.
func (s *Simulator) hookBodyOverlap(i int, cp collide.Params) error {
	c := s.cloths[i]
	rest := slices.Clone(c.EdgeRest())
	if len(rest) == 0 || s.opt.NoBodyOverlap {
		return nil
	}
	slices.Sort(rest)
	if med := rest[len(rest)/2]; med > bodyOverlapMaxEdge || med < s.opt.BodyOverlapMinEdge {
		return nil
	}
	bo, err := collide.NewBodyOverlap(s.body.copies[i], c, s.meshes[i], cp)
	if err != nil {
		return fmt.Errorf("sim: %s: %w", s.pieces[i].Name, err)
	}
	c.Hooks = append(c.Hooks, bo)
	return nil
}

// bodyOverlapMaxEdge (m) is the longest median rest edge of a piece that
// gets a collide.BodyOverlap. A coarser garment cannot lie outside the body
// without stretching: its triangles cut through the limbs by up to
// L²/(8R) (6 cm edges over a 4 cm arm: 11 mm) in the pose it was fitted
// in, and pushing them out fights the strain limit every substep. The
// procedural suit at 700 vertices (median edges 54 and 58 mm) then never
// came to rest when settled into bent elbows (vertices buzzing at 4-7 cm/s
// over 4 s, against 1.1 s to rest without the hook) and stepped 2.6 times
// slower. The skirt and jacket of the MakeHuman female_elegantsuit01 (40.4
// and 22.5 mm) gain from it, as the procedural suit at 4k vertices (22 and
// 24 mm) may; the limit lies between those and the 700-vertex suit.
const bodyOverlapMaxEdge = 0.048

// hookLayers adds the layered collisions between pieces. The pieces are
// stepped concurrently, each against the others' states at the start of
// the substep (snaps, see collide.Snapshot).
func (s *Simulator) hookLayers(cp collide.Params) error {
	lp := cp
	lp.Thickness = layerThickness(s.thick)
	lp.Penalty = layerPenalty
	if _, err := collide.Layers(s.cloths, s.meshes, lp, false); err != nil {
		return err
	}
	// The reverse test: inner vertices (the jeans' waistband) that come
	// through the outer layer between its vertices push its triangles out
	// (4.6 % of the MakeHuman jeans' vertex-frames were outside the shirt
	// over the walk without it, 0.9 % with).
	if _, err := collide.Overlaps(s.cloths, s.meshes, lp); err != nil {
		return err
	}
	index := make(map[*cloth.Cloth]int, len(s.cloths))
	for i, c := range s.cloths {
		index[c] = i
	}
	snap := func(c *cloth.Cloth) *collide.Snapshot {
		i := index[c]
		if s.snaps[i] == nil {
			s.snaps[i] = &collide.Snapshot{}
		}
		return s.snaps[i]
	}
	for i, c := range s.cloths {
		for _, h := range c.Hooks {
			switch h := h.(type) {
			case *collide.Collider:
				s.colliders[i] = append(s.colliders[i], h)
				if f := h.Body.Followed(); f != nil {
					h.Body.FollowSnapshot(snap(f))
				}
			case *collide.Overlap:
				h.FollowSnapshot(snap(h.Inner))
			}
		}
	}
	return nil
}

// material picks the fabric and model of a piece: the fabric of the
// longest prefix in opt.Fabrics that starts the piece's name, else
// opt.Fabric, else denim.
func material(p *Piece, opt Options) (cloth.Material, error) {
	name, best, found := opt.Fabric, "", false
	for prefix, f := range opt.Fabrics {
		if !strings.HasPrefix(p.Name, prefix) {
			continue
		}
		if !found || len(prefix) > len(best) || len(prefix) == len(best) && prefix < best {
			name, best, found = f, prefix, true
		}
	}
	if name == "" {
		name = "denim"
	}
	fab, ok := cloth.Presets()[strings.ToLower(name)]
	if !ok {
		var have []string
		for k := range cloth.Presets() {
			have = append(have, k)
		}
		sort.Strings(have)
		return cloth.Material{}, fmt.Errorf("sim: unknown fabric %q (have %s)", name, strings.Join(have, ", "))
	}
	model := cloth.MassSpring
	if opt.ModelSet {
		model = opt.Model
	}
	return cloth.Material{Model: model, Fabric: fab}, nil
}

// metricUVs reports whether a mesh's UVs look like pattern coordinates in
// metres: the UV area of its triangles within a factor 2 of their 3D area.
func metricUVs(m *mesh.Mesh) bool {
	if !m.HasUVs() {
		return false
	}
	a3, a2 := 0.0, 0.0
	for t, tr := range m.Tris {
		a3 += geom.TriangleArea(m.Verts[tr[0]], m.Verts[tr[1]], m.Verts[tr[2]])
		u := m.UVTris[t]
		p, q, r := m.UVs[u[0]], m.UVs[u[1]], m.UVs[u[2]]
		a2 += math.Abs((q.X-p.X)*(r.Y-p.Y)-(q.Y-p.Y)*(r.X-p.X)) / 2
	}
	return a3 > 0 && a2/a3 > 0.5 && a2/a3 < 2
}
