package goals

// Goals about growth over a sweep: how one implementation's cost grows from
// the smallest size to the others, against log2 of the size. Judged on
// instruction counts where the run has them (work, exact), else on ratios
// each timed sample measured within itself.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/memverify/memverify/internal/benchcmp"
)

// pairedGrowth: on every group matching pattern, impl's cost grows over a
// sweep at most as much as log2 of the size does, judged on ratios that
// each sample measured within itself: the unit "x@<size>/<base>" of a
// benchmark that times every size in turns (BenchmarkBankFreeListSweep),
// whose median and its interval the run holds. The ratio of two separate
// benchmarks' medians would also carry the host's drift between their
// samples. sizes gives each label's size, base being the smallest; every
// other size's ratio must be measured. The per-size medians (unit
// "sec/op@<size>") are shown beside the ratios.
func pairedGrowth(pattern, impl string, sizes map[string]float64, base string) check {
	labels := sizeLabels(sizes)
	return func(r run) judged {
		bs, missing := r.find(pattern)
		j := judged{missing: missing}
		for _, b := range bs {
			if !r.has(b, impl) {
				j.missing = append(j.missing, r.name(b, impl)+" not in the run")
				continue
			}
			var ms, figures []string
			g := growth{met: true, slack: math.Inf(1)}
			for _, l := range labels {
				if row, ok := r.row(b, impl, "sec/op@"+l); ok {
					ms = append(ms, l+" "+benchcmp.Duration(row.Median))
				}
				if l == base {
					continue
				}
				unit := "x@" + l + "/" + base
				row, ok := r.row(b, impl, unit)
				if !ok {
					j.missing = append(j.missing, r.name(b, impl)+" "+unit)
					continue
				}
				allowed := math.Log2(sizes[l]) / math.Log2(sizes[base])
				g.add(row.Median, row.Lo, row.Hi, allowed, !row.Unbounded)
				figures = append(figures, fmt.Sprintf("%s→%s ×%.2f %s (goal ≤ ×%.2f)", base, l, row.Median, ci(row.Lo, row.Hi, !row.Unbounded, func(x float64) string { return fmt.Sprintf("%.2f", x) }), allowed))
			}
			if len(figures) == 0 {
				continue // no ratio measured: named as missing above
			}
			j.cases = append(j.cases, g.caseOf(r.name(b, impl), strings.Join(ms, ", ")+"; within each sample "+strings.Join(figures, ", ")))
		}
		return j
	}
}

// instrGrowth: impl's instructions per op grow over a sweep at most as
// much as log2 of the size does. pattern names the benchmark of one size,
// with %s where the size's label goes, and may list alternatives in {a,b}
// (the directions), each judged as a case. Instruction counts are exact:
// a case is met or missed.
func instrGrowth(pattern, impl string, sizes map[string]float64, base string) check {
	labels := sizeLabels(sizes)
	return func(r run) judged {
		var j judged
		for _, alt := range expand(pattern) {
			counts := map[string]float64{}
			var ms []string
			for _, l := range labels {
				group := fmt.Sprintf(alt, l)
				n, ok := r.instr(group, impl)
				if !ok {
					j.missing = append(j.missing, caseName(group, impl)+" instr/op")
					continue
				}
				counts[l] = n
				ms = append(ms, fmt.Sprintf("%s %.0f", l, n))
			}
			if len(counts) < len(labels) || counts[base] <= 0 {
				continue
			}
			g := growth{met: true, slack: math.Inf(1)}
			var figures []string
			for _, l := range labels[1:] {
				allowed := math.Log2(sizes[l]) / math.Log2(sizes[base])
				x := counts[l] / counts[base]
				g.add(x, x, x, allowed, true)
				figures = append(figures, fmt.Sprintf("%s→%s ×%.2f (goal ≤ ×%.2f)", base, l, x, allowed))
			}
			name := caseName(fmt.Sprintf(alt, "*"), impl)
			j.cases = append(j.cases, g.caseOf(name, "instructions per op "+strings.Join(ms, ", ")+": "+strings.Join(figures, ", ")))
		}
		return j
	}
}

// growth gathers a sweep's ratios into one case.
type growth struct {
	met, inconclusive bool
	slack             float64
}

// add judges one ratio x, with its interval, against allowed.
func (g *growth) add(x, lo, hi, allowed float64, bounded bool) {
	met, inconclusive := verdictOf(lo, hi, allowed, true, bounded)
	switch {
	case !met && !inconclusive:
		g.met, g.inconclusive = false, false
	case inconclusive && g.met:
		g.met, g.inconclusive = false, true
	}
	g.slack = min(g.slack, allowed/x)
}

func (g growth) caseOf(name, measured string) Case {
	return Case{Name: name, Measured: measured, Met: g.met, Inconclusive: g.inconclusive, slack: g.slack}
}

// sizeLabels orders a sweep's labels by size, the smallest first.
func sizeLabels(sizes map[string]float64) []string {
	var labels []string
	for l := range sizes {
		labels = append(labels, l)
	}
	sort.Slice(labels, func(i, j int) bool { return sizes[labels[i]] < sizes[labels[j]] })
	return labels
}

// either judges a goal by first, when the run measured it in full, and
// by second otherwise: instruction counts where a run has them, times
// where it has not.
func either(first, second check) check {
	return func(r run) judged {
		if j := first(r); len(j.cases) > 0 && len(j.missing) == 0 {
			return j
		}
		return second(r)
	}
}

// instr returns the instruction count of impl on group, at whatever
// GOMAXPROCS it was counted (callgrind counts run at 1).
func (r run) instr(group, impl string) (float64, bool) {
	for k, row := range r.rows {
		if k.group == group && k.impl == impl && k.unit == "instr/op" {
			return row.Median, true
		}
	}
	return 0, false
}
