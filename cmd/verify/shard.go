package main

// Sharding: `-shard i/n` runs a deterministic i-th of n parts of the
// selected work, so that a campaign too long for one machine runs on n, and
// `verify merge` joins the parts into the report one machine would have
// written (merge.go).
//
// The work is a list of items: each suite ("suite:<name>"), each seeded bug
// ("bug:<id>") and the overlap accuracy measurement ("accuracy"). Items are
// dealt to shards by their expected cost, the longest first, each to the
// shard with the least so far (greedy longest-processing-time), ties
// broken by name and shard number: every machine that sees the same items
// and the same costs deals them alike. The costs are the durations of the
// last full run under -out (<out>/latest/report.json) when there is one,
// else the table committed with verify (costs.json, measured on a full run
// at the default budget), else a rough cost per kind of item. Each shard's
// report records a fingerprint of the whole deal; merge refuses shards
// whose fingerprints differ, and checks that every item ran exactly once.

import (
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memverify/memverify/suites"
)

// Shard is a shard's place in its campaign, as its report records it.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
	// Items is how many items the whole campaign holds; Fingerprint
	// hashes the items and the shard each was dealt to.
	Items       int    `json:"items"`
	Fingerprint string `json:"fingerprint"`
	// Costs says where the expected costs came from.
	Costs string `json:"costs"`
}

// shardPlan is the deal: which items this shard runs, and every item's
// expected cost in seconds (also what progress estimates with).
type shardPlan struct {
	info  Shard
	mine  map[string]bool
	costs costTable
}

// keeps reports whether this shard runs item; without a plan, every item
// runs.
func (p *shardPlan) keeps(item string) bool { return p == nil || p.mine[item] }

// cost is item's expected cost in seconds.
func (p *shardPlan) cost(item string) float64 {
	if p == nil {
		return 0
	}
	return p.costs.of(item)
}

func suiteItem(name string) string { return "suite:" + name }
func bugItem(id string) string     { return "bug:" + id }

const accuracyItem = "accuracy"

// parseShard reads "i/n".
func parseShard(s string) (index, count int, err error) {
	a, b, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(a)
	count, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 1 || index > count {
		return 0, 0, fmt.Errorf("-shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/3", s)
	}
	return index, count, nil
}

// workItems are the items a command with options o runs, unsharded.
func workItems(cmd string, o options) []string {
	var items []string
	if cmd != "mutants" {
		for _, s := range suites.Select(o.domain, o.property, o.impl) {
			items = append(items, suiteItem(s.Name()))
		}
		if suites.Matches(o.domain, "overlap") {
			items = append(items, accuracyItem)
		}
	}
	if cmd != "run" {
		for _, b := range selectBugs(o) {
			items = append(items, bugItem(string(b.ID)))
		}
	}
	return items
}

// planShard deals the items of cmd among o's shards; nil when unsharded.
func planShard(cmd string, o options) (*shardPlan, error) {
	if o.shard == "" {
		return nil, nil
	}
	index, count, err := parseShard(o.shard)
	if err != nil {
		return nil, err
	}
	costs, source := loadCosts(o.out, o.jobs)
	items := workItems(cmd, o)
	deal := dealItems(items, count, costs)
	h := sha256.New()
	fmt.Fprintf(h, "%s %d\n", cmd, count)
	mine := map[string]bool{}
	for _, it := range items {
		fmt.Fprintf(h, "%s %d\n", it, deal[it])
		if deal[it] == index {
			mine[it] = true
		}
	}
	return &shardPlan{mine: mine, costs: costs, info: Shard{Index: index, Count: count, Items: len(items),
		Fingerprint: fmt.Sprintf("%x", h.Sum(nil))[:16], Costs: source}}, nil
}

// dealItems gives each item a shard, 1 to n: longest first, to the least
// loaded.
func dealItems(items []string, n int, costs costTable) map[string]int {
	sorted := append([]string(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ci, cj := costs.of(sorted[i]), costs.of(sorted[j])
		if ci != cj {
			return ci > cj
		}
		return sorted[i] < sorted[j]
	})
	load := make([]float64, n)
	out := map[string]int{}
	for _, it := range sorted {
		best := 0
		for s := 1; s < n; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += costs.of(it)
		out[it] = best + 1
	}
	return out
}

// costTable maps items to their expected cost in seconds.
type costTable map[string]float64

// of is item's cost: measured, or a rough figure for its kind.
func (c costTable) of(item string) float64 {
	if v, ok := c[item]; ok && v > 0 {
		return v
	}
	switch {
	case strings.HasPrefix(item, "bug:"):
		return 4
	case item == accuracyItem:
		return 3
	}
	return 0.5
}

//go:embed costs.json
var committedCosts []byte

// loadCosts reads the expected costs: from the last full run under out,
// else the committed table. A bug's cost is its run's wall time over the
// runs at once (jobs), the share of the machine it takes.
func loadCosts(out string, jobs int) (costTable, string) {
	if data, err := os.ReadFile(filepath.Join(out, latestName, "report.json")); err == nil {
		var r Report
		if json.Unmarshal(data, &r) == nil && len(r.Suites) > 0 {
			return costsOf(&r, jobs), "the last full run, " + filepath.Join(out, latestName)
		}
	}
	var c costTable
	if json.Unmarshal(committedCosts, &c) == nil && len(c) > 0 {
		for k, v := range c {
			if strings.HasPrefix(k, "bug:") {
				c[k] = v / float64(max(1, jobs))
			}
		}
		return c, "the committed table cmd/verify/costs.json"
	}
	return costTable{}, "a rough cost per kind of item"
}

// costsOf is the table of costs that report r measured.
func costsOf(r *Report, jobs int) costTable {
	c := costTable{}
	for _, s := range r.Suites {
		c[suiteItem(s.Name)] = s.Duration.Seconds()
	}
	if r.Campaign != nil {
		for _, m := range r.Campaign.Mutants {
			c[bugItem(string(m.Bug.ID))] = wallOrKill(m).Seconds() / float64(max(1, jobs))
		}
	}
	if r.Accuracy != nil && r.Accuracy.Duration > 0 {
		c[accuracyItem] = r.Accuracy.Duration.Seconds()
	}
	return c
}

// wallOrKill is how long a bug's run took: its whole run when known, else
// the time to its kill.
func wallOrKill(m MutantResult) time.Duration {
	if m.Wall > 0 {
		return m.Wall
	}
	return m.Duration
}
