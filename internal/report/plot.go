package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colours shared by the plots and the page's CSS, so that a verdict reads
// the same in a table and in a chart.
var (
	Good    = color.RGBA{R: 0x2e, G: 0x7d, B: 0x32, A: 0xff} // pass, killed first
	Fair    = color.RGBA{R: 0x8b, G: 0xc3, B: 0x4a, A: 0xff} // killed, not first
	Bad     = color.RGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff} // fail, survived
	Warn    = color.RGBA{R: 0xef, G: 0x8f, B: 0x00, A: 0xff} // partly, unknown
	Empty   = color.RGBA{R: 0xf2, G: 0xf2, B: 0xf2, A: 0xff} // ran, nothing to show
	Absent  = color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff} // did not run
	Ink     = color.RGBA{R: 0x22, G: 0x22, B: 0x22, A: 0xff}
	Accents = []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	}
)

// sans is the face every plot uses: a sans-serif reads better at the small
// sizes of axis labels, and a browser without Liberation Sans falls back
// on its own sans-serif with similar widths.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a plot with the page's fonts and a title.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 11)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 9)
		a.Tick.Label.Font = font.From(sans, 8)
	}
	p.Legend.TextStyle.Font = font.From(sans, 8)
	return p
}

// Figure is a plot rendered for the page: inline SVG markup and the text
// that stands for it where it cannot be seen.
type Figure struct {
	ID      string        // unique on the page; the figure's anchor
	Caption string        // one sentence: what the plot shows and how to read it
	SVG     template.HTML // the <svg> element, without an XML prolog
	// Legend, if any, is drawn by the page beside the plot.
	Legend []LegendEntry
}

// render draws p as inline SVG of w × h points. gonum's plotters panic on
// some input (a log axis over a non-positive range); a panic becomes an
// error here, so one bad plot never loses the whole page.
func render(p *plot.Plot, id, caption string, w, h vg.Length) (f Figure, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing %s: %v", id, r)
		}
	}()
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return f, fmt.Errorf("drawing %s: %w", id, err)
	}
	svg := b.String()
	// An <svg> inside HTML takes no XML prolog or comment before it.
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	label := template.HTMLEscapeString(caption)
	svg = strings.Replace(svg, "<svg ", fmt.Sprintf(`<svg role="img" aria-label="%s" data-plot="%s" `, label, template.HTMLEscapeString(id)), 1)
	return Figure{ID: id, Caption: caption, SVG: template.HTML(svg)}, nil // #nosec: drawn by vgsvg, whose text it escapes
}

// labelWidth is the widest of labels in the tick font, to size a plot so
// that long names are not cut off, with a fifth more: the browser draws
// the labels in the sans-serif it has, which may be wider than the face
// gonum measured them in.
func labelWidth(p *plot.Plot, labels []string) vg.Length {
	var w vg.Length
	for _, l := range labels {
		w = max(w, p.Y.Tick.Label.Width(l))
	}
	return w * 6 / 5
}
