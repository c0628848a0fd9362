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
			fmt.Fprintf(w, "   garment %d vertices, %d triangles, %d pinned; body %d vertices; %d frames at %g fps; pleat %d substeps/frame\n",
				c.Verts, c.Tris, c.Pins, c.BodyVerts, c.Frames, c.FPS, c.Substeps)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		bname := "Blender"
		if c.Blender.Version != "" {
			bname = c.Blender.Version
		}
		row := func(name string, p, b string) { fmt.Fprintf(tw, "%s\t%s\t%s\t\n", name, p, b) }
		row("", "pleat", bname)
		row("ms/frame (median)", ms(c.Pleat.Ran, c.Pleat.Time.Median), ms(c.Blender.Ran, c.Blender.Time.Median))
		row("ms/frame min–max", rng(c.Pleat.Ran, c.Pleat.Time), rng(c.Blender.Ran, c.Blender.Time))
		row("frames/s", num(c.Pleat.Ran, c.Pleat.Time.FPS(), "%.2f"), num(c.Blender.Ran, c.Blender.Time.FPS(), "%.2f"))
		row("frames timed", num(c.Pleat.Ran, float64(c.Pleat.Time.Frames), "%.0f"), num(c.Blender.Ran, float64(c.Blender.Time.Frames), "%.0f"))
		row("frame-update overhead ms", "-", num(c.Blender.Ran && c.Blender.Overhead.Frames > 0, c.Blender.Overhead.Median, "%.1f"))
		row("CG iterations/frame", num(c.Pleat.Ran, c.Pleat.CGIterations, "%.0f"), "-")
		row("max edge strain", num(c.Pleat.Ran, c.Pleat.Quality.MaxStrain, "%.3f"), num(c.Blender.Ran, c.Blender.Quality.MaxStrain, "%.3f"))
		row("p99 edge strain (median)", num(c.Pleat.Ran, c.Pleat.Quality.P99Strain, "%.4f"), num(c.Blender.Ran, c.Blender.Quality.P99Strain, "%.4f"))
		row("penetrations >2 mm (vertex-frames)", num(c.Pleat.Ran, float64(c.Pleat.Quality.Deep), "%.0f"), num(c.Blender.Ran, float64(c.Blender.Quality.Deep), "%.0f"))
		row("inside body (vertex-frames)", num(c.Pleat.Ran, float64(c.Pleat.Quality.Inside), "%.0f"), num(c.Blender.Ran, float64(c.Blender.Quality.Inside), "%.0f"))
		row("deepest mm", num(c.Pleat.Ran, 1000*c.Pleat.Quality.MaxDepth, "%.1f"), num(c.Blender.Ran, 1000*c.Blender.Quality.MaxDepth, "%.1f"))
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range []struct {
			name string
			side Side
		}{{"pleat", c.Pleat}, {bname, c.Blender}} {
			if s.side.Err != "" {
				fmt.Fprintf(w, "   %s: %s\n", s.name, firstLines(s.side.Err, 12))
			}
		}
		if c.Ratio > 0 {
			fmt.Fprintf(w, "   speed ratio (Blender / pleat, median ms per frame, this run): %.2f× (%.2f× net of Blender's frame-update overhead)\n", c.Ratio, c.NetRatio)
			pq, bq := c.Pleat.Quality, c.Blender.Quality
			fmt.Fprintf(w, "   goal ≥ %g× at equal or lower stretch and penetrations: %s (speed %s, max strain %s, penetrations %s)\n", float64(GoalRatio),
				metStr(c.NetRatio >= GoalRatio && pq.MaxStrain <= bq.MaxStrain && pq.Deep <= bq.Deep),
				metStr(c.NetRatio >= GoalRatio), metStr(pq.MaxStrain <= bq.MaxStrain), metStr(pq.Deep <= bq.Deep))
			if hint := qualityGap(pq, bq); c.NetRatio < GoalRatio && hint != "" {
				fmt.Fprintf(w, "   %s\n", hint)
			}
		}
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

// qualityGap says, when Blender's errors are several times pleat's on both
// measures, that the speed ratio compares unequal results and how to
// compare closer ones; "" otherwise.
func qualityGap(pq, bq Quality) string {
	if !(pq.MaxStrain > 0) || bq.MaxStrain < 3*pq.MaxStrain || bq.Deep < 3*max(pq.Deep, 1) {
		return ""
	}
	return fmt.Sprintf("Blender's max strain is %.0f× and its penetrations %.0f× pleat's: this ratio compares unequal results; raise Blender's steps per frame (--blender-quality) to compare at closer quality", bq.MaxStrain/pq.MaxStrain, float64(bq.Deep)/float64(max(pq.Deep, 1)))
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
