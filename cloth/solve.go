package cloth

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// Preconditioner selects the CG preconditioner of the implicit solve.
type Preconditioner uint8

const (
	// BlockIC is a block incomplete Cholesky factorisation IC(0),
	// A ≈ L D Lᵀ with L unit lower block-triangular on the sparsity of A, of
	// the filtered matrix S A S + (I − S)·tr(A_ii)/3 (Baraff–Witkin
	// constraints are built into the factor). For parallelism it is a
	// block-Jacobi of IC factors: the vertices are cut into fixed ranges of
	// icDomain consecutive ids, and couplings between ranges are dropped from
	// the factor (not from A). It needs a few times fewer CG iterations than
	// BlockJacobi on cloth meshes whose vertex ids are spatially coherent
	// (grids, scanned or authored garments; see doc.go).
	BlockIC Preconditioner = iota
	// BlockJacobi is the inverse of each vertex's 3x3 diagonal block
	// (Baraff and Witkin 1998 use its scalar form).
	BlockJacobi
)

// icDomain is the number of consecutive vertex ids per independent IC factor
// (see BlockIC). It depends on nothing but the mesh, so results do not
// depend on the number of workers. Measured on the 159×159 denim sheet:
// 2048 costs ~10 % more iterations than one global factor and lets 2 cores
// run the triangular solves in parallel.
const icDomain = 8192

// solver holds the CG state and preconditioner, allocated once.
type solver struct {
	pinv []geom.Mat3 // BlockJacobi: inverse diagonal blocks

	// BlockIC: fac has A's layout; lower slots hold L_ik, diagonal slots
	// D_i⁻¹ and upper slots (i,k) hold L_kiᵀ. lo[i] and hi[i] bound row i's
	// slots whose columns lie in i's domain. tslot maps slot (i,j) to (j,i).
	fac    []geom.Mat3
	lo, hi []int32
	tslot  []int32
	// Compact single-precision copies used by the triangular solves: row i's
	// in-domain lower blocks L_ik are lval[lStart[i]:lStart[i+1]] (columns
	// lCol), its upper blocks L_kiᵀ are uval[uStart[i]:uStart[i+1]] (columns
	// uCol), dinv[i] = D_i⁻¹; tU maps a lower index to the upper index of its
	// transpose. Rounding the preconditioner to float32 halves the memory
	// traffic of the solves; it changes only the (symmetric positive
	// definite) preconditioner, not the system CG solves.
	lStart, uStart []int32
	lCol, uCol     []int32
	// The IC(0) update pairs, found once from the pattern: the lower
	// block li (as in lStart) is updated by W_ik −= fac[pa]·fac[pb]ᵀ for
	// each p in [pStart[li], pStart[li+1]), the slot pairs (i,m), (k,m)
	// with m < k in i's domain, in increasing m (the merge of rows i and
	// k that factorIC would otherwise repeat every substep).
	pStart, pa, pb []int32
	lval, uval     []blk32
	tU             []int32
	dinv           []geom.Mat3
	shift          []float64 // per domain: last diagonal shift that succeeded
	nfac           int       // factorisations so far
	dom            int       // domain size: ⌈n/⌈n/icDomain⌉⌉

	// Loop arguments of the running kernel.
	alpha, beta float64
	part        []float64
	// prr and pbb are per-chunk partial sums of rᵀM⁻¹r and (Sb)ᵀM⁻¹(Sb), indexed
	// like part (by chunk or by domain).
	prr, pbb []float64
	vec      []geom.Vec3 // spmv input

	// Loop bodies (method values bound once; see pool).
	kInitJ, kInitIC, kResid, kDelta0IC, kDeltaJ, kSpmvDot, kUpdJ, kUpdIC, kDir func(lo, hi int)
}

// initSolver allocates the solver state and binds its kernels.
func (c *Cloth) initSolver() {
	s := &c.sol
	A := &c.sys
	n := A.n
	switch c.opts.Preconditioner {
	case BlockJacobi:
		s.pinv = make([]geom.Mat3, n)
	default:
		s.fac = make([]geom.Mat3, len(A.val))
		s.lo, s.hi = make([]int32, n), make([]int32, n)
		s.tslot = make([]int32, len(A.col))
		nd := nChunks(n, icDomain)
		s.dom = (n + nd - 1) / nd
		s.shift = make([]float64, nd)
		for i := 0; i < n; i++ {
			dlo := int32(i / s.dom * s.dom)
			dhi := min(dlo+int32(s.dom), int32(n))
			s.lo[i], s.hi[i] = A.rowStart[i+1], A.rowStart[i+1]
			for k := A.rowStart[i]; k < A.rowStart[i+1]; k++ {
				j := A.col[k]
				if j >= dlo && s.lo[i] == A.rowStart[i+1] {
					s.lo[i] = k
				}
				if j >= dhi {
					s.hi[i] = k
					break
				}
			}
			for k := A.rowStart[i]; k < A.rowStart[i+1]; k++ {
				s.tslot[k] = A.slot(A.col[k], int32(i))
			}
		}
		s.lStart, s.uStart = make([]int32, n+1), make([]int32, n+1)
		s.lCol, s.uCol = nil, nil
		for i := 0; i < n; i++ {
			s.lStart[i+1] = s.lStart[i] + A.diag[i] - s.lo[i]
			s.uStart[i+1] = s.uStart[i] + s.hi[i] - A.diag[i] - 1
			s.lCol = append(s.lCol, A.col[s.lo[i]:A.diag[i]]...)
			s.uCol = append(s.uCol, A.col[A.diag[i]+1:s.hi[i]]...)
		}
		s.lval, s.uval = make([]blk32, s.lStart[n]), make([]blk32, s.uStart[n])
		s.tU = make([]int32, s.lStart[n])
		s.pStart = make([]int32, s.lStart[n]+1)
		s.pa, s.pb = s.pa[:0], s.pb[:0]
		for i := 0; i < n; i++ {
			for sk := s.lo[i]; sk < A.diag[i]; sk++ {
				k := A.col[sk]
				// Merge row i's slots [lo_i, sk) with row k's [lo_k, diag_k).
				a, ae := s.lo[i], sk
				b, be := s.lo[k], A.diag[k]
				for a < ae && b < be {
					ca, cb := A.col[a], A.col[b]
					switch {
					case ca < cb:
						a++
					case ca > cb:
						b++
					default:
						s.pa, s.pb = append(s.pa, a), append(s.pb, b)
						a++
						b++
					}
				}
				s.pStart[s.lStart[i]+sk-s.lo[i]+1] = int32(len(s.pa))
			}
		}
		s.dinv = make([]geom.Mat3, n)
		for i := 0; i < n; i++ {
			for sk := s.lo[i]; sk < A.diag[i]; sk++ {
				k := A.col[sk]
				ts := s.tslot[sk]
				s.tU[s.lStart[i]+sk-s.lo[i]] = s.uStart[k] + ts - A.diag[k] - 1
			}
		}
	}
	np := max(nChunks(n, chunkSize), 1)
	if s.dom > 0 {
		np = max(np, nChunks(n, s.dom))
	}
	s.prr, s.pbb = make([]float64, np), make([]float64, np)
	s.kInitJ, s.kInitIC = c.kernInitJ, c.kernInitIC
	s.kResid, s.kDelta0IC, s.kDeltaJ = c.kernResid, c.kernDelta0IC, c.kernDeltaJ
	s.kSpmvDot, s.kUpdJ, s.kUpdIC, s.kDir = c.kernSpmvDot, c.kernUpdJ, c.kernUpdIC, c.kernDir
}

// pcg solves the filtered system for Δv with the modified preconditioned
// conjugate gradient of Baraff and Witkin 1998 §5.3: Δv starts at the
// prescribed z (plus the filtered previous Δv as a warm start), and
// residuals and search directions are filtered by S so that the constrained
// components keep their prescribed values. It stops when both
// rᵀP⁻¹r ≤ CGTol²·(Sb)ᵀP⁻¹(Sb), P being the preconditioner, and
// rᵀM⁻¹r ≤ CGTol²·(Sb)ᵀM⁻¹(Sb) (the residual in velocity units, so that
// light vertices of small triangles count as much as heavy ones). The second test matters with the incomplete
// Cholesky preconditioner on stiff, fine meshes: there the preconditioned
// norm fell by 2,000 in one iteration while the solution was far off (the
// MakeHuman shirt subdivided to 19k vertices came out of its first solve
// from rest with edges stretched by 100 %).
//
// Each iteration makes three passes over the vertices: q = S A d with dᵀq;
// Δv += αd, r −= αq with the preconditioner solve s = S P⁻¹ r and rᵀs; and
// d = s + βd.
func (c *Cloth) pcg() (iters int, rel float64, ok bool) {
	s := &c.sol
	n := len(c.X)
	ic := c.opts.Preconditioner == BlockIC
	// Warm start, preconditioner setup.
	if ic {
		c.pool.run(n, s.dom, s.kInitIC)
		s.nfac++
	} else {
		c.pool.run(n, chunkSize, s.kInitJ)
	}
	// r = S(b − AΔv), and, for BlockJacobi, δ0 = (Sb)ᵀP⁻¹(Sb), d = S P⁻¹ r
	// and δ = rᵀd.
	var delta0, delta float64
	s.part = c.pool.parts(nChunks(n, chunkSize))
	c.pool.run(n, chunkSize, s.kResid)
	if ic {
		// δ0 = (Sb)ᵀP⁻¹(Sb) with d as scratch, then d = P⁻¹r, δ = rᵀd.
		s.part = c.pool.parts(nChunks(n, s.dom))
		s.vec = c.work.rhs
		c.pool.run(n, s.dom, s.kDelta0IC)
		delta0 = sumParts(s.part)
		s.vec = c.work.r
		s.alpha = 0
		c.pool.run(n, s.dom, s.kUpdIC)
		delta = sumParts(s.part)
	} else {
		delta0 = sumParts(s.part)
		c.pool.run(n, chunkSize, s.kDeltaJ)
		delta = sumParts(s.part)
	}
	if ic {
		copy(c.work.d, c.work.s)
	}
	tol2 := c.opts.CGTol * c.opts.CGTol
	if delta0 == 0 {
		return 0, 0, true
	}
	nrr := nChunks(n, chunkSize) // kernResid's chunks
	bb, rr := sumParts(s.pbb[:nrr]), sumParts(s.prr[:nrr])
	if ic {
		nrr = nChunks(n, s.dom) // kernUpdIC's
	}
	for iters = 0; iters < c.opts.CGMaxIter && (delta > tol2*delta0 || rr > tol2*bb); iters++ {
		// q = S A d; dq = dᵀq.
		s.part = c.pool.parts(nChunks(n, chunkSize))
		c.pool.run(n, chunkSize, s.kSpmvDot)
		dq := sumParts(s.part)
		if !(dq > 0) {
			break // loss of positive definiteness or NaN
		}
		s.alpha = delta / dq
		dold := delta
		if ic {
			s.part = c.pool.parts(nChunks(n, s.dom))
			c.pool.run(n, s.dom, s.kUpdIC)
		} else {
			c.pool.run(n, chunkSize, s.kUpdJ)
		}
		delta = sumParts(s.part)
		rr = sumParts(s.prr[:nrr])
		s.beta = delta / dold
		c.pool.run(n, chunkSize, s.kDir)
	}
	rel = math.Sqrt(math.Abs(delta / delta0))
	if bb > 0 {
		rel = math.Max(rel, math.Sqrt(rr/bb))
	}
	if math.IsNaN(rel) {
		return iters, rel, false
	}
	// Accept a solve that ran out of iterations if it is still accurate to
	// 1 %: the implicit step stays stable with an inexact Δv.
	return iters, rel, rel <= c.opts.CGTol || rel < 1e-2
}

// warm sets Δv_i = S_i Δv₋₁,i + z_i. Before the first accepted substep,
// when there is no previous Δv, it starts from the explicit prediction
// Δv = β·f/m instead of zero: the right-hand side of a cloth at rest under
// gravity is a rigid translation, the mode CG resolves slowest, and the
// prediction is exact for it (on the MakeHuman shirt at 19k vertices, CG
// from zero stopped at its 2,000-iteration cap with light vertices of the
// cuffs off by several m/s).
func (c *Cloth) warm(i int) {
	w := &c.work
	p := w.dv[i]
	if !w.havePrev {
		p = w.f[i].Scale(c.k.beta * c.invMassSL[i])
	}
	if w.kind[i] != 0 {
		p = w.filter1(int32(i), p)
	}
	if !p.IsFinite() {
		p = geom.Vec3{}
	}
	w.dv[i] = p.Add(w.z[i])
}

func (c *Cloth) kernInitJ(lo, hi int) {
	A := &c.sys
	pinv := c.sol.pinv
	for i := lo; i < hi; i++ {
		c.warm(i)
		inv, ok := A.val[A.diag[i]].Inverse()
		if !ok {
			m := math.Max(c.Mass[i], 1e-12)
			inv = geom.Diag3(1/m, 1/m, 1/m)
		}
		pinv[i] = inv
	}
}

// kernResid: r = S(b − AΔv) and (BlockJacobi) partial (Sb)ᵀP⁻¹(Sb).
func (c *Cloth) kernResid(lo, hi int) {
	A := &c.sys
	w := &c.work
	b, r, dv, kind := w.rhs, w.r, w.dv, w.kind
	jac := c.opts.Preconditioner == BlockJacobi
	acc, rr, bb := 0.0, 0.0, 0.0
	for i := lo; i < hi; i++ {
		q := rowMul(A, i, dv)
		bi := b[i]
		ri := bi.Sub(q)
		if kind[i] != 0 {
			bi = w.filter1(int32(i), bi)
			ri = w.filter1(int32(i), ri)
		}
		r[i] = ri
		im := c.invMassSL[i]
		rr += im * ri.Dot(ri)
		bb += im * bi.Dot(bi)
		if jac {
			acc += bi.Dot(mulVec(&c.sol.pinv[i], bi))
		}
	}
	c.sol.part[lo/chunkSize] = acc
	c.sol.prr[lo/chunkSize], c.sol.pbb[lo/chunkSize] = rr, bb
}

// kernDeltaJ: d = S P⁻¹ r, partial rᵀd.
func (c *Cloth) kernDeltaJ(lo, hi int) {
	w := &c.work
	r, d, kind, pinv := w.r, w.d, w.kind, c.sol.pinv
	acc := 0.0
	for i := lo; i < hi; i++ {
		di := mulVec(&pinv[i], r[i])
		if kind[i] != 0 {
			di = w.filter1(int32(i), di)
		}
		d[i] = di
		acc += r[i].Dot(di)
	}
	c.sol.part[lo/chunkSize] = acc
}

// rowMul returns row i of A times x.
func rowMul(A *bsr, i int, x []geom.Vec3) geom.Vec3 {
	k0, k1 := A.rowStart[i], A.rowStart[i+1]
	cols, vals := A.col[k0:k1], A.val[k0:k1]
	var ax, ay, az float64
	for k, j := range cols {
		m := &vals[k]
		v := x[j]
		ax += m[0][0]*v.X + m[0][1]*v.Y + m[0][2]*v.Z
		ay += m[1][0]*v.X + m[1][1]*v.Y + m[1][2]*v.Z
		az += m[2][0]*v.X + m[2][1]*v.Y + m[2][2]*v.Z
	}
	return geom.Vec3{X: ax, Y: ay, Z: az}
}

// kernSpmvDot: q = S A d, partial dᵀq.
func (c *Cloth) kernSpmvDot(lo, hi int) {
	A := &c.sys
	w := &c.work
	d, q, kind := w.d, w.q, w.kind
	dot := 0.0
	for i := lo; i < hi; i++ {
		yi := rowMul(A, i, d)
		if kind[i] != 0 {
			yi = w.filter1(int32(i), yi)
		}
		q[i] = yi
		dot += d[i].Dot(yi)
	}
	c.sol.part[lo/chunkSize] = dot
}

// kernUpdJ: Δv += αd, r −= αq, s = S P⁻¹ r, partial rᵀs.
func (c *Cloth) kernUpdJ(lo, hi int) {
	w := &c.work
	alpha := c.sol.alpha
	dv, r, d, q, s, kind, pinv := w.dv, w.r, w.d, w.q, w.s, w.kind, c.sol.pinv
	acc, rr := 0.0, 0.0
	for i := lo; i < hi; i++ {
		dv[i] = dv[i].AddScaled(alpha, d[i])
		ri := r[i].AddScaled(-alpha, q[i])
		r[i] = ri
		rr += c.invMassSL[i] * ri.Dot(ri)
		si := mulVec(&pinv[i], ri)
		if kind[i] != 0 {
			si = w.filter1(int32(i), si)
		}
		s[i] = si
		acc += ri.Dot(si)
	}
	c.sol.part[lo/chunkSize] = acc
	c.sol.prr[lo/chunkSize] = rr
}

// kernDir: d = s + βd.
func (c *Cloth) kernDir(lo, hi int) {
	w := &c.work
	bt := c.sol.beta
	d, s := w.d[lo:hi], w.s[lo:hi]
	for i := range d {
		d[i] = s[i].AddScaled(bt, d[i])
	}
}

// kernInitIC warms Δv and factors the domain [lo,hi) (see BlockIC),
// retrying with a growing diagonal shift if the factorisation breaks down.
func (c *Cloth) kernInitIC(lo, hi int) {
	for i := lo; i < hi; i++ {
		c.warm(i)
	}
	// Start from the shift that worked last time for this domain, and every
	// icRelax steps from a quarter of it.
	d := lo / c.sol.dom
	s := &c.sol
	shift := s.shift[d]
	if s.nfac%icRelax == 0 {
		shift /= 4
	}
	if shift < icShift0 {
		shift = 0
	}
	for !c.factorIC(lo, hi, shift) {
		shift = max(4*shift, icShift0)
		if shift > icShiftMax {
			// Hopeless (a non-finite or indefinite matrix): block Jacobi
			// for this domain; CG then reports what it finds.
			c.factorDiag(lo, hi)
			shift = 0
			break
		}
	}
	s.shift[d] = shift
}

// icShiftMax is the largest shift tried: beyond it the factor is no better
// than block Jacobi.
const icShiftMax = 4

// factorDiag sets L = 0 and D = Ã_ii on the domain [lo,hi).
func (c *Cloth) factorDiag(lo, hi int) {
	A := &c.sys
	s := &c.sol
	w := &c.work
	clear(s.lval[s.lStart[lo]:s.lStart[hi]])
	clear(s.uval[s.uStart[lo]:s.uStart[hi]])
	for i := lo; i < hi; i++ {
		D0 := A.val[A.diag[i]]
		if w.kind[i] != 0 {
			D0 = w.filterDiag(int32(i), D0)
		}
		inv, ok := spdInverse(&D0)
		if !ok {
			m := math.Max(c.Mass[i], 1e-12)
			inv = geom.Diag3(1/m, 1/m, 1/m)
		}
		s.dinv[i] = inv
	}
}

// icRelax is how often (in factorisations) kernInitIC tries a smaller shift.
const icRelax = 8

// icShift0 is the first diagonal shift α tried after a breakdown (Manteuffel
// 1980, "An incomplete factorization technique for positive definite linear
// systems": factor Ã + α·blockdiag(Ã), α doubling until it succeeds; we
// quadruple).
const icShift0 = 1.0 / 1024

// factorIC computes the IC(0) factor of Ã + shift·blockdiag(Ã) on the domain
// [lo,hi):
//
//	W_ik = Ã_ik − Σ_{m<k} W_im L_kmᵀ,  L_ik = W_ik D_k⁻¹,
//	D_i = (1+shift)·Ã_ii − Σ_k W_ik L_ikᵀ,
//
// with Ã = S A S + (I − S)·tr(A_ii)/3. It reports false, leaving a partial
// factor, when a pivot fails the icPivotTol test.
func (c *Cloth) factorIC(lo, hi int, shift float64) bool {
	A := &c.sys
	s := &c.sol
	w := &c.work
	fac, kind := s.fac, w.kind
	for i := lo; i < hi; i++ {
		di := A.diag[i]
		// Lower slots of row i in the domain: W.
		li := s.lStart[i]
		for sk := s.lo[i]; sk < di; sk, li = sk+1, li+1 {
			k := A.col[sk]
			W := A.val[sk]
			if kind[i] != 0 || kind[k] != 0 {
				W = w.filterBlock(int32(i), k, W)
			}
			p0, p1 := s.pStart[li], s.pStart[li+1]
			for p, b := range s.pb[p0:p1] {
				subMulT(&W, &fac[s.pa[int(p0)+p]], &fac[b])
			}
			fac[sk] = W
		}
		// L_ik = W_ik D_k⁻¹ and D_i.
		D0 := A.val[di]
		if kind[i] != 0 {
			D0 = w.filterDiag(int32(i), D0)
		}
		D := D0
		if shift != 0 {
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					D[r][q] *= 1 + shift
				}
			}
		}
		for sk := s.lo[i]; sk < di; sk++ {
			k := A.col[sk]
			W := fac[sk]
			L := W.Mul(fac[A.diag[k]])
			subMulT(&D, &W, &L)
			fac[sk] = L
			li := s.lStart[i] + sk - s.lo[i]
			s.lval[li] = toBlk32(&L)
			s.uval[s.tU[li]] = toBlk32T(&L)
		}
		inv, ok := pivotInverse(&D, &D0)
		if !ok {
			return false
		}
		fac[di] = inv
		s.dinv[i] = inv
	}
	return true
}

// kernDelta0IC: partial (Sb)ᵀP⁻¹(Sb) over a domain, with w.s as scratch.
func (c *Cloth) kernDelta0IC(lo, hi int) {
	w := &c.work
	b, y := c.sol.vec, w.s
	for i := lo; i < hi; i++ {
		bi := b[i]
		if w.kind[i] != 0 {
			bi = w.filter1(int32(i), bi)
		}
		y[i] = bi
	}
	c.sol.part[lo/c.sol.dom] = c.icSolve(lo, hi, y, y)
}

// kernUpdIC: Δv += αd, r −= αq (skipped when α = 0), s = S P⁻¹ r and
// partial rᵀs, over a domain.
func (c *Cloth) kernUpdIC(lo, hi int) {
	w := &c.work
	alpha := c.sol.alpha
	rr := 0.0
	if alpha != 0 {
		dv, r, d, q, im := w.dv[lo:hi], w.r[lo:hi], w.d[lo:hi], w.q[lo:hi], c.invMassSL[lo:hi]
		for i := range dv {
			dv[i] = dv[i].AddScaled(alpha, d[i])
			ri := r[i].AddScaled(-alpha, q[i])
			r[i] = ri
			rr += im[i] * ri.Dot(ri)
		}
	}
	c.sol.part[lo/c.sol.dom] = c.icSolve(lo, hi, w.r, w.s)
	c.sol.prr[lo/c.sol.dom] = rr
}

// icSolve sets z = S (L D Lᵀ)⁻¹ r on the domain [lo,hi) (z may alias r) and
// returns rᵀz, summed in a fixed order.
func (c *Cloth) icSolve(lo, hi int, r, z []geom.Vec3) float64 {
	s := &c.sol
	w := &c.work
	// Forward: y_i = r_i − Σ_{k<i} L_ik y_k (y in z). Columns ascend, so the
	// term of the row just computed comes last in the dependency chain.
	for i := lo; i < hi; i++ {
		k0, k1 := s.lStart[i], s.lStart[i+1]
		cols, vals := s.lCol[k0:k1], s.lval[k0:k1]
		var ax, ay, az float64
		for k, j := range cols {
			m := &vals[k]
			v := z[j]
			ax += float64(m[0])*v.X + float64(m[1])*v.Y + float64(m[2])*v.Z
			ay += float64(m[3])*v.X + float64(m[4])*v.Y + float64(m[5])*v.Z
			az += float64(m[6])*v.X + float64(m[7])*v.Y + float64(m[8])*v.Z
		}
		y := r[i]
		z[i] = geom.Vec3{X: y.X - ax, Y: y.Y - ay, Z: y.Z - az}
	}
	// Backward: z_i = D_i⁻¹ y_i − Σ_{k>i} L_kiᵀ z_k, then the filter. The
	// filtered z is what later rows use: exact for Ã, whose constrained
	// directions are decoupled. Columns are visited in descending order so
	// that z_{i+1}, just computed, enters last.
	acc := 0.0
	for i := hi - 1; i >= lo; i-- {
		k0, k1 := s.uStart[i], s.uStart[i+1]
		cols, vals := s.uCol[k0:k1], s.uval[k0:k1]
		var ax, ay, az float64
		for k := len(cols) - 1; k >= 0; k-- {
			m := &vals[k]
			v := z[cols[k]]
			ax += float64(m[0])*v.X + float64(m[1])*v.Y + float64(m[2])*v.Z
			ay += float64(m[3])*v.X + float64(m[4])*v.Y + float64(m[5])*v.Z
			az += float64(m[6])*v.X + float64(m[7])*v.Y + float64(m[8])*v.Z
		}
		y := mulVec(&s.dinv[i], z[i])
		y = geom.Vec3{X: y.X - ax, Y: y.Y - ay, Z: y.Z - az}
		if w.kind[i] != 0 {
			y = w.filter1(int32(i), y)
		}
		z[i] = y
		acc += r[i].Dot(y)
	}
	return acc
}

// blk32 is a 3x3 block in single precision, row-major.
type blk32 [9]float32

func toBlk32(m *geom.Mat3) blk32 {
	return blk32{float32(m[0][0]), float32(m[0][1]), float32(m[0][2]),
		float32(m[1][0]), float32(m[1][1]), float32(m[1][2]),
		float32(m[2][0]), float32(m[2][1]), float32(m[2][2])}
}

func toBlk32T(m *geom.Mat3) blk32 {
	return blk32{float32(m[0][0]), float32(m[1][0]), float32(m[2][0]),
		float32(m[0][1]), float32(m[1][1]), float32(m[2][1]),
		float32(m[0][2]), float32(m[1][2]), float32(m[2][2])}
}

// subMulT sets dst −= a bᵀ.
func subMulT(dst, a, b *geom.Mat3) {
	for r := 0; r < 3; r++ {
		a0, a1, a2 := a[r][0], a[r][1], a[r][2]
		dst[r][0] -= a0*b[0][0] + a1*b[0][1] + a2*b[0][2]
		dst[r][1] -= a0*b[1][0] + a1*b[1][1] + a2*b[1][2]
		dst[r][2] -= a0*b[2][0] + a1*b[2][1] + a2*b[2][2]
	}
}

// icPivotTol is the smallest ratio of a Cholesky pivot of an IC pivot block
// D_i to the same pivot of the unmodified block Ã_ii that kernInitIC
// accepts. IC(0) can break down on the strongly anisotropic matrices of
// woven fabrics (weft ≪ warp ≫ shear stiffness): a nearly singular pivot
// makes L explode a few rows later. Rejected pivots fall back to Ã_ii,
// which keeps L D Lᵀ positive definite.
const icPivotTol = 0.05

// chol3 returns the Cholesky pivots of the symmetric part of m.
func chol3(m *geom.Mat3) (p0, p1, p2 float64) {
	a00, a11, a22 := m[0][0], m[1][1], m[2][2]
	a01 := 0.5 * (m[0][1] + m[1][0])
	a02 := 0.5 * (m[0][2] + m[2][0])
	a12 := 0.5 * (m[1][2] + m[2][1])
	p0 = a00
	if !(p0 > 0) {
		return
	}
	l10, l20 := a01/p0, a02/p0
	p1 = a11 - l10*a01
	if !(p1 > 0) {
		return
	}
	l21 := (a12 - l20*a01) / p1
	p2 = a22 - l20*a02 - l21*l21*p1
	return
}

// pivotInverse returns the inverse of the symmetric part of D if each of its
// Cholesky pivots is at least icPivotTol times that of D0.
func pivotInverse(D, D0 *geom.Mat3) (geom.Mat3, bool) {
	p0, p1, p2 := chol3(D)
	q0, q1, q2 := chol3(D0)
	if !(p0 >= icPivotTol*q0 && p1 >= icPivotTol*q1 && p2 >= icPivotTol*q2 && p2 > 0) {
		return geom.Mat3{}, false
	}
	return spdInverse(D)
}

// spdInverse inverts the symmetric part of m if it is positive definite
// (leading minors > 0).
func spdInverse(m *geom.Mat3) (geom.Mat3, bool) {
	a := *m
	for r := 0; r < 3; r++ {
		for q := r + 1; q < 3; q++ {
			s := 0.5 * (a[r][q] + a[q][r])
			a[r][q], a[q][r] = s, s
		}
	}
	m1 := a[0][0]
	m2 := a[0][0]*a[1][1] - a[0][1]*a[1][0]
	if !(m1 > 0) || !(m2 > 0) || !(a.Det() > 0) {
		return geom.Mat3{}, false
	}
	return a.Inverse()
}

// filterBlock returns S_i B S_j.
func (w *work) filterBlock(i, j int32, B geom.Mat3) geom.Mat3 {
	if w.kind[i] != 0 {
		for q := 0; q < 3; q++ {
			col := w.filter1(i, geom.Vec3{X: B[0][q], Y: B[1][q], Z: B[2][q]})
			B[0][q], B[1][q], B[2][q] = col.X, col.Y, col.Z
		}
	}
	if w.kind[j] != 0 {
		for r := 0; r < 3; r++ {
			row := w.filter1(j, geom.Vec3{X: B[r][0], Y: B[r][1], Z: B[r][2]})
			B[r][0], B[r][1], B[r][2] = row.X, row.Y, row.Z
		}
	}
	return B
}

// filterDiag returns S_i B S_i + (I − S_i)·tr(B)/3.
func (w *work) filterDiag(i int32, B geom.Mat3) geom.Mat3 {
	t := B.Trace() / 3
	F := w.filterBlock(i, i, B)
	for q := 0; q < 3; q++ {
		var e geom.Vec3
		switch q {
		case 0:
			e.X = 1
		case 1:
			e.Y = 1
		default:
			e.Z = 1
		}
		col := e.Sub(w.filter1(i, e)).Scale(t) // (I − S) e_q · t
		F[0][q] += col.X
		F[1][q] += col.Y
		F[2][q] += col.Z
	}
	return F
}
