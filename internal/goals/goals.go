// Package goals holds memverify's performance goals as data and judges a
// benchmark run against them.
//
// Each goal is a performance target stated in one sentence ("at 10k live
// blocks the optimised list at least 20× the model"), turned into checks
// over the medians that internal/benchcmp computes from `go test -bench`
// output: a bound on one implementation's median, a ratio between two
// implementations of one group, growth across a sweep (as ratios each
// sample measured within itself), or zero allocations. A goal is met when everything it names is
// measured and met: every implementation and reference of every group it
// matches, every size it lists, every unit it reads. A verdict's Status is a
// typed value (status.go): a goal whose benchmarks are missing from the run
// is NotMeasured, never Met; one with some cases measured and others not (a
// run without -benchmem has times but no allocations; a run with
// impl=Sharded but not LockFree) is PartlyMeasured while its measured cases
// hold, with what is missing named, and NotMet once one misses. Judging
// from the same medians the tables show means the status column of
// bench/README.md is computed, not transcribed.
//
// Every case gets one of three verdicts, from the 95% confidence interval
// of its figure (benchcmp's median interval; for a ratio, the interval the
// two medians' intervals allow): met when the interval lies on the right
// side of the bound, missed only when it lies on the wrong side, and
// inconclusive when it holds the bound, or when the samples are too few to
// bound it. So a run on a busy host that measures a median a little above
// a bound, with an interval that reaches below it, does not miss the goal:
// it could not tell. A goal about work rather than time (how the bank free
// list's cost grows with its size) is judged on instruction counts when
// the run has them (instr/op, as internal/gate's callgrind runs write
// them): exact counts, met or missed, never inconclusive; on times
// otherwise. Allocation counts are exact too.
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
	Text   string // the goal as stated
	// Pending, when set, says why the goal does not gate yet: it is judged
	// and shown like every goal, but a gate passes whatever its verdict (a
	// goal whose benchmarks the committed baseline does not hold yet, or
	// one missed for a reason stated here, what the extra cost buys).
	Pending string
	// perCampaign: the goal is about the samples of one campaign (their
	// spread), judged on each campaign alone where several are read
	// together (JudgeCampaigns).
	perCampaign bool
	checks      []check // all must hold
}

// check judges one aspect of a goal over a run's medians.
type check func(run) judged

// judged is what a check found: one case per benchmark it measured, and
// what the goal names that the run did not measure.
type judged struct {
	cases   []Case
	missing []string
}

// Case is one measured case of a goal, such as OverlapRandom/rank=3/impl=Exact
// measured at "134.2ns [131.0ns, 137.9ns] (goal ≤ 300.0ns)".
type Case struct {
	Name     string `json:"name"`     // the group (or groups) it was measured on
	Measured string `json:"measured"` // the figure, its interval, and the bound
	Met      bool   `json:"met"`
	// Inconclusive is set when the case's interval holds its bound (or
	// could not be bounded): neither met nor missed. Met is then false.
	Inconclusive bool `json:"inconclusive,omitempty"`
	// slack is the bound over the figure, oriented so that 1 is exactly
	// at the bound and below 1 misses it: the tightest case has the least.
	slack float64
}

// Verdict is a goal judged on one run.
type Verdict struct {
	Domain string `json:"domain"`
	Goal   string `json:"goal"`
	Cases  []Case `json:"cases"`
	// Missing names each thing the goal needs that the run did not measure:
	// a benchmark, an implementation or reference of a group the run has, a
	// size of a sweep, a unit (allocs/op without -benchmem), or a time of
	// zero, from which no bound or ratio can be judged.
	Missing []string `json:"missing,omitempty"`
	// Status is Met (everything measured and met), NotMet (a measured case
	// misses), PartlyMeasured (something is missing; the measured cases are
	// met) or NotMeasured (no case measured).
	Status Status `json:"status"`
	// Pending is the goal's Pending: set, the verdict does not gate.
	Pending string `json:"pending,omitempty"`
}

// FailsGate reports whether a gate on the goals fails on v: its status
// fails a gate (Status.FailsGate) and the goal is not pending.
func (v Verdict) FailsGate() bool { return v.Pending == "" && v.Status.FailsGate() }

// Gated returns the verdicts a gate judges: every one but the pending.
func Gated(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if v.Pending == "" {
			out = append(out, v)
		}
	}
	return out
}

// key is one row of a run: a group at one GOMAXPROCS, an implementation
// and a unit.
type key struct {
	group      string
	procs      int
	impl, unit string
}

// run indexes a run's rows.
type run struct {
	rows map[key]benchcmp.Row
	// mixed is set when the run holds benchmarks at several GOMAXPROCS:
	// case names then carry the -N suffix that tells them apart.
	mixed bool
}

func index(rows []benchcmp.Row) run {
	r := run{rows: map[key]benchcmp.Row{}, mixed: benchcmp.MixedProcs(rows)}
	for _, row := range rows {
		r.rows[key{row.Group, row.Procs, row.Impl, row.Unit}] = row
	}
	return r
}

// bench is one benchmark group at one GOMAXPROCS: a goal is judged on each
// GOMAXPROCS a run measured apart, as benchcmp keeps them.
type bench struct {
	group string
	procs int
}

// find returns the benchmarks matching pattern, sorted, and names each of
// its alternatives that matches none. pattern is matched with path.Match (a
// * stays within one level of the name); {a,b} lists alternatives that
// must each be measured, where a goal names its sizes. A group is found by
// a row of any implementation and unit, so that a group the run has without
// the implementation a goal names is reported as missing it, not passed
// over.
func (r run) find(pattern string) (found []bench, missing []string) {
	seen := map[bench]bool{}
	for _, alt := range expand(pattern) {
		n := 0
		for k := range r.rows {
			if k.unit == benchcmp.UnitInstr {
				continue // counts, taken at GOMAXPROCS=1: read by instr, not a benchmark of the run's
			}
			if ok, _ := path.Match(alt, k.group); ok {
				n++
				if b := (bench{k.group, k.procs}); !seen[b] {
					seen[b] = true
					found = append(found, b)
				}
			}
		}
		if n == 0 {
			missing = append(missing, "no benchmark matches "+alt)
		}
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].group != found[j].group {
			return found[i].group < found[j].group
		}
		return found[i].procs < found[j].procs
	})
	return found, missing
}

// expand lists the alternatives of the first {a,b,...} in pattern, each
// expanded in turn; a pattern without braces is its only alternative.
func expand(pattern string) []string {
	i := strings.IndexByte(pattern, '{')
	j := strings.IndexByte(pattern, '}')
	if i < 0 || j < i {
		return []string{pattern}
	}
	var out []string
	for _, alt := range strings.Split(pattern[i+1:j], ",") {
		out = append(out, expand(pattern[:i]+alt+pattern[j+1:])...)
	}
	return out
}

// row returns the row of b, impl and unit, if the run has it.
func (r run) row(b bench, impl, unit string) (benchcmp.Row, bool) {
	row, ok := r.rows[key{b.group, b.procs, impl, unit}]
	return row, ok
}

// has reports whether the run has impl on b in any unit.
func (r run) has(b bench, impl string) bool {
	for k := range r.rows {
		if k.group == b.group && k.procs == b.procs && k.impl == impl {
			return true
		}
	}
	return false
}

// time returns the median time of impl on b, or why there is none to
// judge: the run lacks it, or it is zero, which no bound or ratio can be
// read from (a loop the compiler removed measures nothing).
func (r run) time(b bench, impl string) (float64, string) {
	row, ok := r.row(b, impl, "sec/op")
	switch {
	case !ok:
		return 0, r.name(b, impl) + " not in the run"
	case row.Median == 0:
		return 0, r.name(b, impl) + " at 0 ns/op: no time measured"
	}
	return row.Median, ""
}

// name is a case's name: the benchmark's name as go test gives it, less
// its Benchmark prefix, and its -N suffix unless every row of the run has
// the same one.
func (r run) name(b bench, impl string) string {
	return benchcmp.Label(caseName(b.group, impl), b.procs, r.mixed)
}

// Judge evaluates every goal on rows, in the order of All.
func Judge(rows []benchcmp.Row) []Verdict {
	r := index(rows)
	var out []Verdict
	for _, g := range All {
		out = append(out, judge(g, r, ""))
	}
	return out
}

// status judges a goal on its cases and on what it needed and the run did
// not measure. Half a goal measured is not a goal met: every implementation,
// reference and size the goal names must be measured. A case missed is a
// goal missed, whatever else is missing.
func status(cases []Case, missing []string) Status {
	inconclusive := false
	for _, c := range cases {
		switch {
		case c.Inconclusive:
			inconclusive = true
		case !c.Met:
			return NotMet
		}
	}
	switch {
	case len(cases) == 0:
		return NotMeasured
	case len(missing) > 0:
		return PartlyMeasured
	case inconclusive:
		return Inconclusive
	}
	return Met
}

// verdictOf judges a figure whose 95% interval is [lo, hi] against a bound:
// the figure must be at most the bound (atMost) or at least it. It is met
// when the whole interval is on the right side, missed when the whole
// interval is on the wrong side, inconclusive otherwise, and when the
// interval is unbounded (too few samples).
func verdictOf(lo, hi, bound float64, atMost, bounded bool) (met, inconclusive bool) {
	if !bounded {
		return false, true
	}
	if atMost {
		return hi <= bound, hi > bound && lo <= bound
	}
	return lo >= bound, lo < bound && hi >= bound
}

// ci renders an interval with show, or says it could not be bounded.
func ci(lo, hi float64, bounded bool, show func(float64) string) string {
	if !bounded {
		return "[too few samples to bound]"
	}
	return "[" + show(lo) + ", " + show(hi) + "]"
}

// atMost: the median of impl on every group matching pattern is at most
// limit (seconds per op), judged on its interval.
func atMost(pattern string, impls []string, limit float64) check {
	return eachTime(pattern, impls, func(name string, row benchcmp.Row) Case {
		met, inconclusive := verdictOf(row.Lo, row.Hi, limit, true, !row.Unbounded)
		return Case{
			Name:         name,
			Measured:     fmt.Sprintf("%s %s (goal ≤ %s)", benchcmp.Duration(row.Median), ci(row.Lo, row.Hi, !row.Unbounded, benchcmp.Duration), benchcmp.Duration(limit)),
			Met:          met,
			Inconclusive: inconclusive,
			slack:        limit / row.Median,
		}
	})
}

// eachTime is a check that judges, with judge, the time of each impl on
// every group matching pattern, and names the times the run lacks.
func eachTime(pattern string, impls []string, judge func(name string, row benchcmp.Row) Case) check {
	return func(r run) judged {
		bs, missing := r.find(pattern)
		j := judged{missing: missing}
		for _, impl := range impls {
			for _, b := range bs {
				if _, why := r.time(b, impl); why != "" {
					j.missing = append(j.missing, why)
					continue
				}
				row, _ := r.row(b, impl, "sec/op")
				j.cases = append(j.cases, judge(r.name(b, impl), row))
			}
		}
		return j
	}
}

// faster: on every group matching pattern, ref's median over impl's is at
// least times, judged on the interval of the ratio that the two medians'
// intervals allow: [ref's low / impl's high, ref's high / impl's low].
func faster(pattern, ref string, impls []string, times float64) check {
	return func(r run) judged {
		bs, missing := r.find(pattern)
		j := judged{missing: missing}
		for _, impl := range impls {
			for _, b := range bs {
				m, why := r.time(b, impl)
				rm, refWhy := r.time(b, ref)
				if why != "" {
					j.missing = append(j.missing, why)
				}
				if refWhy != "" {
					j.missing = append(j.missing, "reference "+refWhy)
				}
				if why != "" || refWhy != "" {
					continue
				}
				row, _ := r.row(b, impl, "sec/op")
				refRow, _ := r.row(b, ref, "sec/op")
				bounded := !row.Unbounded && !refRow.Unbounded && row.Lo > 0
				lo, hi := 0.0, 0.0
				if bounded {
					lo, hi = refRow.Lo/row.Hi, refRow.Hi/row.Lo
				}
				met, inconclusive := verdictOf(lo, hi, times, false, bounded)
				j.cases = append(j.cases, Case{
					Name:         r.name(b, impl),
					Measured:     fmt.Sprintf("%s× %s: %s against %s's %s (goal ≥ %s×)", ratio(rm/m), ci(lo, hi, bounded, ratio), benchcmp.Duration(m), ref, benchcmp.Duration(rm), ratio(times)),
					Met:          met,
					Inconclusive: inconclusive,
					slack:        rm / m / times,
				})
			}
		}
		return j
	}
}

// noAllocs: impl allocates nothing per op on every group matching pattern,
// in any sample. allocs/op are exact counts, not timings that noise
// spreads: a sample that allocates shows a path that allocates, however
// many samples did not, so the largest sample is judged, not the median.
func noAllocs(pattern string, impls []string) check {
	return func(r run) judged {
		bs, missing := r.find(pattern)
		j := judged{missing: missing}
		for _, impl := range impls {
			for _, b := range bs {
				row, ok := r.row(b, impl, "allocs/op")
				switch {
				case !ok && r.has(b, impl):
					j.missing = append(j.missing, r.name(b, impl)+" allocs/op (a run without -benchmem)")
					continue
				case !ok:
					j.missing = append(j.missing, r.name(b, impl)+" not in the run")
					continue
				}
				a := row.Max
				measured := fmt.Sprintf("%g allocs/op", a)
				if a != row.Median {
					measured = fmt.Sprintf("%g allocs/op in its worst sample (median %g)", a, row.Median)
				}
				slack := math.Inf(1) // no margin to speak of
				if a > 0 {
					slack = 0
				}
				j.cases = append(j.cases, Case{Name: r.name(b, impl), Measured: measured, Met: a == 0, slack: slack})
			}
		}
		return j
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
