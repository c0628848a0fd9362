package bench

import (
	"context"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// blenderRunner runs Blender on one case at the steps per frame asked,
// scores each run and records it in the case.
type blenderRunner struct {
	ctx      context.Context
	c        *SimCase
	in       BlenderInput
	lead     int // run-up frames before frame 0 (runUp): not timed or scored
	rest     *mesh.Mesh
	bodyTris [][3]int32
	bodies   [][]geom.Vec3
	opt      SimOptions
	runs     map[int]*Side
}

// compare runs Blender at opt.BlenderQuality (c.Blender), then, unless
// opt.NoSearch, searches the fewest steps per frame at which Blender
// reaches pleat's quality (c.Matched, c.BlenderMatched).
func (r *blenderRunner) compare() {
	c := r.c
	r.runs = map[int]*Side{}
	c.Blender = *r.run(r.opt.BlenderQuality)
	c.Ratio, c.NetRatio = c.ratios(c.Blender)
	if !c.Blender.Ran || r.opt.NoSearch || !c.Pleat.Ran {
		return
	}
	most := max(r.opt.MaxQuality, r.opt.BlenderQuality)
	if c.Matched = searchSteps(r.opt.BlenderQuality, most, r.reached); c.Matched > 0 {
		c.BlenderMatched = *r.runs[c.Matched]
		c.MatchedRatio, c.MatchedNetRatio = c.ratios(c.BlenderMatched)
	}
}

// ratios returns Blender's median time per frame over pleat's, plain and
// net of Blender's frame-update overhead; 0s when a side is missing.
func (c *SimCase) ratios(b Side) (ratio, net float64) {
	p := c.Pleat
	if !b.Ran || !p.Ran || !(p.Time.Median > 0) {
		return 0, 0
	}
	return b.Time.Median / p.Time.Median, math.Max(0, b.Time.Median-b.Overhead.Median) / p.Time.Median
}

// reached runs Blender at steps per frame (once) and says whether its max
// strain and deep penetrations are at most pleat's.
func (r *blenderRunner) reached(steps int) bool {
	return reaches(*r.run(steps), r.c.Pleat.Quality)
}

// reaches says whether a Blender run without error has a max strain and
// deep penetrations at most pleat's, p, and no lost (non-finite) vertex.
func reaches(b Side, p Quality) bool {
	return b.Ran && b.Err == "" && b.Quality.NonFinite == 0 &&
		b.Quality.MaxStrain <= p.MaxStrain && b.Quality.Deep <= p.Deep
}

// run runs Blender at the given steps per frame, once per value, and
// appends the run to c.Search.
func (r *blenderRunner) run(steps int) *Side {
	if b, ok := r.runs[steps]; ok {
		return b
	}
	c, opt := r.c, r.opt
	in := r.in
	in.Cloth.Quality = steps
	b := &Side{Settings: in.Cloth.Map()}
	r.runs[steps] = b
	if err := r.ctx.Err(); err != nil {
		b.Err = "skipped: " + err.Error()
		c.Search = append(c.Search, QualityTry{Steps: steps, Side: *b})
		return b
	}
	fmt.Fprintf(opt.Log, "%s: Blender, %d steps per frame, %d+%d frames, %d vertices\n", c.Name, steps, r.lead, len(in.BodyFrames)-r.lead, len(in.Rest.Verts))
	out, err := RunBlender(r.ctx, opt.Blender, opt.WorkDir, fmt.Sprintf("%s-q%d", c.Name, steps), in, opt.Log)
	if err != nil {
		b.Err = err.Error()
	}
	if out != nil {
		out.Frames, out.FrameSeconds = out.Frames[r.lead:], out.FrameSeconds[r.lead:]
		if len(out.OverheadSeconds) > r.lead {
			out.OverheadSeconds = out.OverheadSeconds[r.lead:]
		}
		b.Ran = true
		b.Version = "Blender " + out.Version
		b.Time = timesMs(secondsToMs(out.FrameSeconds[1:]))
		if len(out.OverheadSeconds) > 1 {
			b.Overhead = timesMs(secondsToMs(out.OverheadSeconds[1:]))
		}
		if b.Quality, err = Score(r.rest, out.Frames, r.bodyTris, r.bodies); err != nil {
			c.Notes = append(c.Notes, fmt.Sprintf("Blender score at %d steps: %v", steps, err))
		}
	}
	c.Search = append(c.Search, QualityTry{Steps: steps, Reached: reaches(*b, c.Pleat.Quality), Side: *b})
	return b
}

// searchSteps returns the fewest steps per frame in [1, most] for which
// reached is true, 0 when reached(most) is not. From first it doubles
// until reached (or most is tried), then bisects between the last value
// not reached and the first reached; when first is reached already it
// bisects below it. The bisection takes quality as monotone in the steps,
// which Blender's solver is only roughly: the answer is a value that
// reaches, with the one below it not reaching. reached is called at most
// about 2·log2(most/first)+1 times and never twice with one value.
func searchSteps(first, most int, reached func(steps int) bool) int {
	lo, hi := 0, 0 // the largest value known not to reach, the smallest known to
	if first > most {
		first = most
	}
	if reached(first) {
		hi = first
	} else {
		lo = first
		for hi == 0 && lo < most {
			q := min(2*lo, most)
			if reached(q) {
				hi = q
			} else {
				lo = q
			}
		}
		if hi == 0 {
			return 0
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if reached(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
