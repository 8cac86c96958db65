package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/benchcmp"
	"github.com/memverify/memverify/internal/goals"
	"github.com/memverify/memverify/props"
)

// markdown renders the report for a person reading it as text: the summary
// first (verdict, why, where, the counts, each failure with its repro),
// then one section per domain, then the details. Long text (traces) is in
// files of its own, linked from its row: a passing full run reads in under
// 300 lines (TestMarkdownOfAFullRunIsShort).
func (r *Report) markdown() string {
	r.summarize()
	var b strings.Builder
	r.summaryMarkdown(&b)
	for _, d := range r.domainViews() {
		r.domainMarkdown(&b, d)
	}
	if r.Accuracy != nil {
		fmt.Fprintf(&b, "## Overlap accuracy\n\nEach checker against the brute-force model on %d generated pairs of strided views (seed %d); by view family in report.html. A false negative is a missed dependency: a data race in the runtime.\n\n%s\n",
			r.Accuracy.Pairs, r.Accuracy.Seed, accuracyText(r.Accuracy.Rows, true))
	}
	if len(r.Bench) > 0 {
		fmt.Fprintf(&b, "## Benchmarks\n\nFrom %s. Medians with 95%% confidence intervals; \"vs ref\" is the model's median over the implementation's, from the same run, with the Mann-Whitney p-value.\n\n%s\n", r.BenchSource, benchcmp.Format(r.Bench))
	}
	if len(r.Goals) > 0 {
		fmt.Fprintf(&b, "## Goals\n\nEach performance goal (internal/goals), judged on the medians above.\n\n%s\n", goals.Format(r.Goals))
	}
	if len(r.GoalRuns) > 0 {
		fmt.Fprintf(&b, "### Goals run by run\n\nEach cell: the case closest to its bound, or the worst miss.\n\n%s\n", formatRuns(r.GoalRuns))
	}
	r.detailsMarkdown(&b)
	return b.String()
}

func (r *Report) summaryMarkdown(b *strings.Builder) {
	s := r.Summary
	fmt.Fprintf(b, "# memverify %s: %s\n\n**%s**: %s.\n\n", r.command(), strings.ToUpper(s.Verdict), strings.ToUpper(s.Verdict), s.headline())
	if len(s.Reasons) > 1 {
		for _, why := range s.Reasons {
			fmt.Fprintf(b, "- %s\n", why)
		}
		b.WriteString("\n")
	}
	b.WriteString("| | |\n|---|---|\n")
	for _, f := range r.facts() {
		fmt.Fprintf(b, "| %s | %s |\n", f.Name, cell(f.Value))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "\nNote: %s.\n", n)
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(b, "\n## Failures\n\n")
		for i, f := range s.Failures {
			fmt.Fprintf(b, "%d. **%s** `%s`: %s%s\n", i+1, f.Kind, f.Name, f.What, links(f))
			if f.Repro != "" {
				fmt.Fprintf(b, "   `%s`\n", f.Repro)
			}
		}
	}
	b.WriteString("\nPlots in report.html; every result in report.json (schema: reports/schema/report.schema.json)")
	if r.Campaign != nil && len(r.Campaign.Mutants) > 0 {
		b.WriteString("; the campaign in " + mutationReportName + ", the mutation-testing report format")
	}
	b.WriteString(".\n\n")
}

// links are a failure's trace and history, as Markdown links.
func links(f Failure) string {
	var out []string
	if f.Trace != "" {
		out = append(out, "[trace]("+f.Trace+")")
	}
	if f.History != "" {
		out = append(out, "[history]("+f.History+")")
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, ", ") + ")"
}

// facts are the summary's table: where and how the run ran, and counts.
func (r *Report) facts() []fact {
	s := r.Summary
	fs := []fact{
		{"commit", Source{s.Commit, s.Dirty}.String()},
		{"go", s.GoVersion},
		{"machine", s.Machine.String()},
		{"started", s.Started.Format("2006-01-02 15:04:05 UTC")},
		{"duration", roughly(s.Duration)},
	}
	if r.command() != "bench" {
		fs = append(fs, fact{"budget", budgetText(s.Budget)})
	}
	if sel := r.selection(); sel != "" {
		fs = append(fs, fact{"selection", sel})
	}
	c := s.Counts
	if c.Suites > 0 {
		fs = append(fs, fact{"suites", fmt.Sprintf("%d run: %d passed, %d failed, %d skipped", c.Suites, c.SuitesPassed, c.SuitesFailed, c.SuitesSkipped)})
	}
	if c.Bugs > 0 {
		secs, _ := killTimes(r.Campaign.Mutants)
		fs = append(fs, fact{"seeded bugs", fmt.Sprintf("%d of %d killed, %d survived, %d without a verdict. %s", c.BugsKilled, c.Bugs, c.BugsSurvived, c.BugsErrored, summary("time to kill", secs, "s"))},
			fact{"properties that killed nothing", fmt.Sprintf("%d (and %d not judged)", c.SilentProperties, c.UnjudgedProperties)},
			fact{"unmutated baseline", fmt.Sprintf("%d runs, %d failed", c.BaselineRuns, c.BaselineFailed)})
	}
	if len(s.OverlapAccuracy) > 0 {
		var parts []string
		for _, a := range s.OverlapAccuracy {
			parts = append(parts, fmt.Sprintf("%s misses %.1f%%, false alarms %.1f%%", a.Checker, 100*a.MissRate(), 100*a.FalseAlarmRate()))
		}
		fs = append(fs, fact{"overlap accuracy", strings.Join(parts, "; ")})
	}
	if c.Goals > 0 {
		fs = append(fs, fact{"performance goals", fmt.Sprintf("%d of %d met, %d missed, %d not measured in full", c.GoalsMet, c.Goals, c.GoalsMissed, c.GoalsUnmeasured)})
	}
	return fs
}

type fact struct{ Name, Value string }

// budgetText is the budget in one line.
func budgetText(b Budget) string {
	s := fmt.Sprintf("%d checks, %d steps per suite", b.Checks, b.Steps)
	if len(b.Seeds) > 0 {
		s += fmt.Sprintf("; each seeded bug under seeds %s", seedList(b.Seeds))
	}
	return s
}

func seedList(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ",")
}

// selection says how the run was narrowed: filters, shard, merge.
func (r *Report) selection() string {
	var parts []string
	f := r.Run.Filters
	for _, kv := range [][2]string{{"-domain", f.Domain}, {"-property", f.Property}, {"-impl", f.Impl}, {"-bug", f.Bug}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	if sh := r.Run.Shard; sh != nil {
		parts = append(parts, fmt.Sprintf("shard %d of %d", sh.Index, sh.Count))
	}
	if len(r.Run.Merged) > 0 {
		parts = append(parts, fmt.Sprintf("merged from %d shards", len(r.Run.Merged)))
	}
	return strings.Join(parts, ", ")
}

// domainMarkdown renders one domain: its suites as a property ×
// implementation grid, then its seeded bugs, one row each, with the
// properties that killed them (the kill matrix, row by row).
func (r *Report) domainMarkdown(b *strings.Builder, d domainView) {
	fmt.Fprintf(b, "## %s\n\n", d.Name)
	if len(d.Props) > 0 {
		fmt.Fprintf(b, "| property | %s |\n|---|%s\n", strings.Join(d.Impls, " | "), strings.Repeat("---|", len(d.Impls)))
		for _, p := range d.Props {
			row := make([]string, len(d.Impls))
			for i, impl := range d.Impls {
				if s, ok := d.Suites[suiteKey{p, impl}]; ok {
					row[i] = suiteCell(s)
				}
			}
			fmt.Fprintf(b, "| %s | %s |\n", p, strings.Join(row, " | "))
		}
		b.WriteString("\n")
	}
	if len(d.Bugs) > 0 {
		b.WriteString("| seeded bug | impl | result | killed first by | also by | checks | time | what it is |\n|---|---|---|---|---|---:|---:|---|\n")
		for _, m := range d.Bugs {
			fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %d | %v | %s |\n", m.Bug.ID, cell(m.Bug.Impl), bugResult(m), cell(firstKiller(m)),
				cell(strings.Join(alsoKilledBy(m), ", ")), m.Checks, m.Duration.Round(time.Millisecond), cell(m.Bug.Summary))
		}
		secs, checks := killTimes(d.Bugs)
		fmt.Fprintf(b, "\n%s %s\n", summary("Time to kill", secs, "s"), summary("Checks to kill", checks, ""))
		b.WriteString("\n")
	}
}

// suiteCell is a suite's grid cell: its outcome and time, and for a
// failure the link to its trace.
func suiteCell(s SuiteResult) string {
	switch s.Outcome {
	case props.Passed:
		return "✔ " + shortTime(s.Duration)
	case props.Failed:
		return fmt.Sprintf("**FAIL** ([trace](%s))", traceFile("suite", s.Name))
	}
	return string(s.Outcome)
}

// bugResult is a bug's result cell, linked to its trace.
func bugResult(m MutantResult) string {
	link := "(" + traceFile("bug", string(m.Bug.ID)) + ")"
	switch {
	case m.Error != "":
		return "**error** [trace]" + link
	case m.Killed && m.CutOff != "":
		return "[killed, cut off]" + link
	case m.Killed:
		return "[killed]" + link
	}
	return "**survived**"
}

// firstKiller is the property that killed m first, with the catalogue's
// expectation when another did.
func firstKiller(m MutantResult) string {
	if !m.Killed {
		return "(expected " + m.Bug.Killer + ")"
	}
	if !m.Expected {
		return m.By + " (expected " + m.Bug.Killer + ")"
	}
	return m.By
}

func alsoKilledBy(m MutantResult) []string {
	var out []string
	for _, p := range m.KilledBy {
		if p != m.By {
			out = append(out, p)
		}
	}
	return out
}

// detailsMarkdown ends the report: what ran but fits no table.
func (r *Report) detailsMarkdown(b *strings.Builder) {
	var lines []string
	for _, s := range r.Suites {
		if s.OutputError != "" {
			lines = append(lines, fmt.Sprintf("- %s: %s", s.Name, unreadNote(s.OutputError)))
		}
	}
	if c := r.Campaign; c != nil {
		lines = append(lines, fmt.Sprintf("- The unmutated build ran %d suite runs under seeds %s: %d failed.", r.Summary.Counts.BaselineRuns, seedList(c.Seeds), r.Summary.Counts.BaselineFailed))
		for _, m := range c.Mutants {
			if m.OutputError != "" {
				lines = append(lines, fmt.Sprintf("- %s: %s", m.Bug.ID, unreadNote(m.OutputError)))
			}
		}
	}
	if len(r.Run.Merged) > 0 {
		lines = append(lines, "- Merged from "+strings.Join(r.Run.Merged, ", ")+".")
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(b, "## Details\n\n%s\n", strings.Join(lines, "\n"))
}

// roughly is a duration to the second, or to the millisecond below ten
// seconds.
func roughly(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// shortTime is a suite's time in a grid cell: to 10ms, and "<10ms" below.
func shortTime(d time.Duration) string {
	if d < 10*time.Millisecond {
		return "<10ms"
	}
	return d.Round(10 * time.Millisecond).String()
}
