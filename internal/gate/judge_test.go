package gate

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func measurements(t *testing.T, text string) *Measurements {
	t.Helper()
	m := NewMeasurements()
	if err := m.AddText([]byte(text), "test"); err != nil {
		t.Fatal(err)
	}
	return m
}

var cfg = DefaultConfig

// TestHardTierJudgesCountsExactly: instructions beyond the tolerance fail,
// within it do not; an allocation more fails; fewer bytes is an
// improvement; the geometric mean has a bound of its own.
func TestHardTierJudgesCountsExactly(t *testing.T) {
	const tc = "instr-go: go1.26\ninstr-valgrind: valgrind-3.19.0\ninstr-goamd64: v1\n"
	old := measurements(t, tc+`BenchmarkA 1000 1000 instr/op
BenchmarkB 1000 1000 instr/op
BenchmarkC 1000 1000 instr/op
BenchmarkA 1 0 B/op 0 allocs/op
BenchmarkB 1 64 B/op 1 allocs/op
`)
	new := measurements(t, tc+`BenchmarkA 1000 1009 instr/op
BenchmarkB 1000 1011 instr/op
BenchmarkC 1000 980 instr/op
BenchmarkA 1 16 B/op 1 allocs/op
BenchmarkB 1 32 B/op 1 allocs/op
`)
	r, _, err := Judge(old, new, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Verdict{
		"BenchmarkA instr/op": Inconclusive, "BenchmarkB instr/op": Slower, "BenchmarkC instr/op": Faster,
		"BenchmarkA allocs/op": Slower, "BenchmarkA B/op": Slower, "BenchmarkB allocs/op": Inconclusive, "BenchmarkB B/op": Faster,
	}
	for k, v := range want {
		name, unit, _ := strings.Cut(k, " ")
		c, ok := r.Find(name, unit)
		if !ok || c.Verdict != v || c.Fails != (v == Slower) {
			t.Errorf("%s: %+v, want %s", k, c, v)
		}
	}
	if r.Pass || r.Changes[0].Verdict != Slower || r.Changes[len(r.Changes)-1].Verdict != Inconclusive {
		t.Errorf("want a failure, regressions first: %+v", r.Changes)
	}
	// 0.9%, 1.1% and -2%: a geometric mean of 0.0% passes.
	if r.Geomean == nil || r.Geomean.Fails {
		t.Errorf("geomean %+v", r.Geomean)
	}
	// Each a little slower, within 1%, 0.8% on the whole: the mean fails.
	new = measurements(t, tc+"BenchmarkA 1000 1008 instr/op\nBenchmarkB 1000 1008 instr/op\nBenchmarkC 1000 1008 instr/op\n")
	if r, _, _ := Judge(old, new, cfg); r.Pass || r.Geomean == nil || !r.Geomean.Fails || len(r.Failures()) != 1 {
		t.Errorf("0.8%% on every benchmark: %+v, geomean %+v", r, r.Geomean)
	}
}

func TestCountsOfDifferentToolchainsAreRefused(t *testing.T) {
	old := measurements(t, "instr-go: go1.25\nBenchmarkA 1000 1000 instr/op\n")
	new := measurements(t, "instr-go: go1.26\nBenchmarkA 1000 1000 instr/op\n")
	if _, _, err := Judge(old, new, cfg); !errors.Is(err, ErrToolchain) || !strings.Contains(err.Error(), `Go "go1.25" against "go1.26"`) {
		t.Errorf("err = %v", err)
	}
	if err := NewMeasurements().AddText([]byte("instr-go: go1.25\nBenchmarkA 1 1 instr/op\ninstr-go: go1.26\nBenchmarkB 1 1 instr/op\n"), "two"); err == nil {
		t.Error("one run with two toolchains was read")
	}
}

// timings renders n samples of each benchmark around its median, with
// ±spread of noise.
func timings(rng *rand.Rand, n int, spread float64, medians map[string]float64) string {
	var b strings.Builder
	for range n {
		for _, name := range sortedKeys(medians) {
			fmt.Fprintf(&b, "%s-2 1000 %.3f ns/op\n", name, medians[name]*(1+spread*(2*rng.Float64()-1)))
		}
	}
	return b.String()
}

// TestStatisticalTierHasThreeVerdictsAndConfirms: a benchmark 30% slower
// is a candidate, slower only once fresh rounds agree; 2% slower is below
// the least effect; saved runs cannot confirm, so their candidates are
// inconclusive.
func TestStatisticalTierHasThreeVerdictsAndConfirms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := map[string]float64{"BenchmarkA": 100, "BenchmarkB": 100, "BenchmarkC": 100}
	change := map[string]float64{"BenchmarkA": 130, "BenchmarkB": 102, "BenchmarkC": 70}
	old := measurements(t, timings(rng, 10, 0.02, base))
	new := measurements(t, timings(rng, 10, 0.02, change))
	r, candidates, err := Judge(old, new, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(candidates) != 2 || r.MinEffect != 0.05 || r.NoiseFloor <= 0 || r.NoiseFloor > 0.05 {
		t.Fatalf("candidates %q, least effect %g, noise floor %g", candidates, r.MinEffect, r.NoiseFloor)
	}
	fresh := []*Measurements{measurements(t, timings(rng, 10, 0.02, base)), measurements(t, timings(rng, 10, 0.02, map[string]float64{"BenchmarkA": 131, "BenchmarkC": 100}))}
	confirm(r, candidates, fresh[0], fresh[1], cfg, 10)
	finish(r, cfg)
	for name, v := range map[string]Verdict{"BenchmarkA-2": Slower, "BenchmarkB-2": Inconclusive, "BenchmarkC-2": Inconclusive} {
		if c, _ := r.Find(name, unitTime); c.Verdict != v || c.Fails {
			t.Errorf("%s: %s (%s), want %s, not failing (advisory)", name, c.Verdict, c.Figures, v)
		}
	}
	if c, _ := r.Find("BenchmarkC-2", unitTime); !strings.Contains(c.Figures, "not confirmed") {
		t.Errorf("an unconfirmed candidate does not say so: %s", c.Figures)
	}
	strict := cfg
	strict.Strict = true
	r, candidates, _ = Judge(old, new, strict)
	Settle(r, candidates, strict)
	if !r.Pass || r.Count(Statistical, Slower) != 0 {
		t.Errorf("saved runs: %+v; want every candidate inconclusive", r.Changes)
	}
}

// TestNoiseFloorRaisesTheLeastEffect: on samples that swing by ±30%, the
// base against itself differs by more than 5%, and the least effect
// follows it.
func TestNoiseFloorRaisesTheLeastEffect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	medians := map[string]float64{}
	for i := range 20 {
		medians[fmt.Sprintf("BenchmarkN%d", i)] = 100
	}
	old := measurements(t, timings(rng, 10, 0.3, medians))
	r, _, _ := Judge(old, measurements(t, timings(rng, 10, 0.3, medians)), cfg)
	if r.NoiseFloor <= 0.05 || r.MinEffect != r.NoiseFloor {
		t.Errorf("noise floor %g, least effect %g", r.NoiseFloor, r.MinEffect)
	}
}

func TestSavedRunsRoundTrip(t *testing.T) {
	m := measurements(t, "BenchmarkA-2 1000 10 ns/op 0 B/op 0 allocs/op\nBenchmarkA-2 1000 12 ns/op 0 B/op 0 allocs/op\n")
	m.Toolchain = Toolchain{Go: "go1.26", Valgrind: "valgrind-3.19.0", GOAMD64: "v1"}
	m.Instr["BenchmarkA"] = Instr{PerOp: 1234.5, N1: 20, N2: 100}
	var b bytes.Buffer
	m.WriteTo(&b)
	back := measurements(t, b.String())
	if back.Toolchain != m.Toolchain || back.Instr["BenchmarkA"].PerOp != 1234.5 || len(back.Samples["BenchmarkA-2"][unitTime]) != 2 ||
		math.Abs(back.Samples["BenchmarkA-2"][unitTime][1]-12e-9) > 1e-18 || !strings.Contains(b.String(), "\t12 ns/op") {
		t.Errorf("read back %+v from:\n%s", back, b.String())
	}
}

func TestMarkdownPutsRegressionsFirst(t *testing.T) {
	r := &Result{Base: "`abc`", Change: "the working tree", Changes: []Change{
		{Bench: "BenchmarkFast", Measure: unitInstr, Tier: Hard, Base: 100, Change: 90, Delta: -0.1, Verdict: Faster, Figures: "-10%"},
		{Bench: "BenchmarkSame", Measure: unitInstr, Tier: Hard, Base: 100, Change: 100},
		{Bench: "BenchmarkSlow", Measure: unitAllocs, Tier: Hard, Base: 0, Change: 1, Delta: 1e9, Verdict: Slower, Fails: true, Figures: "grew"},
	}}
	finish(r, Config{Repro: func(b string, t Tier) string { return "repro " + b }})
	md := Markdown(r)
	reg, imp := strings.Index(md, "### Regressions"), strings.Index(md, "### Improvements")
	if r.Pass || !strings.Contains(md, "FAIL (1 regressions)") || reg < 0 || imp < reg || !strings.Contains(md, "`repro BenchmarkSlow`") ||
		!strings.Contains(md, "Unchanged: 1 hard-tier measures") {
		t.Errorf("markdown:\n%s", md)
	}
}
