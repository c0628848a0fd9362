package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// testImage is a w×h gradient, deterministic.
func testImage(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(255 * x / w), uint8(255 * y / h), 128, 255})
		}
	}
	return m
}

// sample builds a report with every block kind. It is the fixture for the
// structural, offline and determinism tests and for the sample page
// written by TestWriteSample.
func sample(t *testing.T) *Report {
	t.Helper()
	r := New("pleat eval: tshirt on walk_01 <script>alert(1)</script>")
	r.Meta = []KV{{"generator", "pleat (test)"}, {"clip", "walk_01.bvh"}, {"frames", "120"}}
	r.Heading("Summary")
	r.Paragraph("Wrinkle synthesis against the full cloth simulation, 120 frames at 30 fps.")
	r.Metrics("Errors", []KV{{"mean vertex error", "2.31 mm"}, {"max vertex error", "9.84 mm"}, {"curvature ratio", "0.93"}, {"speed-up", "41×"}})
	if err := r.Table(Table{
		Caption: "Per-method error <script>",
		Header:  []string{"method", "mean (mm)", "p95 (mm)", "time/frame"},
		Rows: [][]string{
			{"linear skinning", "8.12", "21.5", Dur(310 * time.Microsecond)},
			{"coarse sim", "4.40", "11.2", Dur(2100 * time.Microsecond)},
			{"synthesized", "2.31", "6.03", Dur(3400 * time.Microsecond)},
			{"reference", "0", "0", Dur(140 * time.Millisecond)},
		},
	}); err != nil {
		t.Fatal(err)
	}
	r.Heading("Curves")
	n := 120
	ys := [3][]float64{}
	for i := range n {
		f := float64(i)
		ys[0] = append(ys[0], 8+2*math.Sin(f/9))
		ys[1] = append(ys[1], 4+1.5*math.Sin(f/7+1))
		ys[2] = append(ys[2], 2+0.8*math.Sin(f/5+2))
	}
	if err := r.Plot(Plot{
		Title: "Vertex error over frames", Caption: "Mean vertex error per frame (log scale).",
		XLabel: "frame", YLabel: "error (mm)", LogY: true,
		Series: []Series{{Name: "skinning", Y: ys[0]}, {Name: "coarse", Y: ys[1]}, {Name: "synthesized", Y: ys[2]}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.Plot(Plot{
		Title: "Error vs basis size", XLabel: "k", YLabel: "RMS error (mm)",
		Series: []Series{{Name: "PCA", X: []float64{4, 8, 16, 32, 64}, Y: []float64{9, 5.5, 3.1, 2.0, 1.6}, Points: true}},
	}); err != nil {
		t.Fatal(err)
	}
	r.Heading("Renders")
	if err := r.Image("frame 0 <script>", testImage(64, 48)); err != nil {
		t.Fatal(err)
	}
	if err := r.Grid("frame 60: side by side", []Cell{
		{"skinning", testImage(40, 30)}, {"coarse", testImage(40, 30)},
		{"synthesized", testImage(40, 30)}, {"reference", testImage(40, 30)},
	}); err != nil {
		t.Fatal(err)
	}
	r.Pre("pleat eval --garment tshirt --clip walk_01.bvh\n  --out report.html")
	return r
}

func write(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteStructure(t *testing.T) {
	out := write(t, sample(t))

	// Well-formed: every element closed and nested (the template writes
	// XML-compatible HTML on purpose).
	dec := xml.NewDecoder(bytes.NewReader(out))
	var stack []string
	counts := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok.Name.Local)
			counts[tok.Name.Local]++
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed elements %v", stack)
	}
	for tag, want := range map[string]int{"html": 1, "h1": 1, "h2": 3, "table": 1, "img": 7, "pre": 1, "nav": 1, "style": 1, "script": 0} {
		if counts[tag] != want {
			t.Errorf("%d <%s>, want %d", counts[tag], tag, want)
		}
	}

	// Embedded images decode as PNG of the expected size.
	re := regexp.MustCompile(`src="data:image/png;base64,([A-Za-z0-9+/=]+)" width="(\d+)" height="(\d+)"`)
	ms := re.FindAllSubmatch(out, -1)
	want := [][2]int{{1520, 680}, {1520, 680}, {64, 48}, {40, 30}, {40, 30}, {40, 30}, {40, 30}}
	if len(ms) != len(want) {
		t.Fatalf("%d data URIs, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		data, err := base64.StdEncoding.DecodeString(string(m[1]))
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
		if cfg.Width != want[i][0] || cfg.Height != want[i][1] {
			t.Errorf("image %d is %dx%d, want %dx%d", i, cfg.Width, cfg.Height, want[i][0], want[i][1])
		}
	}

	// Offline: no URL schemes other than data: in any attribute or CSS.
	for _, s := range []string{"http://", "https://", "//cdn", "url(", "<script", "<link", "@import"} {
		if bytes.Contains(out, []byte(s)) {
			t.Errorf("output contains %q", s)
		}
	}
	for _, s := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "Per-method error &lt;script&gt;", `alt="frame 0 &lt;script&gt;"`} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("output lacks escaped %q", s)
		}
	}
	// Numeric columns are right-aligned, text columns are not.
	if !bytes.Contains(out, []byte(`<td>linear skinning</td><td class="num">8.12</td>`)) {
		t.Error("numeric column alignment missing")
	}
}

func TestDeterministic(t *testing.T) {
	a, b := write(t, sample(t)), write(t, sample(t))
	if !bytes.Equal(a, b) {
		t.Fatal("two runs gave different bytes")
	}
	p := Plot{Title: "t", Series: []Series{{Y: []float64{1, 3, 2}}}}
	x, err := PlotPNG(p, 300, 200)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := PlotPNG(p, 300, 200)
	if !bytes.Equal(x, y) {
		t.Fatal("PlotPNG not deterministic")
	}
}

func TestWriteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.html")
	r := sample(t)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, write(t, r)) {
		t.Fatal("WriteFile and Write differ")
	}
}

func TestImageFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.png")
	var buf bytes.Buffer
	if err := png.Encode(&buf, testImage(10, 7)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := New("x")
	if err := r.ImageFile("a", path); err != nil {
		t.Fatal(err)
	}
	out := write(t, r)
	if !bytes.Contains(out, []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))) ||
		!bytes.Contains(out, []byte(`width="10" height="7"`)) {
		t.Error("file not embedded as is")
	}
	notPNG := filepath.Join(dir, "b.png")
	if err := os.WriteFile(notPNG, []byte("GIF89a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.ImageFile("b", notPNG); err == nil {
		t.Error("non-PNG accepted")
	}
	if err := r.Write(io.Discard); err == nil {
		t.Error("Write did not return the recorded error")
	}
}

func TestPlotPNGSize(t *testing.T) {
	data, err := PlotPNG(Plot{Title: "e", LogY: true, Series: []Series{{Name: "a", Y: []float64{0.31, 0.38, 0.35}}}}, 640, 360)
	if err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Bounds(); b.Dx() != 640 || b.Dy() != 360 {
		t.Errorf("size %v, want 640x360", b)
	}
}

func TestPlotErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     Plot
		index int
		want  string
	}{
		{"no series", Plot{Title: "p"}, -1, "no series"},
		{"empty", Plot{Title: "p", Series: []Series{{Name: "a"}}}, -1, "empty"},
		{"length", Plot{Title: "p", Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{1, 2}}}}, -1, "len(X)"},
		{"nan", Plot{Title: "p", Series: []Series{{Name: "ok", Y: []float64{1}}, {Name: "a", Y: []float64{1, 2, math.NaN()}}}}, 2, "NaN"},
		{"inf x", Plot{Title: "p", Series: []Series{{Name: "a", X: []float64{0, math.Inf(1)}, Y: []float64{1, 2}}}}, 1, "+Inf"},
		{"log zero", Plot{Title: "p", LogY: true, Series: []Series{{Name: "a", Y: []float64{1, 0}}}}, 1, "log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PlotPNG(tc.p, 100, 100)
			var se *SeriesError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SeriesError", err)
			}
			if se.Index != tc.index || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (index %d), want index %d and %q", err, se.Index, tc.index, tc.want)
			}
			if tc.index >= 0 && se.Series != "a" {
				t.Errorf("series %q, want \"a\"", se.Series)
			}
			r := New("x")
			if r.Plot(tc.p) == nil || r.Write(io.Discard) == nil {
				t.Error("report accepted bad plot")
			}
		})
	}
}

func TestTableErrors(t *testing.T) {
	r := New("x")
	err := r.Table(Table{Caption: "c", Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}, {"3"}}})
	if err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("err = %v, want row 1 error", err)
	}
	if r.Err() != err {
		t.Error("error not recorded")
	}
	if err := New("x").Grid("g", nil); err == nil {
		t.Error("empty grid accepted")
	}
	if err := New("x").Image("nil", nil); err == nil {
		t.Error("nil image accepted")
	}
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		sig  int
		want string
	}{
		{0, 3, "0"}, {1.2, 3, "1.20"}, {0.012345, 3, "0.0123"}, {1234.5, 3, "1230"}, {1234.5, 5, "1234.5"},
		{999.96, 4, "1000"}, {-2.5, 2, "-2.5"}, {1.5e-5, 3, "1.50e-05"}, {2e7, 2, "2.0e+07"},
		{math.NaN(), 3, "NaN"}, {math.Inf(-1), 3, "-Inf"}, {7, 0, "7"},
	} {
		if got := Num(tc.v, tc.sig); got != tc.want {
			t.Errorf("Num(%v, %d) = %q, want %q", tc.v, tc.sig, got, tc.want)
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 s"}, {850, "850 ns"}, {12300, "12.3 µs"}, {4560 * time.Microsecond, "4.56 ms"},
		{1200 * time.Millisecond, "1.20 s"}, {12 * time.Minute, "12.0 min"}, {3 * time.Hour, "3.00 h"},
	} {
		if got := Dur(tc.d); got != tc.want {
			t.Errorf("Dur(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var s []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				s = append(s, tk.Label)
			}
		}
		return s
	}
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{1e-4, 10, "0.0001 0.001 0.01 0.1 1 10"},
		{0.3, 20, "0.5 1 2 5 10 20"},
		{0.31, 0.38, "0.31 0.38"},
		{2, 9, "2 3 5"}, {2, 5, "2 3 4 5"},
		{1e-8, 1e-5, "1e-8 1e-7 1e-6 1e-5"},
	} {
		if got := strings.Join(labels(tc.lo, tc.hi), " "); got != tc.want {
			t.Errorf("ticks(%v, %v) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestWriteSample writes the sample report to the path in
// PLEAT_REPORT_SAMPLE, for looking at it in a browser.
func TestWriteSample(t *testing.T) {
	path := os.Getenv("PLEAT_REPORT_SAMPLE")
	if path == "" {
		t.Skip("PLEAT_REPORT_SAMPLE not set")
	}
	if err := sample(t).WriteFile(path); err != nil {
		t.Fatal(err)
	}
}
