package suites_test

import (
	"flag"
	"testing"
	"time"

	"github.com/memverify/memverify/suites"
)

// No suite searches less than rapid's default: a budget only ever adds
// checks.
func TestEverySuiteHasABudgetOfAtLeastRapidsDefault(t *testing.T) {
	for _, s := range suites.All() {
		if s.Checks < 100 {
			t.Errorf("%s: %d checks, below rapid's 100", s.Name(), s.Checks)
		}
	}
}

func TestWithBudgetScalesTheChecksAndPutsThemBack(t *testing.T) {
	checks, shrink := flag.Lookup("rapid.checks"), flag.Lookup("rapid.shrinktime")
	prevChecks, prevShrink := checks.Value.String(), shrink.Value.String()
	checks.Value.Set("500")
	defer checks.Value.Set(prevChecks)
	s := suites.Suite{Domain: "d", Property: "P", Impl: "X", Checks: 2000, ShrinkTime: 300 * time.Millisecond}
	var during, shrinkDuring string
	s.WithBudget(func() { during, shrinkDuring = checks.Value.String(), shrink.Value.String() })
	if during != "10000" || checks.Value.String() != "500" {
		t.Fatalf("checks %s during the run (want 10000), %s after (want 500)", during, checks.Value.String())
	}
	if shrinkDuring != "300ms" || shrink.Value.String() != prevShrink {
		t.Fatalf("shrink time %s during the run (want 300ms), %s after (want %s)", shrinkDuring, shrink.Value.String(), prevShrink)
	}
	if n := (suites.Suite{Checks: 100}).ChecksAt(1); n != 1 {
		t.Fatalf("ChecksAt(1) of a 100-check suite = %d, want 1", n)
	}
}
