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
// rapid's flags tune the runs: -rapid.checks, -rapid.steps, -rapid.seed.
// Results are kept as structured values (report.go) and written to
// reports/latest/ as JSON and Markdown. Every failure ends with the command
// that reproduces it.
package main

import (
	"flag"
	"fmt"
	"io"
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
	mutantBin              string // internal: set in the child processes of `mutants`
	bug                    string // internal: the bug a child process runs
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
	// rapid writes fail files under testdata/ by default; a report run keeps none.
	if !flagSet("rapid.nofailfile") {
		flag.Set("rapid.nofailfile", "true")
	}
	// The main job searches harder than go test's default of 100 checks: the
	// suites are cheap, and a deeper search is what a report run is for.
	if !flagSet("rapid.checks") && os.Getenv("RAPID_CHECKS") == "" {
		flag.Set("rapid.checks", fmt.Sprint(defaultChecks))
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

// defineFlags registers verify's flags on the command line's flag set.
func defineFlags(o *options, bo *benchOptions) {
	flag.StringVar(&bo.pattern, "bench", ".", "bench: which benchmarks (a go test -bench pattern)")
	flag.IntVar(&bo.count, "count", 10, "bench: samples of each benchmark, taken in as many interleaved rounds")
	flag.StringVar(&bo.benchtime, "benchtime", "100ms", "bench: time per run")
	flag.StringVar(&bo.file, "file", "", "bench: read results from these files (comma-separated paths or globs) instead of running")
	flag.BoolVar(&bo.gate, "gate", false, "bench: exit 1 when a measured performance goal is not met")
	flag.StringVar(&o.domain, "domain", "", "only these domains (comma-separated)")
	flag.StringVar(&o.property, "property", "", "only these properties (comma-separated)")
	flag.StringVar(&o.impl, "impl", "", "only these implementations (comma-separated)")
	flag.StringVar(&o.seeds, "seeds", "1,2,3", "mutants: the fixed rapid seeds each bug is run under")
	flag.StringVar(&o.out, "out", "reports/latest", "where the report is written")
	flag.IntVar(&o.jobs, "jobs", 2, "mutants: bugs run at once")
	flag.StringVar(&o.bug, "bug", "", "internal (mutant child): the seeded bug to activate")
}

func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// usage prints the commands and the flags a user sets: verify's own and
// rapid's. The test binary's flags (-test.*), which testing.Init registers
// for rapid's sake, are left out: none of them changes what verify does.
func usage() { writeUsage(os.Stderr) }

func writeUsage(w io.Writer) {
	fmt.Fprint(w, `usage: go run ./cmd/verify [all|run|mutants|bench|list] [flags]

  all      run every property suite, then every seeded bug; write reports/latest/
  run      run the property suites
  mutants  run every seeded bug against the properties (builds with -tags mutants)
  bench    run the benchmarks and compare each implementation with the model
  list     list the suites and the seeded bugs

flags:
`)
	user := flag.NewFlagSet("verify", flag.ContinueOnError)
	user.SetOutput(w)
	flag.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "test.") || f.Name == "bug" {
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
