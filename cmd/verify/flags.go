package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/memverify/memverify/internal/bugs"
)

// commandFlags are the flags each command reads; "rapid.*" stands for every
// flag of rapid's. A flag set for a command that does not read it is refused
// (checkFlags): it would look as if it filtered or tuned the run while it
// changed nothing. mutant-child, the command a campaign's child runs, and
// its flag child-report are not shown to users.
var commandFlags = map[string][]string{
	"all":          {"domain", "property", "impl", "seeds", "jobs", "out", "bug", "shard", "rapid.*"},
	"run":          {"domain", "property", "impl", "out", "shard", "lib", "rapid.*"},
	"mutants":      {"domain", "property", "impl", "seeds", "jobs", "out", "bug", "shard", "rapid.*"},
	"merge":        {"out"},
	"mutant-child": {"domain", "property", "impl", "seeds", "bug", "child-report", "rapid.*"},
	"bench":        {"bench", "count", "benchtime", "file", "gate", "out"},
	"gate":         {"base", "old", "new", "pkg", "bench", "exclude", "count", "benchtime", "tier", "strict", "alpha", "min-effect", "tolerance", "geomean-tolerance", "selftest", "aa", "jobs", "out"},
	"list":         {"domain", "property", "impl", "bug"},
	"help":         {},
}

// userCommands are the commands usage shows, in its order.
var userCommands = []string{"all", "run", "mutants", "bench", "gate", "merge", "list", "help"}

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
func checkFlags(cmd string) error {
	var set []string
	flag.Visit(func(f *flag.Flag) { set = append(set, f.Name) })
	return refuseFlags(cmd, set)
}

// refuseFlags says why cmd does not take the first flag of set it does not
// read, if any. An unknown command passes: main reports it.
func refuseFlags(cmd string, set []string) error {
	if _, ok := commandFlags[cmd]; !ok {
		return nil
	}
	reading := cmd == "bench" && slices.Contains(set, "file")
	for _, name := range set {
		switch {
		case reading && (name == "bench" || name == "count" || name == "benchtime"):
			// Saved results are judged whole: these would look as if
			// they selected or resampled them.
			return fmt.Errorf("-%s does not apply to bench -file, which judges the saved results as they are", name)
		case applies(cmd, name):
		case cmd == "mutants" && name == "rapid.seed":
			return fmt.Errorf("-rapid.seed does not apply to mutants: each bug runs under the seeds of -seeds")
		default:
			return fmt.Errorf("-%s does not apply to %s, which reads %s", name, cmd, flagList(cmd))
		}
	}
	return nil
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
	if len(names) == 0 && rapid == "" {
		return "no flags"
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

// defineFlags registers verify's flags on the command line's flag set. A
// description that opens with a list of commands ("bench: ...") names every
// command that reads the flag (TestUsageNamesTheCommandsEachFlagIsFor).
func defineFlags(o *options, bo *benchOptions) {
	flag.StringVar(&bo.pattern, "bench", ".", "bench, gate: which benchmarks (a go test -bench pattern)")
	flag.IntVar(&bo.count, "count", 10, "bench, gate: samples of each benchmark, taken in as many interleaved rounds")
	flag.StringVar(&bo.benchtime, "benchtime", "100ms", "bench, gate: time per run")
	flag.StringVar(&bo.file, "file", "", "bench: read results from these files (comma-separated paths or globs) instead of running")
	flag.BoolVar(&bo.gate, "gate", false, "bench: exit 1 if a performance goal is missed (its interval beyond its bound) or not measured in full; an inconclusive goal passes")
	flag.StringVar(&o.domain, "domain", "", "all, run, mutants, list: only these domains (comma-separated)")
	flag.StringVar(&o.property, "property", "", "all, run, mutants, list: only these properties (comma-separated); of the seeded bugs, those they are expected to kill")
	flag.StringVar(&o.impl, "impl", "", "all, run, mutants, list: only these implementations (comma-separated)")
	flag.StringVar(&o.seeds, "seeds", "1,2,3", "all, mutants: the fixed rapid seeds each bug, and the unmutated baseline, run under")
	flag.StringVar(&o.out, "out", "reports", "all, run, mutants, bench, gate, merge: the directory of the runs: each writes its report to a directory of its own there, <command>-<UTC time>/ (bench saves its samples there too, as bench.txt), and latest names the newest full run that passed")
	flag.StringVar(&o.lib, "lib", "", "run: check the C or C++ shared library at this path (see cabi/include/memverify) against every suite of the domains it exports")
	flag.StringVar(&o.shard, "shard", "", "all, run, mutants: run only the i-th of n parts of the suites and seeded bugs (i/n, e.g. 2/3), dealt by their measured cost; merge joins the parts")
	flag.IntVar(&o.jobs, "jobs", 2, "all, mutants, gate: bugs run at once (gate: callgrind processes)")
	defineGateFlags(&gateOpts)
	flag.StringVar(&o.bug, "bug", "", "all, mutants, list: only this seeded bug (its id, as list shows it); all still runs every selected suite")
	flag.StringVar(&o.childReport, "child-report", "", "internal (mutant child): the file to write the report to")
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// usage prints the usage to standard error, after a command line verify
// refuses.
func usage() { writeUsage(os.Stderr) }

// commandHelp is each user command's lines in the usage.
var commandHelp = map[string][]string{
	"all": {"run every property suite, measure the overlap checkers' accuracy,",
		"then run every seeded bug; write the report to -out"},
	"run": {"run the property suites (with overlap selected, also measure the",
		"overlap checkers' accuracy); write the report to -out"},
	"mutants": {"build with -tags mutants, check that the unmutated build passes,",
		"then run each seeded bug against the properties, each in a process",
		"of its own; ends with \"killed K of N\""},
	"bench": {"run the benchmarks of bench/ in interleaved rounds, or judge saved",
		"results (-file); compare each implementation with the model and",
		"judge the performance goals"},
	"merge": {"merge the reports of a campaign's shards (merge -out DIR SHARD-DIR...)",
		"into one report, as one run would have written it"},
	"gate": {"judge a change against its base (-base, default the merge base with",
		"main) by the benchmarks of -pkg: allocations and instructions",
		"(callgrind) must not grow, times are compared in interleaved rounds;",
		"or judge two saved runs (-old, -new); -selftest checks the gate"},
	"list": {"list the suites and the seeded bugs"},
	"help": {"print this text (as do -h and -help) to standard output"},
}

// writeUsage prints the commands, the flags each reads, and the flags a user
// sets: verify's own and rapid's. The test binary's flags (-test.*), which
// testing.Init registers for rapid's sake, are left out: no command reads
// them; so is child-report, which only a campaign's child reads.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: go run ./cmd/verify [%s] [flags]\n\n", strings.Join(userCommands, "|"))
	for _, cmd := range userCommands {
		lines := commandHelp[cmd]
		if cmd != "help" {
			lines = append(lines[:len(lines):len(lines)], "reads "+flagList(cmd))
		}
		for i, line := range lines {
			name := ""
			if i == 0 {
				name = cmd
			}
			fmt.Fprintf(w, "  %-8s %s\n", name, line)
		}
	}
	fmt.Fprint(w, `
-domain, -property and -impl select suites and seeded bugs alike: a bug
matches -property when it is the property expected to kill it, and runs
against the selected properties only. A command refuses flags it does not read.

flags:
`)
	user := flag.NewFlagSet("verify", flag.ContinueOnError)
	user.SetOutput(w)
	flag.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "test.") || f.Name == "child-report" {
			return
		}
		user.Var(f.Value, f.Name, f.Usage)
		// rapid's defaults are go test's; verify sets its own after
		// parsing (setRapidDefaults).
		switch f.Name {
		case "rapid.checks":
			user.Lookup(f.Name).DefValue = fmt.Sprint(defaultChecks)
		case "rapid.nofailfile":
			user.Lookup(f.Name).DefValue = "true"
		}
	})
	user.PrintDefaults()
}
