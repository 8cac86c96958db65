package goals

import (
	"fmt"

	"github.com/memverify/memverify/internal/benchcmp"
)

// metricAtMost: the median of impl's custom metric unit (one a benchmark
// reports with b.ReportMetric, as benchcmp tidies it: "p99-ns/pair" reads
// as "p99-sec/pair", in seconds) on every group matching pattern is at most
// limit, judged on its interval as atMost judges times. A benchmark that
// reports a distribution (a percentile of per-item costs) is judged this
// way: each sample is one measurement of the percentile, and the median of
// the samples and its interval say where it lies.
func metricAtMost(pattern string, impls []string, unit string, limit float64) check {
	return func(r run) judged {
		bs, missing := r.find(pattern)
		j := judged{missing: missing}
		for _, impl := range impls {
			for _, b := range bs {
				row, ok := r.row(b, impl, unit)
				switch {
				case !ok && r.has(b, impl):
					j.missing = append(j.missing, r.name(b, impl)+" "+unit+" (the run does not report it)")
					continue
				case !ok:
					j.missing = append(j.missing, r.name(b, impl)+" not in the run")
					continue
				case row.Median == 0:
					j.missing = append(j.missing, r.name(b, impl)+" at 0 "+unit+": nothing measured")
					continue
				}
				met, inconclusive := verdictOf(row.Lo, row.Hi, limit, true, !row.Unbounded)
				j.cases = append(j.cases, Case{
					Name: r.name(b, impl) + " " + unit,
					Measured: fmt.Sprintf("%s %s (goal ≤ %s)", benchcmp.Duration(row.Median),
						ci(row.Lo, row.Hi, !row.Unbounded, benchcmp.Duration), benchcmp.Duration(limit)),
					Met:          met,
					Inconclusive: inconclusive,
					slack:        limit / row.Median,
				})
			}
		}
		return j
	}
}
