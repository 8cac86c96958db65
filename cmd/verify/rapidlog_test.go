package main

import (
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
	"pgregory.net/rapid"
)

// probe is a property that fails (or panics) on about one draw in 31,
// and counts its calls up to its first failure: the checks rapid ran, the
// failing one included, before it went on to reproduce and shrink it.
type probe struct {
	calls, first int
	panics       bool
}

func (p *probe) check(t *rapid.T) {
	n := rapid.IntRange(0, 1<<20).Draw(t, "n")
	p.calls++
	if n%31 != 13 {
		return
	}
	if p.first == 0 {
		p.first = p.calls
	}
	if p.panics {
		panic("boom")
	}
	t.Fatalf("n = %d", n)
}

func passing(t *rapid.T) { rapid.IntRange(0, 10).Draw(t, "n") }

// TestReadRapidOnRealRuns runs real rapid checks through props.Run and
// checks what readRapid reads from their output: the checks run and the
// failing check's seed. It pins the format of the rapid this module builds
// with: a rapid whose output reads otherwise fails here.
func TestReadRapidOnRealRuns(t *testing.T) {
	setFlag(t, "rapid.nofailfile", "true")
	const budget = 20
	if testing.Short() {
		setFlag(t, "rapid.checks", "100") // rapid runs a fifth of it under -short
	} else {
		setFlag(t, "rapid.checks", "20")
	}
	setFlag(t, "rapid.seed", "12345")
	fails, panics := &probe{}, &probe{panics: true}
	after := &probe{}
	cases := []struct {
		name    string
		prop    func(rapid.TB)
		outcome props.Outcome
		checks  func() int
		failing bool // a failure inside a check, whose seed rapid names
	}{
		{"one Check passes", func(t rapid.TB) { rapid.Check(t, passing) }, props.Passed, func() int { return budget }, false},
		{"two Checks pass", func(t rapid.TB) { rapid.Check(t, passing); rapid.Check(t, passing) }, props.Passed, func() int { return 2 * budget }, false},
		{"a Check fails", func(t rapid.TB) { rapid.Check(t, fails.check) }, props.Failed, func() int { return fails.first }, true},
		{"a Check panics", func(t rapid.TB) { rapid.Check(t, panics.check) }, props.Failed, func() int { return panics.first }, true},
		{"a Check passes, the next fails", func(t rapid.TB) { rapid.Check(t, passing); rapid.Check(t, after.check) }, props.Failed, func() int { return budget + after.first }, true},
		{"a Check passes, then the suite fails outside rapid", func(t rapid.TB) { rapid.Check(t, passing); t.Fatalf("outside") }, props.Failed, func() int { return budget }, false},
	}
	for _, c := range cases {
		r := props.Run(c.name, c.prop)
		got := readRapid(r)
		if r.Outcome != c.outcome || got.Err != nil || got.Checks != c.checks() {
			t.Errorf("%s: outcome %v, read %d checks, error %v; want %v, %d checks, no error\n%s", c.name, r.Outcome, got.Checks, got.Err, c.outcome, c.checks(), r.Output)
		}
		if strings.Contains(got.Output, "To reproduce") {
			t.Errorf("%s: rapid's repro line is kept:\n%s", c.name, got.Output)
		}
		if !c.failing {
			if got.Seed != 0 {
				t.Errorf("%s: read seed %d where rapid named none", c.name, got.Seed)
			}
			continue
		}
		if got.Seed == 0 || !strings.Contains(got.Output, " after ") {
			t.Errorf("%s: no seed read, or rapid's report dropped:\n%s", c.name, got.Output)
			continue
		}
		replayOnFirstCheck(t, c.name, got.Seed, c.prop)
	}
	if fails.first < 2 || after.first < 2 {
		t.Errorf("the failures came on checks %d and %d: the count of checks before a failure is not tested", fails.first, after.first)
	}
}

// replayOnFirstCheck checks that seed, as a repro gives it, fails prop on
// its first check.
func replayOnFirstCheck(t *testing.T, name string, seed uint64, prop func(rapid.TB)) {
	t.Helper()
	checks := "1"
	if testing.Short() {
		checks = "5" // a fifth of it under -short
	}
	for name, value := range map[string]string{"rapid.checks": checks, "rapid.seed": strconv.FormatUint(seed, 10)} {
		prev := flag.Lookup(name).Value.String()
		flag.Set(name, value)
		defer flag.Set(name, prev)
	}
	if r := props.Run(name, prop); r.Outcome != props.Failed {
		t.Errorf("%s: seed %d does not fail on the first check: the repro would pass", name, seed)
	}
}

// TestReadRapidOnATimeout: a run cut off by its bound has no report of
// rapid's for the check it was in; that is no error, and the checks that
// passed before it count.
func TestReadRapidOnATimeout(t *testing.T) {
	setFlag(t, "rapid.checks", "5")
	block := make(chan struct{})
	defer close(block)
	r := props.RunWithin("hang", func(t rapid.TB) {
		rapid.Check(t, passing)
		rapid.Check(t, func(*rapid.T) { <-block })
	}, 200*time.Millisecond)
	want := 5
	if testing.Short() {
		want = 1
	}
	if got := readRapid(r); !r.TimedOut || got.Err != nil || got.Checks != want {
		t.Errorf("timed out %v, read %d checks, error %v; want a timeout, %d checks, no error", r.TimedOut, got.Checks, got.Err, want)
	}
}

// TestReadRapidRefusesWhatItCannotRead: output that is not rapid's, as this
// version writes it, is an error in the result, never a count of zero.
func TestReadRapidRefusesWhatItCannotRead(t *testing.T) {
	for _, c := range []struct {
		name    string
		outcome props.Outcome
		output  string
	}{
		{"a summary reworded", props.Passed, "[rapid] passed 100 checks (1ms)\n"},
		{"rapid's lines without a summary", props.Passed, "[rapid] ignoring fail file: version \"v9\" differs\n"},
		{"a failure report reworded", props.Failed, "[rapid] failure after 3 tests: boom\nFailed test output:\n[rapid] draw n: 5\nboom\n"},
		{"a repro line without a seed", props.Failed, "[rapid] failed after 3 tests: boom\nTo reproduce, specify -run=\"x\" -rapid.sed=5\nFailed test output:\n"},
		{"a failure without its repro line", props.Failed, "[rapid] failed after 3 tests: boom\nFailed test output:\n"},
	} {
		if got := readRapid(props.Result{Outcome: c.outcome, Output: c.output}); got.Err == nil {
			t.Errorf("%s: read %d checks, seed %d, and no error", c.name, got.Checks, got.Seed)
		}
	}
}

// TestReadRapidOnASuiteWithoutRapid: a suite that replays one fixed
// sequence runs no rapid check; it passes with a count of zero, and that is
// no error.
func TestReadRapidOnASuiteWithoutRapid(t *testing.T) {
	r := props.Run("fixed", func(t rapid.TB) { t.Logf("step 1 ok") })
	if got := readRapid(r); got.Err != nil || got.Checks != 0 || got.Seed != 0 {
		t.Errorf("read %d checks, seed %d, error %v; want 0, 0, no error", got.Checks, got.Seed, got.Err)
	}
}

// TestAFailureRapidNamesNoSeedForReplaysFromTheBaseSeed: a failure outside
// rapid's checks (or one whose report was not read) has no failing check's
// seed; its repro replays the run from the seed verify chose, with the
// budget.
func TestAFailureRapidNamesNoSeedForReplaysFromTheBaseSeed(t *testing.T) {
	setFlag(t, "rapid.checks", "7")
	s := suites.Suite{Domain: "d", Property: "P", Impl: "X", Run: func(t rapid.TB) { t.Fatalf("outside rapid") }}
	r := runSuite(s, 4242, time.Minute)
	if r.Outcome != props.Failed || r.Seed != 0 || r.BaseSeed != 4242 {
		t.Fatalf("result %+v: want a failure with no failing seed, base seed 4242", r)
	}
	if want := " -rapid.seed=4242 -rapid.checks=7"; strings.Count(r.Repro, want) != 2 {
		t.Errorf("repro %q: want %q in both commands", r.Repro, want)
	}
}
