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
	"github.com/memverify/memverify/props"
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
	r.Suites = []SuiteResult{{Name: "d/P/impl=X", Domain: "d", Property: "P", Impl: "X", Outcome: props.Failed,
		Output: "boom", Repro: "go run ./cmd/verify run -domain d"}}
	r.Campaign = &campaign{Seeds: []uint64{1, 2}, Mutants: []MutantResult{killed, survived}, Silent: []string{"d/Q"}}
	md := r.markdown()
	for _, want := range []string{"# memverify report: FAIL", "- 1 seeded bug of 2 survived", "| `d/b` | X | **survived** | (expected Q) |",
		"| `d/a` | X | [killed](traces/bug-d_a.txt) | P | R | 7 |", "**silent** `d/Q`",
		"`MEMVERIFY_BUG=d/b go test -tags mutants,sched ./suites -run '^TestSuites$/^d$' -rapid.nofailfile`",
		"**suite** `d/P/impl=X`: boom ([trace](traces/suite-d_P_impl_X.txt))", "`go run ./cmd/verify run -domain d`",
		"| P | **FAIL** ([trace](traces/suite-d_P_impl_X.txt)) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	traces := map[string]string{}
	for _, tr := range r.traces() {
		traces[tr.file] = tr.header + "\n" + tr.body
	}
	if tr := traces["traces/bug-d_a.txt"]; !strings.Contains(tr, "reproduce: MEMVERIFY_BUG=d/a go test ...") || !strings.Contains(tr, "1  Op() -> ok") {
		t.Errorf("the kill's trace file lacks its repro or trace: %q", tr)
	}
	if code := printCampaignSummary(*r.Campaign); code == 0 {
		t.Errorf("a surviving bug must fail the campaign")
	}
}

func TestSilentPropertiesAreThoseThatKilledNothing(t *testing.T) {
	var results []MutantResult
	for _, b := range bugs.Catalogue() {
		if b.Domain == "refcount" {
			results = append(results, MutantResult{Bug: b, Killed: true, By: "StateMachine", KilledBy: []string{"StateMachine"}})
		}
	}
	if len(results) == 0 {
		t.Fatal("no refcount bugs in the catalogue")
	}
	results[0].KilledBy = append(results[0].KilledBy, "ShardSpread")
	silent, unjudged := silentProperties("", results)
	if slices.Contains(silent, "refcount/StateMachine") || slices.Contains(silent, "refcount/ShardSpread") {
		t.Errorf("a property that killed a bug is reported silent: %v", silent)
	}
	if !slices.Contains(silent, "refcount/Linearizable") {
		t.Errorf("Linearizable killed nothing here but is not reported: %v", silent)
	}
	if len(unjudged) > 0 {
		t.Errorf("every refcount bug ran, yet the silence of %v is not judged", unjudged)
	}
}

// TestSilenceIsJudgedOnlyWhereEveryBugItCouldKillRan: a filter that leaves
// out the bugs a property kills must not make it look silent (-impl BBox
// leaves out Exact's, which overlap/Symmetric and others kill; -bug leaves
// out all but one), and neither may a child that did not finish. The
// campaign still passes, saying the silence was not judged.
func TestSilenceIsJudgedOnlyWhereEveryBugItCouldKillRan(t *testing.T) {
	verdicts := func(keep func(bugs.Bug) bool) []MutantResult {
		var out []MutantResult
		for _, b := range bugs.Catalogue() {
			if keep(b) {
				out = append(out, MutantResult{Bug: b, Killed: true, By: b.Killer, KilledBy: []string{b.Killer}, Expected: true})
			}
		}
		if len(out) == 0 {
			t.Fatal("no bug selected")
		}
		return out
	}
	bbox := verdicts(func(b bugs.Bug) bool { return b.Domain == "overlap" && b.Impl == "BBox" })
	oneBug := verdicts(func(b bugs.Bug) bool { return b.ID == "bank/align-by-mask" })
	bank := verdicts(func(b bugs.Bug) bool { return b.Domain == "bank" })
	for i := range bank {
		if bank[i].Bug.Killer == "FreeListErrors" {
			bank[i] = MutantResult{Bug: bank[i].Bug, Error: "timed out after 3m0s (hang?)"}
		}
	}
	for _, c := range []struct {
		name     string
		results  []MutantResult
		unjudged []string
	}{
		{"-impl BBox", bbox, []string{"overlap/PermuteInvariant", "overlap/RejectsInvalid", "overlap/ReshapeInvariant", "overlap/Symmetric"}},
		{"-bug bank/align-by-mask", oneBug, []string{"bank/FreeListErrors"}},
		{"a child that timed out", bank, []string{"bank/FreeListErrors"}},
	} {
		silent, unjudged := silentProperties("", c.results)
		for _, p := range c.unjudged {
			if slices.Contains(silent, p) || !slices.Contains(unjudged, p) {
				t.Errorf("%s: %s, not run against bugs it could kill, is not said to be unjudged: silent %v, unjudged %v", c.name, p, silent, unjudged)
			}
		}
		camp := campaign{Seeds: []uint64{1}, Mutants: c.results, Silent: silent, Unjudged: unjudged}
		if slices.ContainsFunc(c.results, func(r MutantResult) bool { return r.Error != "" }) {
			continue // fails for its error, not for silence
		}
		if len(silent) > 0 {
			t.Errorf("%s: reported silent %v", c.name, silent)
		}
		var code int
		out := captureStdout(t, func() { code = printCampaignSummary(camp) })
		_, note, _ := strings.Cut(out, "silence not judged for ")
		if code != 0 || strings.Contains(out, "killed no seeded bug") || !strings.Contains(note, c.unjudged[0]) {
			t.Errorf("%s: exit %d, want 0 and the silence said not judged:\n%s", c.name, code, out)
		}
		r := newReport()
		r.Campaign = &camp
		if _, note, _ := strings.Cut(r.markdown(), "silence not judged for "); !strings.Contains(note, c.unjudged[0]) {
			t.Errorf("%s: the report does not say the silence was not judged:\n%s", c.name, r.markdown())
		}
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
	r.Goals = []goals.Verdict{{Domain: "overlap", Goal: "the dense path at most 10 ns", Status: goals.Met}}
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
