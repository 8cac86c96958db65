package report

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Series is one bar per category, for Bars.
type Series struct {
	Name   string
	Values []float64 // one per category, in the categories' order
}

// Bars draws grouped bars: for each category on the X axis, one bar per
// series, side by side, with a legend naming the series.
func Bars(id, title, caption, unit string, categories []string, series []Series) (Figure, error) {
	if len(categories) == 0 || len(series) == 0 {
		return Figure{}, errors.New(id + ": no categories or series")
	}
	p := newPlot(title)
	width := vg.Points(9)
	for i, s := range series {
		if len(s.Values) != len(categories) {
			return Figure{}, fmt.Errorf("%s: series %s has %d values for %d categories", id, s.Name, len(s.Values), len(categories))
		}
		b, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return Figure{}, fmt.Errorf("%s: %s: %w", id, s.Name, err)
		}
		c := Accents[i%len(Accents)]
		b.Color, b.LineStyle.Color = c, c
		b.Offset = width * vg.Length(2*i-len(series)+1) / 2
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	p.NominalX(categories...)
	p.Y.Label.Text = unit
	p.Y.Min = 0
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	groupWidth := width*vg.Length(len(series)) + vg.Points(14)
	w := max(vg.Points(360), groupWidth*vg.Length(len(categories))+vg.Points(80))
	return render(p, id, caption, w, vg.Points(230))
}

var _ plot.Thumbnailer = (*plotter.BarChart)(nil)
