package gate

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// The statistical tier compares the times of each benchmark timed on both
// sides. A benchmark is a candidate when the Mann-Whitney U test rejects
// "the same distribution" at Config.Alpha and the medians differ by more
// than the least effect: Config.MinEffect, or the noise floor of the job
// when that is larger. The noise floor is what the base shows against
// itself: for each benchmark, its samples of odd rounds against those of
// even rounds; the job's floor is the median of those differences over its
// benchmarks. (A benchmark's own A/A difference, from two halves of a few
// samples, measures its spread more than any shift, and the test already
// weighs the spread: taken as its floor, it made a bimodal benchmark
// unjudgeable.) A candidate is then timed again in fresh rounds and keeps
// its verdict only if they agree; else it is inconclusive.

// minAASamples is the least number of a benchmark's base samples that
// give it an A/A difference (two halves of two).
const minAASamples = 4

// noiseFloor is the job's noise floor: over the benchmarks with enough
// base samples, the median of the relative difference between the medians
// of their odd and even samples.
func noiseFloor(old *Measurements) float64 {
	var diffs []float64
	for _, name := range sortedKeys(old.Samples) {
		xs := old.Samples[name][unitTime]
		if len(xs) < minAASamples {
			continue
		}
		var odd, even []float64
		for i, x := range xs {
			if i%2 == 0 {
				even = append(even, x)
			} else {
				odd = append(odd, x)
			}
		}
		if m := median(even); m > 0 {
			diffs = append(diffs, math.Abs(median(odd)/m-1))
		}
	}
	if len(diffs) == 0 {
		return 0
	}
	return median(diffs)
}

// timed lists the benchmarks timed on both sides.
func timed(old, new *Measurements) []string {
	var out []string
	for _, name := range sortedKeys(new.Samples) {
		if len(old.Samples[name][unitTime]) > 0 && len(new.Samples[name][unitTime]) > 0 {
			out = append(out, name)
		}
	}
	return out
}

// compareTimes judges one benchmark's times at alpha with the least
// effect minEffect, before any confirmation.
func compareTimes(name string, o, n []float64, alpha, minEffect float64) Change {
	so := benchmath.NewSample(o, &benchmath.DefaultThresholds)
	sn := benchmath.NewSample(n, &benchmath.DefaultThresholds)
	cmp := benchmath.AssumeNothing.Compare(so, sn)
	ro := benchmath.AssumeNothing.Summary(so, 0.95)
	rn := benchmath.AssumeNothing.Summary(sn, 0.95)
	c := Change{Bench: name, Measure: unitTime, Tier: Statistical, Base: ro.Center, Change: rn.Center, Delta: delta(ro.Center, rn.Center)}
	if !math.IsInf(ro.Lo, 0) && !math.IsInf(rn.Hi, 0) && ro.Lo > 0 && ro.Hi > 0 {
		c.RatioLo, c.RatioHi = rn.Lo/ro.Hi, rn.Hi/ro.Lo
	}
	significant := !math.IsNaN(cmp.P) && cmp.P < alpha
	switch {
	case significant && c.Delta > minEffect:
		c.Verdict = Slower
	case significant && c.Delta < 1/(1+minEffect)-1:
		c.Verdict = Faster
	}
	c.Figures = fmt.Sprintf("%s %s against %s %s, %+.1f%%, p=%.3f (α %.2g, least effect %.1f%%)",
		duration(rn.Center), interval(rn), duration(ro.Center), interval(ro), 100*c.Delta, cmp.P, alpha, 100*minEffect)
	return c
}

// judgeStat adds the statistical tier's candidates to r and returns
// them: the verdicts still to be confirmed.
func judgeStat(old, new *Measurements, cfg Config, r *Result) []string {
	floor := noiseFloor(old)
	r.NoiseFloor, r.MinEffect = floor, max(cfg.MinEffect, floor)
	var candidates []string
	for _, name := range timed(old, new) {
		least := r.MinEffect
		c := compareTimes(name, old.Samples[name][unitTime], new.Samples[name][unitTime], cfg.Alpha, least)
		c.MinEffect = least
		if c.Verdict != Inconclusive {
			candidates = append(candidates, name)
		}
		r.Changes = append(r.Changes, c)
	}
	return candidates
}

// confirm re-judges each candidate of r on fresh samples (fresh holds
// them, base and change): a verdict stands only if the fresh samples give
// the same. With fresh nil (saved runs, which cannot be timed again) every
// candidate becomes inconclusive, its first verdict said in its figures.
func confirm(r *Result, candidates []string, freshOld, freshNew *Measurements, cfg Config, rounds int) {
	for i := range r.Changes {
		c := &r.Changes[i]
		if c.Tier != Statistical || c.Verdict == Inconclusive || !slices.Contains(candidates, c.Bench) {
			continue
		}
		if freshOld == nil || freshNew == nil {
			c.Figures += fmt.Sprintf("; %s in these samples, not confirmed (saved runs are not timed again)", c.Verdict)
			c.Verdict = Inconclusive
			continue
		}
		o, n := freshOld.Samples[c.Bench][unitTime], freshNew.Samples[c.Bench][unitTime]
		if len(o) == 0 || len(n) == 0 {
			c.Figures += "; not confirmed: no fresh samples"
			c.Verdict = Inconclusive
			continue
		}
		again := compareTimes(c.Bench, o, n, cfg.Alpha, c.MinEffect)
		if again.Verdict != c.Verdict {
			c.Figures += fmt.Sprintf("; %s at first, not confirmed in %d fresh rounds (%+.1f%%)", c.Verdict, rounds, 100*again.Delta)
			c.Verdict = Inconclusive
			continue
		}
		c.Figures += fmt.Sprintf("; confirmed in %d fresh rounds: %+.1f%%", rounds, 100*again.Delta)
		c.Fails = c.Verdict == Slower && cfg.Strict
	}
}

// duration renders seconds per op: 8.4ns, 1.22µs, 2.43ms.
func duration(sec float64) string {
	switch v := sec * 1e9; {
	case v < 1000:
		return fmt.Sprintf("%.1fns", v)
	case v < 1e6:
		return fmt.Sprintf("%.2fµs", v/1e3)
	default:
		return fmt.Sprintf("%.2fms", v/1e6)
	}
}

// interval renders a median's 95% confidence interval, or says that the
// samples were too few to bound it.
func interval(s benchmath.Summary) string {
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) {
		return "[too few samples to bound]"
	}
	return fmt.Sprintf("[%s, %s]", duration(s.Lo), duration(s.Hi))
}
