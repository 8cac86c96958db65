package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/goals"
)

// TestGateFailsOnUnmeasuredGoals: a gate over a run that measured none of
// the goals (renamed benchmarks, a narrow -bench) must not pass, and must
// say which goals it could not judge.
func TestGateFailsOnUnmeasuredGoals(t *testing.T) {
	file := benchFile(t, "BenchmarkFoo/impl=Model-2 100 50 ns/op", "BenchmarkFoo/impl=Fast-2 100 25 ns/op")
	_, stderr, code := verify(t, nil, "bench", "-file", file, "-gate", "-out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, `"the dense path at most 10 ns" not measured: no benchmark matches OverlapDense`) {
		t.Errorf("no goal measured: exit %d, stderr %q; want 1, naming each goal", code, stderr)
	}
	// Without -gate the same run is reported, not failed.
	if _, _, code := verify(t, nil, "bench", "-file", file, "-out", t.TempDir()); code != 0 {
		t.Errorf("without -gate: exit %d, want 0", code)
	}
}

// TestGatePassesOnlyWhenEveryGoalIsMeasuredAndMet judges verdicts as the
// gate does: one goal partly measured fails it, as one missed does.
func TestGatePassesOnlyWhenEveryGoalIsMeasuredAndMet(t *testing.T) {
	met := []goals.Verdict{{Domain: "overlap", Goal: "the dense path", Status: goals.Met}}
	if !gatePasses(met, io.Discard) {
		t.Error("every goal met: the gate failed")
	}
	partly := append(met, goals.Verdict{Domain: "refcount", Goal: "a pair", Status: goals.PartlyMeasured, Missing: []string{"RefcountPair/impl=LockFree not in the run"}})
	var w strings.Builder
	if gatePasses(partly, &w) || !strings.Contains(w.String(), `refcount: "a pair" partly measured: RefcountPair/impl=LockFree not in the run`) {
		t.Errorf("a goal partly measured passed the gate, or was not named: %q", w.String())
	}
	if gatePasses(append(met, goals.Verdict{Status: goals.NotMet}), io.Discard) {
		t.Error("a goal not met passed the gate")
	}
}

// TestReadRunsReadsEachFileOnce: a file named twice, by a repeated entry, a
// glob that overlaps another entry or another spelling of its path, is one
// run; read twice, its samples would count twice.
func TestReadRunsReadsEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"run-1.txt", "run-2.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	runs, err := readRuns("run-1.txt,run-1.txt,./run-1.txt," + filepath.Join(dir, "run-1.txt") + ",run-*.txt," + dir + "/../" + filepath.Base(dir) + "/run-2.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, string(r.data))
	}
	if want := "run-1.txt run-2.txt"; strings.Join(got, " ") != want {
		t.Errorf("read %q, want %q", got, want)
	}
}
