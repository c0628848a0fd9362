package layers

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// Classification is the per-vertex layer assignment of an outfit.
type Classification struct {
	// Loose and Float are blend weights in [0,1] (see the package doc).
	Loose, Float []float32
	// Dist is each vertex's rest distance to the skin (m, 0 inside).
	Dist []float64
	// Dir is the unit direction from the nearest skin point to the vertex
	// in the rest pose (the skin normal where the vertex is on the skin).
	Dir []geom.Vec3
	// Radius is the limb radius r of Eqs. 12–16 at each vertex (m): the
	// distance from the nearest skin point to the axis of the vertex's
	// strongest joint.
	Radius []float64
	// Pinned marks floating-simulation vertices held to their skinned
	// position (the ring around the floating region).
	Pinned []bool
}

// Of returns the layer a vertex mostly belongs to: Floating where Float is
// at least 1/2, else Loose where Loose is, else Tight.
func (c *Classification) Of(v int) Layer {
	switch {
	case c.Float[v] >= 0.5:
		return Floating
	case c.Loose[v] >= 0.5:
		return Loose
	}
	return Tight
}

// Counts returns the number of vertices mostly in each layer (Of), indexed
// by Tight, Loose, Floating.
func (c *Classification) Counts() [4]int {
	var n [4]int
	for v := range c.Loose {
		n[c.Of(v)]++
	}
	return n
}

func smoothstep(e0, e1, x float64) float64 {
	t := min(1, max(0, (x-e0)/(e1-e0)))
	return t * t * (3 - 2*t)
}

// Classify assigns the outfit's vertices to layers (see the package doc).
// groups[v] lists the names (mesh groups, garment name) vertex v belongs
// to, for Options.Groups; it may be nil.
func Classify(ch *character.Character, m *mesh.Mesh, w skel.Weights, groups [][]string, opt Options) (*Classification, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	n := len(m.Verts)
	if w.NumVerts() != n {
		return nil, fmt.Errorf("layers: %d skin weight lists for %d outfit vertices", w.NumVerts(), n)
	}
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("layers: outfit: %w", err)
	}
	c := &Classification{Loose: make([]float32, n), Float: make([]float32, n), Dist: make([]float64, n),
		Dir: make([]geom.Vec3, n), Radius: make([]float64, n), Pinned: make([]bool, n)}
	skinDistances(ch, m, w, c)
	forced := overrides(groups, opt.Groups, n)
	float := floatingRegion(ch, m, top, c, forced, opt)
	for v := range n {
		switch forced[v] {
		case Tight:
			c.Loose[v] = 0
		case Loose:
			c.Loose[v] = 1
		default:
			c.Loose[v] = float32(smoothstep(opt.TightDist, opt.LooseDist, c.Dist[v]))
		}
	}
	blendFloat(m, top, float, c, opt.BlendBand)
	for v := range n {
		if !(c.Loose[v] >= 0 && c.Loose[v] <= 1 && c.Float[v] >= 0 && c.Float[v] <= 1) {
			return nil, fmt.Errorf("layers: vertex %d: blend weights %g, %g not in [0,1]", v, c.Loose[v], c.Float[v])
		}
	}
	return c, nil
}

// overrides resolves Options.Groups per vertex (the highest layer named).
func overrides(groups [][]string, by map[string]Layer, n int) []Layer {
	f := make([]Layer, n)
	if len(by) == 0 {
		return f
	}
	for v := 0; v < n && v < len(groups); v++ {
		for _, g := range groups[v] {
			if l, ok := by[g]; ok && l > f[v] {
				f[v] = l
			}
		}
	}
	return f
}

// skinDistances fills Dist, Dir and Radius from the rest body.
func skinDistances(ch *character.Character, m *mesh.Mesh, w skel.Weights, c *Classification) {
	body := ch.Body
	bvh := mesh.NewBVH(body.Verts, body.Tris)
	rest := ch.Skeleton.RestWorld()
	sk := ch.Skeleton
	for v, p := range m.Verts {
		h := bvh.ClosestPoint(p)
		if h.Tri < 0 {
			c.Dir[v] = geom.V(0, 0, 1)
			c.Radius[v] = 0.05
			continue
		}
		t := body.Tris[h.Tri]
		fn := geom.TriangleNormal(body.Verts[t[0]], body.Verts[t[1]], body.Verts[t[2]]).Unit()
		d := p.Sub(h.Point)
		dist := d.Len()
		switch {
		case d.Dot(fn) < 0:
			c.Dist[v], c.Dir[v] = 0, fn
		case dist > 1e-4:
			c.Dist[v], c.Dir[v] = dist, d.Scale(1/dist)
		default:
			c.Dist[v], c.Dir[v] = dist, fn
		}
		// limb radius: nearest skin point to the strongest joint's bone axis
		js, ws := w.Influences(v)
		j, best := -1, float32(-1)
		for k, x := range ws {
			if x > best {
				best, j = x, int(js[k])
			}
		}
		r := 0.05
		if j >= 0 {
			a := rest[j].T
			b := a
			for _, ch := range sk.Children(j) {
				if rest[ch].T.Dist(a) > 1e-3 {
					b = rest[ch].T
					break
				}
			}
			if b != a {
				q, _, _ := capsuleNearest(a, b, 0, 0, h.Point)
				r = h.Point.Dist(q)
			}
		}
		c.Radius[v] = min(0.25, max(0.02, r))
	}
}

// floatingRegion marks the floating vertices: forced ones, and the
// below-hip regions connected to a seed hanging between the legs.
func floatingRegion(ch *character.Character, m *mesh.Mesh, top *mesh.Topology, c *Classification, forced []Layer, opt Options) []bool {
	n := len(m.Verts)
	fl := make([]bool, n)
	legs, ok := legJoints(ch.Skeleton)
	if ok {
		rest := ch.Skeleton.RestWorld()
		hl, hr := rest[legs[0][0]].T, rest[legs[1][0]].T
		hipY := (hl.Y + hr.Y) / 2
		midX, half := (hl.X+hr.X)/2, math.Abs(hl.X-hr.X)/2
		// seeds: on the midplane between the legs, below the crotch (the
		// lowest skin point near the midplane within 25 cm below the hips),
		// off the skin. Trouser legs are tubes around one leg each and have
		// no vertex there.
		crotch := hipY
		for _, p := range ch.Body.Verts {
			if math.Abs(p.X-midX) < 0.015 && p.Y > hipY-0.25 && p.Y < crotch {
				crotch = p.Y
			}
		}
		var queue []int32
		for v, p := range m.Verts {
			if forced[v] == Auto && p.Y < crotch-0.03 && math.Abs(p.X-midX) < 0.25*half && c.Dist[v] > opt.LooseDist {
				fl[v] = true
				queue = append(queue, int32(v))
			}
		}
		// grow through edges below the hips
		for len(queue) > 0 {
			v := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			for k := top.RingStart[v]; k < top.RingStart[v+1]; k++ {
				u := top.Ring[k]
				if !fl[u] && forced[u] == Auto && m.Verts[u].Y < hipY {
					fl[u] = true
					queue = append(queue, u)
				}
			}
		}
	}
	for v := range n {
		switch forced[v] {
		case Floating:
			fl[v] = true
		case Tight, Loose:
			fl[v] = false
		}
	}
	return fl
}

// blendFloat sets Float from the geodesic distance (Dijkstra over edges)
// to the floating region's border, and Pinned on the border ring. A
// connected floating region with no border (a whole piece forced
// floating) is held by its top: its vertices within 1 cm of its highest.
func blendFloat(m *mesh.Mesh, top *mesh.Topology, fl []bool, c *Classification, band float64) {
	n := len(m.Verts)
	dist := make([]float64, n)
	for v := range dist {
		dist[v] = math.Inf(1)
	}
	h := &vheap{}
	border := make([]bool, n)
	for v := range n {
		if fl[v] {
			continue
		}
		for k := top.RingStart[v]; k < top.RingStart[v+1]; k++ {
			if fl[top.Ring[k]] {
				border[v] = true
			}
		}
	}
	// components of floating vertices without a border get their top pinned
	comp := floatComponents(top, fl)
	hasBorder := map[int32]bool{}
	for v := range n {
		if border[v] {
			for k := top.RingStart[v]; k < top.RingStart[v+1]; k++ {
				if u := top.Ring[k]; fl[u] {
					hasBorder[comp[u]] = true
				}
			}
		}
	}
	topY := map[int32]float64{}
	for v := range n {
		if fl[v] && !hasBorder[comp[v]] {
			if y, ok := topY[comp[v]]; !ok || m.Verts[v].Y > y {
				topY[comp[v]] = m.Verts[v].Y
			}
		}
	}
	for v := range n {
		if border[v] {
			c.Pinned[v] = true
			dist[v] = 0
		}
		if fl[v] && !hasBorder[comp[v]] && m.Verts[v].Y > topY[comp[v]]-0.01 {
			c.Pinned[v] = true
			dist[v] = 0
		}
	}
	for v := range n {
		if dist[v] == 0 {
			heap.Push(h, hentry{int32(v), 0})
		}
	}
	for h.Len() > 0 {
		e := heap.Pop(h).(hentry)
		v := e.v
		if e.d > dist[v] {
			continue
		}
		for k := top.RingStart[v]; k < top.RingStart[v+1]; k++ {
			u := top.Ring[k]
			if !fl[u] || c.Pinned[u] {
				continue
			}
			if d := dist[v] + m.Verts[v].Dist(m.Verts[u]); d < dist[u] {
				dist[u] = d
				heap.Push(h, hentry{u, d})
			}
		}
	}
	for v := range n {
		if fl[v] && !c.Pinned[v] {
			f := smoothstep(0, band, dist[v])
			if math.IsInf(dist[v], 1) {
				f = 1
			}
			c.Float[v] = float32(max(f, 1e-3)) // simulated, however little
		}
	}
}

func floatComponents(top *mesh.Topology, fl []bool) []int32 {
	comp := make([]int32, len(fl))
	for v := range comp {
		comp[v] = -1
	}
	var next int32
	for s := range fl {
		if !fl[s] || comp[s] >= 0 {
			continue
		}
		stack := []int32{int32(s)}
		comp[s] = next
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for k := top.RingStart[v]; k < top.RingStart[v+1]; k++ {
				if u := top.Ring[k]; fl[u] && comp[u] < 0 {
					comp[u] = next
					stack = append(stack, u)
				}
			}
		}
		next++
	}
	return comp
}

// vheap is a min-heap of (vertex, distance) entries; stale entries are
// skipped on pop; ties break by vertex id for determinism.
type vheap struct{ e []hentry }

type hentry struct {
	v int32
	d float64
}

func (h *vheap) Len() int { return len(h.e) }
func (h *vheap) Less(i, j int) bool {
	a, b := h.e[i], h.e[j]
	if a.d != b.d {
		return a.d < b.d
	}
	return a.v < b.v
}
func (h *vheap) Swap(i, j int) { h.e[i], h.e[j] = h.e[j], h.e[i] }
func (h *vheap) Push(x any)    { h.e = append(h.e, x.(hentry)) }
func (h *vheap) Pop() any {
	x := h.e[len(h.e)-1]
	h.e = h.e[:len(h.e)-1]
	return x
}
