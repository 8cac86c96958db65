package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/memverify/memverify/internal/benchcmp"
	"github.com/memverify/memverify/internal/goals"
	"github.com/memverify/memverify/internal/report"
)

// accuracySection draws each overlap checker's miss and false-alarm rates
// per family of generated views, with the table behind them.
func accuracySection(a *Accuracy) report.Section {
	var fams []string
	rates := map[string]map[string]AccuracyRow{} // checker → family → row
	for _, row := range a.Rows {
		fam := row.Family
		if fam == "" {
			fam = "all"
		}
		if !slices.Contains(fams, fam) {
			fams = append(fams, fam)
		}
		if rates[row.Checker] == nil {
			rates[row.Checker] = map[string]AccuracyRow{}
		}
		rates[row.Checker][fam] = row
	}
	series := func(rate func(AccuracyRow) float64) []report.Series {
		var out []report.Series
		for _, c := range AccuracyCheckers {
			s := report.Series{Name: c.Name}
			for _, f := range fams {
				s.Values = append(s.Values, 100*rate(rates[c.Name][f]))
			}
			out = append(out, s)
		}
		return out
	}
	intro := fmt.Sprintf("Each checker against the brute-force model on %d generated pairs of strided views (seed %d), overall (\"all\") and by the family of views generated. A missed overlap is a missed dependency: a data race in the runtime; a false alarm costs only parallelism.", a.Pairs, a.Seed)
	return report.Section{ID: "overlap-accuracy", Title: "Overlap accuracy", Blocks: []report.Block{
		{Text: intro},
		figure(report.Bars("overlap-missed", "Overlaps missed (false negatives), % of overlapping pairs", "Share of the overlapping pairs each checker called disjoint, by view family. Exact must miss none.", "% missed", fams, series(AccuracyRow.MissRate))),
		figure(report.Bars("overlap-false-alarms", "False alarms (false positives), % of disjoint pairs", "Share of the disjoint pairs each checker called overlapping, by view family.", "% false alarms", fams, series(AccuracyRow.FalseAlarmRate))),
		{Details: &report.Details{Summary: "The table behind the plots", Blocks: []report.Block{{Code: accuracyText(a.Rows, false)}}}},
	}}
}

// benchSection draws every implementation's speed against the model of
// its benchmark, one plot per domain, with the table behind them.
func benchSection(rows []benchcmp.Row, source string) report.Section {
	sec := report.Section{ID: "benchmarks", Title: "Benchmarks", Blocks: []report.Block{{Text: "From " + source + ". Each dot is the model's median time over the implementation's (right of 1: faster than the model), with its 95% confidence interval from the two medians' intervals; filled where Mann-Whitney finds the difference significant (p < 0.05). Peers (other libraries a user would pick) are drawn like our implementations."}}}
	byDomain := map[string][]report.Ratio{}
	var order []string
	mixed := benchcmp.MixedProcs(rows)
	for _, r := range rows {
		ratio, ok := speedRatio(rows, r, mixed)
		if !ok {
			continue
		}
		d := benchDomain(r.Group)
		if _, seen := byDomain[d]; !seen {
			order = append(order, d)
		}
		byDomain[d] = append(byDomain[d], ratio)
	}
	for _, d := range order {
		sec.Blocks = append(sec.Blocks, figure(report.Ratios("bench-"+slug(d), "Speed against the model: "+d, "Model time ÷ implementation time per benchmark, log scale, 95% intervals.", "times as fast as the model (log scale)", byDomain[d])))
	}
	sec.Blocks = append(sec.Blocks, report.Block{Details: &report.Details{Summary: "The table behind the plots", Blocks: []report.Block{{Code: benchcmp.Format(rows)}}}})
	return sec
}

// speedRatio is row r's time against its reference's, with the interval
// the two medians' intervals allow, when r has a reference.
func speedRatio(rows []benchcmp.Row, r benchcmp.Row, mixed bool) (report.Ratio, bool) {
	if r.Unit != "sec/op" || r.RefImpl == "" || r.Speedup <= 0 {
		return report.Ratio{}, false
	}
	out := report.Ratio{Label: benchcmp.Label(r.Group, r.Procs, mixed) + " " + r.Impl, Value: r.Speedup, Significant: r.P > 0 && r.P < 0.05}
	for _, ref := range rows {
		if ref.Group == r.Group && ref.Procs == r.Procs && ref.Unit == r.Unit && ref.Impl == r.RefImpl {
			if !r.Unbounded && !ref.Unbounded && r.Lo > 0 && r.Hi > 0 {
				out.Lo, out.Hi = ref.Lo/r.Hi, ref.Hi/r.Lo
			}
		}
	}
	return out, true
}

// benchDomain is the domain a benchmark group measures, by its name's
// prefix (BenchmarkBankFreeList → bank), else "other".
func benchDomain(group string) string {
	g := strings.ToLower(strings.TrimPrefix(group, "Benchmark"))
	for _, d := range []string{"refcount", "sizeclass", "bank", "overlap", "tensormap"} {
		if strings.HasPrefix(g, d) {
			return d
		}
	}
	return "other"
}

// goalsSection shows each performance goal with its verdict, coloured.
func goalsSection(vs []goals.Verdict) report.Section {
	t := &report.Table{Head: []string{"domain", "goal", "verdict", "closest case (or worst miss)", "cases"}, Numeric: []bool{false, false, false, false, true}}
	for _, v := range vs {
		st := report.StatusFail
		switch {
		case v.Status == goals.Met:
			st = report.StatusPass
		case v.Status.Unjudged() || v.Status == goals.Inconclusive:
			st = report.StatusWarn
		}
		closest := strings.Join(v.Missing, "; ")
		if c, ok := v.Tightest(); ok {
			closest = c.Name + ": " + c.Measured
		}
		t.Rows = append(t.Rows, []report.Cell{{Text: v.Domain}, {Text: v.Goal}, {Text: v.Status.String(), Status: st}, {Text: closest}, {Text: fmt.Sprint(len(v.Cases))}})
	}
	return report.Section{ID: "goals", Title: "Performance goals", Blocks: []report.Block{
		{Text: "Each goal of internal/goals, judged on the confidence intervals of the benchmark medians: green met, red missed, amber inconclusive or not measured in full."}, {Table: t}}}
}
