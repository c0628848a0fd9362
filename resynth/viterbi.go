package resynth

import (
	"context"
	"math"
	"slices"

	"github.com/pleat-dev/pleat/internal/workpool"
)

// index is the database flattened for matching: frames of all clips in
// order, with their features and nearest neighbours.
type index struct {
	fs       *features
	lambda   float64
	clipOf   []int32 // clip of each frame
	local    []int32 // frame within its clip
	start    []int32 // first frame of each clip; start[len(clips)] = N
	pos, vel []float64
	// nbr[j] are the K frames nearest j by matching cost (frames of j's
	// own clip within 2 of it left out), with the costs nd[j]; sorted by
	// cost, then index.
	nbr [][]int32
	nd  [][]float64
}

func (ix *index) n() int { return len(ix.clipOf) }

// sameClip reports whether frames a and b (both in range) are in one clip.
func (ix *index) sameClip(a, b int) bool { return ix.clipOf[a] == ix.clipOf[b] }

func newIndex(db *DB, fs *features, lambda float64, k int, pool *workpool.Pool) *index {
	ix := &index{fs: fs, lambda: lambda}
	for c := range db.Clips {
		cl := &db.Clips[c]
		ix.start = append(ix.start, int32(len(ix.clipOf)))
		p, v := fs.compute(cl.Joints, cl.FPS)
		ix.pos = append(ix.pos, p...)
		ix.vel = append(ix.vel, v...)
		for f := range cl.Joints {
			ix.clipOf = append(ix.clipOf, int32(c))
			ix.local = append(ix.local, int32(f))
		}
	}
	ix.start = append(ix.start, int32(len(ix.clipOf)))
	n := ix.n()
	ix.nbr = make([][]int32, n)
	ix.nd = make([][]float64, n)
	k = min(k, n)
	pool.Run(n, 16, func(lo, hi int) {
		type cand struct {
			i int32
			d float64
		}
		var cs []cand
		for j := lo; j < hi; j++ {
			cs = cs[:0]
			for i := 0; i < n; i++ {
				if ix.sameClip(i, j) && i >= j-2 && i <= j+2 {
					continue
				}
				cs = append(cs, cand{int32(i), fs.cost(ix.pos, ix.vel, i, ix.pos, ix.vel, j, lambda)})
			}
			kk := min(k, len(cs))
			// Partial selection then a sort of the K kept: deterministic
			// by (cost, index).
			less := func(a, b cand) int {
				if a.d != b.d {
					if a.d < b.d {
						return -1
					}
					return 1
				}
				return int(a.i - b.i)
			}
			slices.SortFunc(cs, less)
			ix.nbr[j] = make([]int32, kk)
			ix.nd[j] = make([]float64, kk)
			for q := 0; q < kk; q++ {
				ix.nbr[j][q], ix.nd[j][q] = cs[q].i, cs[q].d
			}
		}
	})
	return ix
}

// unary returns the matching cost of each target frame against each
// database frame, target-major (u[t·N + i]).
func (ix *index) unary(tpos, tvel []float64, nt int, pool *workpool.Pool) []float64 {
	n := ix.n()
	u := make([]float64, nt*n)
	pool.Run(nt, 8, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			row := u[t*n : (t+1)*n]
			for i := range row {
				row[i] = ix.fs.cost(tpos, tvel, t, ix.pos, ix.vel, i, ix.lambda)
			}
		}
	})
	return u
}

// viterbi returns the least-cost path through the database for unary
// costs u (nt × N): the transition from frame i to frame j costs 0 when j
// is i's successor in its clip, skip when j repeats i or drops one frame
// (j = i or j = i+2 in one clip), and jump plus the matching cost between
// i's successor (i itself at a clip's end) and j for any other j among the
// K nearest neighbours of that successor (paper: "Finding a Sequence").
// Ties go to the smaller predecessor index.
func (ix *index) viterbi(ctx context.Context, u []float64, nt int, jump, skip float64) ([]int32, error) {
	n := ix.n()
	prev := slices.Clone(u[:n])
	cur := make([]float64, n)
	back := make([]int32, nt*n)
	for t := 1; t < nt; t++ {
		if t%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		bk := back[t*n : (t+1)*n]
		ut := u[t*n : (t+1)*n]
		for j := 0; j < n; j++ {
			best, arg := prev[j]+skip, int32(j)
			if j >= 1 && ix.sameClip(j-1, j) && prev[j-1] <= best {
				best, arg = prev[j-1], int32(j-1)
			}
			if j >= 2 && ix.sameClip(j-2, j) && prev[j-2]+skip < best {
				best, arg = prev[j-2]+skip, int32(j-2)
			}
			for q, k := range ix.nbr[j] {
				c := jump + ix.nd[j][q]
				if c >= best {
					break // sorted by cost
				}
				// Predecessors whose successor is k: k−1 in k's clip,
				// and k itself at its clip's end.
				if k >= 1 && ix.sameClip(int(k-1), int(k)) {
					if v := prev[k-1] + c; v < best || (v == best && k-1 < arg) {
						best, arg = v, k-1
					}
				}
				if int(k)+1 == n || !ix.sameClip(int(k), int(k)+1) {
					if v := prev[k] + c; v < best || (v == best && k < arg) {
						best, arg = v, k
					}
				}
			}
			cur[j] = best + ut[j]
			bk[j] = arg
		}
		prev, cur = cur, prev
	}
	path := make([]int32, nt)
	best := math.Inf(1)
	for j := 0; j < n; j++ {
		if prev[j] < best {
			best, path[nt-1] = prev[j], int32(j)
		}
	}
	for t := nt - 1; t > 0; t-- {
		path[t-1] = back[t*n+int(path[t])]
	}
	return path, nil
}
