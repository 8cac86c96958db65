package main

// `verify gate -selftest`: the gate measured as the properties are, by what
// it catches. One mutant build of the benchmarks serves every comparison:
// the base is that binary with no seeded bug active, each change is the
// same binary with one seeded performance regression active
// (MEMVERIFY_BUG), and the A/A comparisons set the base against itself.
// The hard tier must catch every regression it is expected to, at the
// benchmarks named, and spare the others; an A/A comparison that the gate
// fails, or in which the hard tier calls any change, is a false alarm. The
// statistical tier's own false alarms are counted apart, and reported.
//
// To keep it within minutes, the measurements are shared: K counted runs
// of the base give K(K-1)/2 hard A/A comparisons, and one interleaved
// series of rounds times K copies of the base and every regression at
// once (so each timed comparison sees the same phases of the host).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/gate"
)

// selftestResult is what the self-test found.
type selftestResult struct {
	Regressions []regressionOutcome `json:"regressions"`
	AA          []aaOutcome         `json:"aa"`
	// HardAANoise is the largest instruction difference of any benchmark
	// in the A/A comparisons, as a fraction.
	HardAANoise float64 `json:"hard_aa_noise"`
	Caught      int     `json:"caught"`
	FalseAlarms int     `json:"false_alarms"` // A/A comparisons the gate would fail, or the hard tier called a change in
	StatAlarms  int     `json:"statistical_false_alarms"`
	StatJudged  int     `json:"statistical_judged"` // benchmark timings judged in the A/A comparisons
	StatCalled  int     `json:"statistical_called"` // of those, called faster or slower

	// runs are the measurements, by binary, saved beside the report.
	runs map[string]*gate.Measurements
}

type regressionOutcome struct {
	Regression bugs.Regression `json:"regression"`
	Caught     bool            `json:"caught"`
	// Seen are the figures of the benchmarks it names, in every measure
	// and tier, caught or not.
	Seen      []string `json:"seen,omitempty"`
	By        []string `json:"by,omitempty"`        // tier: bench Δ, each change that caught it
	Imprecise []string `json:"imprecise,omitempty"` // a spared benchmark flagged
	Pass      bool     `json:"gate_pass"`
}

type aaOutcome struct {
	Pair       [2]int   `json:"pair"`
	Hard       []string `json:"hard,omitempty"`        // changes the hard tier called
	Stat       []string `json:"statistical,omitempty"` // timings called faster or slower
	GateFailed bool     `json:"gate_failed"`
}

// runGateSelftest runs the self-test and returns its exit code: 0 when every
// regression is caught and no A/A comparison raised a false alarm.
func runGateSelftest(ctx context.Context, o options, g gateOptions, cfg gate.Config) int {
	regs, aside := regressionsOfTiers(bugs.Regressions(), cfg)
	if len(regs) == 0 {
		fmt.Fprintf(os.Stderr, "verify gate -selftest: no seeded performance regression of -tier %s is registered\n", g.tier)
		return 2
	}
	tmp, err := os.MkdirTemp("", "verify-gate-selftest-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate -selftest: %v\n", err)
		return 2
	}
	defer os.RemoveAll(tmp)
	res, err := selftest(ctx, g, cfg, regs, tmp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify gate -selftest: %v\n", err)
		return 2
	}
	md := selftestMarkdown(res, cfg, g.aa)
	fmt.Print("\n" + md)
	if dir, err := makeRunDir(o.out, "gate-selftest", "", time.Now()); err == nil {
		data, _ := json.MarshalIndent(res, "", "  ")
		os.WriteFile(filepath.Join(dir, "selftest.json"), append(data, '\n'), 0o644)
		os.WriteFile(filepath.Join(dir, "selftest.md"), []byte(md), 0o644)
		for label, m := range res.runs {
			var b strings.Builder
			m.WriteTo(&b)
			name := strings.NewReplacer("/", "_", " ", "-").Replace(label) + ".txt"
			os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
		}
		fmt.Printf("written to %s\n", dir)
	}
	for _, r := range aside {
		fmt.Printf("gate: %s not run: the %s tier catches it, and -tier %s leaves that tier out\n", r.ID, r.Tier, g.tier)
	}
	fmt.Printf("gate: caught %d of %d seeded regressions, %d false alarms in %d A/A comparisons\n", res.Caught, len(regs), res.FalseAlarms, len(res.AA))
	if res.Caught < len(regs) || res.FalseAlarms > 0 {
		return 1
	}
	return 0
}

// regressionsOfTiers splits the seeded regressions into those the tiers
// cfg runs are expected to catch and those set aside: a run of the hard
// tier alone (as CI makes, in minutes) cannot catch a slower parallel
// path, and a miss it could not avoid would hide the misses it could.
func regressionsOfTiers(regs []bugs.Regression, cfg gate.Config) (run, aside []bugs.Regression) {
	for _, r := range regs {
		if r.Tier == "hard" && cfg.Hard || r.Tier == "statistical" && cfg.Stat {
			run = append(run, r)
		} else {
			aside = append(aside, r)
		}
	}
	return run, aside
}

// selftest measures and judges; see the file's comment.
func selftest(ctx context.Context, g gateOptions, cfg gate.Config, regs []bugs.Regression, tmp string) (*selftestResult, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "bench-mutants.test")
	if err := buildTest(ctx, cwd, g.pkg, bin, []string{"mutants"}); err != nil {
		return nil, err
	}
	base := gate.Binary{Label: "base", Path: bin, Dir: filepath.Join(cwd, g.pkg), Env: []string{"MEMVERIFY_BUG="}}
	patterns, cal, err := selftestSubset(ctx, base, regs, cfg)
	if err != nil {
		return nil, err
	}
	k := 2
	for k*(k-1)/2 < g.aa {
		k++
	}
	p := newSelftestPlan(base, regs, k)
	if p.counted, err = selftestCounts(ctx, p.countedBins, p.only, cal, base.Dir, cfg); err != nil {
		return nil, err
	}
	p.timed = make([]*gate.Measurements, len(p.timedBins))
	for i := range p.timed {
		p.timed[i] = gate.NewMeasurements()
	}
	if cfg.Stat {
		if p.timed, err = gate.Rounds(ctx, p.timedBins, patterns, cfg.Benchtime, cfg.Count, cfg.Log); err != nil {
			return nil, err
		}
	}
	res := &selftestResult{runs: p.runs()}
	for i := 0; i < k && len(res.AA) < g.aa; i++ {
		for j := i + 1; j < k && len(res.AA) < g.aa; j++ {
			r, err := p.judge(ctx, cal, cfg, i, i, j, j)
			if err != nil {
				return nil, err
			}
			res.addAA(i, j, r)
		}
	}
	for x, reg := range regs {
		r, err := p.judge(ctx, cal, cfg, k+2*x, 0, k+2*x+1, k+x)
		if err != nil {
			return nil, err
		}
		res.addRegression(reg, r)
	}
	return res, nil
}

// selftestPlan is what the self-test runs. The timed runs: k copies of the
// base, then each regression. The counted runs: the base copies, then for
// each regression its inert twin and itself (inertTwin says why); a
// regression's pair counts only the benchmarks it names and spares (only),
// the base copies every benchmark, for the A/A comparisons.
type selftestPlan struct {
	timedBins, countedBins []gate.Binary
	only                   [][]string
	timed, counted         []*gate.Measurements
}

func newSelftestPlan(base gate.Binary, regs []bugs.Regression, k int) *selftestPlan {
	p := &selftestPlan{only: make([][]string, k)}
	for i := range k {
		b := base
		b.Label = fmt.Sprintf("base %d", i+1)
		p.timedBins = append(p.timedBins, b)
		p.countedBins = append(p.countedBins, b)
	}
	for _, r := range regs {
		on := gate.Binary{Label: string(r.ID), Path: base.Path, Dir: base.Dir, Env: []string{"MEMVERIFY_BUG=" + string(r.ID)}}
		twin := inertTwin(r.ID)
		p.timedBins = append(p.timedBins, on)
		p.countedBins = append(p.countedBins, gate.Binary{Label: string(twin), Path: base.Path, Dir: base.Dir, Env: []string{"MEMVERIFY_BUG=" + string(twin)}}, on)
		named := append(slices.Clone(r.Benches), r.Spares...)
		p.only = append(p.only, named, named)
	}
	return p
}

// judge compares counted run c0 and timed run t0 (the base side) with c1
// and t1, and confirms the timed candidates in fresh rounds.
func (p *selftestPlan) judge(ctx context.Context, cal gate.Calibration, cfg gate.Config, c0, t0, c1, t1 int) (*gate.Result, error) {
	old, new := gate.NewMeasurements(), gate.NewMeasurements()
	old.Merge(p.counted[c0])
	old.Merge(p.timed[t0])
	new.Merge(p.counted[c1])
	new.Merge(p.timed[t1])
	r, candidates, err := gate.Judge(old, new, cfg)
	if err != nil || len(candidates) == 0 {
		return r, err
	}
	return r, gate.Reconfirm(ctx, r, candidates, p.timedBins[t0], p.timedBins[t1], cal, cfg)
}

// runs names every measurement, for the files beside the report.
func (p *selftestPlan) runs() map[string]*gate.Measurements {
	out := map[string]*gate.Measurements{}
	for i, b := range p.countedBins {
		out["counted-"+b.Label] = p.counted[i]
	}
	for i, b := range p.timedBins {
		out["timed-"+b.Label] = p.timed[i]
	}
	return out
}

// inertTwin is a bug ID that activates nothing, of the same length as id
// and equal to it but for its last byte. A mutant binary pays for its
// seams: bugs.On compares the active bug's name at each, and the
// comparison costs more when a bug is active than when none is, and more
// again where names have the same length. The regression is therefore
// counted against its inert twin, whose seams cost exactly what its own
// do, so that what differs is the regression alone.
func inertTwin(id bugs.ID) bugs.ID {
	last := byte('~')
	if id[len(id)-1] == last {
		last = '^'
	}
	return id[:len(id)-1] + bugs.ID(last)
}

// selftestSubset lists the benchmarks the regressions name (or those of
// -bench, when given), calibrated, and the patterns that select them.
func selftestSubset(ctx context.Context, base gate.Binary, regs []bugs.Regression, cfg gate.Config) ([]string, gate.Calibration, error) {
	listed, err := gate.Calibrate(ctx, base, cfg.Bench, "1x", cfg.Log)
	if err != nil {
		return nil, listed, err
	}
	var names []string
	for _, n := range listed.Names {
		if cfg.Exclude == nil || !cfg.Exclude.MatchString(n) {
			names = append(names, n)
		}
	}
	if !flagSet("bench") {
		names = nil
		for _, r := range regs {
			for _, b := range append(slices.Clone(r.Benches), r.Spares...) {
				if _, ok := listed.NsPerOp[b]; !ok {
					return nil, listed, fmt.Errorf("%s names %s, which the benchmarks do not have", r.ID, b)
				}
				if !slices.Contains(names, b) {
					names = append(names, b)
				}
			}
		}
	}
	patterns := gate.Patterns(names, listed.Names)
	cal := gate.Calibration{NsPerOp: map[string]float64{}}
	for _, p := range patterns {
		c, err := gate.Calibrate(ctx, base, p, "10ms", cfg.Log)
		if err != nil {
			return nil, cal, err
		}
		for _, n := range c.Names {
			cal.NsPerOp[n] = c.NsPerOp[n]
		}
	}
	cal.Names = listed.Names // every benchmark: patterns are made against all of them
	return patterns, cal, nil
}

// addAA records an A/A comparison of base copies i and j.
func (s *selftestResult) addAA(i, j int, r *gate.Result) {
	a := aaOutcome{Pair: [2]int{i + 1, j + 1}, GateFailed: !r.Pass}
	changes := r.Changes
	if r.Geomean != nil {
		changes = append(changes, *r.Geomean)
	}
	for _, c := range changes {
		if c.Tier == gate.Hard && c.Measure != "" && c.Measure[0] == 'i' {
			s.HardAANoise = max(s.HardAANoise, abs(c.Delta))
		}
		switch {
		case c.Verdict == gate.Inconclusive:
		case c.Tier == gate.Hard:
			a.Hard = append(a.Hard, fmt.Sprintf("%s %s %s %s", c.Bench, c.Measure, c.Verdict, c.DeltaText()))
		default:
			a.Stat = append(a.Stat, fmt.Sprintf("%s %s %s", c.Bench, c.Verdict, c.DeltaText()))
		}
		if c.Tier == gate.Statistical {
			s.StatJudged++
			if c.Verdict != gate.Inconclusive {
				s.StatCalled++
			}
		}
	}
	if a.GateFailed || len(a.Hard) > 0 {
		s.FalseAlarms++
	}
	if len(a.Stat) > 0 {
		s.StatAlarms++
	}
	s.AA = append(s.AA, a)
}

// addRegression records whether the comparison of a regression against
// the base caught it, at the benchmarks it names, sparing the others.
func (s *selftestResult) addRegression(reg bugs.Regression, r *gate.Result) {
	o := regressionOutcome{Regression: reg, Pass: r.Pass}
	for _, c := range r.Changes {
		name := strings.TrimSuffix(c.Bench, procsSuffix(c.Bench))
		if slices.Contains(reg.Benches, name) {
			if c.Verdict != gate.Slower && c.Measure != "allocs/op" && c.Measure != "B/op" {
				o.Seen = append(o.Seen, fmt.Sprintf("%s: %s %s %s: %s", c.Tier, c.Bench, c.Measure, c.Verdict, c.Figures))
			}
		}
		if c.Verdict != gate.Slower {
			continue
		}
		if slices.Contains(reg.Benches, name) {
			o.By = append(o.By, fmt.Sprintf("%s: %s %s %s", c.Tier, c.Bench, c.Measure, c.DeltaText()))
		}
		if slices.Contains(reg.Spares, name) {
			o.Imprecise = append(o.Imprecise, fmt.Sprintf("%s: %s %s %s", c.Tier, c.Bench, c.Measure, c.DeltaText()))
		}
	}
	o.Caught = len(o.By) > 0 && len(o.Imprecise) == 0
	if o.Caught {
		s.Caught++
	}
	s.Regressions = append(s.Regressions, o)
}

// procsSuffix is the -GOMAXPROCS suffix of a benchmark's printed name, ""
// when it has none.
func procsSuffix(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
		return ""
	}
	return name[i:]
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
