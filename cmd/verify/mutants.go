package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
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
	// repro fails on its first check; or, when rapid named none, the base
	// seed the kill ran under, which the repro pairs with the budget.
	Seed     uint64        `json:"seed,omitempty"`
	Checks   int           `json:"checks"`
	Duration time.Duration `json:"duration_ns"`     // to the first kill (or the whole run, if none)
	Trace    string        `json:"trace,omitempty"` // the shrunk counterexample
	Repro    string        `json:"repro,omitempty"`
	// Error says why the child did not run to a verdict (it crashed, timed
	// out, or wrote no report): the bug is then neither killed nor survived.
	Error string `json:"error,omitempty"`
	// CutOff says why the child stopped before every suite had run, when it
	// crashed or timed out after the kill: the kill stands (the child wrote
	// it out before going on), but KilledBy may lack properties.
	CutOff string `json:"cut_off,omitempty"`
	// OutputError names a run, up to the kill, whose output of rapid's
	// could not be read (SuiteResult.OutputError): Checks is then a lower
	// bound.
	OutputError string `json:"output_error,omitempty"`
	// Wall is the bug's whole run, every property included: what it costs
	// a shard (shard.go).
	Wall time.Duration `json:"wall_ns,omitempty"`
	// History is porcupine's drawing of the kill's history, when a
	// linearizability check killed the bug: a path relative to the run
	// directory.
	History string `json:"history_file,omitempty"`
}

// selectBugs returns the bugs of the catalogue that match the filters; a bug
// matches -property when it is the property expected to kill it.
func selectBugs(o options) []bugs.Bug {
	var out []bugs.Bug
	for _, b := range bugs.Catalogue() {
		if suites.Matches(o.domain, b.Domain) && suites.Matches(o.impl, b.Impl) && suites.Matches(o.property, b.Killer) &&
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
	// Unjudged lists the properties that killed none of the bugs run but
	// were not run against every catalogued bug they could kill (the filters
	// left some out, or a child did not finish): whether they are silent is
	// not known, and the campaign does not fail for them.
	Unjudged []string `json:"unjudged,omitempty"`
}

// runMutants builds the mutant binary once, checks that the unmutated build
// passes every involved suite under the same seeds, then runs each bug in a
// child process of its own (child.go). With -property, the bugs are those the
// listed properties are expected to kill, and only those properties run.
// Under -shard, only the shard's bugs run, and the baseline covers their
// suites.
func runMutants(o options) (campaign, error) {
	var c campaign
	seeds, err := parseSeeds(o.seeds)
	if err != nil {
		return c, err
	}
	c.Seeds = seeds
	var selected []bugs.Bug
	for _, b := range selectBugs(o) {
		if o.plan.keeps(bugItem(string(b.ID))) {
			selected = append(selected, b)
		}
	}
	if len(selected) == 0 {
		fmt.Println("no seeded bug to run here")
		return c, nil
	}
	dir, err := os.MkdirTemp("", "memverify-mutants-")
	if err != nil {
		return c, fmt.Errorf("a directory for the mutant binary: %w", err)
	}
	defer os.RemoveAll(dir)
	bin, err := buildMutants(dir)
	if err != nil {
		return c, err
	}
	if c.Baseline, err = runBaseline(bin, dir, selected, o); err != nil {
		return c, err
	}
	c.Mutants = runBugs(bin, dir, selected, o)
	c.Silent, c.Unjudged = silentProperties(o.property, c.Mutants)
	return c, nil
}

// buildMutants builds verify with -tags mutants,sched (mutantTags) into dir.
func buildMutants(dir string) (string, error) {
	bin := filepath.Join(dir, "verify-mutants")
	fmt.Printf("building the mutant binary: go build -tags %s -o %s ./cmd/verify\n", mutantTags, bin)
	build := exec.Command("go", "build", "-tags", mutantTags, "-o", bin, "./cmd/verify")
	build.Dir = moduleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building with -tags %s: %w\n%s", mutantTags, err, out)
	}
	return bin, nil
}

// mutantResult is bug b's result from what its child reported (nil if
// nothing) and how the child ended (err, from runChild). A child that timed
// out or crashed after the kill keeps the kill, marked as cut off; one that
// did so before it has no verdict, and its repro is the command that runs
// that bug's campaign alone, which shows the hang or the crash again.
func mutantResult(b bugs.Bug, reported *MutantResult, err error, o options) MutantResult {
	r := MutantResult{Bug: b}
	if reported != nil {
		r = *reported
	}
	switch {
	case err == nil:
	case r.Killed:
		r.CutOff = err.Error()
	default:
		r.Error = err.Error()
		r.Repro = campaignRepro(b, o)
	}
	return r
}

// campaignRepro is the command that runs bug b's campaign alone, as this one
// ran it: same seeds, same properties, same rapid flags (the child's bound
// grows with the budget, so a timeout needs the budget to recur).
// -rapid.nofailfile=true is left out: verify sets it itself.
func campaignRepro(b bugs.Bug, o options) string {
	args := []string{"go run ./cmd/verify mutants -bug", shellQuote(string(b.ID)), "-seeds", shellQuote(o.seeds)}
	if o.property != "" {
		args = append(args, "-property", shellQuote(o.property))
	}
	for _, a := range rapidArgs() {
		if a != "-rapid.nofailfile=true" {
			args = append(args, shellQuote(a))
		}
	}
	return strings.Join(args, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters of IDs, names, numbers and flags.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,._/=:+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// silentProperties sorts the properties that ran against some bug of the
// campaign and killed none into silent and unjudged. A property's silence
// shows only against the bugs it could have killed, the catalogued bugs of
// its domain whose implementation it runs against: it is judged when the
// property ran to its end against every one of them, and not judged
// otherwise. Under -impl BBox, say, overlap/Symmetric runs against BBox's
// bugs only, while what it kills are Exact's; -bug leaves out every other
// bug of the domain, and -property the bugs that the properties it leaves
// out are expected to kill. A child that crashed or timed out (Error,
// CutOff) ran to their end only the properties that killed its bug.
func silentProperties(property string, results []MutantResult) (silent, unjudged []string) {
	type key struct{ domain, property string }
	ranAgainst := map[key]map[bugs.ID]bool{}
	killed := map[key]bool{}
	for _, r := range results {
		for _, s := range suites.Select(r.Bug.Domain, property, r.Bug.Impl) {
			k := key{s.Domain, s.Property}
			if ranAgainst[k] == nil {
				ranAgainst[k] = map[bugs.ID]bool{}
			}
			ranAgainst[k][r.Bug.ID] = r.Error == "" && r.CutOff == "" || slices.Contains(r.KilledBy, s.Property)
		}
		for _, p := range r.KilledBy {
			killed[key{r.Bug.Domain, p}] = true
		}
	}
	for k, ran := range ranAgainst {
		if killed[k] {
			continue
		}
		judged := true
		for _, b := range bugs.Catalogue() {
			if b.Domain == k.domain && !ran[b.ID] && len(suites.Select(b.Domain, k.property, b.Impl)) > 0 {
				judged = false // a bug it could kill, not run against it
				break
			}
		}
		name := k.domain + "/" + k.property
		if judged {
			silent = append(silent, name)
		} else {
			unjudged = append(unjudged, name)
		}
	}
	sort.Strings(silent)
	sort.Strings(unjudged)
	return silent, unjudged
}

func join(set map[string]bool) string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func printMutantLine(counter string, r MutantResult, eta string) {
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
		if r.CutOff != "" {
			detail += "; then cut off: " + firstLine(r.CutOff)
		}
	}
	if r.OutputError != "" {
		detail += "; " + unreadNote(firstLine(r.OutputError))
	}
	fmt.Printf("%s %-8s %-40s %s %s\n", counter, status, r.Bug.ID, detail, eta)
}

func runMutantsCmd(o options) int {
	rep, code := begin("mutants", &o)
	if code >= 0 {
		return code
	}
	c, err := runMutants(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify mutants: %v\n", err)
		rep.Errors = append(rep.Errors, err.Error())
	} else {
		rep.Campaign = &c
		printCampaignSummary(c)
	}
	return finish(rep)
}

// printCampaignSummary prints survivors with how to reproduce, the bugs whose
// child could not run (an error, counted apart: such a bug was not shown to
// survive anything) with the command that reruns them, the kills whose run
// was cut off, the baseline's failures, the silent properties and those whose
// silence was not judged, and ends with "killed K of N". It returns the exit
// code.
func printCampaignSummary(c campaign) int {
	code := 0
	for _, r := range c.Baseline {
		if r.Outcome == props.Failed {
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
			fmt.Printf("\nerror: %s (%s) — %s\n  the child did not run to a verdict: %s\n  reproduce: %s\n",
				r.Bug.ID, r.Bug.Impl, r.Bug.Summary, strings.ReplaceAll(strings.TrimSpace(r.Error), "\n", "\n    "), r.Repro)
			continue
		case r.Killed:
			killed++
			if r.CutOff != "" {
				fmt.Printf("\ncut off after the kill: %s (%s) — its child stopped before every property had run, so its row of the kill matrix may lack some: %s\n",
					r.Bug.ID, r.Bug.Impl, firstLine(r.CutOff))
			}
			continue
		}
		survived++
		code = 1
		fmt.Printf("\nsurvived: %s (%s) — %s\n  expected killer: %s\n  reproduce: MEMVERIFY_BUG=%s go test -tags "+mutantTags+" ./suites -run '^TestSuites$/^%s$'%s\n",
			r.Bug.ID, r.Bug.Impl, r.Bug.Summary, r.Bug.Killer, r.Bug.ID, r.Bug.Domain, noFailFile)
	}
	for _, p := range c.Silent {
		code = 1
		fmt.Printf("\nproperty %s killed no seeded bug: it has never been seen to fail\n", p)
	}
	if len(c.Unjudged) > 0 {
		fmt.Printf("\n%s\n", unjudgedNote(c.Unjudged))
	}
	fmt.Printf("\nkilled %d of %d%s\n", killed, len(c.Mutants), campaignCounts(survived, errored))
	return code
}

// unjudgedNote says which properties killed none of the bugs run without
// being shown silent, and why that is not a failure.
func unjudgedNote(props []string) string {
	return fmt.Sprintf("silence not judged for %s: none killed a bug of this campaign, but the campaign did not run them against every catalogued bug they could kill (the filters left some out, or a child did not finish); a campaign over their whole domains judges them",
		strings.Join(props, ", "))
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
