package gate

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrToolchain is returned when two runs' instruction counts were taken
// with different toolchains: they are refused, never compared.
var ErrToolchain = errors.New("instruction counts of different toolchains")

// judgeHard adds the hard tier's verdicts to r: allocations and bytes per
// op, which must not grow, and instructions per op, which may grow by
// cfg.Tolerance per benchmark and cfg.GeomeanTolerance on the geometric
// mean of the ratios. Counts of different toolchains are an error.
func judgeHard(old, new *Measurements, cfg Config, r *Result) error {
	if len(old.Instr) > 0 && len(new.Instr) > 0 {
		if d := old.Toolchain.Mismatch(new.Toolchain); d != "" {
			return fmt.Errorf("%w: %s; measure both sides with one toolchain (verify gate -base measures both on this machine)", ErrToolchain, d)
		}
		r.Toolchain = new.Toolchain
	}
	judgeInstr(old, new, cfg, r)
	for _, name := range sortedKeys(new.Samples) {
		for _, unit := range []string{unitAllocs, unitBytes} {
			o, n := old.Samples[name][unit], new.Samples[name][unit]
			if len(o) == 0 || len(n) == 0 {
				continue
			}
			r.Changes = append(r.Changes, judgeCount(name, unit, o, n, cfg))
		}
	}
	return nil
}

// judgeCount compares exact counts (allocs/op, B/op). A count is exact in
// each sample, yet samples can differ (an amortised growth lands in some
// runs and not others): it grew only when every sample of the change is
// above every sample of the base, and shrank only the other way round.
func judgeCount(name, unit string, o, n []float64, cfg Config) Change {
	oMin, oMax, nMin, nMax := slices.Min(o), slices.Max(o), slices.Min(n), slices.Max(n)
	c := Change{Bench: name, Measure: unit, Tier: Hard, Base: oMax, Change: nMin}
	switch {
	case nMin > oMax:
		c.Verdict, c.Fails = Slower, true
		c.Figures = fmt.Sprintf("%s grew: %g in every sample against %g at most (must not grow)", unit, nMin, oMax)
	case nMax < oMin:
		c.Verdict, c.Base, c.Change = Faster, oMin, nMax
		c.Figures = fmt.Sprintf("%s fell: %g at most against %g in every sample", unit, nMax, oMin)
	default:
		c.Base, c.Change = median(o), median(n)
		c.Figures = fmt.Sprintf("%s %s against %s", unit, spread(n), spread(o))
	}
	c.Delta = delta(c.Base, c.Change)
	return c
}

// judgeInstr compares the instruction counts of the benchmarks both sides
// counted, and their geometric mean.
func judgeInstr(old, new *Measurements, cfg Config, r *Result) {
	var logSum float64
	n := 0
	for _, name := range sortedKeys(new.Instr) {
		o, ok := old.Instr[name]
		if !ok {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: instructions counted in the change only", name))
			continue
		}
		c := instrChange(name, o.PerOp, new.Instr[name].PerOp, cfg.Tolerance)
		r.Changes = append(r.Changes, c)
		if o.PerOp > 0 && new.Instr[name].PerOp > 0 {
			logSum += math.Log(new.Instr[name].PerOp / o.PerOp)
			n++
		}
	}
	for _, name := range sortedKeys(old.Instr) {
		if _, ok := new.Instr[name]; !ok {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: instructions counted in the base only", name))
		}
	}
	if n == 0 {
		return
	}
	g := math.Exp(logSum / float64(n))
	c := instrChange(fmt.Sprintf("geometric mean of %d benchmarks", n), 1, g, cfg.GeomeanTolerance)
	c.Measure = "instr/op ratio"
	r.Geomean = &c
}

// instrChange judges one instruction count against a tolerance (a
// fraction: 0.01 is 1%).
func instrChange(name string, o, n, tol float64) Change {
	c := Change{Bench: name, Measure: unitInstr, Tier: Hard, Base: o, Change: n, Delta: delta(o, n)}
	switch {
	case c.Delta > tol:
		c.Verdict, c.Fails = Slower, true
	case c.Delta < -tol:
		c.Verdict = Faster
	}
	c.Figures = fmt.Sprintf("%+.2f%% instructions (tolerance ±%.2g%%)", 100*c.Delta, 100*tol)
	return c
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread renders the range of exact counts: "0", or "0–1".
func spread(xs []float64) string {
	lo, hi := slices.Min(xs), slices.Max(xs)
	if lo == hi {
		return fmt.Sprintf("%g", lo)
	}
	return fmt.Sprintf("%g–%g", lo, hi)
}
