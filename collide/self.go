package collide

import (
	"errors"
	"math"
	"slices"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// SelfParams configures a SelfCollider.
type SelfParams struct {
	// Thickness is the repulsion distance between a vertex and a triangle of
	// the same garment, m; 0 means 2 mm.
	Thickness float64
	// Stiffness is k of Bridson's repulsion spring, N/m: the spring impulse
	// Δt·k·(Thickness−d) is limited to the one giving a relative normal
	// velocity 0.1·(Thickness−d)/Δt. 0 means 1000 N/m (the limit governs at
	// garment resolutions).
	Stiffness float64
	// Workers is the number of goroutines of the detection; 0 means
	// GOMAXPROCS. Results do not depend on it.
	Workers int
}

// SelfStats counts a SelfCollider's work since it was created.
type SelfStats struct {
	// Pairs is the number of vertex–triangle proximities found.
	Pairs int64
	// Impulses is the number of repulsion impulses applied.
	Impulses int64
}

// SelfCollider is a cloth.Hook that keeps the vertices of one garment away
// from its own non-adjacent triangles: vertex–triangle repulsions after
// Bridson, Fedkiw and Anderson, "Robust treatment of collisions, contact and
// friction for cloth animation", SIGGRAPH 2002, §7.2.
//
// In End, at the updated positions, every vertex that projects into a
// triangle containing neither it nor one of its neighbours (its 1-ring) and
// lies closer than Thickness to the triangle's plane gets a point–face
// impulse along the triangle normal, shared between the vertex and the
// triangle's corners by barycentric weights (Bridson's I/(1+Σw²) split,
// generalised to unequal masses). The velocity impulse is Bridson's: an
// inelastic part that stops the approach, plus the repulsion spring
// Δt·k·d limited to a separating relative normal velocity of 0.1·d/Δt,
// d = Thickness − distance. The positions, which in End already include
// the substep's approach, are moved apart (with the same mass weights) to
// Thickness: moving them by Δt·Δv instead would undo the whole substep's
// approach of the contacting vertices only and stretch the cloth around
// them. The side of the triangle a vertex belongs on is the one it was on at
// the start of the substep (saved in Begin), so a vertex that crossed a
// triangle within the substep, ending less than Thickness plus the
// substep's largest displacement (capped at one hash cell) behind it, is
// pushed back, not through. There is no continuous collision detection:
// faster crossings, edge–edge proximity and vertices already on the wrong
// side at the start of a substep (tangles) are not handled.
//
// Broad phase: a uniform spatial hash of the vertices (cell = 2× the mean
// edge length, at least 2·Thickness), rebuilt each substep and queried with
// each triangle's box grown by Thickness and the largest displacement.
// Detection runs in fixed chunks of triangles in parallel; impulses are
// applied serially in triangle order (Gauss–Seidel, separations recomputed
// from the current positions), so results do not depend on Workers.
//
// Vertices with hard attachments (pins) and isolated vertices have infinite
// mass.
type SelfCollider struct {
	p     SelfParams
	tris  [][3]int32
	nbr   []int32 // CSR 1-ring, sorted per vertex
	nbrAt []int32
	cell  float64

	x0    []geom.Vec3
	have0 bool
	invM  []float64

	// spatial hash of vertices
	hstart []int32
	hverts []int32
	hpos   []geom.Vec3 // positions in hverts order
	hkey   []int32     // bucket of each vertex

	parts [][]selfContact
	stats SelfStats
}

type selfContact struct {
	v    int32
	tri  int32
	bary [3]float64
	n    geom.Vec3
	ov   float64 // Thickness − signed distance, > 0
}

// NewSelfCollider returns a self-collision hook for a cloth made from m
// (same vertices and triangles); m is not retained.
func NewSelfCollider(m *mesh.Mesh, p SelfParams) (*SelfCollider, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if p.Thickness == 0 {
		p.Thickness = 0.002
	}
	if p.Stiffness == 0 {
		p.Stiffness = 1000
	}
	if !(p.Thickness > 0) || !(p.Stiffness > 0) {
		return nil, errors.New("collide: SelfParams Thickness and Stiffness must be positive")
	}
	n := len(m.Verts)
	s := &SelfCollider{p: p, tris: append([][3]int32(nil), m.Tris...)}
	// 1-ring adjacency (CSR, sorted, deduplicated).
	deg := make([]int32, n+1)
	for _, t := range m.Tris {
		for k := range 3 {
			deg[t[k]+1] += 2
		}
	}
	for i := range n {
		deg[i+1] += deg[i]
	}
	adj := make([]int32, deg[n])
	fill := slices.Clone(deg[:n])
	for _, t := range m.Tris {
		for k := range 3 {
			a := t[k]
			adj[fill[a]], adj[fill[a]+1] = t[(k+1)%3], t[(k+2)%3]
			fill[a] += 2
		}
	}
	s.nbrAt = make([]int32, n+1)
	for i := range n {
		l := adj[deg[i]:deg[i+1]]
		slices.Sort(l)
		l = slices.Compact(l)
		s.nbr = append(s.nbr, l...)
		s.nbrAt[i+1] = int32(len(s.nbr))
	}
	// Cell: the mean edge length (each edge counted from both ends).
	sum, cnt := 0.0, 0
	for i := range n {
		for _, j := range s.nbr[s.nbrAt[i]:s.nbrAt[i+1]] {
			sum += m.Verts[i].Dist(m.Verts[j])
			cnt++
		}
	}
	s.cell = 2 * p.Thickness
	if cnt > 0 {
		s.cell = max(s.cell, 2*sum/float64(cnt))
	}
	s.x0 = make([]geom.Vec3, n)
	s.invM = make([]float64, n)
	sz := 1
	for sz < 2*n {
		sz <<= 1
	}
	s.hstart = make([]int32, sz+1)
	s.hverts = make([]int32, n)
	s.hpos = make([]geom.Vec3, n)
	s.hkey = make([]int32, n)
	return s, nil
}

// Stats returns the counts since creation.
func (s *SelfCollider) Stats() SelfStats { return s.stats }

// Params returns the parameters with defaults filled in.
func (s *SelfCollider) Params() SelfParams { return s.p }

// Begin saves the start-of-substep positions.
func (s *SelfCollider) Begin(ctx *cloth.StepContext) error {
	if len(ctx.X) != len(s.x0) {
		return errors.New("collide: SelfCollider mesh and cloth differ in vertex count")
	}
	copy(s.x0, ctx.X)
	s.have0 = true
	for i := range s.invM {
		m := ctx.Mass(i)
		s.invM[i] = 0
		if m > 0 {
			s.invM[i] = 1 / m
		}
	}
	if c := ctx.Cloth(); c != nil {
		for _, a := range c.Attachments() {
			if a.Stiffness == 0 {
				s.invM[a.Vertex] = 0
			}
		}
		for _, i := range c.Info.Isolated {
			s.invM[i] = 0
		}
	}
	return nil
}

func (s *SelfCollider) cellOf(p geom.Vec3) (int64, int64, int64) {
	inv := 1 / s.cell
	return int64(math.Floor(p.X * inv)), int64(math.Floor(p.Y * inv)), int64(math.Floor(p.Z * inv))
}

func (s *SelfCollider) bucket(ix, iy, iz int64) int32 {
	h := uint64(ix)*73856093 ^ uint64(iy)*19349663 ^ uint64(iz)*83492791
	h ^= h >> 29
	return int32(h & uint64(len(s.hstart)-2))
}

// End detects proximities at the updated positions and applies repulsion
// impulses.
func (s *SelfCollider) End(ctx *cloth.StepContext) error {
	x, v := ctx.X, ctx.V
	n := len(x)
	if n != len(s.x0) {
		return errors.New("collide: SelfCollider mesh and cloth differ in vertex count")
	}
	if !s.have0 {
		copy(s.x0, x)
	}
	s.have0 = false
	h := ctx.Dt
	if !(h > 0) {
		return nil
	}
	th := s.p.Thickness
	// Largest displacement of the substep (bounded by a cell).
	maxD := 0.0
	for i := range x {
		maxD = max(maxD, x[i].Dist2(s.x0[i]))
	}
	maxD = min(math.Sqrt(maxD), s.cell)
	// Hash vertices (counting sort by bucket, in vertex order).
	clear(s.hstart)
	for i, p := range x {
		k := s.bucket(s.cellOf(p))
		s.hkey[i] = k
		s.hstart[k+1]++
	}
	for k := 1; k < len(s.hstart); k++ {
		s.hstart[k] += s.hstart[k-1]
	}
	for i := range x {
		k := s.hkey[i]
		s.hverts[s.hstart[k]] = int32(i)
		s.hpos[s.hstart[k]] = x[i]
		s.hstart[k]++
	}
	for k := len(s.hstart) - 1; k > 0; k-- {
		s.hstart[k] = s.hstart[k-1]
	}
	s.hstart[0] = 0

	nt := len(s.tris)
	nc := (nt + chunk - 1) / chunk
	if cap(s.parts) < nc {
		s.parts = make([][]selfContact, nc)
	}
	s.parts = s.parts[:nc]
	grow := th + maxD
	parallel(nt, s.p.Workers, func(lo, hi int) {
		part := s.parts[lo/chunk][:0]
		for t := lo; t < hi; t++ {
			part = s.detect(int32(t), x, grow, maxD, part)
		}
		s.parts[lo/chunk] = part
	})

	// Apply in triangle order.
	k := s.p.Stiffness
	th = s.p.Thickness
	for _, part := range s.parts {
		s.stats.Pairs += int64(len(part))
		for i := range part {
			c := &part[i]
			t := s.tris[c.tri]
			wp := s.invM[c.v]
			W := wp
			vt := geom.Vec3{}
			for j := range 3 {
				W += c.bary[j] * c.bary[j] * s.invM[t[j]]
				vt = vt.AddScaled(c.bary[j], v[t[j]])
			}
			if W == 0 {
				continue
			}
			// Current separation (earlier impulses may have moved the pair).
			xt := x[t[0]].Scale(c.bary[0]).AddScaled(c.bary[1], x[t[1]]).AddScaled(c.bary[2], x[t[2]])
			ov := th - x[c.v].Sub(xt).Dot(c.n)
			if ov <= 0 {
				continue
			}
			vn := v[c.v].Sub(vt).Dot(c.n)
			// Velocity (Bridson §7.2): an inelastic impulse stops the
			// approach, and the repulsion spring Δt·k·ov adds a separating
			// velocity of at most 0.1·ov/Δt.
			lim := 0.1 * ov / h
			vn1 := max(vn, 0)
			vn2 := vn1
			if vn1 < lim {
				vn2 += min(h*k*ov*W, lim-vn1)
			}
			Jv := (vn2 - vn) / W
			// Position: the end-of-substep positions already include the
			// approach, so the pair is moved apart to Thickness directly
			// (moving it by Δt·Δv would undo the whole substep's approach
			// and stretch the cloth around the contact).
			Jx := ov / W
			if wp != 0 {
				v[c.v] = v[c.v].AddScaled(Jv*wp, c.n)
				x[c.v] = x[c.v].AddScaled(Jx*wp, c.n)
			}
			for j := range 3 {
				if w := s.invM[t[j]]; w != 0 && c.bary[j] != 0 {
					v[t[j]] = v[t[j]].AddScaled(-Jv*c.bary[j]*w, c.n)
					x[t[j]] = x[t[j]].AddScaled(-Jx*c.bary[j]*w, c.n)
				}
			}
			s.stats.Impulses++
		}
	}
	return nil
}

func (s *SelfCollider) adjacent(p int32, t [3]int32) bool {
	if p == t[0] || p == t[1] || p == t[2] {
		return true
	}
	ring := s.nbr[s.nbrAt[p]:s.nbrAt[p+1]]
	for _, q := range ring {
		if q == t[0] || q == t[1] || q == t[2] {
			return true
		}
	}
	return false
}

// detect appends the proximities of triangle ti's non-adjacent vertices.
func (s *SelfCollider) detect(ti int32, x []geom.Vec3, grow, maxD float64, out []selfContact) []selfContact {
	t := s.tris[ti]
	a, b, c := x[t[0]], x[t[1]], x[t[2]]
	lo := a.Min(b).Min(c).Sub(geom.V(grow, grow, grow))
	hi := a.Max(b).Max(c).Add(geom.V(grow, grow, grow))
	nf := geom.TriangleNormal(a, b, c)
	nl := nf.Len()
	if !(nl > 0) {
		return out
	}
	nf = nf.Scale(1 / nl)
	a0, b0, c0 := s.x0[t[0]], s.x0[t[1]], s.x0[t[2]]
	n0 := geom.TriangleNormal(a0, b0, c0)
	th := s.p.Thickness
	x0, y0, z0 := s.cellOf(lo)
	x1, y1, z1 := s.cellOf(hi)
	// Buckets already visited: two cells of the box may share one.
	var seen [32]int32
	nseen := 0
	for ix := x0; ix <= x1; ix++ {
		for iy := y0; iy <= y1; iy++ {
			for iz := z0; iz <= z1; iz++ {
				bk := s.bucket(ix, iy, iz)
				dup := false
				for _, o := range seen[:nseen] {
					if o == bk {
						dup = true
						break
					}
				}
				if dup {
					continue
				}
				if nseen < len(seen) {
					seen[nseen] = bk
					nseen++
				}
				lo0, hi0 := s.hstart[bk], s.hstart[bk+1]
				for e := lo0; e < hi0; e++ {
					q := s.hpos[e]
					if q.X < lo.X || q.Y < lo.Y || q.Z < lo.Z || q.X > hi.X || q.Y > hi.Y || q.Z > hi.Z {
						continue
					}
					p := s.hverts[e]
					if nseen == len(seen) {
						// Too many cells to track buckets: check the cell.
						if cx, cy, cz := s.cellOf(q); cx != ix || cy != iy || cz != iz {
							continue
						}
					}
					if s.adjacent(p, t) {
						continue
					}
					// Side: the one the vertex was on at the start of the
					// substep (the end one if it was in the plane).
					dp := q.Sub(a).Dot(nf)
					side := 1.0
					if d0 := s.x0[p].Sub(a0).Dot(n0); d0 < 0 || d0 == 0 && dp < 0 {
						side = -1
					}
					d := dp * side
					if d >= th || d < -(th+maxD) {
						continue // far, or far behind (not crossed in this substep)
					}
					// Point–face proximity only where the vertex projects
					// into the triangle: beyond an edge the neighbouring
					// triangle (or nothing, at a boundary) handles it.
					bc, ca := b.Sub(q).Cross(c.Sub(q)), c.Sub(q).Cross(a.Sub(q))
					u, w := bc.Dot(nf)/nl, ca.Dot(nf)/nl
					bary := [3]float64{u, w, 1 - u - w}
					if bary[0] < -selfEdgeTol || bary[1] < -selfEdgeTol || bary[2] < -selfEdgeTol {
						continue
					}
					sum := 0.0
					for j := range bary {
						bary[j] = max(bary[j], 0)
						sum += bary[j]
					}
					for j := range bary {
						bary[j] /= sum
					}
					nrm := nf.Scale(side)
					out = append(out, selfContact{v: p, tri: ti, bary: bary, n: nrm, ov: th - d})
				}
			}
		}
	}
	return out
}

// selfEdgeTol is the barycentric tolerance of point–face proximity.
const selfEdgeTol = 1e-3
