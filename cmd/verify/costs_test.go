package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// updateCosts names a run directory of a full run whose measured costs
// replace costs.json, the table shards are dealt by when no full run is at
// hand (a fresh clone, CI):
//
//	go test ./cmd/verify -run TestCommittedCosts -update-costs reports/latest
var updateCosts = flag.String("update-costs", "", "a full run's directory (relative to the module root) to take cmd/verify/costs.json from")

// TestCommittedCostsAreUsable: the committed table reads, and its costs are
// seconds a deal can weigh by.
func TestCommittedCostsAreUsable(t *testing.T) {
	if *updateCosts != "" {
		dir := *updateCosts
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(moduleRoot(), dir) // tests run in their package's directory
		}
		r := readReport(t, dir)
		if !r.Run.Full {
			t.Fatalf("%s is not a full run: its costs would leave items out", *updateCosts)
		}
		c := costsOf(r, 1)
		keys := make([]string, 0, len(c))
		for k, v := range c {
			c[k] = float64(int(v*1000+0.5)) / 1000 // milliseconds are precision enough
			keys = append(keys, k)
		}
		sort.Strings(keys)
		data, err := json.MarshalIndent(c, "", "  ") // encoding/json sorts map keys
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(moduleRoot(), "cmd", "verify", "costs.json"), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("costs.json: %d items from %s", len(keys), *updateCosts)
		return
	}
	var c costTable
	if err := json.Unmarshal(committedCosts, &c); err != nil {
		t.Fatalf("costs.json: %v", err)
	}
	for k, v := range c {
		if v < 0 {
			t.Errorf("costs.json: %s costs %v", k, v)
		}
	}
	if _, source := loadCosts(t.TempDir(), 2); len(c) > 0 && source != "the committed table cmd/verify/costs.json" {
		t.Errorf("with no full run at hand the costs come from %s", source)
	}
}
