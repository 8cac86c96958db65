package props

import (
	"flag"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestRunReportsPassFailSkipAndPanic(t *testing.T) {
	reachedAfterFailNow := false
	cases := []struct {
		name string
		prop func(rapid.TB)
		want Outcome
	}{
		{"pass", func(t rapid.TB) { t.Logf("fine") }, Passed},
		{"fail", func(t rapid.TB) { t.Fatalf("boom"); reachedAfterFailNow = true }, Failed},
		{"skip", func(t rapid.TB) { t.Skip("not here") }, Skipped},
		{"panic", func(t rapid.TB) { panic("oops") }, Failed},
	}
	for _, c := range cases {
		r := Run(c.name, c.prop)
		if r.Outcome != c.want {
			t.Errorf("%s: outcome %v, want %v (output %q)", c.name, r.Outcome, c.want, r.Output)
		}
	}
	if reachedAfterFailNow {
		t.Errorf("FailNow returned to its caller")
	}
}

func TestRunDrivesRapid(t *testing.T) {
	flag.Set("rapid.nofailfile", "true") // the failure is intended: keep no fail file
	defer flag.Set("rapid.nofailfile", "false")
	r := Run("rapid-fails", func(t rapid.TB) {
		rapid.Check(t, func(t *rapid.T) {
			if rapid.IntRange(0, 1000).Draw(t, "n") > 500 {
				t.Fatalf("too big")
			}
		})
	})
	if r.Outcome != Failed || !strings.Contains(r.Output, "failed after") {
		t.Fatalf("rapid's failure was not caught: %v\n%s", r.Outcome, r.Output)
	}
}

func TestRunWithinReportsAHangAsAFailure(t *testing.T) {
	block := make(chan struct{})
	defer close(block) // lets the abandoned goroutine end with the test
	r := RunWithin("hang", func(rapid.TB) { <-block }, 50*time.Millisecond)
	if r.Outcome != Failed || !r.TimedOut || !strings.Contains(r.Output, "timed out") {
		t.Fatalf("a property that never returns: outcome %v, output %q; want FAIL, timed out", r.Outcome, r.Output)
	}
	if r := RunWithin("quick", func(t rapid.TB) { t.Logf("fine") }, time.Minute); r.Outcome != Passed || r.TimedOut {
		t.Fatalf("a property that returns at once: outcome %v, timed out %v; want pass", r.Outcome, r.TimedOut)
	}
}
