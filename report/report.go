package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/png"
	"io"
	"os"
	"strconv"
	"strings"
)

// KV is one labelled value, used for Report.Meta and Metrics.
type KV struct {
	Key, Value string
}

// Table is a captioned table of preformatted cells. Header may be empty;
// if it is not, every row must have len(Header) cells. Columns whose
// non-empty body cells all start like a number are right-aligned.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
}

// Cell is one image of a Grid with its caption.
type Cell struct {
	Caption string
	Image   image.Image
}

// Report is an HTML report under construction. The zero value is not
// usable; call New.
type Report struct {
	// Title is the page title and top heading.
	Title string
	// Meta is shown under the title in the given order, for example
	// {"generator", "pleat v0.3"}, {"date", "2025-01-02"}. The package
	// adds nothing here by itself.
	Meta []KV

	blocks []block
	nsec   int
	err    error
}

// New returns an empty report with the given title.
func New(title string) *Report {
	return &Report{Title: title}
}

// block kinds.
const (
	kHeading = "heading"
	kPara    = "para"
	kPre     = "pre"
	kTable   = "table"
	kMetrics = "metrics"
	kFigure  = "figure"
	kGrid    = "grid"
)

// block is one element of the page; Kind selects the fields in use.
type block struct {
	Kind    string
	Text    string // heading, paragraph, preformatted text; caption otherwise
	ID      string // heading anchor
	Header  []string
	Rows    [][]tcell
	KVs     []KV
	Images  []img
	Numeric []bool
}

type tcell struct {
	Text string
	Num  bool
}

type img struct {
	Caption string
	Src     template.HTMLAttr // src="data:…" built by this package, never caller text
	W, H    int               // CSS pixels
}

func (r *Report) fail(err error) error {
	if r.err == nil {
		r.err = err
	}
	return err
}

// Err returns the first error recorded by any method, or nil.
func (r *Report) Err() error { return r.err }

// Heading starts a section. Sections with headings get anchors and, when
// there are at least two, a table of contents under the title.
func (r *Report) Heading(text string) {
	r.nsec++
	r.blocks = append(r.blocks, block{Kind: kHeading, Text: text, ID: "sec-" + strconv.Itoa(r.nsec)})
}

// Paragraph adds a paragraph of plain text.
func (r *Report) Paragraph(text string) {
	r.blocks = append(r.blocks, block{Kind: kPara, Text: text})
}

// Pre adds preformatted monospace text, such as a command line or a
// parameter dump.
func (r *Report) Pre(text string) {
	r.blocks = append(r.blocks, block{Kind: kPre, Text: text})
}

// Table adds t. It returns an error if a row's length differs from a
// non-empty header's. The cells are copied.
func (r *Report) Table(t Table) error {
	ncol := len(t.Header)
	for i, row := range t.Rows {
		if ncol != 0 && len(row) != ncol {
			return r.fail(fmt.Errorf("report: table %q: row %d has %d cells, header has %d", t.Caption, i, len(row), ncol))
		}
		ncol = max(ncol, len(row))
	}
	numeric := make([]bool, ncol)
	seen := make([]bool, ncol)
	for j := range numeric {
		numeric[j] = true
	}
	for _, row := range t.Rows {
		for j, c := range row {
			if strings.TrimSpace(c) == "" {
				continue
			}
			seen[j] = true
			numeric[j] = numeric[j] && looksNumeric(c)
		}
	}
	b := block{Kind: kTable, Text: t.Caption, Header: append([]string(nil), t.Header...)}
	for _, row := range t.Rows {
		cells := make([]tcell, len(row))
		for j, c := range row {
			cells[j] = tcell{Text: c, Num: numeric[j] && seen[j]}
		}
		b.Rows = append(b.Rows, cells)
	}
	for j := range numeric {
		numeric[j] = numeric[j] && seen[j]
	}
	b.Numeric = numeric
	r.blocks = append(r.blocks, b)
	return nil
}

// looksNumeric reports whether s starts like a number: an optional sign
// or '.', then a digit ("12", "-3.5e-4", ".5 ms", "42%"), or is "NaN",
// "+Inf", "-Inf" or "Inf".
func looksNumeric(s string) bool {
	s = strings.TrimSpace(s)
	switch s {
	case "NaN", "Inf", "+Inf", "-Inf", "−Inf":
		return true
	}
	s = strings.TrimLeft(s, "+-−")
	s = strings.TrimPrefix(s, ".")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// Metrics adds a row of labelled summary values (for example mean error,
// frames per second) in the given order. Caption may be empty.
func (r *Report) Metrics(caption string, kv []KV) {
	r.blocks = append(r.blocks, block{Kind: kMetrics, Text: caption, KVs: append([]KV(nil), kv...)})
}

// Image adds a captioned image, encoded now as PNG and embedded in the
// page at its pixel size (scaled down to fit narrow windows).
func (r *Report) Image(caption string, m image.Image) error {
	e, err := embed(caption, m)
	if err != nil {
		return r.fail(err)
	}
	r.blocks = append(r.blocks, block{Kind: kFigure, Images: []img{e}})
	return nil
}

// ImageFile adds the PNG file at path, embedded as is. It returns an
// error if the file cannot be read or is not a PNG.
func (r *Report) ImageFile(caption, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return r.fail(fmt.Errorf("report: %w", err))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return r.fail(fmt.Errorf("report: %s: %w", path, err))
	}
	r.blocks = append(r.blocks, block{Kind: kFigure, Images: []img{{
		Caption: caption, Src: dataURI(data), W: cfg.Width, H: cfg.Height,
	}}})
	return nil
}

// Grid adds images side by side under a common caption, for example
// skinning | coarse | synthesized | reference renders of one frame. Each
// cell keeps its own caption. Cells wrap on narrow windows.
func (r *Report) Grid(caption string, cells []Cell) error {
	if len(cells) == 0 {
		return r.fail(fmt.Errorf("report: grid %q has no cells", caption))
	}
	b := block{Kind: kGrid, Text: caption}
	for i, c := range cells {
		e, err := embed(c.Caption, c.Image)
		if err != nil {
			return r.fail(fmt.Errorf("report: grid %q cell %d: %w", caption, i, err))
		}
		b.Images = append(b.Images, e)
	}
	r.blocks = append(r.blocks, b)
	return nil
}

// Plot adds p drawn at 760×340 CSS pixels (rendered at twice that for
// sharp display). See PlotPNG for the errors.
func (r *Report) Plot(p Plot) error {
	const w, h = 760, 340
	data, err := plotPNG(p, 2*w, 2*h, 2*dpi)
	if err != nil {
		return r.fail(err)
	}
	r.blocks = append(r.blocks, block{Kind: kFigure, Images: []img{{
		Caption: p.Caption, Src: dataURI(data), W: w, H: h,
	}}})
	return nil
}

func embed(caption string, m image.Image) (img, error) {
	if m == nil {
		return img{}, fmt.Errorf("report: image %q is nil", caption)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		return img{}, fmt.Errorf("report: image %q: %w", caption, err)
	}
	b := m.Bounds()
	return img{Caption: caption, Src: dataURI(buf.Bytes()), W: b.Dx(), H: b.Dy()}, nil
}

// dataURI returns the src attribute for a PNG. It is built as a trusted
// attribute so that html/template does not entity-escape every '+' of the
// base64 text; the standard base64 alphabet holds no character that needs
// escaping in a quoted attribute.
func dataURI(pngData []byte) template.HTMLAttr {
	return template.HTMLAttr(`src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(pngData) + `"`)
}

// Write writes the report as one HTML document to w. It returns the first
// error recorded while building the report, if any, without writing.
func (r *Report) Write(w io.Writer) error {
	if r.err != nil {
		return r.err
	}
	var toc []block
	for _, b := range r.blocks {
		if b.Kind == kHeading {
			toc = append(toc, b)
		}
	}
	if len(toc) < 2 {
		toc = nil
	}
	data := struct {
		Title  string
		Meta   []KV
		TOC    []block
		Blocks []block
	}{r.Title, r.Meta, toc, r.blocks}
	if err := page.Execute(w, data); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteFile writes the report to the file at path, replacing it.
func (r *Report) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
