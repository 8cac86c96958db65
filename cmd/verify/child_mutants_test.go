//go:build mutants

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
	"pgregory.net/rapid"
)

func init() {
	bugs.Register(bugs.Bug{ID: "zz-verify/leak", Domain: "zz-verify", Impl: "X", Killer: "NoBug", Summary: "a test's"})
	suites.Add(suites.Suite{Domain: "zz-verify", Property: "NoBug", Impl: "X", Run: func(t rapid.TB) {
		if id := bugs.Active(); id != "" {
			t.Fatalf("bug %s is active", id)
		}
	}})

	// A bug that one suite kills at once and another then hangs on, as a
	// deadlock under the bug would.
	bugs.Register(bugs.Bug{ID: "zz-hang/late-hang", Domain: "zz-hang", Impl: "X", Killer: "Kills", Summary: "a test's"})
	suites.Add(
		suites.Suite{Domain: "zz-hang", Property: "Kills", Impl: "X", Run: func(t rapid.TB) {
			if bugs.On("zz-hang/late-hang") {
				t.Fatal("killed")
			}
		}},
		suites.Suite{Domain: "zz-hang", Property: "Hangs", Impl: "X", Run: func(t rapid.TB) {
			if bugs.On("zz-hang/late-hang") {
				time.Sleep(time.Hour)
			}
		}},
	)
}

// TestAKillSurvivesASuiteThatHangsAfterIt runs a real child (this test
// binary, as verify) on a bug that is killed and then hangs a later suite
// until the parent kills the child: the kill must reach the parent, as a
// kill whose run was cut off, not as an error.
func TestAKillSurvivesASuiteThatHangsAfterIt(t *testing.T) {
	t.Setenv("MEMVERIFY_TEST_MAIN", "1") // the child, this binary, runs main (TestMain)
	b, _ := bugs.Lookup("zz-hang/late-hang")
	var rep childReport
	err := runChild(os.Args[0], t.TempDir(), childJob{bug: string(b.ID), domain: b.Domain, impl: b.Impl, seeds: "1"}, 5*time.Second, &rep)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("the child did not hang: %v", err)
	}
	r := mutantResult(b, rep.Mutant, err, options{seeds: "1"})
	if !r.Killed || r.By != "Kills" || r.Error != "" || r.CutOff == "" || !strings.Contains(r.Repro, "MEMVERIFY_BUG=zz-hang/late-hang") {
		t.Errorf("the kill was lost to the hang after it: %+v", r)
	}
}

// TestASuiteThatTimesOutInAChildFailsItself: inside a child, a suite that
// hangs under the bug times out on its own bound; the hunt goes on, the kill
// is kept, and the report is written before the hang.
func TestASuiteThatTimesOutInAChildFailsItself(t *testing.T) {
	if err := bugs.Activate("zz-hang/late-hang"); err != nil {
		t.Fatal(err)
	}
	defer bugs.Activate("")
	b, _ := bugs.Lookup("zz-hang/late-hang")
	var written []MutantResult
	res := huntBug(b, suites.Select("zz-hang", "", "X"), []uint64{1}, 200*time.Millisecond, func(r MutantResult) { written = append(written, r) })
	if !res.Killed || res.By != "Kills" || !slices.Contains(res.KilledBy, "Hangs") {
		t.Errorf("want a kill by Kills, and Hangs failed by its timeout: %+v", res)
	}
	if len(written) == 0 || !written[0].Killed {
		t.Errorf("the kill was not written out before the next suite ran: %+v", written)
	}
}

// TestRunUnderABugReprosWithTheBug: a suite that fails under a seeded bug
// fails again only with that bug on, in a mutants build.
func TestRunUnderABugReprosWithTheBug(t *testing.T) {
	if err := bugs.Activate("zz-verify/leak"); err != nil {
		t.Fatal(err)
	}
	defer bugs.Activate("")
	r := runSuite(suites.Select("zz-verify", "NoBug", "X")[0], 1, time.Minute)
	for _, want := range []string{
		"MEMVERIFY_BUG=zz-verify/leak go run -tags mutants ./cmd/verify run -domain zz-verify -property NoBug -impl X",
		"(or: MEMVERIFY_BUG=zz-verify/leak go test ./suites -run '^TestSuites$/^zz-verify$/^NoBug$/^impl=X$' -tags mutants -rapid.seed=1 -rapid.checks=",
		" -rapid.nofailfile)",
	} {
		if !strings.Contains(r.Repro, want) {
			t.Errorf("repro %q lacks %q", r.Repro, want)
		}
	}
}

// TestBaselineChildSwitchesEveryBugOff: the baseline child runs with no bug
// active, whatever was active before it started (MEMVERIFY_BUG, read by
// bugs.On when nothing else chose).
func TestBaselineChildSwitchesEveryBugOff(t *testing.T) {
	if err := bugs.Activate("zz-verify/leak"); err != nil {
		t.Fatal(err)
	}
	defer bugs.Activate("")
	report := filepath.Join(t.TempDir(), "report.json")
	if code := mutantChild(options{domain: "zz-verify", seeds: "1", childReport: report}); code != 0 {
		t.Fatalf("mutantChild exited %d", code)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep childReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Baseline) != 1 || rep.Baseline[0].Outcome != props.Passed {
		t.Errorf("the baseline ran with a bug on: %+v", rep.Baseline)
	}
}
