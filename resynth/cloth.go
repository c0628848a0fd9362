package resynth

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/internal/workpool"
)

// clothSamples is the number of garment vertices (evenly spaced ids) that
// describe a database frame's cloth state for transition costs.
const clothSamples = 256

// clothDescriptors returns, for every database frame in index order, the
// positions of up to clothSamples garment vertices carried back to the
// rest pose by the inverse skinning transform of each vertex's heaviest
// joint, flat (dim values per frame). Two frames whose descriptors are
// close hold the cloth in the same state relative to the body.
func clothDescriptors(db *DB, ix *index, pool *workpool.Pool) (desc []float64, dim int) {
	g := &db.Garment
	n := len(g.Rest)
	m := min(clothSamples, n)
	verts := make([]int, m)
	joint := make([]int32, m)
	for k := range verts {
		v := k * n / m
		verts[k] = v
		js, ws := g.Weights.Influences(v)
		best := float32(-1)
		for i := range js {
			if ws[i] > best {
				best, joint[k] = ws[i], js[i]
			}
		}
	}
	dim = 3 * m
	desc = make([]float64, ix.n()*dim)
	pool.Run(ix.n(), 32, func(lo, hi int) {
		var skin []geom.Rigid
		for i := lo; i < hi; i++ {
			c := &db.Clips[ix.clipOf[i]]
			f := int(ix.local[i])
			skin = db.Rig.SkinTransforms(c.Joints[f], skin)
			d := desc[i*dim : (i+1)*dim]
			for k, v := range verts {
				p := c.Pos[3*(f*n+v):]
				x := geom.Vec3{X: float64(p[0]), Y: float64(p[1]), Z: float64(p[2])}
				r := skin[joint[k]].Inverse().Apply(x)
				d[3*k], d[3*k+1], d[3*k+2] = r.X, r.Y, r.Z
			}
		}
	})
	return desc, dim
}

// addClothCost adds w times the root-mean-square distance between the
// cloth descriptors of each frame and its neighbours to the neighbours'
// transition costs, and sorts them again: a transition then also costs
// the jump in the cloth's state it makes, which the 5-frame smoothing has
// to hide.
func (ix *index) addClothCost(desc []float64, dim int, w float64, pool *workpool.Pool) {
	m := float64(dim / 3)
	pool.Run(ix.n(), 64, func(lo, hi int) {
		type cand struct {
			i int32
			d float64
		}
		var cs []cand
		for j := lo; j < hi; j++ {
			cs = cs[:0]
			dj := desc[j*dim : (j+1)*dim]
			for q, k := range ix.nbr[j] {
				d := math.Sqrt(dist2(dj, desc[int(k)*dim:(int(k)+1)*dim]) / m)
				cs = append(cs, cand{k, ix.nd[j][q] + w*d})
			}
			slices.SortFunc(cs, func(a, b cand) int {
				if a.d != b.d {
					if a.d < b.d {
						return -1
					}
					return 1
				}
				return int(a.i - b.i)
			})
			for q := range cs {
				ix.nbr[j][q], ix.nd[j][q] = cs[q].i, cs[q].d
			}
		}
	})
}
