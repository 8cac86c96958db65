package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"regexp"
	"sort"
)

// Config tunes a comparison. DefaultConfig holds the defaults a gate
// starts from.
type Config struct {
	Bench string // which benchmarks: a go test -bench pattern
	// Exclude, when set, leaves out the benchmarks whose full name it
	// matches (as go test prints it, at GOMAXPROCS=1): -bench's levels
	// cannot say "every implementation but the model".
	Exclude   *regexp.Regexp
	Benchtime string // the -benchtime of each timed run (a fixed one)
	Count     int    // timed rounds, and again for the confirmation
	Hard      bool   // count instructions and allocations
	Stat      bool   // time in interleaved rounds
	Alpha     float64
	MinEffect float64 // the least change in time called one (a fraction)
	Tolerance float64 // instructions per benchmark (a fraction: 0.01 is 1%)
	// GeomeanTolerance bounds the geometric mean of the instruction
	// ratios: many benchmarks a little slower is a regression too.
	GeomeanTolerance float64
	Strict           bool // a slower time fails the gate
	Jobs             int  // callgrind processes at once
	Valgrind         string
	Log              io.Writer
	// Repro, when set, gives the command that measures bench alone again
	// in tier, for the report.
	Repro func(bench string, tier Tier) string
}

// DefaultConfig is the gate's configuration unless told otherwise.
var DefaultConfig = Config{
	Bench: ".", Benchtime: "100ms", Count: 10, Hard: true, Stat: true,
	Alpha: 0.05, MinEffect: 0.05, Tolerance: 0.01, GeomeanTolerance: 0.005, Jobs: 2,
}

// ErrEnvironment wraps what the machine lacks for the measurements asked
// for (valgrind for the hard tier): a usage or environment error, not a
// regression.
var ErrEnvironment = errors.New("environment")

// Compare measures base and change and judges the change. src is the
// directory of the benchmarks' package (of the change), whose source tells
// the RunParallel benchmarks apart.
func Compare(ctx context.Context, base, change Binary, src string, cfg Config) (*Result, error) {
	old, new := NewMeasurements(), NewMeasurements()
	var calBase, calChange Calibration
	if cfg.Hard {
		if _, err := exec.LookPath(valgrindOf(cfg)); err != nil {
			return nil, fmt.Errorf("%w: the hard tier counts instructions with valgrind, and %s is not installed (apt-get install valgrind), or run the statistical tier alone", ErrEnvironment, valgrindOf(cfg))
		}
		tc, err := LocalToolchain(ctx, src, cfg.Valgrind)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrEnvironment, err)
		}
		old.Toolchain, new.Toolchain = tc, tc
	}
	var err error
	if calChange, err = Calibrate(ctx, change, cfg.Bench, "1x", cfg.Log); err != nil {
		return nil, err
	}
	if calBase, err = Calibrate(ctx, base, cfg.Bench, "1x", cfg.Log); err != nil {
		return nil, err
	}
	patterns := []string{cfg.Bench}
	if cfg.Exclude != nil {
		kept := calChange.without(cfg.Exclude)
		if len(kept) == 0 {
			return nil, fmt.Errorf("every benchmark of -bench %q matches the exclusion %q", cfg.Bench, cfg.Exclude)
		}
		patterns = exactPatterns(kept, calChange.Names)
		calBase.exclude(cfg.Exclude)
		calChange.exclude(cfg.Exclude)
	}
	if cfg.Hard {
		// The counts' iterations follow each benchmark's cost, timed
		// briefly on the change.
		if err := calChange.time(ctx, change, patterns, cfg.Log); err != nil {
			return nil, err
		}
	}
	var notes []string
	if cfg.Hard {
		if notes, err = measureHard(ctx, base, change, calBase, calChange, src, cfg, old, new); err != nil {
			return nil, err
		}
	}
	if cfg.Stat {
		ms, err := Rounds(ctx, []Binary{base, change}, patterns, cfg.Benchtime, cfg.Count, cfg.Log)
		if err != nil {
			return nil, err
		}
		merge(old, ms[0])
		merge(new, ms[1])
	}
	r, candidates, err := Judge(old, new, cfg)
	if err != nil {
		return nil, err
	}
	r.Notes = append(notes, r.Notes...)
	r.Old, r.New = old, new
	if len(candidates) > 0 {
		if err := Reconfirm(ctx, r, candidates, base, change, calChange, cfg); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// measureHard counts the instructions of the benchmarks both binaries
// have that run on one goroutine, with the counts of the change's
// calibration for both.
func measureHard(ctx context.Context, base, change Binary, calBase, calChange Calibration, src string, cfg Config, old, new *Measurements) ([]string, error) {
	parallel, err := ParallelBenchmarks(src)
	if err != nil {
		return nil, err
	}
	var leaves []Leaf
	var notes []string
	var measured []string
	for _, name := range calChange.Names {
		if _, ok := calChange.NsPerOp[name]; ok {
			measured = append(measured, name)
		}
	}
	for _, name := range measured {
		if _, ok := calBase.NsPerOp[name]; !ok {
			notes = append(notes, name+": not in the base, not counted")
			continue
		}
		if parallel[TopLevel(name)] {
			continue
		}
		n1, n2 := Counts(calChange.NsPerOp[name])
		leaves = append(leaves, Leaf{Name: name, N1: n1, N2: n2})
	}
	if p := countParallel(measured, parallel); p > 0 {
		notes = append(notes, fmt.Sprintf("%d benchmarks call b.RunParallel: their instructions are not counted (the statistical tier times them)", p))
	}
	for i, side := range []struct {
		bin Binary
		cal Calibration
		m   *Measurements
	}{{base, calBase, old}, {change, calChange, new}} {
		if i > 0 {
			leaves = Settled(leaves, old)
		}
		cg := Callgrind{Valgrind: cfg.Valgrind, Dir: side.bin.Dir, Env: side.bin.Env, Log: cfg.Log}
		if err := cg.Measure(ctx, side.bin.Path, leaves, side.cal.Names, cfg.Jobs, side.m); err != nil {
			return nil, fmt.Errorf("%s: %w", side.bin.Label, err)
		}
	}
	return notes, nil
}

// Settled returns leaves with the iteration counts m's counts were taken
// at: a count whose first N₂ fell short was taken again at a larger one
// (Callgrind.measureOne), and the next binary starts from there, at the
// same two counts, rather than falling short again.
func Settled(leaves []Leaf, m *Measurements) []Leaf {
	out := make([]Leaf, len(leaves))
	for i, l := range leaves {
		if in, ok := m.Instr[l.Name]; ok && in.N2 > in.N1 {
			l.N1, l.N2 = in.N1, in.N2
		}
		out[i] = l
	}
	return out
}

func countParallel(names []string, parallel map[string]bool) int {
	n := 0
	for _, name := range names {
		if parallel[TopLevel(name)] {
			n++
		}
	}
	return n
}

// Reconfirm times the candidates of r again, in cfg.Count fresh
// interleaved rounds of base and change, and keeps a verdict only where
// the fresh rounds agree. cal names the benchmarks at GOMAXPROCS=1, from
// which the candidates' pattern is made.
func Reconfirm(ctx context.Context, r *Result, candidates []string, base, change Binary, cal Calibration, cfg Config) error {
	var names []string
	for _, c := range candidates {
		names = append(names, stripProcs(c, cal.NsPerOp))
	}
	fresh, err := Rounds(ctx, []Binary{base, change}, exactPatterns(names, cal.Names), cfg.Benchtime, cfg.Count, cfg.Log)
	if err != nil {
		return err
	}
	confirm(r, candidates, fresh[0], fresh[1], cfg, cfg.Count)
	finish(r, cfg)
	return nil
}

// Judge compares two sides' measurements, in every tier they hold, and
// returns the result with its statistical candidates still to be
// confirmed (Reconfirm, or Settle for saved runs).
func Judge(old, new *Measurements, cfg Config) (*Result, []string, error) {
	r := &Result{}
	if err := judgeHard(old, new, cfg, r); err != nil {
		return nil, nil, err
	}
	var candidates []string
	if len(timed(old, new)) > 0 {
		candidates = judgeStat(old, new, cfg, r)
	}
	for _, name := range sortedKeys(new.Samples) {
		if _, ok := old.Samples[name]; !ok {
			r.Notes = append(r.Notes, name+": in the change only")
		}
	}
	for _, name := range sortedKeys(old.Samples) {
		if _, ok := new.Samples[name]; !ok {
			r.Notes = append(r.Notes, name+": in the base only")
		}
	}
	finish(r, cfg)
	return r, candidates, nil
}

// Settle ends a comparison of saved runs: their candidates cannot be timed
// again, so each is inconclusive, with what its samples showed.
func Settle(r *Result, candidates []string, cfg Config) {
	confirm(r, candidates, nil, nil, cfg, 0)
	finish(r, cfg)
}

// finish orders r's changes, regressions first, then improvements, then
// the rest, each by size; gives each its repro; and sets r.Pass.
func finish(r *Result, cfg Config) {
	rank := map[Verdict]int{Slower: 0, Faster: 1, Inconclusive: 2}
	sort.SliceStable(r.Changes, func(i, j int) bool {
		a, b := r.Changes[i], r.Changes[j]
		if rank[a.Verdict] != rank[b.Verdict] {
			return rank[a.Verdict] < rank[b.Verdict]
		}
		if a.Tier != b.Tier {
			return a.Tier == Hard
		}
		if math.Abs(a.Delta) != math.Abs(b.Delta) {
			return math.Abs(a.Delta) > math.Abs(b.Delta)
		}
		return a.Bench < b.Bench
	})
	if cfg.Repro != nil {
		for i := range r.Changes {
			if r.Changes[i].Verdict != Inconclusive && r.Changes[i].Repro == "" {
				r.Changes[i].Repro = cfg.Repro(r.Changes[i].Bench, r.Changes[i].Tier)
			}
		}
	}
	r.Pass = len(r.Failures()) == 0
}

// Merge adds the samples and counts of src to m.
func (m *Measurements) Merge(src *Measurements) { merge(m, src) }

// merge adds the samples and counts of src to dst.
func merge(dst, src *Measurements) {
	for name, units := range src.Samples {
		if dst.Samples[name] == nil {
			dst.Samples[name] = map[string][]float64{}
		}
		for u, vs := range units {
			dst.Samples[name][u] = append(dst.Samples[name][u], vs...)
		}
	}
	for name, in := range src.Instr {
		dst.Instr[name] = in
	}
	if dst.Toolchain == (Toolchain{}) {
		dst.Toolchain = src.Toolchain
	}
}

func valgrindOf(cfg Config) string {
	if cfg.Valgrind != "" {
		return cfg.Valgrind
	}
	return "valgrind"
}

// Patterns returns -bench patterns that together select exactly the
// benchmarks names among all (full names at GOMAXPROCS=1): one pattern
// where one can, more where a single pattern would select others too.
func Patterns(names, all []string) []string { return exactPatterns(names, all) }
