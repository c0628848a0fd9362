package wrinkle

import (
	"container/heap"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// RootRegion is the region id of garment vertices that no sampled joint
// governs (the pelvis when the spine and hips are sampled).
const RootRegion = uint8(NumRoles)

// Regions segments a garment by the sampled joints (wang2010 Fig. 4) and
// holds the influence map of every vertex (Eq. 4, generalised).
//
// Region[v] is the role whose segment holds vertex v, or RootRegion. A
// role's segment is the body part it moves: the skeleton joints from its
// chain down to the next sampled role (the left shoulder's segment is the
// upper arm, the elbow's the forearm and hand, the spine's the chest,
// neck and head). A vertex belongs to the segment whose joints carry the
// largest sum of its skin weights (ties: the lower id).
//
// A vertex's influences are the roles bordering its segment: the role
// that governs it and the roles whose proximal segment it is. Each is
// weighted by the inverse of the distance d from the vertex to the
// segment across that joint, w_r = (1/d_r) / Σ 1/d (Eq. 4 written with
// inverse distances; wang2010 uses Euclidean distance, we use the
// shortest path along mesh edges at rest so that the weights follow the
// cloth). A neighbouring segment the garment does not reach (another
// piece, or not covered) drops out; for the governing role the distance
// to its joint centre at rest stands in. A vertex with no bordering role
// in reach has no influences and follows the skinned base shape.
//
// Where three regions meet, Eq. 4 jumps (a vertex next to two seams and its
// neighbour across one of them see different joints), so the maps are then
// smoothed: RegionOptions.SmoothIterations rounds of w ← (w + mean of the
// neighbours' w)/2 over the vertices that have influences, which keeps
// every sum at 1; weights under 1e-3 are dropped and the rest renormalised.
//
// Influences are CSR: vertex v's are Roles[Offsets[v]:Offsets[v+1]] with
// weights W over the same range, sorted by role, summing to 1.
type Regions struct {
	Region  []uint8
	Offsets []int32
	Roles   []Role
	W       []float32
}

// NumVerts returns the number of vertices.
func (g *Regions) NumVerts() int { return len(g.Region) }

// Influences returns vertex v's influencing roles and weights (shared
// slices: do not modify).
func (g *Regions) Influences(v int) ([]Role, []float32) {
	a, b := g.Offsets[v], g.Offsets[v+1]
	return g.Roles[a:b], g.W[a:b]
}

// segments returns each skeleton joint's segment id (role or RootRegion)
// for the roles in spec, and each role's proximal segment.
func segments(rig *Rig, spec *Spec) (seg []uint8, prox [NumRoles]uint8) {
	sk := rig.Skeleton
	seg = make([]uint8, sk.NumJoints())
	owner := make([]int, sk.NumJoints())
	for j := range owner {
		owner[j] = -1
	}
	for _, js := range spec.joints {
		for _, j := range rig.Roles[js.Role].Chain {
			owner[j] = int(js.Role)
		}
	}
	for j := range seg {
		switch {
		case owner[j] >= 0:
			seg[j] = uint8(owner[j])
		case sk.Parent(j) >= 0:
			seg[j] = seg[sk.Parent(j)]
		default:
			seg[j] = RootRegion
		}
	}
	for r := range prox {
		prox[r] = RootRegion
		if p := sk.Parent(rig.Roles[r].Chain[0]); p >= 0 {
			prox[r] = seg[p]
		}
	}
	return seg, prox
}

// RegionOptions configures NewRegions. The zero value gives the defaults.
type RegionOptions struct {
	// SmoothIterations is the number of smoothing rounds of the influence
	// maps; 0 means 8.
	SmoothIterations int
	// NoSmoothing keeps Eq. 4's weights as they are.
	NoSmoothing bool
}

// NewRegions segments garment m (rest positions) with skin weights w
// (indexing rig's skeleton) by the roles of spec, and computes the
// influence maps (see Regions). It returns an error naming the bad vertex
// or triangle if m, w and the rig do not fit together.
func NewRegions(rig *Rig, spec *Spec, m *mesh.Mesh, w skel.Weights, opt RegionOptions) (*Regions, error) {
	n := len(m.Verts)
	if err := checkGarment(rig, m, w); err != nil {
		return nil, err
	}
	seg, prox := segments(rig, spec)
	g := &Regions{Region: make([]uint8, n), Offsets: make([]int32, n+1)}
	var sum [NumRoles + 1]float64
	for v := 0; v < n; v++ {
		sum = [NumRoles + 1]float64{}
		js, ws := w.Influences(v)
		for i, j := range js {
			sum[seg[j]] += float64(ws[i])
		}
		best := 0
		for s := range sum {
			if sum[s] > sum[best] {
				best = s
			}
		}
		g.Region[v] = uint8(best)
	}
	adj := edgeGraph(m)
	var dist [NumRoles + 1][]float64
	need := func(s uint8) []float64 {
		if dist[s] == nil {
			dist[s] = graphDistance(adj, m.Verts, g.Region, s)
		}
		return dist[s]
	}
	var inSpec [NumRoles]bool
	for _, js := range spec.joints {
		inSpec[js.Role] = true
	}
	dense := make([]float64, n*int(NumRoles))
	for v := 0; v < n; v++ {
		s := g.Region[v]
		inv := dense[v*int(NumRoles) : (v+1)*int(NumRoles)]
		total := 0.0
		for r := Role(0); r < NumRoles; r++ {
			if !inSpec[r] {
				continue
			}
			var d float64
			switch {
			case uint8(r) == s:
				d = need(prox[r])[v]
				if math.IsInf(d, 1) {
					d = m.Verts[v].Dist(rig.Roles[r].Center)
				}
			case prox[r] == s:
				d = need(uint8(r))[v]
			default:
				continue
			}
			if math.IsInf(d, 1) {
				continue
			}
			inv[r] = 1 / math.Max(d, 1e-9)
			total += inv[r]
		}
		for r := range inv {
			if total > 0 {
				inv[r] /= total
			}
		}
	}
	if !opt.NoSmoothing {
		iters := opt.SmoothIterations
		if iters == 0 {
			iters = 8
		}
		smoothInfluence(dense, adj, iters)
	}
	for v := 0; v < n; v++ {
		row := dense[v*int(NumRoles) : (v+1)*int(NumRoles)]
		total := 0.0
		for _, x := range row {
			if x >= 1e-3 {
				total += x
			}
		}
		for r, x := range row {
			if x >= 1e-3 {
				g.Roles = append(g.Roles, Role(r))
				g.W = append(g.W, float32(x/total))
			}
		}
		g.Offsets[v+1] = int32(len(g.Roles))
	}
	return g, nil
}

// smoothInfluence runs iters rounds of w ← (w + mean of neighbours)/2 on
// the dense per-vertex rows of vertices with influences (rows summing to
// 1), in place, Jacobi-style (deterministic).
func smoothInfluence(dense []float64, adj csr, iters int) {
	const k = int(NumRoles)
	n := len(dense) / k
	has := make([]bool, n)
	for v := range has {
		for _, x := range dense[v*k : (v+1)*k] {
			has[v] = has[v] || x > 0
		}
	}
	cur, next := dense, make([]float64, len(dense))
	for it := 0; it < iters; it++ {
		for v := 0; v < n; v++ {
			row, out := cur[v*k:(v+1)*k], next[v*k:(v+1)*k]
			copy(out, row)
			if !has[v] {
				continue
			}
			var mean [NumRoles]float64
			cnt := 0
			for _, u := range adj.adj[adj.start[v]:adj.start[v+1]] {
				if !has[u] {
					continue
				}
				cnt++
				for r, x := range cur[int(u)*k : int(u+1)*k] {
					mean[r] += x
				}
			}
			if cnt == 0 {
				continue
			}
			for r := range out {
				out[r] = 0.5*row[r] + 0.5*mean[r]/float64(cnt)
			}
		}
		cur, next = next, cur
	}
	copy(dense, cur)
}

func checkGarment(rig *Rig, m *mesh.Mesh, w skel.Weights) error {
	n := len(m.Verts)
	if n == 0 {
		return fmt.Errorf("wrinkle: garment has no vertices")
	}
	if w.NumVerts() != n {
		return fmt.Errorf("wrinkle: garment has %d vertices but weights for %d", n, w.NumVerts())
	}
	for v, p := range m.Verts {
		if !p.IsFinite() {
			return fmt.Errorf("wrinkle: garment vertex %d is not finite", v)
		}
	}
	for t, tri := range m.Tris {
		for _, c := range tri {
			if c < 0 || int(c) >= n {
				return fmt.Errorf("wrinkle: garment triangle %d has vertex %d out of range", t, c)
			}
		}
	}
	if err := w.Validate(rig.Skeleton.NumJoints()); err != nil {
		return fmt.Errorf("wrinkle: garment weights: %w", err)
	}
	return nil
}

// edgeGraph returns the vertex adjacency of m's triangles in CSR form,
// neighbours sorted and unique.
func edgeGraph(m *mesh.Mesh) (g csr) {
	n := len(m.Verts)
	deg := make([]int32, n+1)
	for _, t := range m.Tris {
		for k := 0; k < 3; k++ {
			deg[t[k]+1] += 2
		}
	}
	for i := 0; i < n; i++ {
		deg[i+1] += deg[i]
	}
	nb := make([]int32, deg[n])
	fill := append([]int32(nil), deg[:n]...)
	for _, t := range m.Tris {
		for k := 0; k < 3; k++ {
			a, b, c := t[k], t[(k+1)%3], t[(k+2)%3]
			nb[fill[a]], nb[fill[a]+1] = b, c
			fill[a] += 2
		}
	}
	g.start = make([]int32, n+1)
	for v := 0; v < n; v++ {
		l := nb[deg[v]:deg[v+1]]
		sortInt32(l)
		for i, x := range l {
			if (i == 0 || x != l[i-1]) && int(x) != v {
				g.adj = append(g.adj, x)
			}
		}
		g.start[v+1] = int32(len(g.adj))
	}
	return g
}

type csr struct{ start, adj []int32 }

func sortInt32(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// graphDistance returns, per vertex, the length of the shortest edge path
// at rest to a vertex of region s (0 inside it; +Inf where unreachable).
// Dijkstra with ties broken by vertex id, so the result is deterministic.
func graphDistance(g csr, pos []geom.Vec3, region []uint8, s uint8) []float64 {
	d := make([]float64, len(pos))
	h := &distHeap{}
	for v := range d {
		d[v] = math.Inf(1)
		if region[v] == s {
			d[v] = 0
			h.items = append(h.items, distItem{0, int32(v)})
		}
	}
	heap.Init(h)
	for h.Len() > 0 {
		it := heap.Pop(h).(distItem)
		if it.d > d[it.v] {
			continue
		}
		for _, u := range g.adj[g.start[it.v]:g.start[it.v+1]] {
			nd := it.d + pos[it.v].Dist(pos[u])
			if nd < d[u] {
				d[u] = nd
				heap.Push(h, distItem{nd, u})
			}
		}
	}
	return d
}

type distItem struct {
	d float64
	v int32
}

type distHeap struct{ items []distItem }

func (h *distHeap) Len() int { return len(h.items) }
func (h *distHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return a.d < b.d || (a.d == b.d && a.v < b.v)
}
func (h *distHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *distHeap) Push(x any)    { h.items = append(h.items, x.(distItem)) }
func (h *distHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}

// validate checks a Regions read from a file against n vertices.
func (g *Regions) validate(n int) error {
	if len(g.Region) != n || len(g.Offsets) != n+1 || g.Offsets[0] != 0 ||
		int(g.Offsets[n]) != len(g.Roles) || len(g.Roles) != len(g.W) {
		return fmt.Errorf("inconsistent lengths")
	}
	for v := 0; v < n; v++ {
		if g.Region[v] > RootRegion {
			return fmt.Errorf("vertex %d: region %d out of range", v, g.Region[v])
		}
		a, b := g.Offsets[v], g.Offsets[v+1]
		if b < a || b-a > int32(NumRoles) {
			return fmt.Errorf("vertex %d: bad influence count", v)
		}
		sum := 0.0
		for i := a; i < b; i++ {
			if g.Roles[i] >= NumRoles || (i > a && g.Roles[i] <= g.Roles[i-1]) {
				return fmt.Errorf("vertex %d: influence roles unsorted or out of range", v)
			}
			x := float64(g.W[i])
			if !(x >= 0 && x <= 1) {
				return fmt.Errorf("vertex %d: influence weight %v out of [0, 1]", v, x)
			}
			sum += x
		}
		if b > a && math.Abs(sum-1) > 1e-5 {
			return fmt.Errorf("vertex %d: influence weights sum to %v, not 1", v, sum)
		}
	}
	return nil
}

// Pruned returns the influence maps with every weight lowered by t and
// the positive remainders renormalised (Eq. 4's weights, soft-thresholded):
//
//	w'_r = max(w_r − t, 0) / Σ_s max(w_s − t, 0),
//
// so that a vertex drops the roles that barely move it and the roles it
// keeps change weight continuously across the mesh (a hard cut at t would
// leave a seam of height t·|δ_r − δ_s| where a weight crosses it). A
// vertex whose weights are all at most t keeps its largest alone (the
// first on a tie). With t = 0 only zero weights go (and the sums are
// renormalised in float64); the receiver is not changed. A threshold that
// is negative or not finite is an error.
func (g *Regions) Pruned(t float32) (*Regions, error) {
	if !(t >= 0 && t < float32(math.Inf(1))) {
		return nil, fmt.Errorf("wrinkle: influence threshold %v: want finite and non-negative", t)
	}
	n := len(g.Region)
	p := &Regions{Region: g.Region, Offsets: make([]int32, n+1),
		Roles: make([]Role, 0, len(g.Roles)), W: make([]float32, 0, len(g.W))}
	for v := 0; v < n; v++ {
		rs, ws := g.Influences(v)
		total, best := 0.0, -1
		for i, w := range ws {
			if w > t {
				total += float64(w - t)
			}
			if best < 0 || w > ws[best] {
				best = i
			}
		}
		switch {
		case total > 0:
			for i, w := range ws {
				if w > t {
					p.Roles = append(p.Roles, rs[i])
					p.W = append(p.W, float32(float64(w-t)/total))
				}
			}
		case best >= 0:
			p.Roles, p.W = append(p.Roles, rs[best]), append(p.W, 1)
		}
		p.Offsets[v+1] = int32(len(p.Roles))
	}
	return p, nil
}
