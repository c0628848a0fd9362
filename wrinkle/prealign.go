package wrinkle

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// Prealign is the transfer with wang2010's per-joint pre-alignment (§3.4,
// last paragraph): where two joints' regions blend (the abdomen between
// the hips, the shoulder between chest and upper arm), each joint's
// wrinkle mesh is first moved onto the coarse simulation on its own, and
// the aligned meshes are then blended, so that two wrinkle patterns that
// sit at different places are not averaged into a ghost of both.
//
// For a vertex v with influences w_J(v) from two roles or more,
//
//	x(v) = Σ_J w_J(v) (g_J(v) + T(g_J)(v)),
//
// where g_J is the synthesized fine mesh with role J's own wrinkle mesh
// (the Synthesizer's result with J's influence alone) in J's blend
// vertices, and T(g) the transfer's offsets (Transfer.Offsets, Eqs. 5–6
// smoothed). Every other vertex gets the plain transfer f + T(f). Each
// role's mesh comes from a Synthesizer of its own over the same samples,
// restricted to that role's blend vertices; a frame costs one transfer
// more per blending role.
//
// A Prealign allocates nothing per frame and is not safe for concurrent
// use; Close ends its synthesizers' goroutines.
type Prealign struct {
	t     *Transfer
	roles []alignRole
	blend []bool // vertex has two influences or more
	g, up []geom.Vec3
	acc   []geom.Vec3
}

type alignRole struct {
	role  Role
	synth *Synthesizer
	verts []int32   // the role's blend vertices
	w     []float64 // its weight there
	x     []geom.Vec3
}

// NewPrealign prepares pre-alignment for db's garment with transfer t
// (built on db's fine mesh). It holds one more Synthesizer per role that
// blends with another, each storing its blend vertices' samples.
func NewPrealign(db *DB, rig *Rig, t *Transfer) (*Prealign, error) {
	n := len(db.Rest)
	if t.NumFine() != n {
		return nil, fmt.Errorf("wrinkle: prealign: transfer for %d fine vertices, database garment %d", t.NumFine(), n)
	}
	a := &Prealign{t: t, blend: make([]bool, n), g: make([]geom.Vec3, n), up: make([]geom.Vec3, n), acc: make([]geom.Vec3, n)}
	byRole := map[Role]int{}
	for v := 0; v < n; v++ {
		rs, ws := db.Regions.Influences(v)
		if len(rs) < 2 {
			continue
		}
		a.blend[v] = true
		for i, r := range rs {
			k, ok := byRole[r]
			if !ok {
				k = len(a.roles)
				byRole[r] = k
				a.roles = append(a.roles, alignRole{role: r})
			}
			a.roles[k].verts = append(a.roles[k].verts, int32(v))
			a.roles[k].w = append(a.roles[k].w, float64(ws[i]))
		}
	}
	for k := range a.roles {
		ar := &a.roles[k]
		reg := &Regions{Region: db.Regions.Region, Offsets: make([]int32, n+1)}
		i := 0
		for v := 0; v < n; v++ {
			if i < len(ar.verts) && ar.verts[i] == int32(v) {
				reg.Roles = append(reg.Roles, ar.role)
				reg.W = append(reg.W, 1)
				i++
			}
			reg.Offsets[v+1] = int32(len(reg.Roles))
		}
		one := *db
		one.Regions = reg
		// One goroutine each: they run one after the other, beside the
		// main synthesis and the coarse simulation.
		s, err := NewSynthesizer(&one, rig, SynthOptions{Workers: 1})
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("wrinkle: prealign: %s: %w", ar.role, err)
		}
		ar.synth, ar.x = s, make([]geom.Vec3, n)
	}
	return a, nil
}

// Close ends the per-role synthesizers' goroutines.
func (a *Prealign) Close() {
	for _, ar := range a.roles {
		if ar.synth != nil {
			ar.synth.Close()
		}
	}
}

// NumRoles returns the number of roles pre-aligned (those that blend).
func (a *Prealign) NumRoles() int { return len(a.roles) }

// Synthesize makes each blending role's own wrinkle mesh for pose p. It
// may run while the coarse simulation steps; Apply uses its result.
func (a *Prealign) Synthesize(p skel.Pose) error {
	for k := range a.roles {
		if _, err := a.roles[k].synth.Synthesize(p, a.roles[k].x); err != nil {
			return err
		}
	}
	return nil
}

// Apply writes into dst the synthesized fine mesh fine (Synthesizer's
// result for the pose given to Synthesize) moved onto the coarse mesh
// with the blend vertices pre-aligned per role. dst must not alias fine.
func (a *Prealign) Apply(fine, coarse, dst []geom.Vec3) error {
	if err := a.t.check(fine, coarse, dst); err != nil {
		return err
	}
	if len(dst) > 0 && len(fine) > 0 && &dst[0] == &fine[0] {
		return fmt.Errorf("wrinkle: prealign: dst aliases the fine mesh")
	}
	a.t.Offsets(fine, coarse, a.up)
	for u := range a.up {
		dst[u] = fine[u].Add(a.up[u])
		a.acc[u] = geom.Vec3{}
	}
	for k := range a.roles {
		ar := &a.roles[k]
		copy(a.g, fine)
		for _, v := range ar.verts {
			a.g[v] = ar.x[v]
		}
		a.t.Offsets(a.g, coarse, a.up)
		for i, v := range ar.verts {
			a.acc[v] = a.acc[v].Add(a.g[v].Add(a.up[v]).Scale(ar.w[i]))
		}
	}
	for v, b := range a.blend {
		if b {
			dst[v] = a.acc[v]
		}
	}
	return nil
}
