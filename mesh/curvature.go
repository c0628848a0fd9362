package mesh

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
)

// CurvatureMethod selects a discrete mean-curvature estimator.
type CurvatureMethod uint8

const (
	// CurvatureCotan is the cotangent formula of Meyer, Desbrun, Schröder
	// and Barr 2003 (eq. 8): the mean-curvature normal
	// 2H_i n_i = (1/(2A_i)) Σ_j (cot α_ij + cot β_ij)(x_i − x_j), with A_i
	// the mixed area (MixedAreas), projected on the vertex normal:
	// H_i = −(L x)_i·n_i / (2A_i) with L the cotangent Laplacian.
	CurvatureCotan CurvatureMethod = iota
	// CurvatureMoretonSequin is the least-squares fit of Moreton and Séquin
	// as given by Chen, He and Yu 2015 §III.B: normal curvatures along each
	// 1-ring edge, eq. (1), fitted by Euler's theorem, eqs. (2)–(5), to the
	// 2×2 curvature tensor in the tangent plane; H = (x0 + x2)/2, eq. (7).
	CurvatureMoretonSequin
	// CurvatureTaubin is the estimator of Chen et al. 2015 §III.C: the
	// normalised umbrella operator Δ = Σ_j ω_ij (p_j − p_i), eqs. (9)–(10),
	// with H = Δ·n/2, eq. (8). As written the umbrella vector has units of
	// length, not curvature; we use the scale-correct form of Taubin 1995
	// ("Estimating the tensor of curvature of a surface from a polyhedral
	// approximation"), whose mean curvature is the trace of the tensor,
	// H = Σ_j ω_ij κ_ij with κ_ij the eq. (1) normal curvature along edge ij
	// — eq. (8) with each (p_j − p_i) scaled by 4/|p_j − p_i|² — and ω_ij
	// from eq. (12) with φ = the summed area of the triangles on edge ij
	// (Taubin's choice). It is exact on spheres and planes, but on
	// anisotropic surfaces the weighted mean of normal curvatures is biased
	// towards the directions carrying more weight: 8% on a cylinder
	// meshed with a regular diagonal grid (tests measure it).
	CurvatureTaubin
)

// String returns "cotan", "moreton-sequin" or "taubin".
func (c CurvatureMethod) String() string {
	switch c {
	case CurvatureCotan:
		return "cotan"
	case CurvatureMoretonSequin:
		return "moreton-sequin"
	case CurvatureTaubin:
		return "taubin"
	}
	return "CurvatureMethod(?)"
}

// Curvature computes discrete curvature on meshes sharing one Topology,
// keeping its work buffers between calls (no allocations after the first
// call with a given dst). A Curvature is not safe for concurrent use.
//
// Conventions for every method: H is in m⁻¹, positive where the surface is
// convex seen from outside (the side the counter-clockwise triangles face),
// so a sphere of radius r gives H = +1/r and a plane 0. All methods use the
// angle-weighted vertex normal (VertexNormals) as n; normal curvatures along
// an edge are κ_ij = 2 (p_i − p_j)·n / |p_j − p_i|², Chen et al. eq. (1)
// with the sign flipped to make convex positive. Boundary, non-manifold and
// isolated vertices (any Topology flag set) get H = 0 and K = 0: the
// 1-ring formulas need a closed fan.
type Curvature struct {
	top      *Topology
	lap      *Laplacian
	normals  []geom.Vec3
	areas    []float64
	lx       []geom.Vec3
	triArea  []float64
	edgeArea []float64
}

// NewCurvature returns a Curvature for meshes with connectivity top.
func NewCurvature(top *Topology) *Curvature { return &Curvature{top: top} }

// Normals returns the angle-weighted vertex normals from the last call
// (owned by c, overwritten by the next call).
func (c *Curvature) Normals() []geom.Vec3 { return c.normals }

// Areas returns the mixed vertex areas (MixedAreas, m²) from the last call
// (owned by c): the weights for CurvatureStats.AbsSum.
func (c *Curvature) Areas() []float64 { return c.areas }

func (c *Curvature) prepare(m *Mesh) {
	if len(m.Verts) != c.top.NumVerts || len(m.Tris) != c.top.NumTris {
		panic("mesh: Curvature: mesh size differs from the topology")
	}
	c.normals = VertexNormals(m, c.normals)
	c.areas = MixedAreas(m, c.areas)
}

// Mean returns the mean curvature H of each vertex of m (m⁻¹) by the given
// method, in dst (reused when its capacity suffices). See Curvature for
// signs and boundary handling.
func (c *Curvature) Mean(m *Mesh, method CurvatureMethod, dst []float64) []float64 {
	c.prepare(m)
	dst = topoF64(dst, len(m.Verts))
	switch method {
	case CurvatureCotan:
		c.cotan(m, dst)
	case CurvatureMoretonSequin:
		c.moretonSequin(m, dst, nil)
	case CurvatureTaubin:
		c.taubin(m, dst)
	default:
		panic("mesh: Curvature.Mean: unknown method")
	}
	return dst
}

// MoretonSequin returns the mean curvature H (m⁻¹) and Gaussian curvature K
// (m⁻²) of each vertex by the Moreton–Séquin fit (CurvatureMoretonSequin).
// K = x0·x2 − x1²/4, the determinant of the fitted tensor
// [[x0, x1/2], [x1/2, x2]]: Chen et al. print eq. (6)–(7) as
// 2·x0·x2 − x1²/2, twice that, which eq. (5) does not support.
// Principal curvatures are H ± √(H² − K).
func (c *Curvature) MoretonSequin(m *Mesh, dstH, dstK []float64) (h, k []float64) {
	c.prepare(m)
	h = topoF64(dstH, len(m.Verts))
	k = topoF64(dstK, len(m.Verts))
	c.moretonSequin(m, h, k)
	return h, k
}

func (c *Curvature) cotan(m *Mesh, h []float64) {
	if c.lap == nil {
		c.lap = newLaplacianPattern(c.top)
	}
	c.lap.SetCotan(m)
	c.lx = c.lap.MulVec3(c.lx, m.Verts)
	for i, f := range c.top.Flags {
		if f != 0 || c.areas[i] <= 0 {
			continue
		}
		h[i] = -c.lx[i].Dot(c.normals[i]) / (2 * c.areas[i])
	}
}

func (c *Curvature) moretonSequin(m *Mesh, h, k []float64) {
	top := c.top
	for i, f := range top.Flags {
		n := c.normals[i]
		if f != 0 || n == (geom.Vec3{}) {
			continue
		}
		bx := n.AnyPerp()
		by := n.Cross(bx)
		p := m.Verts[i]
		// Normal equations AᵀA x = Aᵀb of eqs. (4)–(5), row a = (tx², tx·ty, ty²).
		var m00, m01, m02, m11, m12, m22, r0, r1, r2, ksum float64
		cnt := 0
		for _, j := range top.Ring[top.RingStart[i]:top.RingStart[i+1]] {
			d := m.Verts[j].Sub(p)
			dl2 := d.Len2()
			dn := d.Dot(n)
			t := d.AddScaled(-dn, n)
			tl := t.Len()
			if dl2 == 0 || tl == 0 {
				continue
			}
			kap := -2 * dn / dl2 // eq. (1), convex positive
			tx, ty := t.Dot(bx)/tl, t.Dot(by)/tl
			a0, a1, a2 := tx*tx, tx*ty, ty*ty
			m00 += a0 * a0
			m01 += a0 * a1
			m02 += a0 * a2
			m11 += a1 * a1
			m12 += a1 * a2
			m22 += a2 * a2
			r0 += a0 * kap
			r1 += a1 * kap
			r2 += a2 * kap
			ksum += kap
			cnt++
		}
		if cnt == 0 {
			continue
		}
		// Solve by Cramer's rule; fall back to the mean normal curvature
		// (an isotropic tensor) when the edge directions do not determine
		// the fit.
		c00 := m11*m22 - m12*m12
		c01 := m02*m12 - m01*m22
		c02 := m01*m12 - m02*m11
		det := m00*c00 + m01*c01 + m02*c02
		tr := (m00 + m11 + m22) / 3
		if !(math.Abs(det) > 1e-9*tr*tr*tr) {
			h[i] = ksum / float64(cnt)
			if k != nil {
				k[i] = h[i] * h[i]
			}
			continue
		}
		inv := 1 / det
		x0 := (c00*r0 + c01*r1 + c02*r2) * inv
		x1 := (c01*r0 + (m00*m22-m02*m02)*r1 + (m02*m01-m00*m12)*r2) * inv
		x2 := (c02*r0 + (m01*m02-m00*m12)*r1 + (m00*m11-m01*m01)*r2) * inv
		h[i] = (x0 + x2) / 2 // eq. (7)
		if k != nil {
			k[i] = x0*x2 - x1*x1/4
		}
	}
}

func (c *Curvature) taubin(m *Mesh, h []float64) {
	top := c.top
	c.triArea = TriAreas(m, c.triArea)
	c.edgeArea = topoF64(c.edgeArea, len(top.Edges))
	for t, te := range top.TriEdges {
		a := c.triArea[t]
		c.edgeArea[te[0]] += a
		c.edgeArea[te[1]] += a
		c.edgeArea[te[2]] += a
	}
	for i, f := range top.Flags {
		n := c.normals[i]
		if f != 0 || n == (geom.Vec3{}) {
			continue
		}
		p := m.Verts[i]
		var sw, s float64
		for r := top.RingStart[i]; r < top.RingStart[i+1]; r++ {
			d := m.Verts[top.Ring[r]].Sub(p)
			dl2 := d.Len2()
			if dl2 == 0 {
				continue
			}
			w := c.edgeArea[top.RingEdges[r]] // eq. (12), φ = adjacent area
			s += w * (-2 * d.Dot(n) / dl2)
			sw += w
		}
		if sw > 0 {
			h[i] = s / sw // eq. (10): weights normalised to sum 1
		}
	}
}

// MeanCurvature is a convenience wrapper: NewCurvature(top).Mean(m, method, dst).
func MeanCurvature(m *Mesh, top *Topology, method CurvatureMethod, dst []float64) []float64 {
	return NewCurvature(top).Mean(m, method, dst)
}

// CurvatureStats summarises a per-vertex curvature field over the vertices
// where it is defined (see SummarizeCurvature). Curvatures are in m⁻¹.
type CurvatureStats struct {
	// N is the number of vertices counted.
	N int
	// Min, Max, Mean (arithmetic), Median and RMS = √(ΣH²/N) of H.
	Min, Max, Mean, Median, RMS float64
	// AreaMean is the area-weighted mean ΣH_i A_i / ΣA_i.
	AreaMean float64
	// AbsSum is the curvature sum Σ|H_i| A_i (m): the integrated absolute
	// mean curvature, used as a wrinkle metric.
	AbsSum float64
	// Area is ΣA_i over the counted vertices (m²).
	Area float64
}

// SummarizeCurvature returns statistics of the per-vertex curvature h.
// area gives the vertex areas A_i (e.g. Curvature.Areas or MixedAreas); nil
// weighs every vertex 1. When top is non-nil, vertices with any Topology
// flag (boundary, non-manifold, isolated) are ignored; non-finite values are
// always ignored. With nothing counted it returns the zero CurvatureStats.
func SummarizeCurvature(h, area []float64, top *Topology) CurvatureStats {
	if area != nil && len(area) != len(h) {
		panic("mesh: SummarizeCurvature: len(area) != len(h)")
	}
	if top != nil && top.NumVerts != len(h) {
		panic("mesh: SummarizeCurvature: len(h) differs from the topology")
	}
	var st CurvatureStats
	vals := make([]float64, 0, len(h))
	var sum, sum2, sumA, sumHA float64
	st.Min, st.Max = math.Inf(1), math.Inf(-1)
	for i, v := range h {
		if (top != nil && top.Flags[i] != 0) || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		a := 1.0
		if area != nil {
			a = area[i]
		}
		vals = append(vals, v)
		sum += v
		sum2 += v * v
		sumA += a
		sumHA += v * a
		st.AbsSum += math.Abs(v) * a
		st.Min = min(st.Min, v)
		st.Max = max(st.Max, v)
	}
	if len(vals) == 0 {
		return CurvatureStats{}
	}
	n := float64(len(vals))
	st.N = len(vals)
	st.Mean = sum / n
	st.RMS = math.Sqrt(sum2 / n)
	st.Area = sumA
	if sumA > 0 {
		st.AreaMean = sumHA / sumA
	}
	slices.Sort(vals)
	if len(vals)%2 == 1 {
		st.Median = vals[len(vals)/2]
	} else {
		st.Median = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
	}
	return st
}
