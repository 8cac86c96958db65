package report

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Ratio is one row of Ratios: a ratio with its 95% confidence interval.
// Lo and Hi of 0 mean the interval is not known (too few samples): the
// point is drawn without a bar.
type Ratio struct {
	Label         string
	Value, Lo, Hi float64
	// Significant marks a ratio whose difference from 1 the caller found
	// significant; it is drawn filled, the others hollow.
	Significant bool
}

// ratioRows adapts ratios to gonum's XYer and XErrorer: the point at
// (Value, row), the bar from Lo to Hi.
type ratioRows []Ratio

func (r ratioRows) Len() int                { return len(r) }
func (r ratioRows) XY(i int) (x, y float64) { return r[i].Value, float64(len(r) - 1 - i) }
func (r ratioRows) XError(i int) (float64, float64) {
	if r[i].Lo <= 0 || r[i].Hi <= 0 {
		return 0, 0
	}
	return r[i].Value - r[i].Lo, r[i].Hi - r[i].Value
}

// Ratios draws each ratio as a dot with its interval, on a log axis with a
// line at 1, top to bottom in the order given. Rows whose value is not a
// positive finite number are left out (a log axis cannot place them) and
// named in the error only if no row is left.
func Ratios(id, title, caption, unit string, rows []Ratio) (Figure, error) {
	var keep ratioRows
	for _, r := range rows {
		if r.Value > 0 && !math.IsInf(r.Value, 0) && !math.IsNaN(r.Value) {
			if r.Lo > r.Value || r.Hi < r.Value {
				r.Lo, r.Hi = 0, 0 // an interval that misses its point is not one
			}
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return Figure{}, errors.New(id + ": no positive ratio to draw")
	}
	p := newPlot(title)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Label.Text = unit
	p.Add(plotter.NewGrid())
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(len(keep)) - 0.5}})
	if err != nil {
		return Figure{}, fmt.Errorf("%s: %w", id, err)
	}
	one.Color, one.Dashes = Ink, []vg.Length{vg.Points(3), vg.Points(2)}
	p.Add(one)
	bars, err := plotter.NewXErrorBars(keep)
	if err != nil {
		return Figure{}, fmt.Errorf("%s: %w", id, err)
	}
	bars.Color = Accents[0]
	p.Add(bars)
	for _, filled := range []bool{true, false} {
		var pts plotter.XYs
		for i, r := range keep {
			if r.Significant == filled {
				x, y := keep.XY(i)
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return Figure{}, fmt.Errorf("%s: %w", id, err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: Accents[0], Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
		if filled {
			s.GlyphStyle.Shape = draw.CircleGlyph{}
		}
		p.Add(s)
	}
	names := make([]string, len(keep))
	for i, r := range keep {
		names[len(keep)-1-i] = r.Label
	}
	p.NominalY(names...)
	w := labelWidth(p, names) + vg.Points(360)
	h := vg.Points(13)*vg.Length(len(keep)) + vg.Points(60)
	return render(p, id, caption, w, h)
}
