package goals

import (
	"strings"
	"testing"
)

// TestLighterJudgesBytesAgainstThePeer: an implementation that keeps more
// bytes per live object than its peer misses the memory goal, and the
// case says what the bytes buy; one that keeps fewer meets it.
func TestLighterJudgesBytesAgainstThePeer(t *testing.T) {
	rows := parse(t,
		"BenchmarkRefcountMemory/live=pointer/impl=XSyncMap-2 1 70 B/live-entry",
		"BenchmarkRefcountMemory/live=pointer/impl=Sharded-2 1 126 B/live-entry",
		"BenchmarkRefcountMemory/live=pointer/impl=LockFree-2 1 60 B/live-entry",
		"BenchmarkRefcountMemory/live=buffer/aliases=8/impl=XSyncMap-2 1 700 B/live-entry",
		"BenchmarkRefcountMemory/live=buffer/aliases=8/impl=Sharded-2 1 650 B/live-entry",
		"BenchmarkRefcountMemory/live=buffer/aliases=8/impl=LockFree-2 1 650 B/live-entry",
	)
	v := verdict(t, Judge(rows), "no more bytes per owned pointer")
	if v.Status != NotMet || len(v.Cases) != 4 {
		t.Fatalf("status %v with %d cases, want not met with 4: %+v", v.Status, len(v.Cases), v)
	}
	for _, c := range v.Cases {
		heavy := c.Name == "RefcountMemory/live=pointer/impl=Sharded"
		if c.Met == heavy || strings.Contains(c.Measured, "the bytes buy") != heavy {
			t.Errorf("%s: met %v, %q", c.Name, c.Met, c.Measured)
		}
	}
}

// TestNumPyGoalsNeedEveryFamily: the NumPy goals name every family the
// peer measures, so a run that measured some families leaves them partly
// measured, naming the rest; NumPy 10× slower than Exact meets the first.
func TestNumPyGoalsNeedEveryFamily(t *testing.T) {
	rows := parse(t,
		"BenchmarkOverlapDense/impl=Exact-2 1000000 5 ns/op",
		"BenchmarkOverlapDense/impl=NumPy-2 1000 1500 ns/op",
		"BenchmarkOverlapDense/impl=NumPyNet-2 1000 1200 ns/op",
	)
	vs := Judge(rows)
	for _, goal := range []string{"Exact at least 10× faster per call than NumPy", "Exact faster than NumPy's solver net"} {
		v := verdict(t, vs, goal)
		if v.Status != PartlyMeasured || len(v.Cases) != 1 || !v.Cases[0].Met {
			t.Errorf("%q: %v, cases %+v", goal, v.Status, v.Cases)
		}
		if !strings.Contains(strings.Join(v.Missing, "; "), "no benchmark matches OverlapCorpus") {
			t.Errorf("%q does not name the corpus as missing: %v", goal, v.Missing)
		}
	}
}
