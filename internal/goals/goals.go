// Package goals holds memverify's performance goals as data and judges a
// benchmark run against them.
//
// Each goal is one sentence of an issue ("at 10k live blocks the optimised
// list at least 20× the model") turned into checks over the medians that
// internal/benchcmp computes from `go test -bench` output: a bound on one
// implementation's median, a ratio between two implementations of one
// group, growth across a sweep (as ratios each sample measured within
// itself), or zero allocations. A goal is met when every one of its checks
// is measured and met. A goal whose benchmarks are missing from the run is
// reported as not measured, never as met; one with some checks measured and
// others not (a run without -benchmem has times but no allocations) is
// "partly measured" while its measured cases hold, and "not met" once one
// misses. Judging from the same medians the tables show
// means the "met?" column of bench/README.md is computed, not transcribed.
//
// Wall-clock goals are judged as measured. On a shared host the same code
// can meet a bound in one run and miss it in the next; the verdict belongs
// to the run, and the run's file is what to quote with it.
package goals

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/memverify/memverify/internal/benchcmp"
)

// Goal is one performance goal of one domain.
type Goal struct {
	Domain string
	Text   string  // the goal as the issue states it
	checks []check // all must hold
}

// check judges one aspect of a goal over a run's medians. It returns one
// case per benchmark group it looked at; none when the run lacks them.
type check func(run) []Case

// Case is one measured case of a goal, such as OverlapRandom/rank=3/impl=Exact
// measured at "134.2ns (goal ≤ 300.0ns)".
type Case struct {
	Name     string `json:"name"`     // the group (or groups) it was measured on
	Measured string `json:"measured"` // the figure and the bound
	Met      bool   `json:"met"`
	// slack is the bound over the figure, oriented so that 1 is exactly
	// at the bound and below 1 misses it: the tightest case has the least.
	slack float64
}

// Verdict is a goal judged on one run.
type Verdict struct {
	Domain string `json:"domain"`
	Goal   string `json:"goal"`
	Cases  []Case `json:"cases"`
	// Status is "met" (every check measured and met), "not met" (a measured
	// case misses), "partly measured" (some check found no benchmark; the
	// rest are met) or "not measured".
	Status string `json:"status"`
}

// run indexes a run's rows by group, implementation and unit.
type run map[[3]string]benchcmp.Row

func index(rows []benchcmp.Row) run {
	r := run{}
	for _, row := range rows {
		r[[3]string{row.Group, row.Impl, row.Unit}] = row
	}
	return r
}

// groups returns the groups matching pattern (path.Match: a * stays within
// one level of the name) that have a sec/op row for impl, sorted.
func (r run) groups(pattern, impl string) []string { return r.groupsWith(pattern, impl, "sec/op") }

// groupsWith is groups for a row in unit.
func (r run) groupsWith(pattern, impl, unit string) []string {
	var out []string
	for k := range r {
		if k[1] != impl || k[2] != unit {
			continue
		}
		if ok, _ := path.Match(pattern, k[0]); ok {
			out = append(out, k[0])
		}
	}
	sort.Strings(out)
	return out
}

// median returns the median of group/impl in unit, if the run has it.
func (r run) median(group, impl, unit string) (float64, bool) {
	row, ok := r[[3]string{group, impl, unit}]
	return row.Median, ok
}

// Judge evaluates every goal on rows, in the order of All.
func Judge(rows []benchcmp.Row) []Verdict {
	r := index(rows)
	var out []Verdict
	for _, g := range All {
		v := Verdict{Domain: g.Domain, Goal: g.Text}
		unmeasured := 0
		for _, c := range g.checks {
			cases := c(r)
			if len(cases) == 0 {
				unmeasured++
			}
			v.Cases = append(v.Cases, cases...)
		}
		v.Status = status(v.Cases, unmeasured)
		out = append(out, v)
	}
	return out
}

// status judges a goal on its cases, unmeasured being how many of its checks
// found no benchmark.
func status(cases []Case, unmeasured int) string {
	for _, c := range cases {
		if !c.Met {
			return "not met"
		}
	}
	switch {
	case len(cases) == 0:
		return "not measured"
	case unmeasured > 0:
		return "partly measured"
	}
	return "met"
}

// atMost: the median of impl on every group matching pattern is at most
// limit (seconds per op).
func atMost(pattern string, impls []string, limit float64) check {
	return func(r run) []Case {
		var out []Case
		for _, impl := range impls {
			for _, g := range r.groups(pattern, impl) {
				m, _ := r.median(g, impl, "sec/op")
				out = append(out, Case{
					Name:     caseName(g, impl),
					Measured: fmt.Sprintf("%s (goal ≤ %s)", benchcmp.Duration(m), benchcmp.Duration(limit)),
					Met:      m <= limit,
					slack:    limit / m,
				})
			}
		}
		return out
	}
}

// faster: on every group matching pattern, ref's median over impl's is at
// least times.
func faster(pattern, ref string, impls []string, times float64) check {
	return func(r run) []Case {
		var out []Case
		for _, impl := range impls {
			for _, g := range r.groups(pattern, impl) {
				m, _ := r.median(g, impl, "sec/op")
				rm, ok := r.median(g, ref, "sec/op")
				if !ok || m == 0 {
					continue
				}
				out = append(out, Case{
					Name:     caseName(g, impl),
					Measured: fmt.Sprintf("%s×: %s against %s's %s (goal ≥ %s×)", ratio(rm/m), benchcmp.Duration(m), ref, benchcmp.Duration(rm), ratio(times)),
					Met:      rm/m >= times,
					slack:    rm / m / times,
				})
			}
		}
		return out
	}
}

// noAllocs: impl allocates nothing per op on every group matching pattern.
func noAllocs(pattern string, impls []string) check {
	return func(r run) []Case {
		var out []Case
		for _, impl := range impls {
			for _, g := range r.groups(pattern, impl) {
				a, ok := r.median(g, impl, "allocs/op")
				if !ok {
					continue
				}
				slack := math.Inf(1) // no margin to speak of
				if a > 0 {
					slack = 0
				}
				out = append(out, Case{Name: caseName(g, impl), Measured: fmt.Sprintf("%g allocs/op", a), Met: a == 0, slack: slack})
			}
		}
		return out
	}
}

// pairedGrowth: on every group matching pattern, impl's cost grows over a
// sweep at most as much as log2 of the size does, judged on ratios that
// each sample measured within itself: the unit "x@<size>/<base>" of a
// benchmark that times every size in turns (BenchmarkBankFreeListSweep),
// whose median the run holds. The ratio of two separate benchmarks'
// medians would also carry the host's drift between their samples. sizes
// gives each label's size, base being the smallest; the per-size medians
// (unit "sec/op@<size>") are shown beside the ratios.
func pairedGrowth(pattern, impl string, sizes map[string]float64, base string) check {
	var labels []string
	for l := range sizes {
		labels = append(labels, l)
	}
	sort.Slice(labels, func(i, j int) bool { return sizes[labels[i]] < sizes[labels[j]] })
	return func(r run) []Case {
		var out []Case
		for _, g := range r.groupsWith(pattern, impl, "x@"+labels[len(labels)-1]+"/"+base) {
			var ms, figures []string
			met, slack := true, math.Inf(1)
			for _, l := range labels {
				if m, ok := r.median(g, impl, "sec/op@"+l); ok {
					ms = append(ms, l+" "+benchcmp.Duration(m))
				}
				if l == base {
					continue
				}
				got, ok := r.median(g, impl, "x@"+l+"/"+base)
				if !ok {
					continue
				}
				allowed := math.Log2(sizes[l]) / math.Log2(sizes[base])
				met, slack = met && got <= allowed, min(slack, allowed/got)
				figures = append(figures, fmt.Sprintf("%s→%s ×%.2f (goal ≤ ×%.2f)", base, l, got, allowed))
			}
			out = append(out, Case{
				Name:     caseName(g, impl),
				Measured: strings.Join(ms, ", ") + "; within each sample " + strings.Join(figures, ", "),
				Met:      met,
				slack:    slack,
			})
		}
		return out
	}
}

func caseName(group, impl string) string { return group + "/impl=" + impl }

func ratio(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x == math.Trunc(x):
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
