package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/catalog"
	"github.com/memverify/memverify/internal/runner"
)

// MutantResult is the outcome of running one seeded bug against the properties.
type MutantResult struct {
	Bug    bugs.Bug `json:"bug"`
	Killed bool     `json:"killed"`
	By     string   `json:"by,omitempty"` // the property that failed first
	// KilledBy lists every property that failed on the bug (each suite of the
	// bug's domain and implementation is run, under the seeds in turn, until
	// it fails): the row of the property × bug kill matrix.
	KilledBy []string `json:"killed_by,omitempty"`
	Expected bool     `json:"expected"` // By is the catalogue's Killer
	// Seed is the seed of the check that failed first, with which the
	// repro fails on its first check.
	Seed     uint64        `json:"seed,omitempty"`
	Checks   int           `json:"checks"`
	Duration time.Duration `json:"duration_ns"`     // to the first kill (or the whole run, if none)
	Trace    string        `json:"trace,omitempty"` // the shrunk counterexample
	Repro    string        `json:"repro,omitempty"`
	// Error says why the child did not run to a verdict (it crashed, timed
	// out, or wrote no report): the bug is then neither killed nor survived.
	Error string `json:"error,omitempty"`
}

// selectBugs returns the bugs of the catalogue that match the filters; a bug
// matches -property when it is the property expected to kill it.
func selectBugs(o options) []bugs.Bug {
	var out []bugs.Bug
	for _, b := range bugs.Catalogue() {
		if catalog.Matches(o.domain, b.Domain) && catalog.Matches(o.impl, b.Impl) && catalog.Matches(o.property, b.Killer) &&
			(o.bug == "" || string(b.ID) == o.bug) {
			out = append(out, b)
		}
	}
	return out
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("bad seed %q in -seeds (want positive integers)", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// campaign is the outcome of `verify mutants`.
type campaign struct {
	Seeds    []uint64       `json:"seeds"`
	Baseline []SuiteResult  `json:"baseline"`
	Mutants  []MutantResult `json:"mutants"`
	// Silent lists the properties (domain/property) of the campaign's domains
	// that killed no bug: a property that was never seen to fail proves
	// nothing, so the campaign fails while this is not empty.
	Silent []string `json:"silent,omitempty"`
}

// runMutants builds the mutant binary once, checks that the unmutated build
// passes every involved suite under the same seeds, then runs each bug in a
// child process of its own (child.go). With -property, the bugs are those the
// listed properties are expected to kill, and only those properties run.
func runMutants(o options) (campaign, error) {
	var c campaign
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return c, err
	}
	c.Seeds = seeds
	selected := selectBugs(o)
	if len(selected) == 0 {
		return c, fmt.Errorf("no seeded bug matches the filters")
	}
	dir, err := os.MkdirTemp("", "memverify-mutants-")
	if err != nil {
		return c, fmt.Errorf("a directory for the mutant binary: %w", err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "verify-mutants")
	fmt.Printf("building the mutant binary: go build -tags mutants -o %s ./cmd/verify\n", bin)
	build := exec.Command("go", "build", "-tags", "mutants", "-o", bin, "./cmd/verify")
	build.Dir = moduleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return c, fmt.Errorf("building with -tags mutants: %w\n%s", err, out)
	}

	domains, impls := map[string]bool{}, map[string]bool{}
	for _, b := range selected {
		domains[b.Domain], impls[b.Impl] = true, true
	}
	fmt.Printf("baseline: the unmutated build under seeds %s\n", o.seeds)
	base := childReport{}
	if err := runChild(bin, dir, childJob{domain: join(domains), property: o.property, impl: join(impls), seeds: o.seeds}, &base); err != nil {
		return c, fmt.Errorf("baseline: %w", err)
	}
	c.Baseline = base.Baseline
	for _, r := range c.Baseline {
		if r.Outcome == string(runner.Failed) {
			fmt.Printf("baseline FAIL %s\n%s\n", r.Name, r.Output)
		}
	}

	fmt.Printf("running %d seeded bugs, %d at a time\n", len(selected), max(1, o.jobs))
	results := make([]MutantResult, len(selected))
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, max(1, o.jobs))
	for i, b := range selected {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rep := childReport{}
			err := runChild(bin, dir, childJob{bug: string(b.ID), domain: b.Domain, property: o.property, impl: b.Impl, seeds: o.seeds}, &rep)
			r := MutantResult{Bug: b}
			if rep.Mutant != nil {
				r = *rep.Mutant
			}
			if err != nil {
				r.Error = err.Error()
			}
			results[i] = r
			mu.Lock()
			printMutantLine(r)
			mu.Unlock()
		}()
	}
	wg.Wait()
	c.Mutants = results
	c.Silent = silentProperties(selected, o.property, results)
	return c, nil
}

// silentProperties lists the properties of the bugs' domains that killed none
// of them. A domain, implementation or property filter narrows what can kill,
// so it reports only for properties that ran against some selected bug.
func silentProperties(selected []bugs.Bug, property string, results []MutantResult) []string {
	ran, killed := map[string]bool{}, map[string]bool{}
	for _, b := range selected {
		for _, s := range catalog.Select(b.Domain, property, b.Impl) {
			ran[s.Domain+"/"+s.Property] = true
		}
	}
	for _, r := range results {
		for _, p := range r.KilledBy {
			killed[r.Bug.Domain+"/"+p] = true
		}
	}
	var out []string
	for p := range ran {
		if !killed[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func join(set map[string]bool) string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func printMutantLine(r MutantResult) {
	status := "SURVIVED"
	detail := ""
	switch {
	case r.Error != "":
		status, detail = "ERROR", firstLine(r.Error)+" (details below)"
	case r.Killed:
		status = "killed"
		detail = fmt.Sprintf("by %s after %d checks, %v", r.By, r.Checks, r.Duration.Round(time.Millisecond))
		if !r.Expected {
			detail += fmt.Sprintf(" (catalogue expects %s)", r.Bug.Killer)
		}
	}
	fmt.Printf("  %-8s %-40s %s\n", status, r.Bug.ID, detail)
}

func runMutantsCmd(o options) int {
	c, err := runMutants(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify mutants: %v\n", err)
		return 1
	}
	rep := newReport()
	rep.Campaign = &c
	saved := rep.save(o.out)
	code := printCampaignSummary(c)
	if !saved {
		code = 1
	}
	return code
}

// printCampaignSummary prints survivors with how to reproduce, the bugs whose
// child could not run (an error, counted apart: such a bug was not shown to
// survive anything), the baseline's failures, and ends with "killed K of N".
// It returns the exit code.
func printCampaignSummary(c campaign) int {
	code := 0
	for _, r := range c.Baseline {
		if r.Outcome == string(runner.Failed) {
			code = 1
			fmt.Printf("\nthe unmutated build FAILS %s: the campaign proves nothing until it passes\nreproduce: %s\n", r.Name, r.Repro)
		}
	}
	killed, survived, errored := 0, 0, 0
	for _, r := range c.Mutants {
		switch {
		case r.Error != "":
			errored++
			code = 1
			fmt.Printf("\nerror: %s (%s) — %s\n  the child did not run to a verdict: %s\n",
				r.Bug.ID, r.Bug.Impl, r.Bug.Summary, strings.ReplaceAll(strings.TrimSpace(r.Error), "\n", "\n    "))
			continue
		case r.Killed:
			killed++
			continue
		}
		survived++
		code = 1
		fmt.Printf("\nsurvived: %s (%s) — %s\n  expected killer: %s\n  reproduce: MEMVERIFY_BUG=%s go test -tags mutants ./props -run '^TestSuites$/^%s$'\n",
			r.Bug.ID, r.Bug.Impl, r.Bug.Summary, r.Bug.Killer, r.Bug.ID, r.Bug.Domain)
	}
	for _, p := range c.Silent {
		code = 1
		fmt.Printf("\nproperty %s killed no seeded bug: it has never been seen to fail\n", p)
	}
	fmt.Printf("\nkilled %d of %d%s\n", killed, len(c.Mutants), campaignCounts(survived, errored))
	return code
}

// campaignCounts completes "killed K of N" with the bugs that were not
// killed, each way, if any: "; 1 survived; 2 could not run (error)".
func campaignCounts(survived, errored int) string {
	var s string
	if survived > 0 {
		s += fmt.Sprintf("; %d survived", survived)
	}
	if errored > 0 {
		s += fmt.Sprintf("; %d could not run (error)", errored)
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// moduleRoot finds the directory holding go.mod, so the build works from any
// working directory inside the module.
func moduleRoot() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err == nil {
		if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
			return filepath.Dir(gomod)
		}
	}
	return "."
}
