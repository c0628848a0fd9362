package report

import "html/template"

// page is the whole document. It is written as well-formed XML (every
// element closed) so that tests can check its structure with
// encoding/xml, and it uses no scripts and no external resources.
var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<style>` + css + `</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{- if .Meta}}
<dl class="meta">
{{- range .Meta}}
<div><dt>{{.Key}}</dt><dd>{{.Value}}</dd></div>
{{- end}}
</dl>
{{- end}}
{{- if .TOC}}
<nav><ol>
{{- range .TOC}}
<li><a href="#{{.ID}}">{{.Text}}</a></li>
{{- end}}
</ol></nav>
{{- end}}
</header>
<main>
{{- range .Blocks}}
{{- if eq .Kind "heading"}}
<h2 id="{{.ID}}">{{.Text}}</h2>
{{- else if eq .Kind "para"}}
<p>{{.Text}}</p>
{{- else if eq .Kind "pre"}}
<pre>{{.Text}}</pre>
{{- else if eq .Kind "table"}}
<div class="table"><table>
{{- if .Text}}
<caption>{{.Text}}</caption>
{{- end}}
{{- if .Header}}{{$num := .Numeric}}
<thead><tr>{{range $j, $h := .Header}}<th{{if index $num $j}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>
{{- end}}
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td{{if .Num}} class="num"{{end}}>{{.Text}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- else if eq .Kind "metrics"}}
<section class="metrics">
{{- if .Text}}
<h3>{{.Text}}</h3>
{{- end}}
<dl>
{{- range .KVs}}
<div><dt>{{.Key}}</dt><dd>{{.Value}}</dd></div>
{{- end}}
</dl>
</section>
{{- else if eq .Kind "figure"}}
{{- range .Images}}
{{template "img" .}}
{{- end}}
{{- else if eq .Kind "grid"}}
<figure class="grid">
<div class="cells">
{{- range .Images}}
{{template "img" .}}
{{- end}}
</div>
{{- if .Text}}
<figcaption>{{.Text}}</figcaption>
{{- end}}
</figure>
{{- end}}
{{- end}}
</main>
</body>
</html>

{{define "img"}}
<figure>
<img {{.Src}} width="{{.W}}" height="{{.H}}" alt="{{.Caption}}"/>
{{- if .Caption}}
<figcaption>{{.Caption}}</figcaption>
{{- end}}
</figure>
{{end}}`))

const css = `
:root { --fg: #1f2328; --muted: #656d76; --line: #d8dee4; --soft: #f6f8fa; --accent: #4e79a7; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", Arial, sans-serif; }
header, main { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 28px; padding-bottom: 8px; border-bottom: 1px solid var(--line); }
h1 { font-size: 26px; margin: 0 0 8px; font-weight: 600; }
h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 4px; border-bottom: 1px solid var(--line); font-weight: 600; }
h3 { font-size: 13px; margin: 0 0 8px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
p { margin: 10px 0; max-width: 80ch; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
dl.meta { display: flex; flex-wrap: wrap; gap: 4px 24px; margin: 0 0 12px; font-size: 13px; color: var(--muted); }
dl.meta div { display: flex; gap: 6px; }
dl.meta dt::after { content: ":"; }
dl.meta dd { margin: 0; color: var(--fg); }
nav ol { display: flex; flex-wrap: wrap; gap: 4px 20px; margin: 4px 0 12px; padding: 0; list-style: none; font-size: 14px; counter-reset: sec; }
nav li { counter-increment: sec; }
nav li::before { content: counter(sec) ". "; color: var(--muted); }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
  overflow-x: auto; font: 13px/1.45 ui-monospace, "Liberation Mono", Menlo, Consolas, monospace; }
.table { overflow-x: auto; margin: 16px 0; }
table { border-collapse: collapse; font-size: 14px; font-variant-numeric: tabular-nums; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 0 0 6px; }
th, td { padding: 5px 12px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: var(--soft); font-weight: 600; border-bottom: 2px solid var(--line); }
tbody tr:nth-child(even) td { background: #fbfcfd; }
tbody tr:hover td { background: #eef3f8; }
.num { text-align: right; }
.metrics { margin: 16px 0; }
.metrics dl { display: flex; flex-wrap: wrap; gap: 12px; margin: 0; }
.metrics dl div { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 140px; background: var(--soft); }
.metrics dt { font-size: 12px; color: var(--muted); }
.metrics dd { margin: 2px 0 0; font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
figure { margin: 18px 0; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
figcaption { font-size: 13px; color: var(--muted); margin-top: 6px; }
.grid .cells { display: flex; flex-wrap: wrap; gap: 12px; }
.grid .cells figure { margin: 0; flex: 1 1 0; min-width: 160px; }
.grid .cells img { margin: 0 auto; }
.grid .cells figcaption { text-align: center; color: var(--fg); }
.grid > figcaption { margin-top: 8px; }
@media print { header, main { max-width: none; } tbody tr:hover td { background: none; } }
`
