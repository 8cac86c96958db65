package main

// The campaign's two phases after the build: the unmutated baseline, then
// the seeded bugs, each in child processes (child.go), jobs at a time, with
// a progress line per suite run or bug.

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
)

// runBaseline runs the unmutated build over the suites the selected bugs
// run against, under every seed: one child per domain, o.jobs at a time,
// each reporting a progress line per suite run.
func runBaseline(bin, dir string, selected []bugs.Bug, o options) ([]SuiteResult, error) {
	impls := map[string]map[string]bool{} // domain → implementations
	var domains []string
	for _, b := range selected {
		if impls[b.Domain] == nil {
			impls[b.Domain] = map[string]bool{}
			domains = append(domains, b.Domain)
		}
		impls[b.Domain][b.Impl] = true
	}
	total, cost := 0, 0.0
	jobs := make([]childJob, len(domains))
	for i, d := range domains {
		jobs[i] = childJob{domain: d, property: o.property, impl: join(impls[d]), seeds: o.seeds}
		for _, s := range suites.Select(d, o.property, jobs[i].impl) {
			total += len(o.seedList)
			cost += float64(len(o.seedList)) * o.costs.of(suiteItem(s.Name()))
		}
	}
	fmt.Printf("baseline: the unmutated build, %d suite runs under seeds %s, %d at a time\n", total, o.seeds, max(1, o.jobs))
	p := newProgress(total, cost)
	reports := make([]childReport, len(jobs))
	errs := make([]error, len(jobs))
	each(len(jobs), o.jobs, func(i int) {
		job := jobs[i]
		job.progress = func(line string) {
			name, _, _ := strings.Cut(line, " ")
			counter, eta := p.step(o.costs.of(suiteItem(name)))
			fmt.Printf("baseline %s %s %s\n", counter, line, eta)
		}
		errs[i] = runChild(bin, dir, job, job.timeout(), &reports[i])
	})
	var out []SuiteResult
	for i, rep := range reports {
		if errs[i] != nil {
			return nil, fmt.Errorf("baseline of %s: %w", domains[i], errs[i])
		}
		out = append(out, rep.Baseline...)
	}
	for _, r := range out {
		if r.Outcome == props.Failed {
			fmt.Printf("baseline FAIL %s (seed %d)\n%s\n", r.Name, r.BaseSeed, r.Output)
		}
	}
	return out, nil
}

// runBugs runs each selected bug in a child of its own, o.jobs at a time,
// with a line per bug as it ends.
func runBugs(bin, dir string, selected []bugs.Bug, o options) []MutantResult {
	cost := 0.0
	for _, b := range selected {
		cost += o.costs.of(bugItem(string(b.ID)))
	}
	fmt.Printf("running %d seeded bugs, %d at a time\n", len(selected), max(1, o.jobs))
	p := newProgress(len(selected), cost)
	results := make([]MutantResult, len(selected))
	var mu sync.Mutex
	each(len(selected), o.jobs, func(i int) {
		b := selected[i]
		rep := childReport{}
		job := childJob{bug: string(b.ID), domain: b.Domain, property: o.property, impl: b.Impl, seeds: o.seeds}
		start := time.Now()
		err := runChild(bin, dir, job, job.timeout(), &rep)
		r := mutantResult(b, rep.Mutant, err, o)
		r.Wall = time.Since(start)
		results[i] = r
		mu.Lock()
		counter, eta := p.step(o.costs.of(bugItem(string(b.ID))))
		printMutantLine(counter, r, eta)
		mu.Unlock()
	})
	return results
}

// each calls f(0) … f(n-1), at most jobs at once, and waits for all.
func each(n, jobs int, f func(int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, jobs))
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}
