package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/report"
)

// TestPlotsRefuseWhatTheyCannotDraw: input no plot can show is an error,
// never a panic (gonum panics on a log axis over non-positive values).
func TestPlotsRefuseWhatTheyCannotDraw(t *testing.T) {
	for name, draw := range map[string]func() (report.Figure, error){
		"an empty grid": func() (report.Figure, error) { return report.HeatMap(report.Grid{ID: "g"}) },
		"rows without cells": func() (report.Figure, error) {
			return report.HeatMap(report.Grid{ID: "g", Rows: []string{"a"}, Cols: []string{"b"}, Legend: []report.LegendEntry{{Label: "x", Color: report.Good}}})
		},
		"no positive value on a log axis": func() (report.Figure, error) {
			return report.Distributions("d", "", "", "", []report.Sample{{Group: "a", Values: []float64{0, -1}}}, true)
		},
		"a series of the wrong length": func() (report.Figure, error) {
			return report.Bars("b", "", "", "", []string{"x", "y"}, []report.Series{{Name: "s", Values: []float64{1}}})
		},
		"no positive ratio": func() (report.Figure, error) {
			return report.Ratios("r", "", "", "", []report.Ratio{{Label: "a", Value: 0}, {Label: "b", Value: -2}})
		},
	} {
		if _, err := draw(); err == nil {
			t.Errorf("%s: drawn without an error", name)
		}
	}
}

// TestAPageIsOneFileWithItsPlots: the page holds its plots inline, escapes
// text, and refers to nothing outside itself.
func TestAPageIsOneFileWithItsPlots(t *testing.T) {
	fig, err := report.Ratios("speed", "Speed", "caption <b>", "x", []report.Ratio{{Label: "a", Value: 2, Lo: 1.5, Hi: 3, Significant: true}, {Label: "b", Value: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	grid, err := report.HeatMap(report.Grid{ID: "m", Rows: []string{"bug"}, Cols: []string{"P", "Q"}, Cells: [][]report.Level{{0, 2}},
		Legend: []report.LegendEntry{{Label: "no", Color: report.Empty}, {Label: "some", Color: report.Fair}, {Label: "first", Color: report.Good}}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = report.Write(&b, report.Page{Title: "t <x>", Verdict: report.StatusPass, Headline: "fine", Sections: []report.Section{{ID: "s", Title: "S", Blocks: []report.Block{
		{Figure: &fig}, {Figure: &grid}, {Table: &report.Table{Head: []string{"a"}, Rows: [][]report.Cell{{{Text: "<script>", Href: "traces/x.txt"}}}}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`data-plot="speed"`, `data-plot="m"`, "<svg", "t &lt;x&gt;", "&lt;script&gt;", `href="traces/x.txt"`, "caption &lt;b&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "<?xml", "<link", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}
