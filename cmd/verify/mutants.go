package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/catalog"
	"github.com/memverify/memverify/internal/runner"
)

// childTimeout bounds one bug's run: a seeded bug may deadlock the code it
// sits in, and a hang must not stall the campaign.
const childTimeout = 3 * time.Minute

// MutantResult is the outcome of running one seeded bug against the properties.
type MutantResult struct {
	Bug    bugs.Bug `json:"bug"`
	Killed bool     `json:"killed"`
	By     string   `json:"by,omitempty"` // the property that failed first
	// KilledBy lists every property that failed on the bug (each suite of the
	// bug's domain and implementation is run, under the seeds in turn, until
	// it fails): the row of the property × bug kill matrix.
	KilledBy []string      `json:"killed_by,omitempty"`
	Expected bool          `json:"expected"` // By is the catalogue's Killer
	Seed     uint64        `json:"seed,omitempty"`
	Checks   int           `json:"checks"`
	Duration time.Duration `json:"duration_ns"`     // to the first kill (or the whole run, if none)
	Trace    string        `json:"trace,omitempty"` // the shrunk counterexample
	Repro    string        `json:"repro,omitempty"`
	Error    string        `json:"error,omitempty"` // the child could not run, or timed out
}

// childReport is what a child process prints: the bug's result, or, for the
// unmutated baseline, every suite's.
type childReport struct {
	Mutant   *MutantResult `json:"mutant,omitempty"`
	Baseline []SuiteResult `json:"baseline,omitempty"`
}

func selectBugs(o options) []bugs.Bug {
	var out []bugs.Bug
	for _, b := range bugs.Catalogue() {
		if catalog.Matches(o.domain, b.Domain) && catalog.Matches(o.impl, b.Impl) && (o.bug == "" || string(b.ID) == o.bug) {
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
// child process of its own (a bug may corrupt memory, hang or panic).
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
		return c, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "verify-mutants")
	fmt.Printf("building the mutant binary: go build -tags mutants -o %s ./cmd/verify\n", bin)
	build := exec.Command("go", "build", "-tags", "mutants", "-o", bin, "./cmd/verify")
	build.Dir = moduleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return c, fmt.Errorf("building with -tags mutants: %v\n%s", err, out)
	}

	domains, impls := map[string]bool{}, map[string]bool{}
	for _, b := range selected {
		domains[b.Domain], impls[b.Impl] = true, true
	}
	fmt.Printf("baseline: the unmutated build under seeds %s\n", o.seeds)
	base := childReport{}
	if err := runChild(bin, "", join(domains), join(impls), o.seeds, &base); err != nil {
		return c, fmt.Errorf("baseline: %v", err)
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
			err := runChild(bin, string(b.ID), b.Domain, b.Impl, o.seeds, &rep)
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
	c.Silent = silentProperties(selected, results)
	return c, nil
}

// silentProperties lists the properties of the bugs' domains that killed none
// of them. A domain or implementation filter narrows what can kill, so it
// reports only for properties that ran against some selected bug.
func silentProperties(selected []bugs.Bug, results []MutantResult) []string {
	ran, killed := map[string]bool{}, map[string]bool{}
	for _, b := range selected {
		for _, s := range catalog.Select(b.Domain, "", b.Impl) {
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

// runChild runs the mutant binary on one bug ("" for the baseline) and decodes
// its report.
func runChild(bin, bug, domain, impl, seeds string, into *childReport) error {
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	args := []string{"mutant-child", "-bug", bug, "-domain", domain, "-impl", impl, "-seeds", seeds}
	if v := flag.Lookup("rapid.checks"); v != nil {
		args = append(args, "-rapid.checks="+v.Value.String())
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("timed out after %v (hang?)", childTimeout)
	}
	if jerr := json.Unmarshal(stdout.Bytes(), into); jerr != nil {
		return fmt.Errorf("child failed: %v %v\n%s", err, jerr, tail(stderr.String(), 2000))
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func printMutantLine(r MutantResult) {
	status := "SURVIVED"
	detail := ""
	switch {
	case r.Error != "":
		status, detail = "ERROR", r.Error
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
	if err := rep.write(o.out); err != nil {
		fmt.Fprintf(os.Stderr, "verify: writing the report: %v\n", err)
	}
	return printCampaignSummary(c)
}

// printCampaignSummary prints survivors with how to reproduce, the baseline's
// failures, and ends with "killed K of N". It returns the exit code.
func printCampaignSummary(c campaign) int {
	code := 0
	for _, r := range c.Baseline {
		if r.Outcome == string(runner.Failed) {
			code = 1
			fmt.Printf("\nthe unmutated build FAILS %s: the campaign proves nothing until it passes\nreproduce: %s\n", r.Name, r.Repro)
		}
	}
	killed := 0
	for _, r := range c.Mutants {
		if r.Killed {
			killed++
			continue
		}
		code = 1
		fmt.Printf("\nsurvived: %s (%s) — %s\n  expected killer: %s\n  reproduce: MEMVERIFY_BUG=%s go test -tags mutants ./props -run '^TestSuites$/^%s$'\n",
			r.Bug.ID, r.Bug.Impl, r.Bug.Summary, r.Bug.Killer, r.Bug.ID, r.Bug.Domain)
	}
	for _, p := range c.Silent {
		code = 1
		fmt.Printf("\nproperty %s killed no seeded bug: it has never been seen to fail\n", p)
	}
	fmt.Printf("\nkilled %d of %d\n", killed, len(c.Mutants))
	return code
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

// mutantChild runs inside the mutant binary: it activates one bug (or none,
// for the baseline) and runs the suites of the bug's domain and implementation,
// the expected killer first, under each seed, until one fails.
func mutantChild(o options) int {
	if !bugs.Enabled {
		fmt.Fprintln(os.Stderr, "verify: mutant-child needs a binary built with -tags mutants")
		return 2
	}
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	enc := json.NewEncoder(os.Stdout)
	if o.bug == "" {
		var rep childReport
		for _, seed := range seeds {
			flag.Set("rapid.seed", strconv.FormatUint(seed, 10))
			for _, s := range catalog.Select(o.domain, "", o.impl) {
				rep.Baseline = append(rep.Baseline, runSuite(s))
			}
		}
		enc.Encode(rep)
		return 0
	}
	b, ok := bugs.Lookup(bugs.ID(o.bug))
	if !ok {
		fmt.Fprintf(os.Stderr, "verify: %q is not in the catalogue\n", o.bug)
		return 2
	}
	if err := bugs.Activate(b.ID); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	suites := catalog.Select(b.Domain, "", b.Impl)
	sort.SliceStable(suites, func(i, j int) bool { return suites[i].Property == b.Killer && suites[j].Property != b.Killer })
	res := MutantResult{Bug: b}
	start := time.Now()
	defer func() {
		if !res.Killed {
			res.Duration = time.Since(start)
		}
		enc.Encode(childReport{Mutant: &res})
	}()
	for _, s := range suites {
		for _, seed := range seeds {
			flag.Set("rapid.seed", strconv.FormatUint(seed, 10))
			r := runSuite(s)
			if !res.Killed {
				res.Checks += r.Checks
			}
			if r.Outcome != string(runner.Failed) {
				continue
			}
			if !slices.Contains(res.KilledBy, s.Property) {
				res.KilledBy = append(res.KilledBy, s.Property)
			}
			if !res.Killed {
				res.Killed, res.By, res.Expected, res.Seed = true, s.Property, s.Property == b.Killer, seed
				res.Duration = time.Since(start)
				res.Trace = r.Output
				res.Repro = fmt.Sprintf("MEMVERIFY_BUG=%s %s -tags mutants -rapid.seed=%d", b.ID, s.GoTest(), seed)
			}
			break // this property has killed the bug; on to the next
		}
	}
	return 0
}
