package report

// pageHTML is the page's template: the stylesheet inline, the verdict and
// its reasons first, then the facts, the headline counts, a table of
// contents and the sections.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Liberation Sans", sans-serif; color: #222; margin: 0 auto; max-width: 1180px; padding: 0 20px 40px; }
h1 { font-size: 22px; margin: 18px 0 6px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
.verdict { display: flex; gap: 14px; align-items: center; padding: 12px 16px; border-radius: 6px; color: #fff; }
.verdict.pass { background: {{css good}}; } .verdict.fail { background: {{css bad}}; }
.verdict .word { font-size: 26px; font-weight: 700; letter-spacing: .04em; }
.verdict .why { font-size: 15px; }
ul.reasons { margin: 8px 0 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 12px 0; }
dl.facts dt { color: #666; } dl.facts dd { margin: 0; font-family: ui-monospace, "Liberation Mono", monospace; font-size: 13px; }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0 4px; }
.tile { border: 1px solid #ddd; border-radius: 6px; padding: 8px 12px; min-width: 120px; }
.tile .v { font-size: 20px; font-weight: 650; } .tile .l { color: #555; font-size: 12px; }
.tile.pass { border-color: {{css good}}; } .tile.fail { border-color: {{css bad}}; background: #fdecea; } .tile.warn { border-color: {{css warn}}; }
nav.toc { margin: 8px 0; font-size: 13px; } nav.toc a { margin-right: 12px; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f6f6f6; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.pass { background: #e3f1e4; } td.fair { background: #f0f7e6; } td.fail { background: #fbe0dd; font-weight: 600; } td.warn { background: #fff1dc; }
code, pre { font-family: ui-monospace, "Liberation Mono", monospace; font-size: 12.5px; }
pre { background: #f6f6f6; padding: 8px 10px; overflow-x: auto; border-radius: 4px; }
figure { margin: 10px 0 18px; overflow-x: auto; padding-bottom: 12px; } figure svg { display: block; max-width: none; height: auto; overflow: visible; }
figcaption { color: #555; font-size: 12.5px; max-width: 900px; margin-top: 4px; }
.legend { display: flex; gap: 14px; font-size: 12px; margin: 4px 0; }
.legend span.sw { display: inline-block; width: 11px; height: 11px; border: 1px solid #999; margin-right: 5px; vertical-align: -1px; }
details { margin: 6px 0; } summary { cursor: pointer; color: #1f5fa8; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div class="verdict {{.Verdict}}" id="verdict"><span class="word">{{if eq .Verdict "pass"}}PASS{{else}}FAIL{{end}}</span><span class="why">{{.Headline}}</span></div>
{{if .Reasons}}<ul class="reasons">{{range .Reasons}}<li>{{.}}</li>{{end}}</ul>{{end}}
<dl class="facts">{{range .Facts}}<dt>{{.Name}}</dt><dd>{{.Value}}</dd>{{end}}</dl>
<div class="tiles">{{range .Tiles}}<div class="tile {{.Status}}"><div class="v">{{.Value}}</div><div class="l">{{.Label}}</div></div>{{end}}</div>
<nav class="toc">{{range .Sections}}<a href="#{{.ID}}">{{.Title}}</a>{{end}}</nav>
{{range .Sections}}<section id="{{.ID}}"><h2>{{.Title}}</h2>{{template "blocks" .Blocks}}</section>
{{end}}
</body>
</html>
{{define "blocks"}}{{range .}}{{template "block" .}}{{end}}{{end}}
{{define "block"}}{{if .Heading}}<h3>{{.Heading}}</h3>
{{else if .Text}}<p>{{.Text}}</p>
{{else if .Code}}<pre>{{.Code}}</pre>
{{else if .Figure}}<figure id="{{.Figure.ID}}">{{.Figure.SVG}}{{if .Figure.Legend}}<div class="legend">{{range .Figure.Legend}}<span><span class="sw" style="background: {{css .Color}}"></span>{{.Label}}</span>{{end}}</div>{{end}}<figcaption>{{.Figure.Caption}}</figcaption></figure>
{{else if .Table}}{{template "table" .Table}}
{{else if .Details}}<details><summary>{{.Details.Summary}}</summary>{{template "blocks" .Details.Blocks}}</details>
{{end}}{{end}}
{{define "table"}}{{$t := .}}<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range $i, $c := .}}<td class="{{$c.Status}}{{if numeric $t $i}} num{{end}}"{{if $c.Title}} title="{{$c.Title}}"{{end}}>{{if $c.Href}}<a href="{{$c.Href}}">{{end}}{{if $c.Code}}<code>{{$c.Text}}</code>{{else}}{{$c.Text}}{{end}}{{if $c.Href}}</a>{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}`
