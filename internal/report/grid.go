package report

import (
	"errors"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Level is one cell of a Grid: an index into the grid's Legend. A cell
// whose level is outside the legend is drawn blank.
type Level int

// LegendEntry names one level of a Grid and gives its colour.
type LegendEntry struct {
	Label string
	Color color.Color
}

// Grid is a heat map of discrete levels: Rows × Cols cells, Cells[r][c]
// the level of row r, column c. The first row is drawn at the top.
type Grid struct {
	ID, Title, Caption string
	Rows, Cols         []string
	Cells              [][]Level
	Legend             []LegendEntry
}

// cells adapts a Grid to gonum's GridXYZ: column c at x = c, row r at
// y = r counted from the bottom, so the grid's first row is on top.
type cells struct{ g *Grid }

func (c cells) Dims() (int, int) { return len(c.g.Cols), len(c.g.Rows) }
func (c cells) X(i int) float64  { return float64(i) }
func (c cells) Y(j int) float64  { return float64(j) }
func (c cells) Z(i, j int) float64 {
	row := c.g.Cells[len(c.g.Rows)-1-j]
	if i >= len(row) || row[i] < 0 || int(row[i]) >= len(c.g.Legend) {
		return math.NaN()
	}
	return float64(row[i])
}

// levels is the palette of a Grid: its legend's colours, in order.
type levels []color.Color

func (l levels) Colors() []color.Color { return l }

// HeatMap draws g.
func HeatMap(g Grid) (Figure, error) {
	if len(g.Rows) == 0 || len(g.Cols) == 0 || len(g.Legend) == 0 {
		return Figure{}, errors.New("heat map " + g.ID + ": no rows, columns or levels")
	}
	if len(g.Cells) != len(g.Rows) {
		return Figure{}, errors.New("heat map " + g.ID + ": a row of cells per row name is needed")
	}
	p := newPlot(g.Title)
	pal := make(levels, len(g.Legend))
	for i, e := range g.Legend {
		pal[i] = e.Color
	}
	if len(pal) == 1 {
		pal = append(pal, pal[0]) // gonum scales over at least two colours
	}
	hm := plotter.NewHeatMap(cells{&g}, pal)
	hm.Min, hm.Max = 0, float64(len(pal)-1)
	hm.NaN = Absent
	p.Add(hm)
	rows := make([]string, len(g.Rows))
	for i, r := range g.Rows {
		rows[len(rows)-1-i] = r
	}
	// Rotated, a label ends at its tick, where gonum lets its last letter
	// run under the cells: two spaces at its end keep the letters clear.
	cols := make([]string, len(g.Cols))
	for i, c := range g.Cols {
		cols[i] = c + "  "
	}
	p.NominalX(cols...)
	p.NominalY(rows...)
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = -1, -0.5 // right-aligned, centred on the tick
	p.X.Padding, p.Y.Padding = 0, 0
	cell := vg.Points(16)
	w := labelWidth(p, rows) + cell*vg.Length(len(g.Cols)) + vg.Points(30)
	h := cell*vg.Length(len(g.Rows)) + labelWidthX(p, g.Cols) + vg.Points(40)
	f, err := render(p, g.ID, g.Caption, w, h)
	// The legend goes beside the plot, in the page: inside it, gonum would
	// draw it over the cells.
	f.Legend = g.Legend
	return f, err
}

// labelWidthX is the widest column label: rotated, it is the height the
// X axis takes.
func labelWidthX(p *plot.Plot, labels []string) vg.Length {
	var w vg.Length
	for _, l := range labels {
		w = max(w, p.X.Tick.Label.Width(l))
	}
	return w * 6 / 5 // as labelWidth
}
