package main

// The self-test's counted runs: each binary's instructions and allocations,
// the first base copy settling the iterations of every benchmark for the
// others, which then share the jobs.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/memverify/memverify/internal/gate"
)

// selftestCounts counts the instructions and allocations of the subset's
// one-goroutine benchmarks in each binary (only those of only[i] in
// bins[i], when only[i] is not nil), when the hard tier runs.
func selftestCounts(ctx context.Context, bins []gate.Binary, only [][]string, cal gate.Calibration, src string, cfg gate.Config) ([]*gate.Measurements, error) {
	out := make([]*gate.Measurements, len(bins))
	for i := range out {
		out[i] = gate.NewMeasurements()
	}
	if !cfg.Hard {
		return out, nil
	}
	parallel, err := gate.ParallelBenchmarks(src)
	if err != nil {
		return nil, err
	}
	tc, err := gate.LocalToolchain(ctx, src, cfg.Valgrind)
	if err != nil {
		return nil, err
	}
	if tc.Valgrind == "" {
		return nil, fmt.Errorf("%w: the hard tier counts instructions with valgrind, which is not installed (apt-get install valgrind)", gate.ErrEnvironment)
	}
	var leaves []gate.Leaf
	for _, name := range sortedNames(cal.NsPerOp) {
		if !parallel[gate.TopLevel(name)] {
			n1, n2 := gate.Counts(cal.NsPerOp[name])
			leaves = append(leaves, gate.Leaf{Name: name, N1: n1, N2: n2})
		}
	}
	count := func(i, jobs int, leaves []gate.Leaf) error {
		b, mine := bins[i], leaves
		if only[i] != nil {
			mine = nil
			for _, l := range leaves {
				if slices.Contains(only[i], l.Name) {
					mine = append(mine, l)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "counting %d benchmarks of %s (%d of %d)\n", len(mine), b.Label, i+1, len(bins))
		out[i].Toolchain = tc
		cg := gate.Callgrind{Valgrind: cfg.Valgrind, Dir: b.Dir, Env: b.Env, Log: cfg.Log}
		if err := cg.Measure(ctx, b.Path, mine, cal.Names, jobs, out[i]); err != nil {
			return fmt.Errorf("%s: %w", b.Label, err)
		}
		return nil
	}
	// The first base copy alone, on every job: its counts settle each
	// benchmark's iterations for the others. Then the other binaries, a
	// job each, so that a regression's pair of one benchmark does not
	// leave a job idle.
	if err := count(0, cfg.Jobs, leaves); err != nil {
		return nil, err
	}
	leaves = gate.Settled(leaves, out[0])
	errs := make([]error, len(bins))
	slots := make(chan struct{}, max(cfg.Jobs, 1))
	var wg sync.WaitGroup
	for i := 1; i < len(bins); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			errs[i] = count(i, 1, leaves)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func sortedNames(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
