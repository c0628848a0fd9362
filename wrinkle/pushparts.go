package wrinkle

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// BodyParts labels each body triangle with its dominant joint: the joint
// with the largest skin weight summed over the triangle's three corners
// (the lowest joint index on ties). Every corner must have weights.
func BodyParts(tris [][3]int32, w skel.Weights) ([]int32, error) {
	nv := len(w.Offsets) - 1
	acc := map[int32]float64{}
	part := make([]int32, len(tris))
	for i, t := range tris {
		clear(acc)
		for _, v := range t {
			if v < 0 || int(v) >= nv {
				return nil, fmt.Errorf("wrinkle: body triangle %d: vertex %d has no skin weights (%d weighted vertices)", i, v, nv)
			}
			a, e := w.Offsets[v], w.Offsets[v+1]
			if a >= e || a < 0 || int(e) > len(w.Joints) || int(e) > len(w.W) {
				return nil, fmt.Errorf("wrinkle: body triangle %d: vertex %d has no skin weights", i, v)
			}
			for k := a; k < e; k++ {
				acc[w.Joints[k]] += float64(w.W[k])
			}
		}
		best, bw := int32(-1), math.Inf(-1)
		for j, s := range acc {
			if s > bw || s == bw && j < best {
				best, bw = j, s
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("wrinkle: body triangle %d: negative joint %d", i, best)
		}
		part[i] = best
	}
	return part, nil
}

// SetParts gives the body's triangles part labels (BodyParts: the
// dominant joint; any non-negative ids), which let Push settle a watched
// point without the exact query where the walk leaves it outside at
// Thickness or more and every other part's bounding box (of its
// triangles' corners, refitted by SetBody) lies Thickness or more from it
// (BodyPush). nil removes them.
func (b *BodyPush) SetParts(part []int32) error {
	if part == nil {
		b.triPart, b.partVert, b.partStart, b.partBox, b.partNear = nil, nil, nil, nil, nil
		b.held = heldState{rest: b.held.rest, gen: b.held.gen}
		for t := range b.tri {
			b.tri[t].patch = -1
		}
		return nil
	}
	if len(part) != len(b.m.Tris) {
		return fmt.Errorf("wrinkle: %d part labels for %d body triangles", len(part), len(b.m.Tris))
	}
	ids := map[int32]int32{} // label → dense part, in order of first use
	tp := make([]int32, len(part))
	var label []int32
	for i, p := range part {
		if p < 0 {
			return fmt.Errorf("wrinkle: body triangle %d: part %d, want ≥ 0", i, p)
		}
		d, ok := ids[p]
		if !ok {
			d = int32(len(ids))
			ids[p] = d
			label = append(label, p)
		}
		tp[i] = d
	}
	// Each part's distinct corners, CSR by part.
	np := len(ids)
	byPart := make([][]int32, np)
	for t, p := range tp {
		byPart[p] = append(byPart[p], int32(t))
	}
	seen := make([]int32, len(b.m.Verts))
	for i := range seen {
		seen[i] = -1
	}
	start := make([]int32, np+1)
	var verts []int32
	for k, ts := range byPart {
		for _, t := range ts {
			for _, v := range b.m.Tris[t] {
				if seen[v] != int32(k) {
					seen[v] = int32(k)
					verts = append(verts, v)
				}
			}
		}
		start[k+1] = int32(len(verts))
	}
	b.triPart, b.partVert, b.partStart = tp, verts, start
	b.partBox = make([][2]geom.Vec3, np)
	b.partNear = make([]bool, np*np)
	b.partBoxes()
	b.setPatches(label, len(b.hint))
	return nil
}

// partBoxes refits the parts' bounding boxes to the body's positions.
func (b *BodyPush) partBoxes() {
	for k := range b.partBox {
		vs := b.partVert[b.partStart[k]:b.partStart[k+1]]
		lo := b.m.Verts[vs[0]]
		hi := lo
		for _, v := range vs[1:] {
			p := b.m.Verts[v]
			lo = geom.Vec3{X: min(lo.X, p.X), Y: min(lo.Y, p.Y), Z: min(lo.Z, p.Z)}
			hi = geom.Vec3{X: max(hi.X, p.X), Y: max(hi.Y, p.Y), Z: max(hi.Z, p.Z)}
		}
		b.partBox[k] = [2]geom.Vec3{lo, hi}
	}
	// Parts whose boxes are Reach + Thickness or more apart: a point
	// within Reach of one is Thickness or more from the other.
	np := len(b.partBox)
	r := b.Reach + b.Thickness
	for p, bp := range b.partBox {
		for q, bq := range b.partBox {
			dx := max(bq[0].X-bp[1].X, bp[0].X-bq[1].X, 0)
			dy := max(bq[0].Y-bp[1].Y, bp[0].Y-bq[1].Y, 0)
			dz := max(bq[0].Z-bp[1].Z, bp[0].Z-bq[1].Z, 0)
			b.partNear[p*np+q] = dx*dx+dy*dy+dz*dz < r*r
		}
	}
}

// apart reports whether every part but that of body triangle tri has its
// bounding box r (≤ Thickness) or more from x, at squared distance d2
// from tri (false without parts). Within Reach of tri, only the parts
// whose boxes are nearer than Reach + Thickness to its part's need
// looking at.
func (b *BodyPush) apart(x geom.Vec3, tri int32, d2, r float64) bool {
	if b.triPart == nil {
		return false
	}
	own := int(b.triPart[tri])
	np := len(b.partBox)
	near := b.partNear[own*np : (own+1)*np]
	all := d2 > b.Reach*b.Reach
	t2 := r * r
	for k, bx := range b.partBox {
		if k == own || !all && !near[k] {
			continue
		}
		dx := max(bx[0].X-x.X, x.X-bx[1].X, 0)
		dy := max(bx[0].Y-x.Y, x.Y-bx[1].Y, 0)
		dz := max(bx[0].Z-x.Z, x.Z-bx[1].Z, 0)
		if dx*dx+dy*dy+dz*dz < t2 {
			return false
		}
	}
	return true
}
