package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// dpi is the resolution PlotPNG draws at: 96 dots per inch, so a 12 pt
// font is 16 px tall.
const dpi = 96

// Plot describes a line plot of one or more series.
type Plot struct {
	Title          string // drawn above the plot; may be empty
	Caption        string // shown under the plot in a report; unused by PlotPNG
	XLabel, YLabel string
	// LogY draws the y axis on a log10 scale; all y values must then be > 0.
	LogY   bool
	Series []Series
}

// Series is one named curve. X may be nil, meaning 0, 1, …, len(Y)-1 (a
// frame index); otherwise it must have len(Y) values. Values must be
// finite. A series with one point, or with Points set, is drawn with
// markers.
type Series struct {
	Name   string // legend entry; the legend is drawn if any series has a name
	X, Y   []float64
	Points bool // draw a marker at each point as well as the line
}

// SeriesError reports a bad series: Index is the offending point, or -1
// for a fault of the whole series (empty, length mismatch).
type SeriesError struct {
	Plot, Series string
	Index        int
	Reason       string
}

func (e *SeriesError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("report: plot %q: series %q: %s", e.Plot, e.Series, e.Reason)
	}
	return fmt.Sprintf("report: plot %q: series %q: index %d: %s", e.Plot, e.Series, e.Index, e.Reason)
}

// palette is Tableau 10: distinct hues that stay apart for common forms
// of colour blindness.
var palette = [...]color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff},
	{0x76, 0xb7, 0xb2, 0xff}, {0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff},
	{0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff},
	{0xba, 0xb0, 0xac, 0xff},
}

// PlotPNG draws p as a w×h pixel PNG image at 96 dpi. It returns a
// *SeriesError if p has no series, a series is empty, X and Y lengths
// differ, a value is NaN or ±Inf, or a y value is ≤ 0 with LogY. It
// panics if w or h is not positive.
func PlotPNG(p Plot, w, h int) ([]byte, error) {
	if w <= 0 || h <= 0 {
		panic("report: non-positive plot size")
	}
	return plotPNG(p, w, h, dpi)
}

func (p *Plot) check() error {
	if len(p.Series) == 0 {
		return &SeriesError{Plot: p.Title, Index: -1, Reason: "plot has no series"}
	}
	for _, s := range p.Series {
		bad := func(i int, why string) error {
			return &SeriesError{Plot: p.Title, Series: s.Name, Index: i, Reason: why}
		}
		if len(s.Y) == 0 {
			return bad(-1, "empty")
		}
		if s.X != nil && len(s.X) != len(s.Y) {
			return bad(-1, fmt.Sprintf("len(X) = %d, len(Y) = %d", len(s.X), len(s.Y)))
		}
		for i, y := range s.Y {
			switch {
			case math.IsNaN(y) || math.IsInf(y, 0):
				return bad(i, fmt.Sprintf("y is %v", y))
			case p.LogY && y <= 0:
				return bad(i, fmt.Sprintf("y = %v on a log axis", y))
			}
		}
		for i, x := range s.X {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return bad(i, fmt.Sprintf("x is %v", x))
			}
		}
	}
	return nil
}

func plotPNG(p Plot, w, h, dpi int) ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	pl := plot.New()
	sans := func(st *font.Font, size vg.Length) {
		st.Typeface, st.Variant, st.Size = "Liberation", "Sans", size
	}
	sans(&pl.Title.TextStyle.Font, 13)
	pl.Title.Text = p.Title
	pl.Title.Padding = vg.Points(6)
	for _, ax := range []*plot.Axis{&pl.X, &pl.Y} {
		sans(&ax.Label.TextStyle.Font, 11)
		sans(&ax.Tick.Label.Font, 9)
		grey := color.Gray{0x55}
		ax.LineStyle.Color = grey
		ax.Tick.LineStyle.Color = grey
		ax.Tick.Label.Color = color.Gray{0x33}
	}
	pl.X.Label.Text = p.XLabel
	pl.Y.Label.Text = p.YLabel
	// The legend is drawn beside the plot, not over the data; pl.Legend
	// stays empty so that pl.Draw does not draw it again.
	leg := plot.NewLegend()
	sans(&leg.TextStyle.Font, 10)
	leg.Top = true
	leg.Left = true
	if p.LogY {
		pl.Y.Scale = plot.LogScale{}
		pl.Y.Tick.Marker = logTicks{}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{0xe4}
	grid.Horizontal.Color = color.Gray{0xe4}
	grid.Vertical.Width = vg.Points(0.5)
	grid.Horizontal.Width = vg.Points(0.5)
	pl.Add(grid)

	for i, s := range p.Series {
		xys := make(plotter.XYs, len(s.Y))
		for j, y := range s.Y {
			xys[j].Y = y
			if s.X != nil {
				xys[j].X = s.X[j]
			} else {
				xys[j].X = float64(j)
			}
		}
		c := palette[i%len(palette)]
		line, err := plotter.NewLine(xys)
		if err != nil { // unreachable after check; kept for safety
			return nil, fmt.Errorf("report: plot %q: %w", p.Title, err)
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		pl.Add(line)
		var thumbs []plot.Thumbnailer
		thumbs = append(thumbs, line)
		if s.Points || len(s.Y) == 1 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("report: plot %q: %w", p.Title, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			pl.Add(sc)
			thumbs = append(thumbs, sc)
		}
		if s.Name != "" {
			leg.Add(s.Name, thumbs...)
		}
	}
	padRange(&pl.X.Min, &pl.X.Max, false)
	padRange(&pl.Y.Min, &pl.Y.Max, p.LogY)

	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	c := vgimg.NewWith(vgimg.UseImage(dst), vgimg.UseDPI(dpi))
	dc := draw.New(c)
	if p.hasNames() {
		lw := leg.Rectangle(dc).Size().X + vg.Points(16)
		top := vg.Points(8)
		if p.Title != "" {
			top += pl.Title.TextStyle.Height(p.Title) + pl.Title.Padding
		}
		pl.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		leg.Draw(draw.Crop(dc, dc.Max.X-lw+vg.Points(8), 0, 0, -top))
	} else {
		pl.Draw(dc)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, c.Image()); err != nil {
		return nil, fmt.Errorf("report: plot %q: %w", p.Title, err)
	}
	return buf.Bytes(), nil
}

func (p *Plot) hasNames() bool {
	for _, s := range p.Series {
		if s.Name != "" {
			return true
		}
	}
	return false
}

// padRange widens a degenerate axis range (all values equal) so that the
// axis can be drawn: by ±1 on a linear axis, a factor of 10 on a log one.
func padRange(lo, hi *float64, log bool) {
	if *lo != *hi {
		return
	}
	if log {
		*lo /= 10
		*hi *= 10
		return
	}
	*lo--
	*hi++
}

// logTicks labels a log axis. gonum's LogTicks labels only powers of ten,
// which leaves an axis spanning less than a decade without labels; this
// ticker also labels 2 and 5 times a power of ten when the range spans
// fewer than three decades, 1, 2, 3 and 5 below one decade, every
// mantissa below half a decade, and the ends if that still leaves fewer
// than two labels.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= 0 || lo > hi {
		return nil
	}
	decades := math.Log10(hi) - math.Log10(lo)
	var labelled func(m int) bool
	switch {
	case decades >= 3:
		labelled = func(m int) bool { return m == 1 }
	case decades >= 1:
		labelled = func(m int) bool { return m == 1 || m == 2 || m == 5 }
	case decades >= 0.5:
		labelled = func(m int) bool { return m <= 3 || m == 5 }
	default:
		labelled = func(int) bool { return true }
	}
	var ticks []plot.Tick
	n := 0 // labelled ticks
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		base := math.Pow10(e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m) {
				t.Label = tickLabel(m, e)
				n++
			}
			ticks = append(ticks, t)
		}
	}
	if n < 2 { // narrow range: label the ends
		ticks = append(ticks,
			plot.Tick{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)},
			plot.Tick{Value: hi, Label: strconv.FormatFloat(hi, 'g', 3, 64)})
	}
	return ticks
}

// tickLabel formats m·10^e without rounding noise: "0.002", "500", "1e-06".
func tickLabel(m, e int) string {
	if e < -4 || e > 5 {
		return strconv.Itoa(m) + "e" + strconv.Itoa(e)
	}
	return strconv.FormatFloat(float64(m)*math.Pow10(e), 'f', max(0, -e), 64)
}
