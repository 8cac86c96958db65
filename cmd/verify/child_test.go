package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
	"pgregory.net/rapid"
)

// setFlag sets a command-line flag for the test and restores it after.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag -%s", name)
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set(name, old) })
}

// fakeChild is a stand-in for the mutant binary: it reports, as a survived
// bug's trace, the environment's MEMVERIFY_BUG and its own arguments; with
// FAKE_CHILD_NOISE set it first prints to stdout and stderr, as rapid does
// under RAPID_LOG.
const fakeChild = `#!/bin/sh
report=/dev/stdout
prev=
for a in "$@"; do
	[ "$prev" = "-child-report" ] && report=$a
	prev=$a
done
if [ -n "$FAKE_CHILD_NOISE" ]; then
	echo "[rapid] test #1 start (seed 1)"
	echo "[rapid] test #1 OK" >&2
fi
printf '{"mutant":{"bug":{"ID":"d/a"},"trace":"MEMVERIFY_BUG=%s %s"}}\n' "${MEMVERIFY_BUG-unset}" "$*" > "$report"
`

// runFakeChild runs fakeChild as the mutant binary and returns the trace it
// reported.
func runFakeChild(t *testing.T, job childJob) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake child is a shell script")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-child")
	if err := os.WriteFile(bin, []byte(fakeChild), 0o755); err != nil {
		t.Fatal(err)
	}
	var rep childReport
	if err := runChild(bin, dir, job, job.timeout(), &rep); err != nil {
		t.Fatalf("runChild: %v", err)
	}
	if rep.Mutant == nil {
		t.Fatalf("no report: %+v", rep)
	}
	return rep.Mutant.Trace
}

// TestChildOutputDoesNotBreakItsReport: rapid (RAPID_LOG, -rapid.v) and the
// code under test may print anything; the report must still be read.
func TestChildOutputDoesNotBreakItsReport(t *testing.T) {
	t.Setenv("FAKE_CHILD_NOISE", "1")
	if trace := runFakeChild(t, childJob{bug: "d/a", domain: "d", impl: "X", seeds: "1"}); !strings.Contains(trace, "-bug d/a") {
		t.Errorf("the child's report was not read: %q", trace)
	}
}

// TestChildrenRunWithNoBugFromTheEnvironment: MEMVERIFY_BUG left in the
// user's shell must not switch a bug on in the unmutated baseline.
func TestChildrenRunWithNoBugFromTheEnvironment(t *testing.T) {
	t.Setenv("MEMVERIFY_BUG", "overlap/seed-gcd")
	if trace := runFakeChild(t, childJob{domain: "overlap", impl: "Exact", seeds: "1"}); !strings.HasPrefix(trace, "MEMVERIFY_BUG=unset ") {
		t.Errorf("the baseline child saw the user's MEMVERIFY_BUG: %q", trace)
	}
}

// TestChildrenGetEveryRapidFlagSet: a campaign run with -rapid.steps (or any
// other of rapid's flags) must run its bugs with it too.
func TestChildrenGetEveryRapidFlagSet(t *testing.T) {
	setFlag(t, "rapid.steps", "7")
	setFlag(t, "rapid.shrinktime", "2s")
	setFlag(t, "rapid.v", "true")
	trace := runFakeChild(t, childJob{bug: "d/a", domain: "d", impl: "X", seeds: "1"})
	for _, want := range []string{"-rapid.steps=7", "-rapid.shrinktime=2s", "-rapid.v=true"} {
		if !strings.Contains(trace, want) {
			t.Errorf("the child did not get %s: %q", want, trace)
		}
	}
}

// TestChildTimeoutScalesWithTheWork: a longer search must not be cut off as
// a hang.
func TestChildTimeoutScalesWithTheWork(t *testing.T) {
	base := childTimeout(defaultChecks, 30, 3)
	if base < 6*time.Minute || childTimeout(1, 1, 1) != base {
		t.Errorf("the timeout at the defaults is %v (and %v for the least work), want 6m0s for both", base, childTimeout(1, 1, 1))
	}
	if got := childTimeout(16*defaultChecks, 30, 3); got < 16*base {
		t.Errorf("16× the checks: timeout %v, want at least %v", got, 16*base)
	}
	if got := childTimeout(defaultChecks, 30, 6); got < 2*base {
		t.Errorf("twice the seeds: timeout %v, want at least %v", got, 2*base)
	}
}

// TestKillReproducesOnItsFirstCheck: the repro of a kill found deep into the
// search (here after many checks) names the seed of the failing check, so
// that it fails at once under go test's own budget.
func TestKillReproducesOnItsFirstCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("under -short rapid runs a fifth of -rapid.checks: the repro's one check becomes none")
	}
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.checks", "500")
	rare := suites.Suite{Domain: "d", Property: "P", Impl: "X", Run: func(t rapid.TB) {
		rapid.Check(t, func(t *rapid.T) {
			if n := rapid.IntRange(0, 1<<20).Draw(t, "n"); n%97 == 13 {
				t.Fatalf("n = %d", n)
			}
		})
	}}
	res := huntBug(bugs.Bug{ID: "d/rare", Domain: "d", Impl: "X", Killer: "P"}, []suites.Suite{rare}, []uint64{1}, time.Minute, func(MutantResult) {})
	if !res.Killed || res.Checks < 2 {
		t.Fatalf("the test needs a kill after the first check: %+v", res)
	}
	if want := fmt.Sprintf("-rapid.seed=%d", res.Seed); !strings.Contains(res.Repro, want) {
		t.Errorf("repro %q does not name the seed %d", res.Repro, res.Seed)
	}
	if !strings.HasSuffix(res.Repro, " -rapid.nofailfile") {
		t.Errorf("repro %q would write a fail file that later repros replay", res.Repro)
	}
	setFlag(t, "rapid.checks", "1")
	setFlag(t, "rapid.seed", fmt.Sprint(res.Seed))
	if r := props.Run("again", rare.Run); r.Outcome != props.Failed {
		t.Errorf("seed %d does not fail on the first check: the repro would pass", res.Seed)
	}
}

// TestASuiteInAChildTimesOutWellBeforeTheChild: were a suite's bound inside
// a child the child's own, the parent would kill the child first, every
// time, and lose whatever the child had found.
func TestASuiteInAChildTimesOutWellBeforeTheChild(t *testing.T) {
	for _, b := range []struct{ checks, steps, seeds string }{
		{"500", "30", "1"}, {"500", "30", "1,2,3"}, {"1", "1", "1"}, {"8000", "100", "1,2,3,4,5,6"},
	} {
		setFlag(t, "rapid.checks", b.checks)
		setFlag(t, "rapid.steps", b.steps)
		if suite, child := childSuiteTimeout(), (childJob{seeds: b.seeds}).timeout(); suite > child/2 {
			t.Errorf("checks %s, steps %s, seeds %s: a suite may run %v in a child bound to %v", b.checks, b.steps, b.seeds, suite, child)
		}
	}
}

// TestAFailureCarriesOneRepro: rapid's own "To reproduce, specify
// -run=..." names the suite as the harness ran it, which matches nothing
// under go test; only the harness's repro, which names the seed and writes
// no fail file, goes with a failure.
func TestAFailureCarriesOneRepro(t *testing.T) {
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.checks", "100")
	failing := suites.Suite{Domain: "d", Property: "P", Impl: "X", Run: func(t rapid.TB) {
		rapid.Check(t, func(t *rapid.T) {
			if rapid.IntRange(0, 10).Draw(t, "n") > 3 {
				t.Fatal("too big")
			}
		})
	}}
	r := runSuite(failing, 1, time.Minute)
	if r.Outcome != props.Failed || r.Seed == 0 {
		t.Fatalf("the test needs a failure with rapid's seed: %+v", r)
	}
	if strings.Contains(r.Output, "To reproduce") || strings.Contains(r.Output, "-run=") {
		t.Errorf("the failure keeps rapid's repro line:\n%s", r.Output)
	}
	if !strings.Contains(r.Output, "[rapid] failed after") || !strings.Contains(r.Output, "too big") {
		t.Errorf("more than rapid's repro line was dropped:\n%s", r.Output)
	}
	_, goTest, _ := strings.Cut(r.Repro, "(or: go test ")
	if !strings.Contains(goTest, fmt.Sprintf(" -rapid.seed=%d", r.Seed)) || !strings.HasSuffix(goTest, " -rapid.nofailfile)") {
		t.Errorf("the go test repro in %q lacks the seed %d or -rapid.nofailfile", r.Repro, r.Seed)
	}
	if strings.Contains(r.Repro, "MEMVERIFY_BUG") || strings.Contains(r.Repro, "-tags") {
		t.Errorf("with no bug on, the repro %q sets one", r.Repro)
	}
}
