package flow

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotPNG writes a plot of error (mm, log scale) against k (log scale) to
// path: wrinkle flow and plain PCA (RMS solid, max dashed) and skinning
// alone as horizontal lines, with the Report's target.
func (r *Report) PlotPNG(path string) error {
	if len(r.Rows) == 0 {
		return fmt.Errorf("flow: report has no rows to plot")
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %d vertices × %d frames", nameOr(r.Name), r.Verts, r.Frames)
	p.X.Label.Text = "k (components)"
	p.Y.Label.Text = "error (mm)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = kTicks(r.Rows)
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, true
	lo, hi := r.Rows[0].K, r.Rows[len(r.Rows)-1].K
	const floor = 1e-4 // mm, keeps the log scale finite
	mm := func(x float64) float64 { return max(x*1000, floor) }
	series := []struct {
		name  string
		c     color.Color
		dash  bool
		value func(Row) float64
	}{
		{"wrinkle flow RMS", color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, false, func(w Row) float64 { return w.Flow.RMS }},
		{"wrinkle flow max", color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, true, func(w Row) float64 { return w.Flow.Max }},
		{"plain PCA RMS", color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 255}, false, func(w Row) float64 { return w.PCA.RMS }},
		{"plain PCA max", color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 255}, true, func(w Row) float64 { return w.PCA.Max }},
	}
	for _, s := range series {
		xy := make(plotter.XYs, len(r.Rows))
		for i, w := range r.Rows {
			xy[i] = plotter.XY{X: float64(w.K), Y: mm(s.value(w))}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, pts.Color = s.c, s.c
		l.Width = vg.Points(1.5)
		if s.dash {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
	}
	hline := func(name string, y float64, c color.Color, dash bool) error {
		l, err := plotter.NewLine(plotter.XYs{{X: float64(lo), Y: mm(y)}, {X: float64(hi), Y: mm(y)}})
		if err != nil {
			return err
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		if dash {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	gray := color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 255}
	if err := hline("skinning only RMS", r.Skinning.RMS, gray, false); err != nil {
		return err
	}
	if err := hline("skinning only max", r.Skinning.Max, gray, true); err != nil {
		return err
	}
	if r.Target > 0 {
		if err := hline(fmt.Sprintf("target %.3g mm RMS", r.Target*1000), r.Target, color.RGBA{G: 0x99, A: 255}, true); err != nil {
			return err
		}
	}
	return p.Save(7*vg.Inch, 5*vg.Inch, path)
}

// kTicks labels the k values of the rows.
func kTicks(rows []Row) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(rows))
	for i, w := range rows {
		t[i] = plot.Tick{Value: float64(w.K), Label: fmt.Sprint(w.K)}
	}
	return t
}

func nameOr(s string) string {
	if s == "" {
		return "garment"
	}
	return s
}

// WriteMarkdown writes r as Markdown tables (errors in mm, sizes in KiB).
func (r *Report) WriteMarkdown(w io.Writer) error {
	mm := func(x float64) string { return fmt.Sprintf("%.3f", x*1000) }
	kib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/1024) }
	var s []byte
	pf := func(format string, args ...any) { s = fmt.Appendf(s, format, args...) }
	pf("# Wrinkle flow: %s\n\n", nameOr(r.Name))
	pf("%d vertices × %d frames; wrinkle-flow rank %d; binding %v.\n\n", r.Verts, r.Frames, r.Rank, r.Binding)
	pf("Raw float32: %s KiB; zstd of raw: %s KiB (%.2f×).\n\n", kib(r.RawBytes), kib(r.ZstdBytes), float64(r.RawBytes)/float64(r.ZstdBytes))
	pf("Skinning only (kim2013 Fig. 1b):\n\n| binding | RMS mm | max mm |\n|---|---|---|\n")
	for _, b := range r.Bindings {
		pf("| %v | %s | %s |\n", b.Binding, mm(b.Skinning.RMS), mm(b.Skinning.Max))
	}
	pf("\n| k | flow RMS mm | flow max mm | flow bind RMS mm | PCA RMS mm | PCA max mm | .pflow KiB | vs raw | vs zstd | .glb KiB |\n")
	pf("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range r.Rows {
		pf("| %d | %s | %s | %s | %s | %s | %s | %.1f× | %.1f× | %s |\n", w.K, mm(w.Flow.RMS), mm(w.Flow.Max), mm(w.FlowBind),
			mm(w.PCA.RMS), mm(w.PCA.Max), kib(w.FlowBytes), w.Ratio, float64(r.ZstdBytes)/float64(w.FlowBytes), kib(w.GLBBytes))
	}
	if r.Chosen.K >= 0 {
		c := r.Chosen
		pf("\nTarget %s mm RMS: k = %d, RMS %s mm, max %s mm, .pflow %s KiB = %.1f× smaller than raw float32, %.1f× smaller than zstd; .glb %s KiB. Plain PCA with k = %d: RMS %s mm.\n",
			mm(r.Target), c.K, mm(c.Flow.RMS), mm(c.Flow.Max), kib(c.FlowBytes), c.Ratio, float64(r.ZstdBytes)/float64(c.FlowBytes), kib(c.GLBBytes), c.K, mm(c.PCA.RMS))
	}
	pf("\nAnalyze %.2f s; cut, quantise and check for the target %.2f s.\n", r.AnalyzeSeconds, r.CompressSeconds)
	for _, n := range r.Notes {
		pf("\n- %s", n)
	}
	if len(r.Notes) > 0 {
		pf("\n")
	}
	_, err := w.Write(s)
	return err
}
