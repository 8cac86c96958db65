package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memverify/memverify/internal/bugs"
)

// commandFlags are the flags each command reads; "rapid.*" stands for every
// flag of rapid's. A flag set for a command that does not read it is refused
// (checkFlags): it would look as if it filtered or tuned the run while it
// changed nothing. "child-report" is not shown to users.
var commandFlags = map[string][]string{
	"all":          {"domain", "property", "impl", "seeds", "jobs", "out", "bug", "rapid.*"},
	"run":          {"domain", "property", "impl", "out", "rapid.*"},
	"mutants":      {"domain", "property", "impl", "seeds", "jobs", "out", "bug", "rapid.*"},
	"mutant-child": {"domain", "property", "impl", "seeds", "bug", "child-report", "rapid.*"},
	"bench":        {"bench", "count", "benchtime", "file", "gate", "out"},
	"list":         {"domain", "property", "impl", "bug"},
}

// applies reports whether command cmd reads flag name.
func applies(cmd, name string) bool {
	if cmd == "mutants" && name == "rapid.seed" {
		return false // a campaign's seeds are -seeds
	}
	for _, f := range commandFlags[cmd] {
		if f == name || f == "rapid.*" && strings.HasPrefix(name, "rapid.") {
			return true
		}
	}
	return false
}

// checkFlags refuses a flag set on the command line that cmd does not read.
// An unknown command passes: main reports it.
func checkFlags(cmd string) error {
	if _, ok := commandFlags[cmd]; !ok {
		return nil
	}
	var err error
	reading := cmd == "bench" && flagSet("file")
	flag.Visit(func(f *flag.Flag) {
		switch {
		case err != nil:
		case reading && (f.Name == "bench" || f.Name == "count" || f.Name == "benchtime"):
			// Saved results are judged whole: these would look as if
			// they selected or resampled them.
			err = fmt.Errorf("-%s does not apply to bench -file, which judges the saved results as they are", f.Name)
		case applies(cmd, f.Name):
		case cmd == "mutants" && f.Name == "rapid.seed":
			err = fmt.Errorf("-rapid.seed does not apply to mutants: each bug runs under the seeds of -seeds")
		default:
			err = fmt.Errorf("-%s does not apply to %s, which reads %s", f.Name, cmd, flagList(cmd))
		}
	})
	return err
}

// flagList names the flags a user may give cmd.
func flagList(cmd string) string {
	var names []string
	rapid := ""
	for _, f := range commandFlags[cmd] {
		switch f {
		case "child-report":
		case "rapid.*":
			rapid = ", rapid's flags"
			if cmd == "mutants" {
				rapid += " but -rapid.seed"
			}
		default:
			names = append(names, "-"+f)
		}
	}
	return strings.Join(names, " ") + rapid
}

// checkBudget refuses a rapid budget below one check, or below one step of
// a state machine: with 0 checks every suite passes having checked nothing,
// and with 0 steps every state-machine suite does (no action is drawn); every
// seeded bug they should kill survives. With a negative budget every suite
// fails, with a repro that passes. fromFlag says whether the user set
// -rapid.checks (else the budget is RAPID_CHECKS); the steps come from
// -rapid.steps or RAPID_STEPS alike.
func checkBudget(fromFlag bool) error {
	if n := flagInt("rapid.steps"); n < 1 {
		if flagSet("rapid.steps") {
			return fmt.Errorf("-rapid.steps=%d: want at least 1 step", n)
		}
		return fmt.Errorf("RAPID_STEPS=%s in the environment: want at least 1 step", os.Getenv("RAPID_STEPS"))
	}
	n := flagInt("rapid.checks")
	switch {
	case n >= 1:
		return nil
	case fromFlag:
		return fmt.Errorf("-rapid.checks=%d: want at least 1 check", n)
	}
	return fmt.Errorf("RAPID_CHECKS=%s in the environment: want at least 1 check", os.Getenv("RAPID_CHECKS"))
}

// checkBugEnv refuses, for run, a MEMVERIFY_BUG that activates nothing: a
// binary built without -tags mutants ignores it, and an id that is not in
// the catalogue matches no seam, so every suite would pass as if the bug had
// survived. (all and mutants take their bugs from the catalogue and run their
// baseline without it.)
func checkBugEnv(cmd string) error {
	id := os.Getenv("MEMVERIFY_BUG")
	switch {
	case cmd != "run" || id == "":
		return nil
	case !bugs.Enabled:
		return fmt.Errorf("MEMVERIFY_BUG=%s, but this binary has no seeded bugs: add -tags mutants (go run -tags mutants ./cmd/verify run ...)", id)
	}
	if _, ok := bugs.Lookup(bugs.ID(id)); !ok {
		return fmt.Errorf("MEMVERIFY_BUG=%s is not a seeded bug (go run ./cmd/verify list shows them)", id)
	}
	return nil
}

// defineFlags registers verify's flags on the command line's flag set.
func defineFlags(o *options, bo *benchOptions) {
	flag.StringVar(&bo.pattern, "bench", ".", "bench: which benchmarks (a go test -bench pattern)")
	flag.IntVar(&bo.count, "count", 10, "bench: samples of each benchmark, taken in as many interleaved rounds")
	flag.StringVar(&bo.benchtime, "benchtime", "100ms", "bench: time per run")
	flag.StringVar(&bo.file, "file", "", "bench: read results from these files (comma-separated paths or globs) instead of running")
	flag.BoolVar(&bo.gate, "gate", false, "bench: exit 1 unless every performance goal is measured in full and met (a goal not measured, or partly measured, fails)")
	flag.StringVar(&o.domain, "domain", "", "only these domains (comma-separated)")
	flag.StringVar(&o.property, "property", "", "only these properties (comma-separated); of the seeded bugs, those they are expected to kill")
	flag.StringVar(&o.impl, "impl", "", "only these implementations (comma-separated)")
	flag.StringVar(&o.seeds, "seeds", "1,2,3", "mutants, all: the fixed rapid seeds each bug is run under")
	flag.StringVar(&o.out, "out", "reports/latest", "where the report is written")
	flag.IntVar(&o.jobs, "jobs", 2, "mutants, all: bugs run at once")
	flag.StringVar(&o.bug, "bug", "", "mutants, all, list: only this seeded bug (its id, as list shows it)")
	flag.StringVar(&o.childReport, "child-report", "", "internal (mutant child): the file to write the report to")
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// usage prints the commands, the flags each reads, and the flags a user
// sets: verify's own and rapid's. The test binary's flags (-test.*), which
// testing.Init registers for rapid's sake, are left out: no command reads
// them.
func usage() { writeUsage(os.Stderr) }

func writeUsage(w io.Writer) {
	fmt.Fprintf(w, `usage: go run ./cmd/verify [all|run|mutants|bench|list] [flags]

  all      run every property suite, then every seeded bug; write reports/latest/
           reads %s
  run      run the property suites
           reads %s
  mutants  run every seeded bug against the properties (builds with -tags mutants)
           reads %s
  bench    run the benchmarks and compare each implementation with the model
           reads %s
  list     list the suites and the seeded bugs
           reads %s

-domain, -property and -impl select suites and seeded bugs alike: a bug
matches -property when it is the property expected to kill it, and runs
against the selected properties only. A command refuses flags it does not read.

flags:
`, flagList("all"), flagList("run"), flagList("mutants"), flagList("bench"), flagList("list"))
	user := flag.NewFlagSet("verify", flag.ContinueOnError)
	user.SetOutput(w)
	flag.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "test.") || f.Name == "bug" || f.Name == "child-report" {
			return
		}
		user.Var(f.Value, f.Name, f.Usage)
		if f.Name == "rapid.checks" {
			// rapid's default is go test's; verify raises it after parsing.
			user.Lookup(f.Name).DefValue = fmt.Sprint(defaultChecks)
		}
	})
	user.PrintDefaults()
}
