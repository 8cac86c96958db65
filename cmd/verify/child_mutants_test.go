//go:build mutants

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/internal/catalog"
	"pgregory.net/rapid"
)

func init() {
	bugs.Register(bugs.Bug{ID: "zz-verify/leak", Domain: "zz-verify", Impl: "X", Killer: "NoBug", Summary: "a test's"})
	catalog.Add(catalog.Suite{Domain: "zz-verify", Property: "NoBug", Impl: "X", Run: func(t rapid.TB) {
		if id := bugs.Active(); id != "" {
			t.Fatalf("bug %s is active", id)
		}
	}})
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
	if len(rep.Baseline) != 1 || rep.Baseline[0].Outcome != "pass" {
		t.Errorf("the baseline ran with a bug on: %+v", rep.Baseline)
	}
}
