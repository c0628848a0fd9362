package layers

import (
	"sort"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// ShowThrough measures skin showing through the cloth at the level of
// faces: a per-vertex test of the cloth misses the body poking through a
// cloth triangle between corners that are all outside it (a chord of
// length L over skin of radius R sags L²/8R into it).
//
// The body vertices counted are those the cloth covers in the rest pose:
// a ray along the body normal from pokeDepth below the skin meets a cloth
// face within coverReach. In a frame such a vertex p with normal n shows
// through where the ray p + t·n, t ≥ 0, meets no cloth within showReach
// but the ray backwards, into the body, meets a cloth face within
// pokeWindow: the cloth that covered it lies under the skin there, with
// none in front; it counts where that cloth is more than pokeDepth deep.
type ShowThrough struct {
	// Covered is the number of body vertices covered at rest.
	Covered int
	// Frac is the fraction of the covered body-vertex-frames that show
	// through by more than pokeDepth; Count is their number. Any counts
	// those showing through by any depth (where a renderer's depth test
	// shows skin).
	Frac       float64
	Count, Any int
	// MeanDepth and MaxDepth are the depths of the cloth under the skin
	// at those (m).
	MeanDepth, MaxDepth float64
}

// PartShow is the show-through of one body part (the body vertices whose
// strongest skinning joint is Joint), summed over frames.
type PartShow struct {
	Joint string
	// Covered is the part's covered body vertices; Layered, Simulated
	// and Skinned their vertex-frames showing through.
	Covered                     int
	Layered, Simulated, Skinned int
}

const (
	// pokeDepth (m): skin this far in front of the cloth face behind it
	// counts as showing through
	pokeDepth = 0.002
	// coverReach (m): a body vertex is covered when the cloth lies this
	// near along its normal in the rest pose
	coverReach = 0.10
	// showReach (m): cloth this far in front of the skin still hides it
	showReach = 0.5
	// pokeWindow (m): how far behind the skin the cloth that covered it
	// is looked for (the body is thicker than this where cloth covers it)
	pokeWindow = 0.03
)

// showMeter counts show-through for one animation of an outfit.
type showMeter struct {
	bvh   *mesh.BVH
	n     int // body-vertex-frames tested
	cnt   int
	any   int
	depth float64
	maxD  float64
	part  []int // per body part (joint), vertex-frames showing through
}

// showCover returns the body vertices the outfit covers at rest and a
// cloth BVH to refit per frame.
func showCover(body *mesh.Mesh, outfit *mesh.Mesh) ([]int32, *mesh.BVH) {
	bvh := mesh.NewBVH(outfit.Verts, outfit.Tris)
	nrm := mesh.VertexNormals(body, nil)
	var cov []int32
	for v, p := range body.Verts {
		n := nrm[v]
		if n == (geom.Vec3{}) {
			continue
		}
		if _, ok := bvh.Raycast(p.AddScaled(-pokeDepth, n), n, coverReach+pokeDepth); ok {
			cov = append(cov, int32(v))
		}
	}
	return cov, bvh
}

// add tests the covered body vertices cov (posed at bx with normals bn)
// against the cloth at x; dom is each body vertex's strongest joint.
func (m *showMeter) add(cov []int32, bx, bn, x []geom.Vec3, dom []int32) {
	m.bvh.Refit(x)
	for _, v := range cov {
		p, n := bx[v], bn[v]
		if n == (geom.Vec3{}) {
			continue
		}
		m.n++
		if _, ok := m.bvh.Raycast(p, n, showReach); ok {
			continue
		}
		h, ok := m.bvh.Raycast(p, n.Neg(), pokeWindow)
		if !ok {
			continue // uncovered (the cloth moved off), not through
		}
		if m.any++; h.T <= pokeDepth {
			continue
		}
		m.cnt++
		m.part[dom[v]]++
		m.depth += h.T
		m.maxD = max(m.maxD, h.T)
	}
}

func (m *showMeter) result(covered int) ShowThrough {
	r := ShowThrough{Covered: covered, Count: m.cnt, Any: m.any, MaxDepth: m.maxD}
	if m.n > 0 {
		r.Frac = float64(m.cnt) / float64(m.n)
	}
	if m.cnt > 0 {
		r.MeanDepth = m.depth / float64(m.cnt)
	}
	return r
}

// dominantJoints returns each body vertex's strongest skinning joint.
func dominantJoints(ch *character.Character) []int32 {
	dom := make([]int32, len(ch.Body.Verts))
	for v := range dom {
		js, ws := ch.Weights.Influences(v)
		best := float32(-1)
		for k, w := range ws {
			if w > best {
				best, dom[v] = w, js[k]
			}
		}
	}
	return dom
}

// partShows gathers the per-part counts of the three meters, the parts
// with any covered vertex, most showing (layered) first.
func partShows(ch *character.Character, cov []int32, dom []int32, ms [3]*showMeter) []PartShow {
	covered := make([]int, ch.Skeleton.NumJoints())
	for _, v := range cov {
		covered[dom[v]]++
	}
	var out []PartShow
	for j, c := range covered {
		if c == 0 {
			continue
		}
		out = append(out, PartShow{Joint: ch.Skeleton.Joint(j).Name, Covered: c,
			Layered: ms[0].part[j], Simulated: ms[1].part[j], Skinned: ms[2].part[j]})
	}
	sort.SliceStable(out, func(i, k int) bool {
		if out[i].Layered != out[k].Layered {
			return out[i].Layered > out[k].Layered
		}
		return out[i].Joint < out[k].Joint
	})
	return out
}
