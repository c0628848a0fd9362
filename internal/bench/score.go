package bench

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// DeepPenetration is the depth (m) beyond which a vertex inside the body
// counts as a penetration: 2 mm, as package sim's FrameStats.Deep.
const DeepPenetration = 0.002

// Quality scores a garment animation against its rest shape and the body it
// collides with. Frame 0 (the common, settled start) is not scored.
type Quality struct {
	// Frames is the number of frames scored.
	Frames int
	// MaxStrain is the largest edge strain |x_i−x_j|/L0 − 1 over all edges
	// and frames whose two ends are finite; P99Strain is the median over
	// frames of each frame's 99th percentile edge strain.
	MaxStrain, P99Strain float64
	// NonFinite counts vertex-frames with a NaN or infinite position (a
	// diverged run); they also count as Inside and Deep, and their edges
	// are left out of the strain, so every field stays finite (JSON has no
	// Inf).
	NonFinite int
	// Inside counts vertex-frames inside the body, Deep those more than
	// DeepPenetration inside; MaxDepth is the deepest, m.
	Inside, Deep int
	MaxDepth     float64
}

// Edges returns the unique edges of tris (i < j), sorted.
func Edges(tris [][3]int32) [][2]int32 {
	keys := make([]uint64, 0, 3*len(tris))
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			if a > b {
				a, b = b, a
			}
			keys = append(keys, uint64(uint32(a))<<32|uint64(uint32(b)))
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var out [][2]int32
	for i, k := range keys {
		if i > 0 && k == keys[i-1] {
			continue
		}
		out = append(out, [2]int32{int32(k >> 32), int32(uint32(k))})
	}
	return out
}

// Score computes the quality of frames (garment positions per frame, in the
// vertex order of rest) against the rest edge lengths and the body: bodyTris
// with bodyFrames[f] the body at frame f. Frames beyond len(bodyFrames) and
// frame 0 are not scored. Penetration uses collide.Body's signed distance
// (angle-weighted pseudo-normals), unbounded in depth.
func Score(rest *mesh.Mesh, frames [][]geom.Vec3, bodyTris [][3]int32, bodyFrames [][]geom.Vec3) (Quality, error) {
	var q Quality
	n := min(len(frames), len(bodyFrames))
	if n < 2 {
		return q, nil
	}
	edges := Edges(rest.Tris)
	l0 := make([]float64, len(edges))
	for i, e := range edges {
		l0[i] = rest.Verts[e[0]].Sub(rest.Verts[e[1]]).Len()
	}
	body, err := collide.NewBody(&mesh.Mesh{Verts: bodyFrames[0], Tris: bodyTris})
	if err != nil {
		return q, fmt.Errorf("bench: body: %w", err)
	}
	strain := make([]float64, 0, len(edges))
	var p99 []float64
	workers := runtime.GOMAXPROCS(0)
	for f := 1; f < n; f++ {
		x := frames[f]
		if len(x) != len(rest.Verts) {
			return q, fmt.Errorf("bench: frame %d has %d vertices, rest %d", f, len(x), len(rest.Verts))
		}
		for _, p := range x {
			if !p.IsFinite() {
				q.NonFinite++
			}
		}
		strain = strain[:0]
		for i, e := range edges {
			if l0[i] <= 0 {
				continue
			}
			s := x[e[0]].Sub(x[e[1]]).Len()/l0[i] - 1
			if math.IsNaN(s) || math.IsInf(s, 0) {
				continue
			}
			strain = append(strain, s)
		}
		if len(strain) > 0 {
			sort.Float64s(strain)
			q.MaxStrain = math.Max(q.MaxStrain, strain[len(strain)-1])
			p99 = append(p99, strain[min(len(strain)-1, int(0.99*float64(len(strain))))])
		}
		body.SetFrame(bodyFrames[f])
		in, deep, depth := penetrations(body, x, workers)
		q.Inside += in
		q.Deep += deep
		q.MaxDepth = math.Max(q.MaxDepth, depth)
		q.Frames++
	}
	q.P99Strain = median(p99)
	return q, nil
}

// penetrations counts the points of x inside body and deeper than
// DeepPenetration, and returns the deepest, in parallel over workers.
func penetrations(body *collide.Body, x []geom.Vec3, workers int) (inside, deep int, maxDepth float64) {
	body.SignedDistance(geom.Vec3{}) // refit once before the concurrent queries
	workers = max(1, min(workers, len(x)/1024+1))
	type part struct {
		in, deep int
		depth    float64
	}
	parts := make([]part, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p part
			for i := w; i < len(x); i += workers {
				c := body.SignedDistance(x[i])
				if !(c.Dist < 0) {
					if !x[i].IsFinite() {
						p.deep++ // a lost vertex counts as a penetration
						p.in++
					}
					continue
				}
				p.in++
				if -c.Dist > DeepPenetration {
					p.deep++
				}
				p.depth = math.Max(p.depth, -c.Dist)
			}
			parts[w] = p
		}()
	}
	wg.Wait()
	for _, p := range parts {
		inside += p.in
		deep += p.deep
		maxDepth = math.Max(maxDepth, p.depth)
	}
	return inside, deep, maxDepth
}

// Timing summarises per-frame wall times.
type Timing struct {
	// Frames is the number of frames timed.
	Frames int
	// Median, Min and Max are per frame, ms.
	Median, Min, Max float64
	// Total is the sum, s.
	Total float64
}

// FPS is 1000/Median, frames per second of wall time.
func (t Timing) FPS() float64 {
	if t.Median <= 0 {
		return 0
	}
	return 1000 / t.Median
}

// Times summarises durations.
func Times(d []time.Duration) Timing {
	ms := make([]float64, len(d))
	for i, x := range d {
		ms[i] = float64(x) / 1e6
	}
	return timesMs(ms)
}

func timesMs(ms []float64) Timing {
	t := Timing{Frames: len(ms)}
	if len(ms) == 0 {
		return t
	}
	t.Min, t.Max = math.Inf(1), math.Inf(-1)
	for _, x := range ms {
		t.Total += x / 1000
		t.Min = math.Min(t.Min, x)
		t.Max = math.Max(t.Max, x)
	}
	t.Median = median(ms)
	return t
}

// median returns the median of x (mean of the two middle values for even
// lengths), 0 for none; x is not modified.
func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
