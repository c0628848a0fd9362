package mesh

import (
	"fmt"
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// SimplifyOptions configures Simplify. The zero value decimates as far as
// the topology and triangle-quality checks allow.
type SimplifyOptions struct {
	// MaxError is the largest allowed surface deviation, m: a collapse is
	// taken only if the moved vertex stays within MaxError of the planes of
	// all original triangles merged into it (sqrt of the unweighted quadric
	// error). 0: no limit.
	MaxError float64
	// MinTris stops the decimation at this many triangles (0: none). A
	// collapse removes two triangles, so the result has MinTris or
	// MinTris+1 triangles unless the error limit stops it earlier.
	MinTris int
	// MaxAngle is the largest allowed rotation of any triangle's normal by a
	// collapse, radians (0: default 60°). Values of 90° and more act as 90°:
	// a collapse that flips a triangle is always rejected.
	MaxAngle float64
}

const (
	simplifyDefaultMaxAngle = 60 * math.Pi / 180
	// simplifyMinAngle is the smallest angle (radians) a triangle changed by
	// a collapse may have, unless it already had a smaller one before.
	simplifyMinAngle = 5 * math.Pi / 180
	// simplifyDegenerateSin2 is sin² of the smallest angle below which a
	// changed triangle counts as degenerate and is always rejected.
	simplifyDegenerateSin2 = 1e-12
)

// Simplify returns a decimated copy of m (positions and triangles only; UVs,
// normals, groups are dropped) and kept, where kept[i] is the index in
// m.Verts of output vertex i (increasing order). Input m is not modified.
//
// It is quadric-error-metric edge-collapse decimation (Garland & Heckbert,
// "Surface simplification using quadric error metrics", SIGGRAPH 1997) with
// subset placement: every output vertex is an input vertex, at exactly its
// input position, because collapsing edge (a, b) moves a onto b or b onto a
// rather than to an optimal new point. Per-vertex data such as skinning
// weights therefore carries over to the output unchanged (index it with
// kept), at the price of a slightly larger error than optimal placement.
//
// Each vertex carries the sum of the unweighted plane quadrics of its
// incident triangles (unit normals, so a quadric's value at a point is the
// sum of squared distances to its planes, m²); collapsing a → b costs
// (Q_a + Q_b)(b) and merges Q_a into Q_b. Collapses are taken cheapest first
// from a binary heap with lazily invalidated entries (per-vertex version
// stamps); of the two directions of an edge the cheaper valid one is taken,
// ties going to the smaller (from, to) vertex ids. Decimation stops when the
// cheapest valid collapse costs more than MaxError², or at MinTris.
//
// Collapses are rejected when they would:
//   - move a boundary vertex (open-mesh boundaries are kept exactly);
//   - break the link condition (the endpoints share neighbours other than
//     the opposite vertices of the edge's two triangles) or create a
//     duplicate triangle, so a closed manifold stays a closed manifold of the
//     same Euler characteristic and no non-manifold edge appears;
//   - rotate a surviving triangle's normal by more than MaxAngle, or flip it;
//   - create a degenerate triangle, or one whose smallest angle is below 5°
//     and below the smallest angle it had before.
//
// Positions are in metres. The input must pass m.Validate and be manifold
// (every edge in one or two triangles, every vertex a single fan) and
// consistently oriented; otherwise an error naming the bad element is
// returned (*ElementError for a bad edge or vertex). Output triangles keep
// their input orientation and come in input triangle order; vertices used
// by no output triangle (including isolated input vertices) are dropped.
// The result is deterministic: the same input gives the same output bit
// for bit.
func Simplify(m *Mesh, opt SimplifyOptions) (out *Mesh, kept []int32, err error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	if !(opt.MaxError >= 0) || math.IsInf(opt.MaxError, 0) {
		return nil, nil, fmt.Errorf("mesh: Simplify: MaxError %g must be finite and >= 0", opt.MaxError)
	}
	if opt.MinTris < 0 {
		return nil, nil, fmt.Errorf("mesh: Simplify: MinTris %d must be >= 0", opt.MinTris)
	}
	if !(opt.MaxAngle >= 0) || math.IsInf(opt.MaxAngle, 0) {
		return nil, nil, fmt.Errorf("mesh: Simplify: MaxAngle %g must be finite and >= 0", opt.MaxAngle)
	}
	tp, err := NewTopology(m)
	if err != nil {
		return nil, nil, err
	}
	if err := simplifyCheckTopology(m, tp); err != nil {
		return nil, nil, err
	}
	s := newSimplifier(m, tp, opt)
	s.run()
	out, kept = s.result(m)
	return out, kept, nil
}

// simplifyCheckTopology rejects non-manifold or inconsistently oriented
// input, naming the first bad edge or vertex.
func simplifyCheckTopology(m *Mesh, tp *Topology) error {
	if len(tp.NonManifoldEdges) > 0 {
		e := tp.NonManifoldEdges[0]
		return &ElementError{"edge", int(e), fmt.Sprintf("non-manifold: edge %d-%d is shared by %d triangles %v",
			tp.Edges[e][0], tp.Edges[e][1], len(tp.EdgeTriangles(e)), tp.EdgeTriangles(e))}
	}
	if len(tp.NonManifoldVerts) > 0 {
		v := tp.NonManifoldVerts[0]
		return &ElementError{"vertex", int(v), "non-manifold: its triangles form several fans"}
	}
	if len(tp.InconsistentEdges) > 0 {
		e := tp.InconsistentEdges[0]
		return &ElementError{"edge", int(e), fmt.Sprintf("inconsistent orientation: triangles %v traverse edge %d-%d in the same direction",
			tp.EdgeTriangles(e), tp.Edges[e][0], tp.Edges[e][1])}
	}
	return nil
}

// quadric is a symmetric 4×4 matrix stored as its upper triangle:
// aa ab ac ad bb bc bd cc cd dd for the plane (a, b, c, d).
type quadric [10]float64

func (q *quadric) addPlane(n geom.Vec3, d float64) {
	a, b, c := n.X, n.Y, n.Z
	q[0] += a * a
	q[1] += a * b
	q[2] += a * c
	q[3] += a * d
	q[4] += b * b
	q[5] += b * c
	q[6] += b * d
	q[7] += c * c
	q[8] += c * d
	q[9] += d * d
}

func (q *quadric) add(o *quadric) {
	for i := range q {
		q[i] += o[i]
	}
}

// eval returns pᵀQp with p = (x, y, z, 1): the sum of squared distances of
// p to the planes of q.
func (q *quadric) eval(p geom.Vec3) float64 {
	x, y, z := p.X, p.Y, p.Z
	return x*(q[0]*x+2*(q[1]*y+q[2]*z+q[3])) +
		y*(q[4]*y+2*(q[5]*z+q[6])) +
		z*(q[7]*z+2*q[8]) + q[9]
}

// collapseCand is a heap entry: moving vertex from onto vertex to at cost
// (m²), valid while both vertices still have versions vf and vt.
type collapseCand struct {
	cost     float64
	from, to int32
	vf, vt   uint32
}

func candLess(x, y *collapseCand) bool {
	if x.cost != y.cost {
		return x.cost < y.cost
	}
	if x.from != y.from {
		return x.from < y.from
	}
	if x.to != y.to {
		return x.to < y.to
	}
	if x.vf != y.vf {
		return x.vf < y.vf
	}
	return x.vt < y.vt
}

// candHeap is a binary min-heap of collapse candidates under candLess.
type candHeap []collapseCand

func (h *candHeap) push(c collapseCand) {
	*h = append(*h, c)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !candLess(&a[i], &a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *candHeap) pop() collapseCand {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && candLess(&a[r], &a[l]) {
			c = r
		}
		if !candLess(&a[c], &a[i]) {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	*h = a
	return top
}

type simplifier struct {
	pos    []geom.Vec3 // positions relative to the bounding-box centre
	tris   [][3]int32  // current triangles (corners relabelled by collapses)
	dead   []bool      // per triangle: removed by a collapse
	vt     [][]int32   // per vertex: its live triangles
	q      []quadric
	ver    []uint32 // per vertex version stamp
	locked []bool   // boundary vertices never move
	// blocked marks the endpoints of candidates dropped as invalid: their
	// edges are re-queued when their neighbourhood changes.
	blocked []bool
	mark    []uint32 // scratch marks for the link condition
	aff     []uint32 // scratch marks for the affected set of a collapse
	stamp   uint32
	heap    candHeap
	nbrs    []int32 // scratch neighbour list
	affl    []int32 // scratch affected list

	maxErr2  float64 // +Inf for no limit
	minTris  int
	cosMax   float64
	sinMin2  float64
	liveTris int
}

func newSimplifier(m *Mesh, tp *Topology, opt SimplifyOptions) *simplifier {
	nv, nt := len(m.Verts), len(m.Tris)
	s := &simplifier{
		pos:      make([]geom.Vec3, nv),
		tris:     slices.Clone(m.Tris),
		dead:     make([]bool, nt),
		vt:       make([][]int32, nv),
		q:        make([]quadric, nv),
		ver:      make([]uint32, nv),
		locked:   make([]bool, nv),
		blocked:  make([]bool, nv),
		mark:     make([]uint32, nv),
		aff:      make([]uint32, nv),
		maxErr2:  math.Inf(1),
		minTris:  opt.MinTris,
		liveTris: nt,
	}
	if opt.MaxError > 0 {
		s.maxErr2 = opt.MaxError * opt.MaxError
	}
	ang := opt.MaxAngle
	if ang == 0 {
		ang = simplifyDefaultMaxAngle
	}
	s.cosMax = math.Cos(min(ang, math.Pi/2))
	sm := math.Sin(simplifyMinAngle)
	s.sinMin2 = sm * sm

	// Centre the coordinates so the expanded quadric sums lose little to
	// cancellation far from the origin.
	c := m.Bounds().Center()
	for i, p := range m.Verts {
		s.pos[i] = p.Sub(c)
	}
	// Per-vertex triangle lists: the topology's CSR lists, each with its
	// own capacity so appends reallocate rather than overwrite a neighbour.
	for v := range nv {
		lo, hi := tp.VertTriStart[v], tp.VertTriStart[v+1]
		s.vt[v] = tp.VertTris[lo:hi:hi]
		s.locked[v] = tp.Flags[v]&VertBoundary != 0
	}
	for _, t := range m.Tris {
		p0, p1, p2 := s.pos[t[0]], s.pos[t[1]], s.pos[t[2]]
		n := p1.Sub(p0).Cross(p2.Sub(p0))
		l := n.Len()
		if l == 0 {
			continue // no plane
		}
		n = n.Scale(1 / l)
		d := -n.Dot(p0)
		var q quadric
		q.addPlane(n, d)
		for _, v := range t {
			s.q[v].add(&q)
		}
	}
	s.heap = make(candHeap, 0, 2*len(tp.Edges))
	for _, e := range tp.Edges {
		s.pushEdge(e[0], e[1])
	}
	return s
}

// pushEdge pushes both directions of edge (a, b) that may move a vertex and
// fit the error limit.
func (s *simplifier) pushEdge(a, b int32) {
	if !s.locked[a] {
		if c := s.cost(a, b); c <= s.maxErr2 {
			s.heap.push(collapseCand{c, a, b, s.ver[a], s.ver[b]})
		}
	}
	if !s.locked[b] {
		if c := s.cost(b, a); c <= s.maxErr2 {
			s.heap.push(collapseCand{c, b, a, s.ver[b], s.ver[a]})
		}
	}
}

// cost is the quadric error of moving a onto b: (Q_a + Q_b)(p_b).
func (s *simplifier) cost(a, b int32) float64 {
	p := s.pos[b]
	return max(s.q[a].eval(p)+s.q[b].eval(p), 0)
}

func (s *simplifier) nextStamp() uint32 {
	s.stamp++
	if s.stamp == 0 {
		clear(s.mark)
		clear(s.aff)
		s.stamp = 1
	}
	return s.stamp
}

func (s *simplifier) run() {
	for len(s.heap) > 0 {
		if s.liveTris-2 < s.minTris {
			return
		}
		c := s.heap.pop()
		if c.cost > s.maxErr2 {
			return
		}
		if s.ver[c.from] != c.vf || s.ver[c.to] != c.vt {
			continue // stale
		}
		if !s.valid(c.from, c.to) {
			// Dropped until the neighbourhood of an endpoint changes.
			s.blocked[c.from], s.blocked[c.to] = true, true
			continue
		}
		s.collapse(c.from, c.to)
	}
}

func triHas(t [3]int32, v int32) bool { return t[0] == v || t[1] == v || t[2] == v }

// valid reports whether moving vertex a onto its neighbour b keeps the
// mesh manifold and its triangles well shaped.
func (s *simplifier) valid(a, b int32) bool {
	if s.locked[a] {
		return false
	}
	var opp [2]int32
	n := 0
	for _, t := range s.vt[a] {
		tr := s.tris[t]
		if !triHas(tr, b) {
			continue
		}
		if n == 2 {
			return false
		}
		opp[n] = tr[0] + tr[1] + tr[2] - a - b
		n++
	}
	if n != 2 {
		return false // a is interior, so its edges have two triangles
	}
	// Link condition: N(a) ∩ N(b) = {opp[0], opp[1]}.
	st := s.nextStamp()
	for _, t := range s.vt[a] {
		tr := s.tris[t]
		s.mark[tr[0]], s.mark[tr[1]], s.mark[tr[2]] = st, st, st
	}
	for _, t := range s.vt[b] {
		for _, v := range s.tris[t] {
			if s.mark[v] == st && v != a && v != b && v != opp[0] && v != opp[1] {
				return false
			}
		}
	}
	pa, pb := s.pos[a], s.pos[b]
	for _, t := range s.vt[a] {
		tr := s.tris[t]
		if triHas(tr, b) {
			continue
		}
		k := 0
		for tr[k] != a {
			k++
		}
		x, y := tr[(k+1)%3], tr[(k+2)%3]
		px, py := s.pos[x], s.pos[y]
		if !s.goodChange(pa, pb, px, py) {
			return false
		}
		// The relabelled triangle (b, x, y) must not exist already; by the
		// link condition only {x, y} = {opp[0], opp[1]} can clash (the
		// tetrahedron case).
		if (x == opp[0] && y == opp[1]) || (x == opp[1] && y == opp[0]) {
			for _, u := range s.vt[b] {
				if tu := s.tris[u]; triHas(tu, x) && triHas(tu, y) {
					return false
				}
			}
		}
	}
	return true
}

// goodChange reports whether triangle (a, x, y) may become (b, x, y): not
// degenerate, not a new sliver, normal not rotated by more than the limit.
func (s *simplifier) goodChange(pa, pb, px, py geom.Vec3) bool {
	n1 := px.Sub(pb).Cross(py.Sub(pb))
	n1s := n1.Len2()
	if n1s == 0 {
		return false
	}
	sin1 := n1s / triLongPairLen2(pb, px, py) // sin² of the smallest angle
	if sin1 <= simplifyDegenerateSin2 {
		return false
	}
	n0 := px.Sub(pa).Cross(py.Sub(pa))
	n0s := n0.Len2()
	if sin1 < s.sinMin2 && n0s != 0 && sin1 < n0s/triLongPairLen2(pa, px, py) {
		return false // a new sliver, worse than the old triangle
	}
	if n0s == 0 {
		return true // no old normal to compare with
	}
	return n0.Dot(n1) > s.cosMax*math.Sqrt(n0s*n1s)
}

// triLongPairLen2 returns the product of the squared lengths of the two
// longest sides of triangle (a, b, c); |cross|² divided by it is sin² of
// the smallest angle (the one between those sides).
func triLongPairLen2(a, b, c geom.Vec3) float64 {
	l0, l1, l2 := a.Dist2(b), b.Dist2(c), c.Dist2(a)
	lo := min(l0, l1, l2)
	hi := max(l0, l1, l2)
	mid := l0 + l1 + l2 - lo - hi
	return hi * max(mid, lo)
}

// collapse moves vertex a onto b and re-queues the edges around b.
func (s *simplifier) collapse(a, b int32) {
	s.q[b].add(&s.q[a])
	for _, t := range s.vt[a] {
		tr := &s.tris[t]
		if triHas(*tr, b) {
			s.dead[t] = true
			s.liveTris--
			c := tr[0] + tr[1] + tr[2] - a - b
			s.vt[b] = removeTri(s.vt[b], t)
			s.vt[c] = removeTri(s.vt[c], t)
			continue
		}
		for k := range tr {
			if tr[k] == a {
				tr[k] = b
			}
		}
		s.vt[b] = append(s.vt[b], t)
	}
	s.vt[a] = nil
	s.ver[a]++

	// The quadric of b changed: re-queue every edge at b with its new
	// cost. The triangles or neighbourhoods of b's new ring changed too,
	// which can only matter for the validity (not the cost) of their
	// edges: queued candidates are re-checked when popped anyway, and the
	// edges of ring vertices with dropped (invalid) candidates are
	// re-queued. Bumping a version makes all queued entries at it stale.
	st := s.nextStamp()
	s.affl = append(s.affl[:0], b)
	s.nbrs = s.neighbours(b, s.nbrs[:0])
	for _, v := range s.nbrs {
		if s.blocked[v] {
			s.affl = append(s.affl, v)
		}
	}
	for _, v := range s.affl {
		s.aff[v] = st
		s.ver[v]++
		s.blocked[v] = false
	}
	for _, v := range s.affl {
		s.nbrs = s.neighbours(v, s.nbrs[:0])
		for _, u := range s.nbrs {
			if s.aff[u] == st && u < v {
				continue // pushed from u
			}
			s.pushEdge(v, u)
		}
	}
}

func removeTri(l []int32, t int32) []int32 {
	for i, u := range l {
		if u == t {
			return append(l[:i], l[i+1:]...)
		}
	}
	return l
}

// neighbours appends the distinct neighbours of v (in triangle order) to dst.
func (s *simplifier) neighbours(v int32, dst []int32) []int32 {
	for _, t := range s.vt[v] {
		for _, u := range s.tris[t] {
			if u != v && !slices.Contains(dst, u) {
				dst = append(dst, u)
			}
		}
	}
	return dst
}

// result compacts the live triangles and the vertices they use.
func (s *simplifier) result(m *Mesh) (*Mesh, []int32) {
	nv := len(m.Verts)
	remap := make([]int32, nv)
	for i := range remap {
		remap[i] = -1
	}
	for t, tr := range s.tris {
		if !s.dead[t] {
			remap[tr[0]], remap[tr[1]], remap[tr[2]] = 0, 0, 0
		}
	}
	var kept []int32
	out := &Mesh{}
	for v := range nv {
		if remap[v] == 0 {
			remap[v] = int32(len(kept))
			kept = append(kept, int32(v))
			out.Verts = append(out.Verts, m.Verts[v])
		}
	}
	out.Tris = make([][3]int32, 0, s.liveTris)
	for t, tr := range s.tris {
		if !s.dead[t] {
			out.Tris = append(out.Tris, [3]int32{remap[tr[0]], remap[tr[1]], remap[tr[2]]})
		}
	}
	return out, kept
}
