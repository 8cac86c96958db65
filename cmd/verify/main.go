// Command verify runs memverify's property suites in-process, measures them
// against the catalogue of seeded bugs, and writes a report.
//
// Usage:
//
//	go run ./cmd/verify [command] [flags]
//
// Commands:
//
//	all      (default) run every suite, then every seeded bug; write the report
//	run      run the property suites (filter with -domain, -property, -impl)
//	mutants  build once with -tags mutants and run every seeded bug against the
//	         properties; ends with "killed K of N"
//	bench    run the benchmarks in bench/ (or read -file), compare every
//	         implementation with the model of its group, benchstat-style, and
//	         judge the performance goals (-gate: exit 1 if one is missed)
//	list     list the suites and the seeded bugs
//
// The filters -domain, -property and -impl select suites and seeded bugs
// alike; a bug matches -property when it is the property expected to kill it.
// Each command reads only some flags (flags.go), and refuses the others.
// rapid's flags tune the runs: -rapid.checks, -rapid.steps, -rapid.seed.
// Results are kept as structured values (report.go) and written to
// reports/latest/ as JSON and Markdown. Every failure ends with the command
// that reproduces it.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// defaultChecks is rapid's budget per suite here, unless -rapid.checks says otherwise.
const defaultChecks = 500

// options are the flags every command shares.
type options struct {
	domain, property, impl string
	seeds                  string
	out                    string
	jobs                   int
	bug                    string // the one seeded bug to run (internal: the bug a child process runs)
	childReport            string // internal: where a child process of `mutants` writes its report
}

func main() {
	testing.Init() // registers test flags; rapid's own flags are registered by its init
	cmd := "all"
	args := os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var o options
	var bo benchOptions
	defineFlags(&o, &bo)
	flag.CommandLine.Usage = usage
	if err := flag.CommandLine.Parse(args); err != nil {
		os.Exit(2)
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "verify: unexpected arguments %q\n", flag.Args())
		usage()
		os.Exit(2)
	}
	if err := checkFlags(cmd); err != nil {
		fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
		os.Exit(2)
	}
	if err := checkBugEnv(cmd); err != nil {
		fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
		os.Exit(2)
	}
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
		if err := checkBudget(userChecks); err != nil {
			fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
			os.Exit(2)
		}
	}

	var code int
	switch cmd {
	case "all":
		code = runAll(o)
	case "run":
		code = runSuitesCmd(o)
	case "mutants":
		code = runMutantsCmd(o)
	case "mutant-child":
		code = mutantChild(o)
	case "bench":
		code = runBench(o, bo)
	case "list":
		code = list(o)
	case "help", "-h", "--help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "verify: unknown command %q\n", cmd)
		usage()
		code = 2
	}
	os.Exit(code)
}
