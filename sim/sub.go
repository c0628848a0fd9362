package sim

import (
	"fmt"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// SubPiece maps a piece of a Prepared made by Sub back to the piece of the
// whole garment it was cut from.
type SubPiece struct {
	// Piece is the whole Prepared's piece index.
	Piece int
	// Verts[j] is the whole piece's vertex (own order) that sub vertex j
	// (the sub piece's own order) is.
	Verts []int32
	// Cut lists the sub vertices on the cut (those of a dropped triangle)
	// that are not attached or pinned.
	Cut []int32
}

// Sub returns a Prepared of part of p's garments, sharing the character,
// the body and the settings: of each piece i the triangles whose three
// vertices keep[i] marks (the piece's own vertex order), with their
// vertices; pieces left with no triangle are dropped. Its simulators
// start, like p's, in the rest pose. The sub pieces' vertices keep their
// solver order; their own order is it.
func (p *Prepared) Sub(keep [][]bool) (*Prepared, []SubPiece, error) {
	if len(keep) != len(p.pieces) {
		return nil, nil, fmt.Errorf("sim: Sub: %d keep lists for %d pieces", len(keep), len(p.pieces))
	}
	q := &Prepared{ch: p.ch, opt: p.opt, res: p.res, col: p.col, colW: p.colW, colCrease: p.colCrease,
		fullCrease: p.fullCrease, pose: p.pose}
	var maps []SubPiece
	for i, pc := range p.pieces {
		if len(keep[i]) != len(pc.Mesh.Verts) {
			return nil, nil, fmt.Errorf("sim: Sub: piece %d (%s): %d keep marks for %d vertices", i, pc.Name, len(keep[i]), len(pc.Mesh.Verts))
		}
		own := func(k int32) int32 { // solver id → own id
			if pc.order != nil {
				return pc.order.perm[k]
			}
			return k
		}
		sub := make([]int32, len(pc.Mesh.Verts)) // solver id → sub id + 1
		cut := make([]bool, len(pc.Mesh.Verts))
		var tris [][3]int32
		for _, t := range pc.Mesh.Tris {
			if keep[i][own(t[0])] && keep[i][own(t[1])] && keep[i][own(t[2])] {
				tris = append(tris, t)
				continue
			}
			cut[t[0]], cut[t[1]], cut[t[2]] = true, true, true
		}
		if len(tris) == 0 {
			continue
		}
		var ids []int32 // sub id → solver id
		for _, t := range tris {
			for _, v := range t {
				if sub[v] == 0 {
					ids = append(ids, v)
					sub[v] = -1
				}
			}
		}
		// Keep the solver order (the preconditioner's ranges follow it).
		slices.Sort(ids)
		for j, v := range ids {
			sub[v] = int32(j) + 1
		}
		m := &mesh.Mesh{Verts: make([]geom.Vec3, len(ids)), Tris: make([][3]int32, len(tris))}
		for j, v := range ids {
			m.Verts[j] = pc.Mesh.Verts[v]
		}
		for k, t := range tris {
			m.Tris[k] = [3]int32{sub[t[0]] - 1, sub[t[1]] - 1, sub[t[2]] - 1}
		}
		mapIDs := func(vs []int32) []int32 {
			var out []int32
			for _, v := range vs {
				if sub[v] > 0 {
					out = append(out, sub[v]-1)
				}
			}
			return out
		}
		sp := &Piece{Name: pc.Name, Mesh: m, Weights: pc.Weights.Subset(ids), Attach: mapIDs(pc.Attach), Pins: mapIDs(pc.Pins),
			Layer: pc.Layer, Garment: pc.Garment}
		if pc.Rest != nil {
			sp.Rest = pick(pc.Rest, ids)
		}
		if pc.Source != nil {
			sp.Source = make([]int32, len(ids))
			for j, v := range ids {
				sp.Source[j] = pc.Source[v]
			}
		}
		rest := m
		if p.rest[i] != pc.Mesh {
			rest = &mesh.Mesh{Verts: pick(p.rest[i].Verts, ids), Tris: m.Tris}
		}
		q.pieces = append(q.pieces, sp)
		q.public = append(q.public, sp)
		q.start = append(q.start, pick(p.start[i], ids))
		q.rest = append(q.rest, rest)
		q.mats = append(q.mats, p.mats[i])
		held := make(map[int32]bool, len(sp.Attach)+len(sp.Pins))
		for _, v := range sp.Attach {
			held[v] = true
		}
		for _, v := range sp.Pins {
			held[v] = true
		}
		smap := SubPiece{Piece: i, Verts: make([]int32, len(ids))}
		for j, v := range ids {
			smap.Verts[j] = own(v)
			if cut[v] && !held[int32(j)] {
				smap.Cut = append(smap.Cut, int32(j))
			}
		}
		maps = append(maps, smap)
	}
	if len(q.pieces) == 0 {
		return nil, nil, fmt.Errorf("sim: Sub: no triangle kept")
	}
	return q, maps, nil
}

func pick(x []geom.Vec3, ids []int32) []geom.Vec3 {
	out := make([]geom.Vec3, len(ids))
	for j, v := range ids {
		out[j] = x[v]
	}
	return out
}

// Hold pins piece i's vertices verts (the piece's own order) where they
// are now, for the rest of the simulation: the cut edge of a Sub
// garment, held where the whole garment's shape put it (StartPosed).
func (s *Simulator) Hold(i int, verts []int32) error {
	if i < 0 || i >= len(s.cloths) {
		return fmt.Errorf("sim: Hold: piece %d of %d", i, len(s.cloths))
	}
	c, o := s.cloths[i], s.pieces[i].order
	var inv []int32
	if o != nil {
		inv = make([]int32, len(o.perm))
		for k, v := range o.perm {
			inv[v] = int32(k)
		}
	}
	ks := make([]int, 0, len(verts))
	for _, v := range verts {
		if v < 0 || int(v) >= len(c.X) {
			return fmt.Errorf("sim: Hold: piece %d (%s) vertex %d of %d", i, s.pieces[i].Name, v, len(c.X))
		}
		k := int(v)
		if inv != nil {
			k = int(inv[v])
		}
		ks = append(ks, k)
	}
	c.Pin(ks...)
	return nil
}
