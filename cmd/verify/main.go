// Command verify runs memverify's property suites in-process, measures them
// against the catalogue of seeded bugs, and writes a report.
//
// Usage:
//
//	go run ./cmd/verify [command] [flags]
//
// Commands:
//
//	all      (default) run every suite, measure the overlap checkers'
//	         accuracy, then run every seeded bug; write the report
//	run      run the property suites (filter with -domain, -property, -impl)
//	mutants  build once with -tags mutants and run every seeded bug against the
//	         properties; ends with "killed K of N"
//	bench    run the benchmarks in bench/ (or read -file), compare every
//	         implementation with the model of its group, benchstat-style, and
//	         judge the performance goals (-gate: exit 1 if one is missed)
//	gate     judge a change against its base by the benchmarks of a package:
//	         allocations and instruction counts (callgrind) fail it, times
//	         are judged in interleaved rounds (internal/gate); -selftest
//	         checks the gate against seeded performance regressions
//	merge    merge the reports of a campaign's shards (-shard i/n) into one
//	list     list the suites and the seeded bugs
//	help     print the commands and the flags each reads (also -h)
//
// The filters -domain, -property and -impl select suites and seeded bugs
// alike; a bug matches -property when it is the property expected to kill it.
// Each command reads only some flags (flags.go), and refuses the others.
// rapid's flags tune the runs: -rapid.checks, -rapid.steps, -rapid.seed.
// Results are kept as structured values (report.go); each command writes
// them to a run directory of its own under -out (rundir.go) as JSON,
// Markdown and a self-contained HTML page with plots, and
// <out>/latest names the newest full run that passed. Every failure ends
// with the command that reproduces it. A campaign runs across machines
// with -shard i/n (shard.go) and `merge` (merge.go).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/memverify/memverify/suites"
)

// defaultChecks is rapid's budget per suite here, unless -rapid.checks says otherwise.
const defaultChecks = 500

// options are the flags every command shares.
type options struct {
	domain, property, impl string
	seeds                  string
	out                    string
	jobs                   int
	bug                    string   // the one seeded bug to run (-bug), as a campaign's child runs its own
	childReport            string   // internal: where a child process of `mutants` writes its report
	shard                  string   // -shard i/n: run the i-th of n parts of the work (shard.go)
	lib                    string   // -lib: a C or C++ shared library whose suites run instead of ours (run)
	args                   []string // the command's arguments: the run directories `merge` reads

	// Set by begin, from the flags above: the shard's deal (nil when
	// unsharded), the expected costs progress estimates with, the seeds.
	plan     *shardPlan
	library  []suites.Suite // the suites of -lib, loaded before any work
	costs    costTable
	seedList []uint64
}

func main() {
	testing.Init() // registers test flags; rapid's own flags are registered by its init
	cmd, o, bo, code := parseCommandLine(os.Args[1:])
	if code < 0 {
		code = dispatch(cmd, o, bo)
	}
	os.Exit(code)
}

// parseCommandLine reads the command and its flags, and applies verify's
// defaults to rapid's flags. It returns an exit code ≥ 0 when the program is
// to end at once: 0 after help, asked for with help, -h or -help, which goes
// to standard output; 2 for a command line it refuses, said on standard
// error with the usage.
func parseCommandLine(args []string) (cmd string, o options, bo benchOptions, code int) {
	cmd = "all"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	defineFlags(&o, &bo)
	flag.CommandLine.Init("verify", flag.ContinueOnError)
	flag.CommandLine.Usage = func() {} // help goes to stdout, errors to stderr: chosen below
	switch err := flag.CommandLine.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		writeUsage(os.Stdout)
		return cmd, o, bo, 0
	case err != nil: // the flag package has said what is wrong
		usage()
		return cmd, o, bo, 2
	case flag.NArg() > 0 && cmd != "merge":
		fmt.Fprintf(os.Stderr, "verify: unexpected arguments %q\n", flag.Args())
		usage()
		return cmd, o, bo, 2
	}
	if _, ok := commandFlags[cmd]; !ok {
		fmt.Fprintf(os.Stderr, "verify: unknown command %q\n", cmd)
		usage()
		return cmd, o, bo, 2
	}
	o.args = flag.Args()
	for _, check := range []func(string) error{checkFlags, checkBugEnv, setRapidDefaults} {
		if err := check(cmd); err != nil {
			fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
			return cmd, o, bo, 2
		}
	}
	return cmd, o, bo, -1
}

// setRapidDefaults sets verify's defaults for rapid's flags the user left
// alone, and refuses a budget that would check nothing.
func setRapidDefaults(cmd string) error {
	userChecks := flagSet("rapid.checks")
	// rapid writes fail files under testdata/ by default; a report run keeps none.
	if !flagSet("rapid.nofailfile") {
		flag.Set("rapid.nofailfile", "true")
	}
	// The main job searches harder than go test's default of 100 checks: the
	// suites are cheap, and a deeper search is what a report run is for.
	if !flagSet("rapid.checks") && os.Getenv("RAPID_CHECKS") == "" {
		flag.Set("rapid.checks", fmt.Sprint(defaultChecks))
	}
	if applies(cmd, "rapid.checks") {
		return checkBudget(userChecks)
	}
	return nil
}

// dispatch runs the command and returns its exit code.
func dispatch(cmd string, o options, bo benchOptions) int {
	switch cmd {
	case "all":
		return runAll(o)
	case "run":
		return runSuitesCmd(o)
	case "mutants":
		return runMutantsCmd(o)
	case "mutant-child":
		return mutantChild(o)
	case "merge":
		return runMerge(o)
	case "bench":
		return runBench(o, bo)
	case "gate":
		return runGate(o, bo)
	case "list":
		return list(o)
	case "help":
		writeUsage(os.Stdout)
		return 0
	}
	fmt.Fprintf(os.Stderr, "verify: unknown command %q\n", cmd) // commandFlags and this switch disagree
	return 2
}
