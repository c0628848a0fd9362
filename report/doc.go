// Package report builds offline, self-contained HTML reports: headings,
// paragraphs, tables, metric summaries, images, image grids and plots.
//
// A Report is filled block by block and written with Write or WriteFile.
// The output is a single HTML file with inline CSS and no scripts; every
// image and plot is embedded as a base64 PNG data URI, so the file can be
// mailed, archived or opened without a network connection. Nothing in the
// output refers to an external resource.
//
// Conventions:
//
//   - Output is deterministic: the same calls give the same bytes. The
//     package never reads the clock; a generator, version or date appears
//     only if the caller puts it in Report.Meta.
//   - Text is escaped by html/template; captions and cells may hold any
//     string.
//   - Numbers are formatted by the caller; Num and Dur are small helpers.
//   - Images are encoded to PNG when they are added, so the caller may
//     reuse its image buffer afterwards.
//   - Plots are drawn with gonum.org/v1/plot. Series values must be finite
//     (and positive on a log axis): a bad value is an error of type
//     *SeriesError naming the plot, series and index; nothing is skipped
//     silently. Callers that want gaps must drop the points themselves.
//   - Methods that can fail return an error and also record the first one;
//     Write and WriteFile return that first error, so a caller may check
//     once at the end. A Report is not safe for concurrent use.
//
// PlotPNG renders a single plot to PNG bytes for commands that want just
// an image file (for example an error-versus-k curve).
package report
