package report

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Sample is one group's values, for Distributions.
type Sample struct {
	Group  string
	Values []float64
}

// Distributions draws one horizontal box plot per group with a value (the
// box spans the quartiles, the whiskers the values within 1.5 IQR, dots the
// rest), on a log axis when log is set: times to kill span milliseconds to
// minutes. Groups without values are left out; non-positive values too, on
// a log axis.
func Distributions(id, title, caption, unit string, groups []Sample, log bool) (Figure, error) {
	p := newPlot(title)
	var names []string
	// The Y axis counts up from the bottom: the groups go in from the
	// last, so that the page reads them top to bottom in their order.
	for i := len(groups) - 1; i >= 0; i-- {
		g := groups[i]
		var vs plotter.Values
		for _, v := range g.Values {
			if !log || v > 0 {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			continue
		}
		b, err := plotter.NewBoxPlot(vg.Points(12), float64(len(names)), vs)
		if err != nil {
			return Figure{}, fmt.Errorf("%s: %s: %w", id, g.Group, err)
		}
		b.Horizontal = true
		b.BoxStyle.Color = Accents[0]
		b.MedianStyle.Color = Bad
		p.Add(b)
		names = append(names, fmt.Sprintf("%s (%d)", g.Group, len(vs)))
	}
	if len(names) == 0 {
		return Figure{}, errors.New(id + ": no values to draw")
	}
	p.NominalY(names...)
	p.X.Label.Text = unit
	if log {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	w := labelWidth(p, names) + vg.Points(380)
	h := vg.Points(22)*vg.Length(len(names)) + vg.Points(60)
	return render(p, id, caption, w, h)
}
