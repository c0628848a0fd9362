package wrinkle

import (
	"errors"
	"fmt"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

// DefaultCoarseVerts is the vertex budget of a coarse garment when none is
// given: wang2010 §3.2 simulates 600 to 800 vertices per garment set.
const DefaultCoarseVerts = 700

// Coarse is a coarse version of a fine garment for the online simulation
// of wang2010 §3.2: each connected piece of the fine mesh decimated by
// edge collapse with subset placement, so every coarse vertex is a fine
// vertex and keeps its skin weights.
type Coarse struct {
	// Pieces are the coarse pieces in the fine mesh's piece order (its
	// connected components, numbered by lowest vertex id).
	Pieces []CoarsePiece
	// Mesh is all pieces in one mesh (piece after piece), Weights their
	// skin weights in the same order.
	Mesh    *mesh.Mesh
	Weights skel.Weights
	// Kept[i] is the fine vertex that coarse vertex i (of Mesh) is.
	Kept []int32
	// FinePiece[u] is fine vertex u's piece, VertPiece[i] coarse vertex i's.
	FinePiece, VertPiece []int32
}

// CoarsePiece is one decimated piece.
type CoarsePiece struct {
	Mesh    *mesh.Mesh
	Weights skel.Weights
	// First is the piece's first vertex in Coarse.Mesh.
	First int
}

// CoarseOptions configure NewCoarse. The zero value gives the defaults.
type CoarseOptions struct {
	// Verts is the vertex budget over all pieces, shared in proportion to
	// their vertex counts (at least 16 each); 0 means DefaultCoarseVerts.
	Verts int
	// Quadric decimates by quadric error (mesh.Simplify, after a
	// shortest-edge-first pre-pass on pieces far above their budget)
	// instead of shortest edge first (decimate, the default). Quadric
	// decimation keeps the shape closer (the reference's own coarse
	// vertices, embedded, are 3.3 mm from it on the CMU walk against
	// 4.7 mm) but leaves long triangles along nearly developable limbs
	// (99th percentile edge 23 cm on the procedural suit at 700
	// vertices), and the Choi–Ko springs, whose constants assume
	// triangles of even size and shape, then move the coarse cloth
	// otherwise than the fine: with the MakeHuman suit and the small
	// database the final mean error against the reference was 11.9 and
	// 13.0 to 14.3 mm on the CMU walk and kick, against 10.9 and 11.8 to
	// 12.2 shortest edge first, and 14.5 against 13.0 mm on the demo's
	// procedural walk.
	Quadric bool
}

// NewCoarse decimates the fine garment (rest shape m, skin weights w) as
// opt says.
//
// Decimation is deterministic.
func NewCoarse(m *mesh.Mesh, w skel.Weights, opt CoarseOptions) (*Coarse, error) {
	verts := opt.Verts
	if verts == 0 {
		verts = DefaultCoarseVerts
	}
	if verts < 16 {
		return nil, fmt.Errorf("wrinkle: coarse garment of %d vertices: want at least 16", verts)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("wrinkle: fine garment: %w", err)
	}
	if w.NumVerts() != len(m.Verts) {
		return nil, fmt.Errorf("wrinkle: fine garment has %d vertices, its weights %d", len(m.Verts), w.NumVerts())
	}
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("wrinkle: fine garment: %w", err)
	}
	if top.NumIsolated > 0 {
		return nil, fmt.Errorf("wrinkle: fine garment has %d vertices in no triangle", top.NumIsolated)
	}
	c := &Coarse{Mesh: &mesh.Mesh{}, Weights: skel.Weights{Offsets: []int32{0}}, FinePiece: top.VertComp}
	for p := 0; p < top.NumComps; p++ {
		part, ids := componentMesh(m, top, int32(p))
		budget := max(16, verts*len(ids)/len(m.Verts))
		decim := decimate
		if opt.Quadric {
			decim = simplifyTo
		}
		out, kept, err := decim(part, budget)
		if err != nil {
			return nil, fmt.Errorf("wrinkle: coarse piece %d: %w", p, err)
		}
		cp := CoarsePiece{Mesh: out, First: len(c.Mesh.Verts), Weights: skel.Weights{Offsets: []int32{0}}}
		off := int32(len(c.Mesh.Verts))
		for _, k := range kept {
			fv := ids[k]
			js, ws := w.Influences(int(fv))
			for _, dst := range []*skel.Weights{&cp.Weights, &c.Weights} {
				dst.Joints = append(dst.Joints, js...)
				dst.W = append(dst.W, ws...)
				dst.Offsets = append(dst.Offsets, int32(len(dst.Joints)))
			}
			c.Kept = append(c.Kept, fv)
			c.VertPiece = append(c.VertPiece, int32(p))
		}
		c.Mesh.Verts = append(c.Mesh.Verts, out.Verts...)
		for _, t := range out.Tris {
			c.Mesh.Tris = append(c.Mesh.Tris, [3]int32{t[0] + off, t[1] + off, t[2] + off})
		}
		c.Pieces = append(c.Pieces, cp)
	}
	return c, nil
}

// componentMesh returns component p of m as its own mesh and the fine
// vertex of each of its vertices.
func componentMesh(m *mesh.Mesh, top *mesh.Topology, p int32) (*mesh.Mesh, []int32) {
	local := make(map[int32]int32)
	var ids []int32
	for v, c := range top.VertComp {
		if c == p {
			local[int32(v)] = int32(len(ids))
			ids = append(ids, int32(v))
		}
	}
	part := &mesh.Mesh{}
	for _, v := range ids {
		part.Verts = append(part.Verts, m.Verts[v])
	}
	for t, c := range top.TriComp {
		if c == p {
			tr := m.Tris[t]
			part.Tris = append(part.Tris, [3]int32{local[tr[0]], local[tr[1]], local[tr[2]]})
		}
	}
	return part, ids
}

// simplifyTo decimates m to about n vertices by quadric error. A mesh
// with boundary b has about 2n − b − 2 triangles for n vertices, so the
// triangle target is corrected once from the first attempt's count.
func simplifyTo(m *mesh.Mesh, n int) (*mesh.Mesh, []int32, error) {
	if len(m.Verts) <= n {
		kept := make([]int32, len(m.Verts))
		for i := range kept {
			kept[i] = int32(i)
		}
		return m, kept, nil
	}
	var pre []int32 // the input vertex of each vertex of m after the pre-pass
	if len(m.Verts) > quadricPrePass*n {
		var err error
		if m, pre, err = decimate(m, quadricPrePass*n); err != nil {
			return nil, nil, err
		}
	}
	out, kept, err := simplifyTris(m, n)
	if err != nil {
		return nil, nil, err
	}
	if pre != nil {
		for i, k := range kept {
			kept[i] = pre[k]
		}
	}
	return out, kept, nil
}

// quadricPrePass bounds the vertices of a piece that quadric decimation
// starts from, in multiples of its budget; a finer piece is first
// decimated shortest edge first to that many. On a fine piece nearly every
// collapse along a sleeve or trouser leg costs no quadric error, and
// mesh.Simplify stops short of the budget among slivers a limb long: on
// the procedural suit at 46k vertices, 835 coarse vertices for 700, edges
// up to 77 cm (p99), on which the coarse simulation's strain limit took
// hundreds of sweeps a substep. With the pre-pass that suit decimates like
// the 3.6k one does without it (p99 edge 21 against 22 cm); a piece under
// eight times its budget (the demo's) is decimated as before.
const quadricPrePass = 8

// simplifyTris decimates m to about n vertices with mesh.Simplify.
func simplifyTris(m *mesh.Mesh, n int) (*mesh.Mesh, []int32, error) {
	if len(m.Verts) <= n {
		kept := make([]int32, len(m.Verts))
		for i := range kept {
			kept[i] = int32(i)
		}
		return m, kept, nil
	}
	tris := max(2*n, 8)
	out, kept, err := mesh.Simplify(m, mesh.SimplifyOptions{MinTris: tris})
	if err != nil {
		return nil, nil, err
	}
	if d := n - len(out.Verts); d > n/50 || -d > n/50 {
		tris = max(8, tris+2*d)
		if out, kept, err = mesh.Simplify(m, mesh.SimplifyOptions{MinTris: tris}); err != nil {
			return nil, nil, err
		}
	}
	if len(out.Tris) == 0 {
		return nil, nil, errors.New("decimation left no triangles")
	}
	return out, kept, nil
}
