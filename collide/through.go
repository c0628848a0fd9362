package collide

import (
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// ThroughStats summarises how far a body's vertices come through the
// garments over them (Through.Measure).
type ThroughStats struct {
	// Covered counts the body vertices that a garment covers; Through
	// those of them more than the depth (Through.Depth) through a
	// garment; MaxThrough is the largest depth through (m) over Covered
	// (0 when none is through).
	Covered, Through int
	MaxThrough       float64
}

// Through measures body geometry that passes through garment triangles
// between the garments' vertices (a knee through a skirt), which
// Penetrations, testing only the cloth's vertices against the body, does
// not see.
//
// A body vertex p with unit vertex normal n_b (angle-weighted, outward) is
// covered by a garment when the garment's closest point q to p is within
// Cover, lies inside the garment's surface (not on a boundary edge or
// vertex: beyond a hem or a cuff the skin is not under the cloth), and the
// normal n_g of the closest garment triangle is within 60° of the skin's
// normal up to its sign (|n_g·n_b| ≥ 0.5: the garment lies over the skin,
// not across it). The garment's normal is then oriented away from the body,
// n = n_g·sign(n_g·n_b), whatever the garment's winding, and the vertex's
// depth through that garment is
//
//	t = (p − q)·n,
//
// positive when the skin is on the outer side of the cloth. Skin through
// the cloth has the cloth under it inside the body, so a vertex with t > 0
// whose garment point q is outside the body (signed distance ≥ 0) is not
// covered by that garment: another part of the body lies over the cloth
// there (the back of a hand hanging beside a skirt, 2-3 cm from it, or the
// neck above the fold of a collar). Over several
// garments (pieces) covering one vertex the largest t counts: the vertex
// is through when it is through any of them. A vertex is counted as
// Through when t > Depth.
//
// Measure is deterministic: the queries run in fixed chunks on Workers
// goroutines, each writing its own entries, and the sums are taken in
// vertex order.
type Through struct {
	// Cover is the largest distance (m) from a body vertex to the garment
	// over it that counts as covered; default 0.03.
	Cover float64
	// Depth is the depth (m) beyond which a vertex counts as through;
	// default DeepPenetration (2 mm).
	Depth float64
	// Workers is the number of goroutines of the queries (0: GOMAXPROCS);
	// results do not depend on it.
	Workers int

	pieces []*Body
	own    *Body     // the body of Measure
	hints  [][]int32 // per piece, per body vertex: the closest triangle last found
	normal []geom.Vec3
	depth  []float64 // per body vertex: its largest t (−Inf when uncovered)
}

// coverCos is the smallest |n_g·n_b| of a covered vertex (60°).
const coverCos = 0.5

// NewThrough returns a measure of body vertices through the garments
// whose meshes are given (one per piece; their triangles are kept, their
// positions are set by each Measure).
func NewThrough(garments []*mesh.Mesh) (*Through, error) {
	t := &Through{pieces: make([]*Body, len(garments)), hints: make([][]int32, len(garments))}
	for i, m := range garments {
		b, err := NewBody(m)
		if err != nil {
			return nil, fmt.Errorf("collide: garment %d: %w", i, err)
		}
		t.pieces[i] = b
	}
	return t, nil
}

// Measure returns the statistics of the body whose vertices are body and
// triangles tris against the garments at positions garments (one slice
// per piece, in NewThrough's order and vertex counts). It panics when the
// counts do not match, or when body and tris are not a valid mesh.
func (t *Through) Measure(garments [][]geom.Vec3, body []geom.Vec3, tris [][3]int32) ThroughStats {
	if t.own == nil || t.own.NumVerts() != len(body) || len(t.own.Tris()) != len(tris) {
		b, err := NewBody(&mesh.Mesh{Verts: body, Tris: tris})
		if err != nil {
			panic(fmt.Sprintf("collide: Through.Measure: %v", err))
		}
		t.own = b
	} else {
		t.own.SetFrame(body)
	}
	return t.MeasureBody(garments, t.own)
}

// MeasureBody is Measure of body at its positions now (Body.Positions).
func (t *Through) MeasureBody(garments [][]geom.Vec3, bd *Body) ThroughStats {
	body, tris := bd.Positions(), bd.Tris()
	if len(garments) != len(t.pieces) {
		panic(fmt.Sprintf("collide: Through.Measure got %d garments, want %d", len(garments), len(t.pieces)))
	}
	cover := t.Cover
	if cover == 0 {
		cover = 0.03
	}
	depth := t.Depth
	if depth == 0 {
		depth = DeepPenetration
	}
	for i, b := range t.pieces {
		b.SetFrame(garments[i])
		b.ensure()
		if len(t.hints[i]) != len(body) {
			t.hints[i] = make([]int32, len(body))
			for k := range t.hints[i] {
				t.hints[i][k] = -1
			}
		}
	}
	t.normal = mesh.VertexNormals(&mesh.Mesh{Verts: body, Tris: tris}, t.normal)
	if len(t.depth) != len(body) {
		t.depth = make([]float64, len(body))
	}
	each((len(body)+penChunk-1)/penChunk, t.Workers, func(c int) {
		for v := c * penChunk; v < min((c+1)*penChunk, len(body)); v++ {
			t.depth[v] = t.vertex(bd, int32(v), body[v], t.normal[v], cover)
		}
	})
	var s ThroughStats
	for _, d := range t.depth {
		if math.IsInf(d, -1) {
			continue
		}
		s.Covered++
		if d > depth {
			s.Through++
		}
		s.MaxThrough = max(s.MaxThrough, d)
	}
	return s
}

// vertex returns body vertex v of bd's largest depth through the garments
// that cover it (see Through), −Inf when none does.
func (t *Through) vertex(bd *Body, v int32, p, nb geom.Vec3, cover float64) float64 {
	best := math.Inf(-1)
	if nb == (geom.Vec3{}) {
		return best
	}
	for i, b := range t.pieces {
		if b.bvh.LowerBound(p) > cover {
			continue
		}
		con, ok := b.nearHint(p, cover, t.hints[i][v])
		if !ok {
			continue
		}
		t.hints[i][v] = con.Tri
		if con.Boundary {
			continue
		}
		ng := b.faceNormal(con.Tri)
		c := ng.Dot(nb)
		if math.Abs(c) < coverCos {
			continue
		}
		if c < 0 {
			ng = ng.Neg()
		}
		d := p.Sub(con.Point).Dot(ng)
		if d > 0 && !insideNear(bd, con.Point, v, cover) {
			continue
		}
		best = max(best, d)
	}
	return best
}

// insideNear reports whether point q, within maxDist of body vertex v of
// b, is inside b (signed distance < 0); the search starts at a triangle of
// v.
func insideNear(b *Body, q geom.Vec3, v int32, maxDist float64) bool {
	hint := int32(-1)
	if ts := b.Topology().VertTriangles(v); len(ts) > 0 {
		hint = ts[0]
	}
	con, ok := b.queryHint(q, maxDist, hint)
	return ok && con.Dist < 0
}
