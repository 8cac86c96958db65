package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/bugs"
)

// captureStdout returns what f prints.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	file, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	old := os.Stdout
	os.Stdout = file
	defer func() { os.Stdout = old }()
	f()
	data, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAChildThatCouldNotRunIsAnErrorNotASurvivor: a bug whose child crashed
// or timed out was not shown to survive anything. Its multi-line error goes
// below the table, whose rows stay on one line each.
func TestAChildThatCouldNotRunIsAnErrorNotASurvivor(t *testing.T) {
	killed := MutantResult{Bug: bugs.Bug{ID: "d/a", Domain: "d", Impl: "X", Summary: "first", Killer: "P"},
		Killed: true, By: "P", KilledBy: []string{"P"}, Expected: true, Checks: 3}
	crashed := MutantResult{Bug: bugs.Bug{ID: "d/c", Domain: "d", Impl: "X", Summary: "third | with a bar", Killer: "P"},
		Error: "child failed: exit status 2\npanic: boom\n\ngoroutine 1 [running]:"}
	c := campaign{Seeds: []uint64{1}, Mutants: []MutantResult{killed, crashed}}
	var code int
	out := captureStdout(t, func() { code = printCampaignSummary(c) })
	if code == 0 {
		t.Error("a bug that could not be run passed the campaign")
	}
	if strings.Contains(out, "survived") {
		t.Errorf("a bug whose child crashed is reported as a survivor:\n%s", out)
	}
	for _, want := range []string{"error: d/c", "panic: boom", "killed 1 of 2; 1 could not run"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}

	r := newReport()
	r.Campaign = &c
	md := r.markdown()
	_, table, _ := strings.Cut(md, "| seeded bug | impl | result |")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, line := range strings.Split(table, "\n")[2:] { // after the header and its rule
		if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || strings.Count(line, "|")-strings.Count(line, `\|`) != 9 {
			t.Errorf("a broken table row: %q", line)
		}
	}
	for _, want := range []string{"| `d/c` | X | **error** [trace](traces/bug-d_c.txt) |", "third \\| with a bar |", "1 seeded bug of 2 could not run to a verdict",
		"**error** `d/c`: child failed: exit status 2 ([trace](traces/bug-d_c.txt))"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "panic: boom") {
		t.Errorf("the error's details are in the report, not in its trace file:\n%s", md)
	}
	for _, tr := range r.traces() {
		if tr.file == "traces/bug-d_c.txt" && !strings.Contains(tr.body, "panic: boom") {
			t.Errorf("the error's trace file lacks its details: %q", tr.body)
		}
	}
}

// TestPropertyFilterSelectsTheBugsItsPropertiesKill: with -property, the
// campaign runs the bugs those properties are expected to kill, and only
// those properties can be silent.
func TestPropertyFilterSelectsTheBugsItsPropertiesKill(t *testing.T) {
	selected := selectBugs(options{property: "MatchesModel"})
	if len(selected) == 0 {
		t.Fatal("no bug is expected to be killed by MatchesModel")
	}
	for _, b := range selected {
		if b.Killer != "MatchesModel" {
			t.Errorf("-property MatchesModel selects %s, which %s is expected to kill", b.ID, b.Killer)
		}
	}
}

// TestAChildThatCouldNotRunEndsWithARepro: a bug whose child crashed or
// timed out ends, like every failure, with the command that reproduces it:
// that bug's campaign alone, under the same seeds and budget.
func TestAChildThatCouldNotRunEndsWithARepro(t *testing.T) {
	setFlag(t, "rapid.checks", "50")
	b := bugs.Bug{ID: "d/c", Domain: "d", Impl: "X", Summary: "hangs", Killer: "P"}
	r := mutantResult(b, nil, errors.New("timed out after 3m0s (hang?)\nstderr:\n"), options{seeds: "1,2", property: "P"})
	want := "go run ./cmd/verify mutants -bug d/c -seeds 1,2 -property P -rapid.checks=50"
	if r.Error == "" || r.Killed || !strings.HasPrefix(r.Repro, want) {
		t.Fatalf("result %+v: want an error whose repro starts %q", r, want)
	}
	c := campaign{Seeds: []uint64{1, 2}, Mutants: []MutantResult{r}}
	if out := captureStdout(t, func() { printCampaignSummary(c) }); !strings.Contains(out, "reproduce: "+want) {
		t.Errorf("the summary gives no repro for the error:\n%s", out)
	}
	rep := newReport()
	rep.Campaign = &c
	if md := rep.markdown(); !strings.Contains(md, "`"+want) {
		t.Errorf("the report gives no repro for the error:\n%s", md)
	}
}

// TestAKillOutlivesAChildCutOffAfterIt: a child that times out or crashes
// after its bug was killed keeps the kill; it is no error, and it says its
// run was cut off.
func TestAKillOutlivesAChildCutOffAfterIt(t *testing.T) {
	b := bugs.Bug{ID: "d/a", Domain: "d", Impl: "X", Summary: "first", Killer: "P"}
	kill := &MutantResult{Bug: b, Killed: true, By: "P", KilledBy: []string{"P"}, Expected: true, Checks: 3, Repro: "MEMVERIFY_BUG=d/a go test ..."}
	r := mutantResult(b, kill, errors.New("timed out after 3m0s (hang?)\nstderr:\n"), options{seeds: "1"})
	if !r.Killed || r.Error != "" || !strings.Contains(r.CutOff, "timed out") || r.Repro != kill.Repro {
		t.Fatalf("result %+v: want the kill, with its repro, cut off", r)
	}
	var code int
	out := captureStdout(t, func() { code = printCampaignSummary(campaign{Seeds: []uint64{1}, Mutants: []MutantResult{r}}) })
	if code != 0 || !strings.Contains(out, "killed 1 of 1\n") || !strings.Contains(out, "cut off after the kill: d/a") {
		t.Errorf("exit %d, want 0, the kill counted and the cut-off said:\n%s", code, out)
	}
}
