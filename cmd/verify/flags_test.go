package main

import (
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/bugs"
)

// TestBenchFileRefusesRunFlags: -bench, -count and -benchtime tune a run;
// with -file nothing runs, and they would look as if they selected or
// resampled the saved results.
func TestBenchFileRefusesRunFlags(t *testing.T) {
	file := benchFile(t, "BenchmarkPair/impl=Fast-2 1000000 25 ns/op")
	for _, extra := range [][]string{{"-bench", "Refcount"}, {"-count", "3"}, {"-benchtime", "1s"}} {
		args := append([]string{"bench", "-file", file, "-out", t.TempDir()}, extra...)
		_, stderr, code := verify(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, "does not apply to bench -file") {
			t.Errorf("verify %s: exit %d, stderr %q; want 2 and the flag refused", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestRunRefusesABugItCannotActivate: run under MEMVERIFY_BUG is how a
// seeded bug's failure is reproduced; in a binary without the seeded bugs,
// or with an id that is not one, it would pass as if the bug survived.
func TestRunRefusesABugItCannotActivate(t *testing.T) {
	args := append(append([]string{"run"}, cheapSuite...), "-out", t.TempDir())
	id, want := "bank/direction-unchecked", "-tags mutants" // a real bug, in a build without them
	if bugs.Enabled {
		id, want = "bank/no-such-bug", "not a seeded bug"
	}
	_, stderr, code := verify(t, []string{"MEMVERIFY_BUG=" + id}, args...)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("run under MEMVERIFY_BUG=%s: exit %d, stderr %q; want 2 and %q", id, code, stderr, want)
	}
}

// TestListRefusesAnUnknownBug: -bug names one bug; a list without it would
// read as if the bug had no suites.
func TestListRefusesAnUnknownBug(t *testing.T) {
	if _, stderr, code := verify(t, nil, "list", "-bug", "bank/no-such-bug"); code != 2 || !strings.Contains(stderr, "no-such-bug") {
		t.Errorf("list -bug bank/no-such-bug: exit %d, stderr %q; want 2", code, stderr)
	}
	if stdout, _, code := verify(t, nil, "list", "-bug", "bank/one-sided-coalesce"); code != 0 || !strings.Contains(stdout, "bank/one-sided-coalesce") {
		t.Errorf("list -bug bank/one-sided-coalesce: exit %d:\n%s", code, stdout)
	}
}
