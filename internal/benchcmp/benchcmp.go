// Package benchcmp reads `go test -bench` output and compares implementations
// measured side by side in one run.
//
// Benchmarks in bench/ name each implementation in a sub-benchmark key,
// `BenchmarkX/case/impl=Name`. This package groups results by everything but
// that key (runs at different GOMAXPROCS, the name's -N suffix, stay apart),
// summarises each implementation's sample with benchstat's
// statistics (golang.org/x/perf/benchmath: the median with a distribution-free
// confidence interval), and gives each implementation's ratio to a reference
// implementation of the same group with the Mann-Whitney U test of whether the
// two differ at all, and a verdict of three: faster, slower, or inconclusive
// when the test or the medians' intervals cannot tell (Row.Versus). Ratios
// within one run are what a noisy shared machine can support; absolute
// figures swing between runs.
package benchcmp

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// Row is one implementation in one benchmark group, for one unit.
type Row struct {
	Group string `json:"group"` // benchmark name without the impl key and GOMAXPROCS suffix
	// Procs is the GOMAXPROCS the benchmark ran at (its name's -N suffix),
	// 0 when the name has none. Rows of one group at different GOMAXPROCS
	// are kept apart: `go test -cpu 1,2,4` measures how an implementation
	// scales, and pooling its samples would give a median of no setting
	// and a ratio between implementations measured at different ones.
	Procs  int     `json:"procs,omitempty"`
	Impl   string  `json:"impl"`
	Unit   string  `json:"unit"` // "sec/op", "B/op", "allocs/op", or a custom metric
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Lo     float64 `json:"lo"` // 95% confidence interval of the median
	Hi     float64 `json:"hi"`
	// Max is the largest sample. A count such as allocs/op is exact: one
	// sample that allocates shows an allocating path that a median of
	// zeros would hide.
	Max float64 `json:"max"`
	// Unbounded is set when the samples are too few to bound the median at
	// 95% (benchmath needs six); Lo and Hi are then 0, not ±Inf, which JSON
	// cannot carry.
	Unbounded bool `json:"unbounded,omitempty"`
	// RefImpl is the implementation this row is compared with; "" when the
	// group has no such implementation or this row is it.
	RefImpl string `json:"ref_impl,omitempty"`
	// Speedup is the reference's median over this row's (for sec/op: how many
	// times faster than the reference). 0 when there is no reference.
	Speedup float64 `json:"speedup,omitempty"`
	// P is the Mann-Whitney p-value of "this row and the reference come from
	// the same distribution"; below 0.05 the difference is significant.
	P float64 `json:"p,omitempty"`
	// Versus is the verdict against the reference, one of three:
	// "faster" or "slower" when the difference is significant (P < 0.05)
	// and the interval of the ratio of the medians (the reference's
	// interval over this row's) lies wholly on one side of 1,
	// "inconclusive" otherwise. For sec/op, faster is less time; for
	// other units the same comparison reads "smaller" as "faster". ""
	// when there is no reference.
	Versus string `json:"versus,omitempty"`
}

// versus gives a row's verdict against the reference, from the two
// medians' 95% intervals and the p-value (Row.Versus).
func versus(r Row, ref benchmath.Summary) string {
	if r.Unbounded || math.IsInf(ref.Lo, 0) || math.IsInf(ref.Hi, 0) || r.Lo <= 0 || r.Hi <= 0 || r.P >= 0.05 {
		return "inconclusive"
	}
	switch {
	case ref.Lo/r.Hi > 1:
		return "faster"
	case ref.Hi/r.Lo < 1:
		return "slower"
	}
	return "inconclusive"
}

// Parse reads benchmark output and returns one row per group, implementation
// and unit, sorted, with ratios against refImpl (e.g. "Model"). name is the
// input's file name, for error messages. A value that is not a finite number
// (NaN, ±Inf) is an error: benchmath's statistics are undefined on it (its
// Mann-Whitney test does not end on a NaN) and JSON cannot carry it.
func Parse(r io.Reader, name, refImpl string) ([]Row, error) {
	samples, err := readSamples(r, name)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(samples))
	sums := map[rowKey]*benchmath.Sample{}
	for k, vs := range samples {
		s := benchmath.NewSample(vs, &benchmath.DefaultThresholds)
		sums[k] = s
		sum := benchmath.AssumeNothing.Summary(s, 0.95)
		row := Row{Group: k.group, Procs: k.procs, Impl: k.impl, Unit: k.unit, N: len(vs), Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Max: slices.Max(vs)}
		if math.IsInf(sum.Lo, 0) || math.IsInf(sum.Hi, 0) {
			row.Lo, row.Hi, row.Unbounded = 0, 0, true
		}
		rows = append(rows, row)
	}
	compare(rows, sums, refImpl)
	sortRows(rows)
	return rows, nil
}

// rowKey is what a Row is kept apart by.
type rowKey struct {
	group      string
	procs      int
	impl, unit string
}

// readSamples gathers the samples of each group, implementation and unit,
// every unit tidied (ns/op as sec/op).
func readSamples(r io.Reader, name string) (map[rowKey][]float64, error) {
	samples := map[rowKey][]float64{}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		res, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // a syntax error line or unit metadata: skip
		}
		group, impl, procs := splitName(res.Name.String())
		for _, v := range res.Values {
			if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
				val, unit := v.Value, v.Unit
				if v.OrigUnit != "" { // as the file has it, not as tidied (ns/op, not sec/op)
					val, unit = v.OrigValue, v.OrigUnit
				}
				file, line := res.Pos()
				return nil, fmt.Errorf("%s:%d: %s: %v %s is not a finite number", file, line, res.Name, val, unit)
			}
			val, unit := v.Value, v.Unit
			if v.OrigUnit == "" {
				// benchfmt leaves a value in its unit as written when
				// tidying does not change it, which a zero never does: 0
				// ns/op would stay in ns/op, a row of its own, apart from
				// its benchmark's other samples in sec/op. Tidy the unit
				// whatever the value.
				f, u := benchunit.Tidy(1, unit)
				val, unit = val*f, u
			}
			k := rowKey{group, procs, impl, unit}
			samples[k] = append(samples[k], val)
		}
	}
	return samples, br.Err()
}

// compare gives each row its ratio to refImpl's row of the same group,
// GOMAXPROCS and unit, and the Mann-Whitney p-value of the two samples.
func compare(rows []Row, sums map[rowKey]*benchmath.Sample, refImpl string) {
	for i := range rows {
		r := &rows[i]
		ref, ok := sums[rowKey{r.Group, r.Procs, refImpl, r.Unit}]
		if !ok || r.Impl == refImpl {
			continue
		}
		refSum := benchmath.AssumeNothing.Summary(ref, 0.95)
		refMed := refSum.Center
		r.RefImpl = refImpl
		if r.Median != 0 {
			r.Speedup = refMed / r.Median
		}
		r.P = benchmath.AssumeNothing.Compare(ref, sums[rowKey{r.Group, r.Procs, r.Impl, r.Unit}]).P
		r.Versus = versus(*r, refSum)
	}
}

// sortRows orders rows by group, GOMAXPROCS, unit (sec/op first) and
// implementation.
func sortRows(rows []Row) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Procs != b.Procs {
			return a.Procs < b.Procs
		}
		if a.Unit != b.Unit {
			return a.Unit > b.Unit // sec/op first
		}
		return a.Impl < b.Impl
	})
}

// splitName separates the impl=Name key and the -GOMAXPROCS suffix from a
// benchmark name and drops the Benchmark prefix. procs is 0 when the name
// has no suffix (go test omits it at GOMAXPROCS=1).
func splitName(full string) (group, impl string, procs int) {
	full = strings.TrimPrefix(full, "Benchmark")
	if i := strings.LastIndexByte(full, '-'); i > 0 && isDigits(full[i+1:]) {
		if n, err := strconv.Atoi(full[i+1:]); err == nil {
			full, procs = full[:i], n
		}
	}
	var parts []string
	for _, p := range strings.Split(full, "/") {
		if strings.HasPrefix(p, "impl=") {
			impl = strings.TrimPrefix(p, "impl=")
			continue
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "/"), impl, procs
}

// MixedProcs reports whether rows hold benchmarks run at more than one
// GOMAXPROCS, when names must show it to tell their rows apart.
// Instruction counts (UnitInstr) are left out: they are taken at
// GOMAXPROCS=1 by design (internal/gate), beside timings at any.
func MixedProcs(rows []Row) bool {
	first := -1
	for _, r := range rows {
		if r.Unit == UnitInstr {
			continue
		}
		if first < 0 {
			first = r.Procs
		} else if r.Procs != first {
			return true
		}
	}
	return false
}

// UnitInstr is the unit of instruction counts, as internal/gate writes
// them: exact, one per benchmark.
const UnitInstr = "instr/op"

// Label is a group's name as the tables show it: with its -GOMAXPROCS
// suffix when mixed (a run at several), as go test names it, and without it
// otherwise, where every row would repeat the same suffix.
func Label(group string, procs int, mixed bool) string {
	if !mixed || procs == 0 {
		return group
	}
	return group + "-" + strconv.Itoa(procs)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Format renders rows as a Markdown table: time per op with its confidence
// interval, the speedup over the reference with its verdict (faster,
// slower, inconclusive), then allocations ("—" where
// the run did not measure them: without -benchmem, 0 would claim a
// zero-allocation path that nobody measured).
func Format(rows []Row) string {
	var b strings.Builder
	b.WriteString("| benchmark | impl | time/op (median, 95% CI) | vs ref | p | B/op | allocs/op |\n|---|---|---:|---:|---:|---:|---:|\n")
	type key struct {
		group string
		procs int
		impl  string
	}
	mixed := MixedProcs(rows)
	extra := map[key]map[string]float64{}
	for _, r := range rows {
		k := key{r.Group, r.Procs, r.Impl}
		if extra[k] == nil {
			extra[k] = map[string]float64{}
		}
		extra[k][r.Unit] = r.Median
	}
	for _, r := range rows {
		if r.Unit != "sec/op" {
			continue
		}
		vs, p := "", ""
		if r.RefImpl != "" {
			vs = fmt.Sprintf("%.2f× %s", r.Speedup, r.Versus)
			p = fmt.Sprintf("%.3f", r.P)
		}
		ci := interval(r, Duration)
		e := extra[key{r.Group, r.Procs, r.Impl}]
		fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s | %s | %s |\n", Label(r.Group, r.Procs, mixed), r.Impl,
			Duration(r.Median), ci, vs, p, unitCell(e, "B/op"), unitCell(e, "allocs/op"))
	}
	b.WriteString(formatMetrics(rows, mixed))
	b.WriteString(formatCounts(rows))
	return b.String()
}

// formatCounts renders the instruction counts (UnitInstr) as a table of
// their own, empty when there are none: one exact count a benchmark, with
// no interval to show.
func formatCounts(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		if r.Unit != UnitInstr {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n| benchmark | impl | instructions/op (callgrind, at GOMAXPROCS=1) |\n|---|---|---:|\n")
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f |\n", r.Group, r.Impl, r.Median)
	}
	return b.String()
}

// unitCell renders the median in unit among a row's units, "—" when the run
// did not measure it.
func unitCell(units map[string]float64, unit string) string {
	v, ok := units[unit]
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.0f", v)
}

// formatMetrics renders the metrics benchmarks report of their own
// (b.ReportMetric: units other than time, B/op and allocs/op) as a second
// table, empty when there are none.
func formatMetrics(rows []Row, mixed bool) string {
	var b strings.Builder
	for _, r := range rows {
		switch r.Unit {
		case "sec/op", "B/op", "allocs/op", UnitInstr:
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n| benchmark | impl | metric | median, 95% CI |\n|---|---|---|---:|\n")
		}
		show := func(v float64) string { return fmt.Sprintf("%.3g", v) }
		if strings.HasPrefix(r.Unit, "sec/") {
			show = Duration
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s %s |\n", Label(r.Group, r.Procs, mixed), r.Impl, r.Unit, show(r.Median), interval(r, show))
	}
	return b.String()
}

// interval renders row r's 95% confidence interval with show, or says that
// its samples were too few to bound one.
func interval(r Row, show func(float64) string) string {
	if r.Unbounded {
		return fmt.Sprintf("[%d samples: too few to bound]", r.N)
	}
	return fmt.Sprintf("[%s, %s]", show(r.Lo), show(r.Hi))
}

// Duration renders seconds per op as the tables do: 8.4ns, 1.22µs, 2.43ms.
func Duration(sec float64) string {
	switch v := sec * 1e9; {
	case v < 1000:
		return fmt.Sprintf("%.1fns", v)
	case v < 1e6:
		return fmt.Sprintf("%.2fµs", v/1e3)
	default:
		return fmt.Sprintf("%.2fms", v/1e6)
	}
}
