package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Goals of the performance section, checked (not asserted) by
// WriteTable.
const (
	// GoalWalkMs is the walk case's goal, ms per frame on 2 cores.
	GoalWalkMs = 500
	// GoalCoarseFPS is the coarse case's goal, frames per second.
	GoalCoarseFPS = 500
	// GoalRatio is the speed-up asked over Blender at equal or lower
	// stretch and penetration.
	GoalRatio = 2
)

// WriteTable prints the report as side-by-side tables, one per case.
func WriteTable(w io.Writer, r *SimReport) error {
	fmt.Fprintf(w, "pleat bench sim: %s, GOMAXPROCS %d, %d CPUs\n", r.GoVersion, r.GOMAXPROCS, r.NumCPU)
	for _, c := range r.Cases {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "== %s: %s\n", c.Name, c.Scene)
		if c.Verts > 0 {
			fmt.Fprintf(w, "   garment %d vertices, %d triangles, %d pinned; body %d vertices, collision proxy %d vertices, %d triangles; %d frames at %g fps; pleat %d substeps/frame\n",
				c.Verts, c.Tris, c.Pins, c.BodyVerts, c.ProxyVerts, c.ProxyTris, c.Frames, c.FPS, c.Substeps)
		}
		if err := writeSides(w, c); err != nil {
			return err
		}
		writeSearch(w, c)
		if c.Pleat.Ran && c.Pleat.Err == "" {
			switch c.Name {
			case CaseWalk:
				fmt.Fprintf(w, "   goal ≤ %d ms/frame (2 cores, body collision): %s\n", GoalWalkMs, metStr(c.Pleat.Time.Median <= GoalWalkMs))
			case CaseCoarse:
				fmt.Fprintf(w, "   goal ≥ %d frames/s: %s\n", GoalCoarseFPS, metStr(c.Pleat.Time.FPS() >= GoalCoarseFPS))
			}
		}
		for _, n := range c.Notes {
			fmt.Fprintf(w, "   note: %s\n", n)
		}
	}
	return nil
}

// column is one simulator's column of a case's table.
type column struct {
	name string
	side Side
}

// columns returns the case's columns: pleat, Blender at its default
// steps, and Blender at the matched steps (or, unmatched, at the most
// steps tried) when that is another run.
func columns(c *SimCase) []column {
	bname := "Blender"
	if c.Blender.Version != "" {
		bname = c.Blender.Version
	}
	cols := []column{{"pleat", c.Pleat}}
	if len(c.Search) == 0 {
		return append(cols, column{bname, c.Blender})
	}
	first := c.Search[0].Steps
	cols = append(cols, column{fmt.Sprintf("%s, %d steps", bname, first), c.Blender})
	if c.Matched > 0 && c.Matched != first {
		cols = append(cols, column{fmt.Sprintf("%d steps (matched)", c.Matched), c.BlenderMatched})
	} else if t := mostSteps(c.Search); c.Matched == 0 && t.Steps != first {
		cols = append(cols, column{fmt.Sprintf("%d steps (unmatched)", t.Steps), t.Side})
	}
	return cols
}

// mostSteps returns the try with the most steps per frame.
func mostSteps(tries []QualityTry) QualityTry {
	var m QualityTry
	for _, t := range tries {
		if t.Steps > m.Steps {
			m = t
		}
	}
	return m
}

// writeSides prints the table of the case's columns and their errors.
func writeSides(w io.Writer, c *SimCase) error {
	cols := columns(c)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, f func(s Side) string) {
		fmt.Fprintf(tw, "%s\t", name)
		for _, col := range cols {
			fmt.Fprintf(tw, "%s\t", f(col.side))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "\t")
	for _, col := range cols {
		fmt.Fprintf(tw, "%s\t", col.name)
	}
	fmt.Fprintln(tw)
	row("ms/frame (median)", func(s Side) string { return ms(s.Ran, s.Time.Median) })
	row("ms/frame min–max", func(s Side) string { return rng(s.Ran, s.Time) })
	row("frames/s", func(s Side) string { return num(s.Ran, s.Time.FPS(), "%.2f") })
	row("frames timed", func(s Side) string { return num(s.Ran, float64(s.Time.Frames), "%.0f") })
	row("frame-update overhead ms", func(s Side) string { return num(s.Ran && s.Overhead.Frames > 0, s.Overhead.Median, "%.1f") })
	row("CG iterations/frame", func(s Side) string { return num(s.Ran && s.CGIterations > 0, s.CGIterations, "%.0f") })
	row("max edge strain", func(s Side) string { return num(s.Ran, s.Quality.MaxStrain, "%.3f") })
	row("p99 edge strain (median)", func(s Side) string { return num(s.Ran, s.Quality.P99Strain, "%.4f") })
	row("penetrations >2 mm (vertex-frames)", func(s Side) string { return num(s.Ran, float64(s.Quality.Deep), "%.0f") })
	row("inside body (vertex-frames)", func(s Side) string { return num(s.Ran, float64(s.Quality.Inside), "%.0f") })
	row("non-finite positions (vertex-frames)", func(s Side) string { return num(s.Ran, float64(s.Quality.NonFinite), "%.0f") })
	row("deepest mm", func(s Side) string { return num(s.Ran, 1000*s.Quality.MaxDepth, "%.1f") })
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, col := range cols {
		if col.side.Err != "" {
			fmt.Fprintf(w, "   %s: %s\n", col.name, firstLines(col.side.Err, 12))
		}
	}
	return nil
}

// writeSearch prints the quality search, the speed ratios at Blender's
// default and at matched quality, and the speed goal.
func writeSearch(w io.Writer, c *SimCase) {
	if c.Ratio == 0 {
		return
	}
	pq := c.Pleat.Quality
	steps := c.Blender.Settings["quality"]
	fmt.Fprintf(w, "   speed ratio (Blender / pleat, median ms per frame, this run) at %g steps per frame: %.2f× (%.2f× net of Blender's frame-update overhead)\n", steps, c.Ratio, c.NetRatio)
	if len(c.Search) < 1 {
		return
	}
	var tries []string
	for _, t := range c.Search {
		if !t.Side.Ran {
			tries = append(tries, fmt.Sprintf("%d: failed", t.Steps))
			continue
		}
		tries = append(tries, fmt.Sprintf("%d: %.3f, %d", t.Steps, t.Side.Quality.MaxStrain, t.Side.Quality.Deep))
	}
	fmt.Fprintf(w, "   quality search (steps per frame: max strain, penetrations >2 mm) to reach pleat's %.3f, %d: %s\n", pq.MaxStrain, pq.Deep, strings.Join(tries, "; "))
	net, where := c.MatchedNetRatio, "at matched quality"
	if c.Matched > 0 {
		fmt.Fprintf(w, "   speed ratio at matched quality, %d steps per frame: %.2f× (%.2f× net)\n", c.Matched, c.MatchedRatio, c.MatchedNetRatio)
	} else {
		t := mostSteps(c.Search)
		var ratio float64
		ratio, net = c.ratios(t.Side)
		where = fmt.Sprintf("at %d steps, where Blender's quality is still below pleat's", t.Steps)
		fmt.Fprintf(w, "   matched quality: none; Blender does not reach pleat's max strain and penetrations within %d steps per frame (at %d: %.2f×, %.2f× net)\n", t.Steps, t.Steps, ratio, net)
	}
	fmt.Fprintf(w, "   goal ≥ %g× at equal or lower stretch and penetrations: %s (net ratio %.2f× %s)\n", float64(GoalRatio), metStr(net >= GoalRatio), net, where)
}

func metStr(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

func ms(ok bool, v float64) string { return num(ok, v, "%.1f") }

func num(ok bool, v float64, f string) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf(f, v)
}

func rng(ok bool, t Timing) string {
	if !ok || t.Frames == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f–%.1f", t.Min, t.Max)
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "  ...")
	}
	return strings.Join(lines, "\n   ")
}
