package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/goals"
)

func TestParseSeedsRefusesNonPositive(t *testing.T) {
	if s, err := parseSeeds("1, 2,3"); err != nil || len(s) != 3 || s[2] != 3 {
		t.Fatalf("parseSeeds(\"1, 2,3\") = %v, %v", s, err)
	}
	for _, bad := range []string{"0", "x", "1,,2", "-1"} {
		if _, err := parseSeeds(bad); err == nil {
			t.Errorf("parseSeeds(%q) accepted", bad)
		}
	}
}

func TestReportShowsKillsSurvivorsAndRepro(t *testing.T) {
	killed := MutantResult{Bug: bugs.Bug{ID: "d/a", Domain: "d", Impl: "X", Summary: "first", Killer: "P"},
		Killed: true, By: "P", KilledBy: []string{"P", "R"}, Expected: true, Seed: 2, Checks: 7, Duration: time.Second,
		Trace: "   1  Op() -> ok", Repro: "MEMVERIFY_BUG=d/a go test ..."}
	survived := MutantResult{Bug: bugs.Bug{ID: "d/b", Domain: "d", Impl: "X", Summary: "second", Killer: "Q"}}
	r := newReport()
	r.Suites = []SuiteResult{{Name: "d/P/impl=X", Domain: "d", Property: "P", Impl: "X", Outcome: "FAIL",
		Output: "boom", Repro: "go run ./cmd/verify run -domain d"}}
	r.Campaign = &campaign{Seeds: []uint64{1, 2}, Mutants: []MutantResult{killed, survived}, Silent: []string{"d/Q"}}
	md := r.markdown()
	for _, want := range []string{"**killed 1 of 2.**", "| `d/b` | X | second | **survived**", "### Kill matrix: d",
		"| `d/a` | ✔ first | ✔ |", "**Property d/Q killed no seeded bug**", "Reproduce: `MEMVERIFY_BUG=d/a go test ...`", "### FAIL d/P/impl=X", "Reproduce: `go run ./cmd/verify run -domain d`"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if code := printCampaignSummary(*r.Campaign); code == 0 {
		t.Errorf("a surviving bug must fail the campaign")
	}
}

func TestSilentPropertiesAreThoseThatKilledNothing(t *testing.T) {
	var selected []bugs.Bug
	for _, b := range bugs.Catalogue() {
		if b.Domain == "refcount" && b.Impl == "Sharded" {
			selected = append(selected, b)
		}
	}
	if len(selected) == 0 {
		t.Fatal("no refcount bugs in the catalogue")
	}
	results := []MutantResult{{Bug: selected[0], Killed: true, By: "StateMachine", KilledBy: []string{"StateMachine", "ShardSpread"}}}
	silent := silentProperties(selected, "", results)
	if slices.Contains(silent, "refcount/StateMachine") || slices.Contains(silent, "refcount/ShardSpread") {
		t.Errorf("a property that killed a bug is reported silent: %v", silent)
	}
	if !slices.Contains(silent, "refcount/Linearizable") {
		t.Errorf("Linearizable killed nothing here but is not reported: %v", silent)
	}
}

func TestReadRunsTakesListsAndGlobs(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"run-1.txt", "run-2.txt", "other.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := readRuns(filepath.Join(dir, "run-*.txt") + "," + filepath.Join(dir, "other.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, string(r.data))
	}
	if want := []string{"run-1.txt", "run-2.txt", "other.txt"}; !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
	if _, err := readRuns(filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("a missing file was not reported")
	}
}

func TestReportShowsGoalsRunByRun(t *testing.T) {
	r := newReport()
	r.Goals = []goals.Verdict{{Domain: "overlap", Goal: "the dense path at most 10 ns", Status: "met"}}
	r.GoalRuns = []RunVerdicts{{Run: "run-1.txt", Goals: goals.Judge(nil)}, {Run: "run-2.txt", Goals: goals.Judge(nil)}}
	md := r.markdown()
	for _, want := range []string{"## Goals", "### Goals run by run", "| domain | goal | run-1.txt | run-2.txt |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestBenchRoundsInterleaves runs a two-benchmark package in three rounds:
// the samples must alternate between the benchmarks, one of each per round,
// rather than come in blocks as go test -count would give them.
func TestBenchRoundsInterleaves(t *testing.T) {
	out, err := benchRounds(moduleRoot(), "cmd/verify/testdata/roundbench", ".", "1000x", 3, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "Benchmark") {
			order = append(order, strings.TrimPrefix(strings.Split(f[0], "-")[0], "Benchmark"))
		}
	}
	if want := []string{"Sum", "Product", "Sum", "Product", "Sum", "Product"}; !slices.Equal(order, want) {
		t.Errorf("samples came in the order %q, want %q", order, want)
	}
	if _, err := benchRounds(moduleRoot(), "cmd/verify/testdata/roundbench", ".", "1x", 0, io.Discard); err == nil {
		t.Error("zero rounds were accepted")
	}
}

func TestUsageListsCommandsAndUserFlags(t *testing.T) {
	var o options
	var bo benchOptions
	defineFlags(&o, &bo)
	var buf strings.Builder
	writeUsage(&buf)
	u := buf.String()
	if !strings.Contains(u, "[all|run|mutants|bench|list]") {
		t.Errorf("usage line does not name every command:\n%s", u)
	}
	for _, want := range []string{"-domain", "-gate", "rapid: number of checks to perform (default 500)"} {
		if !strings.Contains(u, want) {
			t.Errorf("usage lacks %q:\n%s", want, u)
		}
	}
	for _, hidden := range []string{"-test.", "-bug ", "-child-report"} {
		if strings.Contains(u, hidden) {
			t.Errorf("usage shows %q, a flag no user sets:\n%s", hidden, u)
		}
	}
}
