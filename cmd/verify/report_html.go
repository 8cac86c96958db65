package main

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/report"
	"github.com/memverify/memverify/props"
	"github.com/montanaflynn/stats"
)

// html renders report.html: the summary (verdict, reasons, facts, headline
// counts) on the first screen, then the failures, the plots across
// domains, one section per domain with its kill matrix drawn as a heat
// map, the overlap checkers' accuracy, the benchmarks and the goals, and
// the details. A plot that cannot be drawn is replaced by a line saying
// why; the page is still written.
func (r *Report) html() ([]byte, error) {
	r.summarize()
	s := r.Summary
	p := report.Page{
		Title:    "memverify " + r.command() + " report",
		Verdict:  report.StatusPass,
		Headline: s.headline(),
		Tiles:    r.tiles(),
	}
	if s.Verdict != verdictPass {
		p.Verdict = report.StatusFail
	}
	if len(s.Reasons) > 1 {
		p.Reasons = s.Reasons
	}
	for _, f := range r.facts() {
		switch f.Name {
		case "commit", "go", "machine", "started", "duration", "budget", "selection":
			p.Facts = append(p.Facts, report.Fact{Name: f.Name, Value: f.Value})
		}
	}
	for _, n := range s.Notes {
		p.Facts = append(p.Facts, report.Fact{Name: "note", Value: n})
	}
	if len(s.Failures) > 0 {
		p.Sections = append(p.Sections, failuresSection(s.Failures))
	}
	if sec, ok := r.overviewSection(); ok {
		p.Sections = append(p.Sections, sec)
	}
	for _, d := range r.domainViews() {
		p.Sections = append(p.Sections, r.domainSection(d))
	}
	if r.Accuracy != nil {
		p.Sections = append(p.Sections, accuracySection(r.Accuracy))
	}
	if len(r.Bench) > 0 {
		p.Sections = append(p.Sections, benchSection(r.Bench, r.BenchSource))
	}
	if len(r.Goals) > 0 {
		p.Sections = append(p.Sections, goalsSection(r.Goals))
	}
	p.Sections = append(p.Sections, r.filesSection())
	var b bytes.Buffer
	err := report.Write(&b, p)
	return b.Bytes(), err
}

// tiles are the counts the first screen shows.
func (r *Report) tiles() []report.Tile {
	c := r.Summary.Counts
	ok := func(bad int) report.Status {
		if bad > 0 {
			return report.StatusFail
		}
		return report.StatusPass
	}
	var ts []report.Tile
	if c.Suites > 0 {
		ts = append(ts, report.Tile{Label: "suites passed", Value: fmt.Sprintf("%d / %d", c.SuitesPassed, c.Suites), Status: ok(c.SuitesFailed)})
	}
	if c.Bugs > 0 {
		ts = append(ts,
			report.Tile{Label: "seeded bugs killed", Value: fmt.Sprintf("%d / %d", c.BugsKilled, c.Bugs), Status: ok(c.BugsSurvived + c.BugsErrored)},
			report.Tile{Label: "properties that killed nothing", Value: fmt.Sprint(c.SilentProperties), Status: ok(c.SilentProperties)},
			report.Tile{Label: "baseline runs failed", Value: fmt.Sprintf("%d / %d", c.BaselineFailed, c.BaselineRuns), Status: ok(c.BaselineFailed)})
		if secs, _ := killTimes(r.Campaign.Mutants); len(secs) > 0 {
			ts = append(ts, report.Tile{Label: "median time to kill", Value: fmt.Sprintf("%.2gs", median(secs))})
		}
	}
	for _, a := range r.Summary.OverlapAccuracy {
		if a.Checker == "Exact" {
			ts = append(ts, report.Tile{Label: "overlaps Exact missed", Value: fmt.Sprintf("%.1f%%", 100*a.MissRate()), Status: ok(a.FalseNegatives)})
		}
	}
	if c.Goals > 0 {
		st := report.StatusPass
		if c.GoalsMissed+c.GoalsUnmeasured > 0 {
			st = report.StatusWarn
		}
		ts = append(ts, report.Tile{Label: "performance goals met", Value: fmt.Sprintf("%d / %d", c.GoalsMet, c.Goals), Status: st})
	}
	ts = append(ts, report.Tile{Label: "duration", Value: roughly(r.Summary.Duration)})
	return ts
}

func failuresSection(fs []Failure) report.Section {
	traces, histories := false, false
	for _, f := range fs {
		traces, histories = traces || f.Trace != "", histories || f.History != ""
	}
	t := &report.Table{Head: []string{"kind", "what failed", "why", "reproduce"}}
	if traces {
		t.Head = append(t.Head, "trace")
	}
	if histories {
		t.Head = append(t.Head, "history")
	}
	for _, f := range fs {
		row := []report.Cell{{Text: f.Kind, Status: report.StatusFail}, {Text: f.Name, Code: true}, {Text: f.What}, {Text: f.Repro, Code: true}}
		if traces {
			row = append(row, link("trace", f.Trace))
		}
		if histories {
			row = append(row, link("history", f.History))
		}
		t.Rows = append(t.Rows, row)
	}
	return report.Section{ID: "failures", Title: "Failures", Blocks: []report.Block{
		{Text: "Each failure, with the command that reproduces it."}, {Table: t}}}
}

// link is a cell linking to href, or an empty cell.
func link(text, href string) report.Cell {
	if href == "" {
		return report.Cell{}
	}
	return report.Cell{Text: text, Href: href}
}

// overviewSection draws the distributions across domains: how long a bug
// takes to die, and how long a suite runs.
func (r *Report) overviewSection() (report.Section, bool) {
	var kills, times []report.Sample
	for _, d := range r.domainViews() {
		secs, _ := killTimes(d.Bugs)
		kills = append(kills, report.Sample{Group: d.Name, Values: secs})
		var st []float64
		for _, s := range d.Suites {
			st = append(st, s.Duration.Seconds())
		}
		times = append(times, report.Sample{Group: d.Name, Values: st})
	}
	sec := report.Section{ID: "overview", Title: "Across domains"}
	if r.Campaign != nil && r.Summary.Counts.BugsKilled > 0 {
		sec.Blocks = append(sec.Blocks, figure(report.Distributions("time-to-kill", "Time to kill a seeded bug, by domain", "Seconds from the start of a bug's run to its first failing property, per domain (log scale): the box spans the middle half of the bugs, the red line is the median.", "seconds (log scale)", kills, true)))
	}
	if len(r.Suites) > 0 {
		sec.Blocks = append(sec.Blocks, figure(report.Distributions("suite-times", "Suite run time, by domain", "Seconds each property suite took on the correct build, per domain (log scale).", "seconds (log scale)", times, true)))
	}
	return sec, len(sec.Blocks) > 0
}

// figure makes a drawn plot a block, or says why it could not be drawn.
func figure(f report.Figure, err error) report.Block {
	if err != nil {
		return report.Block{Text: "This plot could not be drawn: " + err.Error()}
	}
	return report.Block{Figure: &f}
}

// domainSection is one domain: the suites grid, the kill matrix as a heat
// map, and the bugs' table.
func (r *Report) domainSection(d domainView) report.Section {
	sec := report.Section{ID: "domain-" + d.Name, Title: d.Name}
	if len(d.Props) > 0 {
		t := &report.Table{Head: append([]string{"property"}, d.Impls...)}
		for _, p := range d.Props {
			row := []report.Cell{{Text: p}}
			for _, impl := range d.Impls {
				s, ok := d.Suites[suiteKey{p, impl}]
				row = append(row, suiteHTMLCell(s, ok))
			}
			t.Rows = append(t.Rows, row)
		}
		sec.Blocks = append(sec.Blocks, report.Block{Heading: "Property suites on the correct build"}, report.Block{Table: t})
	}
	if len(d.Bugs) > 0 {
		secs, checks := killTimes(d.Bugs)
		sec.Blocks = append(sec.Blocks, report.Block{Heading: "Seeded bugs"},
			figure(killMatrixFigure(d)),
			report.Block{Text: strings.TrimSpace(summary("Time to kill", secs, "s") + " " + summary("Checks to kill", checks, ""))},
			report.Block{Details: &report.Details{Summary: fmt.Sprintf("The %d seeded bugs, one row each", len(d.Bugs)), Blocks: []report.Block{{Table: bugsTable(d.Bugs)}}}})
	}
	return sec
}

func suiteHTMLCell(s SuiteResult, ran bool) report.Cell {
	switch {
	case !ran:
		return report.Cell{}
	case s.Outcome == props.Passed:
		return report.Cell{Text: "pass " + shortTime(s.Duration), Status: report.StatusPass, Title: fmt.Sprintf("%d checks", s.Checks)}
	case s.Outcome == props.Failed:
		return report.Cell{Text: "FAIL", Status: report.StatusFail, Href: traceFile("suite", s.Name)}
	}
	return report.Cell{Text: string(s.Outcome), Status: report.StatusWarn}
}

// killMatrixFigure draws d's kill matrix: a row per bug, a column per
// property that ran against the domain's bugs.
func killMatrixFigure(d domainView) (report.Figure, error) {
	g := report.Grid{ID: "kill-matrix-" + d.Name, Title: "Kill matrix: " + d.Name, Cols: d.Columns,
		Caption: "Each row a seeded bug, each column a property: dark where the property killed the bug first, light where it also failed on it, grey where it ran and passed, white where it does not run against the bug's implementation. A row with no green is a surviving bug; a column with none, a property that killed nothing.",
		Legend:  []report.LegendEntry{{Label: "passed (bug not seen)", Color: report.Empty}, {Label: "killed", Color: report.Fair}, {Label: "killed first", Color: report.Good}}}
	for _, m := range d.Bugs {
		label := string(m.Bug.ID)
		if !m.Killed {
			label += " (SURVIVED)"
		}
		g.Rows = append(g.Rows, label)
		row := make([]report.Level, len(d.Columns))
		for i, p := range d.Columns {
			row[i] = report.Level(d.cell(m, p))
		}
		g.Cells = append(g.Cells, row)
	}
	return report.HeatMap(g)
}

func bugsTable(ms []MutantResult) *report.Table {
	t := &report.Table{Head: []string{"seeded bug", "impl", "result", "killed first by", "also by", "checks", "time", "what it is"},
		Numeric: []bool{false, false, false, false, false, true, true}}
	for _, m := range ms {
		res := report.Cell{Text: "killed", Status: report.StatusPass, Href: traceFile("bug", string(m.Bug.ID))}
		switch {
		case m.Error != "":
			res = report.Cell{Text: "error", Status: report.StatusFail, Href: res.Href}
		case !m.Killed:
			res = report.Cell{Text: "survived", Status: report.StatusFail}
		case !m.Expected:
			res.Status = report.StatusFair
		}
		t.Rows = append(t.Rows, []report.Cell{{Text: string(m.Bug.ID), Code: true}, {Text: m.Bug.Impl}, res, {Text: firstKiller(m)},
			{Text: strings.Join(alsoKilledBy(m), ", ")}, {Text: fmt.Sprint(m.Checks)}, {Text: m.Duration.Round(time.Millisecond).String()}, {Text: m.Bug.Summary}})
	}
	return t
}

// filesSection lists the run directory's other files.
func (r *Report) filesSection() report.Section {
	t := &report.Table{Head: []string{"file", "what it holds"}}
	add := func(name, what string) {
		t.Rows = append(t.Rows, []report.Cell{{Text: name, Href: name}, {Text: what}})
	}
	add("report.json", "every result, the source of this page (schema: reports/schema/report.schema.json in the repository)")
	add("report.md", "this report as text")
	if r.Campaign != nil && len(r.Campaign.Mutants) > 0 {
		add(mutationReportName, "the seeded-bug campaign in the mutation-testing report format (mutation-testing-report-schema), for its viewers and dashboards")
	}
	blocks := []report.Block{{Table: t}}
	if len(r.Run.Merged) > 0 {
		blocks = append(blocks, report.Block{Text: "Merged from the shards " + strings.Join(r.Run.Merged, ", ") + "."})
	}
	blocks = append(blocks, report.Block{Text: "Command line: verify " + strings.Join(r.Run.Args, " ")})
	return report.Section{ID: "files", Title: "Files and details", Blocks: blocks}
}

func median(xs []float64) float64 {
	v, _ := stats.Median(xs)
	return v
}
