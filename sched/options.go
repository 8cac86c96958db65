package sched

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Strategy is how Run chooses the next goroutine at each scheduling
// decision. Every choice is drawn through the *rapid.T, so a failing
// interleaving shrinks with the rest of the test case and replays from
// -rapid.seed. The zero Strategy is RandomWalk.
type Strategy struct {
	pct   bool
	depth int // PCT: the bug depth d (d−1 priority change points)
	steps int // PCT: k, the number of decisions change points are drawn from
}

// RandomWalk draws, at every decision, one of the runnable goroutines. The
// draw shrinks toward letting the goroutine that is running go on, so a
// shrunk schedule keeps only the preemptions the failure needs.
func RandomWalk() Strategy { return Strategy{} }

// PCT is probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010):
// every goroutine gets a random priority when it starts, the highest-priority
// runnable goroutine always runs, and at depth−1 decisions drawn from the
// first steps the running goroutine drops below every other. A bug that needs
// d ordering constraints among n goroutines and k decisions is found with
// probability at least 1/(n·k^(d−1)) per run. steps is that k, an estimate of
// the decisions one run makes (Schedule.Decisions reports the real count):
// too small and late change points are never drawn, too large and each is
// drawn less often; 0 means DefaultPCTSteps. depth below 1 is taken as 1.
func PCT(depth, steps int) Strategy {
	if depth < 1 {
		depth = 1
	}
	if steps <= 0 {
		steps = DefaultPCTSteps
	}
	return Strategy{pct: true, depth: depth, steps: steps}
}

// DefaultPCTSteps is the decision count PCT draws change points from when
// none is given: about what two or three goroutines running a few
// instrumented operations each make.
const DefaultPCTSteps = 50

// String names the strategy as a timeline header shows it.
func (s Strategy) String() string {
	if s.pct {
		return fmt.Sprintf("pct(depth=%d, steps=%d)", s.depth, s.steps)
	}
	return "random walk"
}

// Options tune Run and Explore. The zero value is ready to use.
type Options struct {
	// Strategy is Run's; Explore enumerates instead.
	Strategy Strategy
	// Preemptions bounds Explore: every schedule with at most this many
	// preemptions is run (a preemption is a switch away from a goroutine that
	// could have gone on; switches at Yield, at a blocked lock and at a
	// goroutine's end are free). 0 means 2; NoPreemptions means none.
	Preemptions int
	// MaxSchedules stops Explore after this many schedules; 0 means 100000.
	MaxSchedules int
	// MaxSteps is the livelock bound: a run that records more steps than
	// this (points, lock steps, calls and returns) fails as a livelock. 0
	// means 10000.
	MaxSteps int
	// Stall bounds the wall-clock time one goroutine may run without reaching
	// a scheduling point (blocked on a channel, a WaitGroup, an
	// un-instrumented lock, or in an endless loop without points) before the
	// run fails. 0 means 10 seconds.
	Stall time.Duration
	// Repro is the command a failure report ends with. Empty means one built
	// from the test's name and the package directory.
	Repro string
	// Procs is the number of virtual Ps that ProcPin pins goroutines to:
	// goroutine g of a run is on P g mod Procs. 0 means 2, so that among
	// three goroutines or more two share a P.
	Procs int
	// Record, when set, is called with the schedule of every run Run and
	// Explore make, passing or failing: a test that runs one seed twice
	// compares the two lists step by step (Schedule.Divergence).
	Record func(Schedule)
}

// NoPreemptions makes Explore run only schedules without preemptions.
const NoPreemptions = -1

func (o Options) preemptions() int {
	switch {
	case o.Preemptions < 0:
		return 0
	case o.Preemptions == 0:
		return 2
	}
	return o.Preemptions
}

func (o Options) maxSchedules() int { return orDefault(o.MaxSchedules, 100000) }
func (o Options) procs() int        { return orDefault(o.Procs, 2) }
func (o Options) maxSteps() int     { return orDefault(o.MaxSteps, 10000) }

func (o Options) stall() time.Duration {
	if o.Stall <= 0 {
		return 10 * time.Second
	}
	return o.Stall
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// repro returns the command that replays the failing test: o.Repro, or a go
// test command for testName in the current package. With rapid, the seed is
// the -rapid.seed flag's when one was given (with the check count, since the
// failing case is the n-th drawn from that seed); otherwise rapid chose it and
// prints it in its own report.
func (o Options) repro(testName string, withRapid bool) string {
	if o.Repro != "" {
		return o.Repro
	}
	cmd := fmt.Sprintf("go test -tags %s %s -run '%s'", Tag, packageDir(), runPattern(testName))
	if !withRapid {
		return cmd
	}
	if seed := flagValue("rapid.seed"); seed != "" && seed != "0" {
		return cmd + " -rapid.seed=" + seed + " -rapid.checks=" + flagValue("rapid.checks")
	}
	return cmd + " -rapid.seed=<the seed in rapid's report>"
}

// Tag is the build tag that turns the scheduler on.
const Tag = "sched"

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// runPattern anchors each level of a (sub)test name for go test -run.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// packageDir names the test's package as go test, run from the module root,
// takes it: go test runs a test binary in its package's directory.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
