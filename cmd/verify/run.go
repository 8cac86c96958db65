package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
)

// SuiteResult is the outcome of one suite run.
type SuiteResult struct {
	Name     string        `json:"name"`
	Domain   string        `json:"domain"`
	Property string        `json:"property"`
	Impl     string        `json:"impl"`
	Outcome  props.Outcome `json:"outcome"`
	Checks   int           `json:"checks"` // rapid checks run (to the failure, for a failure)
	// BaseSeed is the -rapid.seed the suite ran under, chosen by verify
	// (rapidlog.go): with the budget, it replays the run.
	BaseSeed uint64 `json:"base_seed"`
	// Seed is the failing check's seed, as rapid names it: a rerun from it
	// fails on its first check. 0 when rapid named none.
	Seed     uint64        `json:"seed,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Output   string        `json:"output,omitempty"` // for a failure: rapid's report and the op trace
	Repro    string        `json:"repro,omitempty"`  // for a failure: the command that reproduces it
	// OutputError says what of rapid's output could not be read (the count
	// of checks, the failing seed): Checks and Seed are then incomplete.
	OutputError string `json:"output_error,omitempty"`
	// History is porcupine's drawing of the failing history, for a failed
	// linearizability check: a path relative to the run directory.
	History string `json:"history_file,omitempty"`
}

// suiteTimeout bounds one suite's run under `run`, so that code under test
// that deadlocks fails its suite instead of hanging the job: a child's bound
// for one seed, six minutes at the default budget, where the longest suite
// takes seconds. Inside a campaign's child the bound is lower
// (childSuiteTimeout).
func suiteTimeout() time.Duration {
	return childTimeout(flagInt("rapid.checks"), flagInt("rapid.steps"), 1)
}

// runSuite runs one suite in-process under seed (rapid's -rapid.seed for
// the run, restored after), for at most limit, and returns its structured
// result.
func runSuite(s suites.Suite, seed uint64, limit time.Duration) SuiteResult {
	prev := flag.Lookup("rapid.seed").Value.String()
	flag.Set("rapid.seed", strconv.FormatUint(seed, 10))
	scratch, restore := historyScratch()
	var r props.Result
	s.WithBudget(func() { r = props.RunWithin(s.Name(), s.Run, limit) }) // the suite's own budget (suites.Suite.Checks)
	restore()
	flag.Set("rapid.seed", prev)
	rr := readRapid(r)
	res := SuiteResult{Name: s.Name(), Domain: s.Domain, Property: s.Property, Impl: s.Impl,
		Outcome: r.Outcome, Checks: rr.Checks, BaseSeed: seed, Seed: rr.Seed, Duration: r.Duration}
	if rr.Err != nil {
		res.OutputError = rr.Err.Error()
	}
	output, history := keepHistory(scratch, fmt.Sprintf("%s-%d", s.Name(), seed), rr.Output)
	if r.Outcome == props.Failed {
		res.Output, res.History = output, history
		res.Repro = reproRun(s, res)
	}
	return res
}

// runSeed is the seed a suite of `run` runs under: the user's -rapid.seed,
// or else a random one, which the result records, so that a failure
// replays whether or not rapid's text names the failing check's seed.
func runSeed(user uint64) uint64 {
	for user == 0 {
		user = rand.Uint64()
	}
	return user
}

// reproRun is the command that reruns one suite's failure r: from the
// failing check's seed, or else from the base seed with the budget.
// Under a seeded bug (a mutants build run with MEMVERIFY_BUG, or a
// campaign's child) the suite fails only with that bug on, in a build that
// has it: the command then sets both.
func reproRun(s suites.Suite, r SuiteResult) string {
	run, test := "go run ./cmd/verify run", s.GoTest()
	if id := bugs.Active(); id != "" {
		run = fmt.Sprintf("MEMVERIFY_BUG=%s go run -tags %s ./cmd/verify run", id, bugTags())
		test = fmt.Sprintf("MEMVERIFY_BUG=%s %s -tags %s", id, test, bugTags())
	}
	cmd := fmt.Sprintf("%s -domain %s -property %s -impl %s", run, s.Domain, s.Property, s.Impl)
	flags := seedFlags(r) + generationFlags()
	return cmd + flags + "   (or: " + test + flags + noFailFile + ")"
}

// runSuites runs the selected suites (this shard's, under -shard), a
// line each with the count and the time left.
func runSuites(o options) []SuiteResult {
	var selected []suites.Suite
	cost := 0.0
	candidates := o.library
	if o.lib == "" {
		candidates = suites.Select(o.domain, o.property, o.impl)
	}
	for _, s := range candidates {
		if o.plan.keeps(suiteItem(s.Name())) {
			selected = append(selected, s)
			cost += o.costs.of(suiteItem(s.Name()))
		}
	}
	checks := flag.Lookup("rapid.checks").Value.String()
	fmt.Printf("running %d property suites (rapid.checks=%s)\n", len(selected), checks)
	user := flagUint("rapid.seed")
	out := make([]SuiteResult, 0, len(selected))
	p := newProgress(len(selected), cost)
	for _, s := range selected {
		res := runSuite(s, runSeed(user), suiteTimeout())
		counter, eta := p.step(o.costs.of(suiteItem(s.Name())))
		fmt.Printf("%s %-60s %-4s %8s %s\n", counter, s.Name(), res.Outcome, res.Duration.Round(time.Millisecond), eta)
		out = append(out, res)
	}
	return out
}

func width(n int) int { return len(strconv.Itoa(n)) }

// printSuiteSummary prints the summary table and every failure with its repro.
func printSuiteSummary(results []SuiteResult) (failed int) {
	fmt.Printf("\n%-12s %-20s %-10s %7s %-6s %9s\n", "domain", "property", "impl", "checks", "result", "time")
	for _, r := range results {
		fmt.Printf("%-12s %-20s %-10s %7d %-6s %9s\n", r.Domain, r.Property, r.Impl, r.Checks, r.Outcome,
			r.Duration.Round(time.Millisecond))
	}
	for _, r := range results {
		if r.Outcome == props.Failed {
			failed++
			fmt.Printf("\n--- FAIL %s\n%s\nreproduce: %s\n", r.Name, strings.TrimRight(r.Output, "\n"), r.Repro)
		}
	}
	for _, r := range results {
		if r.OutputError != "" {
			fmt.Printf("\n%s: %s\n", r.Name, unreadNote(r.OutputError))
		}
	}
	fmt.Printf("\n%d suites: %d passed, %d failed\n", len(results), len(results)-failed, failed)
	return failed
}

func runSuitesCmd(o options) int {
	if o.lib != "" {
		if code := loadLibrary(&o); code >= 0 {
			return code
		}
	}
	rep, code := begin("run", &o)
	if code >= 0 {
		return code
	}
	rep.Run.Library = o.lib
	rep.Suites = runSuites(o)
	printSuiteSummary(rep.Suites)
	if o.lib == "" && suites.Matches(o.domain, "overlap") && o.plan.keeps(accuracyItem) {
		rep.Accuracy = measureAccuracy()
	}
	return finish(rep)
}

// list prints the suites and the seeded bugs that match the filters (a bug
// matches -property by its expected killer). Nothing matching is an error: a
// misspelt filter must not read as an empty catalogue.
func list(o options) int {
	suites, seeded := suites.Select(o.domain, o.property, o.impl), selectBugs(o)
	if o.bug != "" && len(seeded) == 0 {
		fmt.Fprintf(os.Stderr, "verify: no seeded bug %q matches the filters\n", o.bug)
		return 2
	}
	if len(suites) == 0 && len(seeded) == 0 {
		fmt.Fprintln(os.Stderr, "verify: no suite and no seeded bug match the filters")
		return 2
	}
	fmt.Println("suites:")
	for _, s := range suites {
		fmt.Printf("  %s\n", s.Name())
	}
	fmt.Println("seeded bugs:")
	for _, b := range seeded {
		fmt.Printf("  %-40s %-10s killer %-18s %s\n", b.ID, b.Impl, b.Killer, b.Summary)
	}
	if o.property == "" && o.bug == "" {
		listRegressions(o) // gate_selftest.go
	}
	return 0
}
