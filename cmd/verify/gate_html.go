package main

// gate.html: the gate's result as a page of the HTML report (internal/report):
// the verdict and its counts first, then one plot per measure of each
// benchmark's change (change over base, with the interval of a timing), then
// the changes as a table. Built from gate.Result alone, as gate.md is.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memverify/memverify/internal/gate"
	"github.com/memverify/memverify/internal/report"
)

// writeGateHTML writes r as gate.html in dir.
func writeGateHTML(dir string, r *gate.Result) error {
	f, err := os.Create(filepath.Join(dir, "gate.html"))
	if err != nil {
		return err
	}
	defer f.Close()
	return report.Write(f, gatePage(r))
}

// gatePage is the page of a gate result.
func gatePage(r *gate.Result) report.Page {
	p := report.Page{Title: "Benchmark gate", Verdict: report.StatusPass, Headline: "no regression"}
	if fails := r.Failures(); len(fails) > 0 {
		p.Verdict, p.Headline = report.StatusFail, fmt.Sprintf("%d regressions", len(fails))
		for _, c := range fails {
			p.Reasons = append(p.Reasons, fmt.Sprintf("%s %s: %s", c.Bench, c.Measure, c.Figures))
		}
	}
	p.Facts = []report.Fact{{Name: "base", Value: r.Base}, {Name: "change", Value: r.Change}}
	if r.Toolchain.Go != "" {
		p.Facts = append(p.Facts, report.Fact{Name: "counted with", Value: r.Toolchain.String()})
	}
	if r.Command != "" {
		p.Facts = append(p.Facts, report.Fact{Name: "command", Value: r.Command})
	}
	slower, faster := r.Count("", gate.Slower), r.Count("", gate.Faster)
	p.Tiles = []report.Tile{
		{Label: "slower", Value: fmt.Sprint(slower), Status: statusIf(slower > 0, report.StatusFail)},
		{Label: "faster", Value: fmt.Sprint(faster), Status: statusIf(faster > 0, report.StatusPass)},
		{Label: "unchanged or inconclusive", Value: fmt.Sprint(r.Count("", gate.Inconclusive))},
	}
	var plots []report.Block
	for _, m := range []struct{ measure, title string }{
		{"instr/op", "Instructions per op, change over base"},
		{"sec/op", "Time per op, change over base, with the 95% interval of the ratio"},
		{"B/op", "Bytes per op, change over base"},
	} {
		if f, ok := changePlot(r, m.measure, m.title); ok {
			plots = append(plots, report.Block{Figure: &f})
		}
	}
	if len(plots) == 0 {
		plots = append(plots, report.Block{Text: "Nothing was measured on both sides."})
	}
	p.Sections = []report.Section{
		{ID: "changes", Title: "Each benchmark's change", Blocks: plots},
		{ID: "table", Title: "Every measure judged", Blocks: []report.Block{{Table: changeTable(r)}}},
	}
	if len(r.Notes) > 0 {
		p.Sections = append(p.Sections, report.Section{ID: "notes", Title: "Notes", Blocks: []report.Block{{Code: strings.Join(r.Notes, "\n")}}})
	}
	return p
}

// changePlot draws, for one measure, each benchmark's change/base ratio:
// filled where the gate called a change, hollow where not.
func changePlot(r *gate.Result, measure, title string) (report.Figure, bool) {
	var rows []report.Ratio
	for _, c := range r.Changes {
		if c.Measure != measure || c.Base <= 0 || c.Change <= 0 {
			continue
		}
		rows = append(rows, report.Ratio{Label: c.Bench, Value: c.Change / c.Base, Lo: c.RatioLo, Hi: c.RatioHi, Significant: c.Verdict != gate.Inconclusive})
	}
	if len(rows) == 0 {
		return report.Figure{}, false
	}
	id := "change-" + strings.NewReplacer("/", "-").Replace(measure)
	f, err := report.Ratios(id, title, "Right of the line is more than the base; a filled dot is a change the gate called, a hollow one is not.", "change / base", rows)
	return f, err == nil
}

// changeTable lists every change as the Markdown does.
func changeTable(r *gate.Result) *report.Table {
	t := &report.Table{Head: []string{"benchmark", "measure", "tier", "verdict", "Δ", "figures"}, Numeric: []bool{false, false, false, false, true, false}}
	for _, c := range r.Changes {
		st := report.StatusNone
		switch {
		case c.Fails:
			st = report.StatusFail
		case c.Verdict == gate.Slower:
			st = report.StatusWarn
		case c.Verdict == gate.Faster:
			st = report.StatusPass
		}
		t.Rows = append(t.Rows, []report.Cell{{Text: c.Bench, Code: true}, {Text: c.Measure}, {Text: string(c.Tier)},
			{Text: c.Verdict.String(), Status: st}, {Text: c.DeltaText()}, {Text: c.Figures}})
	}
	return t
}

func statusIf(cond bool, s report.Status) report.Status {
	if cond {
		return s
	}
	return report.StatusNone
}
