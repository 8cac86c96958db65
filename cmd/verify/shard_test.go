package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memverify/memverify/props"
)

func TestParseShardRefusesWhatIsNoShard(t *testing.T) {
	if i, n, err := parseShard("2/3"); err != nil || i != 2 || n != 3 {
		t.Errorf("parseShard(2/3) = %d, %d, %v", i, n, err)
	}
	for _, bad := range []string{"", "3", "0/3", "4/3", "1/0", "a/b", "-1/2", "1/2/3"} {
		if _, _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) accepted", bad)
		}
	}
}

// TestDealCoversEveryItemOnceAndBalances: every suite, bug and the
// accuracy measurement goes to exactly one shard, the same one each time,
// and no shard's expected cost exceeds another's by more than the
// costliest item (the bound of the greedy deal).
func TestDealCoversEveryItemOnceAndBalances(t *testing.T) {
	items := workItems("all", options{})
	costs, _ := loadCosts(t.TempDir(), 2)
	costliest := 0.0
	for _, it := range items {
		costliest = max(costliest, costs.of(it))
	}
	for n := 1; n <= 5; n++ {
		deal := dealItems(items, n, costs)
		if again := dealItems(slices.Clone(items), n, costs); fmt.Sprint(again) != fmt.Sprint(deal) {
			t.Fatalf("n=%d: two deals of the same items differ", n)
		}
		load := make([]float64, n)
		for _, it := range items {
			s := deal[it]
			if s < 1 || s > n {
				t.Fatalf("n=%d: %s dealt to shard %d", n, it, s)
			}
			load[s-1] += costs.of(it)
		}
		if len(deal) != len(items) {
			t.Errorf("n=%d: %d items dealt of %d", n, len(deal), len(items))
		}
		if lo, hi := slices.Min(load), slices.Max(load); hi-lo > costliest+1e-9 {
			t.Errorf("n=%d: loads %v differ by more than the costliest item (%.1fs)", n, load, costliest)
		}
	}
}

// summaryOf is what sharding must not change: the suites and their
// outcomes, the bugs and their verdicts and killers, the baseline, the
// kill matrix, the silent properties and the verdict.
func summaryOf(r *Report) string {
	var b strings.Builder
	for _, s := range r.Suites {
		fmt.Fprintf(&b, "suite %s %s\n", s.Name, s.Outcome)
	}
	if c := r.Campaign; c != nil {
		for _, s := range c.Baseline {
			fmt.Fprintf(&b, "baseline %s %d %s\n", s.Name, s.BaseSeed, s.Outcome)
		}
		for _, m := range c.Mutants {
			fmt.Fprintf(&b, "bug %s killed=%v by=%s error=%v\n", m.Bug.ID, m.Killed, m.By, m.Error != "")
		}
		fmt.Fprintf(&b, "silent %v unjudged %v\n", c.Silent, c.Unjudged)
	}
	for _, d := range r.domainViews() {
		for _, m := range d.Bugs {
			var row []int
			for _, p := range d.Columns {
				row = append(row, d.cell(m, p))
			}
			fmt.Fprintf(&b, "matrix %s %v %v\n", m.Bug.ID, d.Columns, row)
		}
	}
	if r.Accuracy != nil {
		fmt.Fprintf(&b, "accuracy %v\n", r.Accuracy.Rows)
	}
	r.summarize()
	fmt.Fprintf(&b, "verdict %s %v %+v\n", r.Summary.Verdict, r.Summary.Reasons, r.Summary.Counts)
	return b.String()
}

func readReport(t *testing.T, dir string) *Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{}
	if err := json.Unmarshal(data, r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestShardsMergedEqualAnUnshardedRun runs one campaign whole and as three
// shards, merges the shards, and compares. It runs the overlap domain,
// whose properties are deterministic under a seed, at a small budget.
func TestShardsMergedEqualAnUnshardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a campaign four times")
	}
	out := t.TempDir()
	args := []string{"all", "-domain", "overlap", "-rapid.checks", "5", "-seeds", "1", "-out", out}
	verify(t, nil, args...)
	var shards []string
	for i := 1; i <= 3; i++ {
		stdout, stderr, _ := verify(t, nil, append(args, "-shard", fmt.Sprintf("%d/3", i))...)
		dirs := mustGlob(t, filepath.Join(out, fmt.Sprintf("all-shard%dof3-*", i)))
		if len(dirs) != 1 {
			t.Fatalf("shard %d wrote %v:\n%s\n%s", i, dirs, stdout, stderr)
		}
		shards = append(shards, dirs[0])
	}
	whole := mustGlob(t, filepath.Join(out, "all-2*"))
	if len(whole) != 1 {
		t.Fatalf("the unsharded run wrote %v", whole)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, stderr, code := verify(t, nil, append([]string{"merge", "-out", merged}, shards...)...); code == 2 {
		t.Fatalf("merge refused the shards: %s", stderr)
	}
	dirs := mustGlob(t, filepath.Join(merged, "merge-*"))
	if len(dirs) != 1 {
		t.Fatalf("merge wrote %v", dirs)
	}
	want, got := summaryOf(readReport(t, whole[0])), summaryOf(readReport(t, dirs[0]))
	if want != got {
		t.Errorf("merged shards differ from the unsharded run:\nunsharded:\n%s\nmerged:\n%s", want, got)
	}
	for _, f := range []string{"report.md", "report.html", mutationReportName} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Errorf("the merged report lacks %s", f)
		}
	}
}

// shardReport is a shard's report of its part of a two-shard campaign:
// one suite each.
func shardReport(t *testing.T, out string, index int, edit func(*Report)) string {
	t.Helper()
	r := newReport()
	r.Run.Command = "run"
	r.Run.Shard = &Shard{Index: index, Count: 2, Items: 2, Fingerprint: "f00d", Costs: "test"}
	r.Suites = []SuiteResult{{Name: fmt.Sprintf("bank/P%d/impl=Model", index), Domain: "bank", Property: fmt.Sprintf("P%d", index), Impl: "Model", Outcome: props.Passed, Checks: 5}}
	r.Summary.Commit, r.Summary.Budget = "abc", Budget{Checks: 5, Steps: 30}
	if edit != nil {
		edit(r)
	}
	dir := filepath.Join(out, fmt.Sprintf("run-shard%dof2-%d", index, len(mustGlob(t, filepath.Join(out, "*")))))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.setDir(dir)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMergeRefusesShardsOfDifferentCampaigns: shards of different commits,
// budgets or deals, a shard twice, one missing: each is refused, and
// nothing is written.
func TestMergeRefusesShardsOfDifferentCampaigns(t *testing.T) {
	in := t.TempDir()
	one := shardReport(t, in, 1, nil)
	two := shardReport(t, in, 2, nil)
	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"another commit", []string{one, shardReport(t, in, 2, func(r *Report) { r.Summary.Commit = "def" })}, "different commits"},
		{"more checks", []string{one, shardReport(t, in, 2, func(r *Report) { r.Summary.Budget.Checks = 50 })}, "different budgets"},
		{"other seeds", []string{one, shardReport(t, in, 2, func(r *Report) { r.Summary.Budget.Seeds = []uint64{9} })}, "different budgets"},
		{"another deal", []string{one, shardReport(t, in, 2, func(r *Report) { r.Run.Shard.Fingerprint = "beef" })}, "dealt differently"},
		{"a shard twice", []string{one, one}, "both shard 1"},
		{"a shard missing", []string{one}, "shard 2 of 2 is missing"},
		{"not a shard", []string{one, t.TempDir()}, "no run directory"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		_, stderr, code := verify(t, nil, append([]string{"merge", "-out", out}, c.dirs...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: merge wrote %s before refusing", c.name, out)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	if _, stderr, code := verify(t, nil, "merge", "-out", out, one, two); code != 0 {
		t.Fatalf("two shards of one campaign: exit %d: %s", code, stderr)
	}
	m := readReport(t, mustGlob(t, filepath.Join(out, "merge-*"))[0])
	if len(m.Suites) != 2 || len(m.Run.Merged) != 2 || m.Summary.Verdict != verdictPass {
		t.Errorf("merged report: %d suites from %v, verdict %s", len(m.Suites), m.Run.Merged, m.Summary.Verdict)
	}
}
