package main

// What every command that writes a report does before any work, and after
// it: check its filters and its -out, make its run directory, deal its
// shard; at the end, write the report and turn the verdict into the exit
// code. A misspelt filter or an unwritable -out is found in milliseconds,
// never after minutes of suites, and leaves nothing behind.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/suites"
)

// begin checks cmd's options and makes its run directory. It returns the
// report to fill, or an exit code ≥ 0 when the command must end at once.
func begin(cmd string, o *options) (*Report, int) {
	r := newReport()
	r.Run.Command = cmd
	r.Run.Filters = Filters{Domain: o.domain, Property: o.property, Impl: o.impl, Bug: o.bug}
	if err := checkFilters(cmd, *o); err != nil {
		fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
		return nil, 2
	}
	if cmd == "all" || cmd == "mutants" {
		seeds, err := parseSeeds(o.seeds)
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
			return nil, 2
		}
		r.Summary.Budget.Seeds, o.seedList = seeds, seeds
	}
	plan, err := planShard(cmd, *o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
		return nil, 2
	}
	o.plan = plan
	if plan != nil {
		o.costs = plan.costs
	} else {
		o.costs, _ = loadCosts(o.out, o.jobs)
	}
	tag := ""
	if plan != nil {
		r.Run.Shard = &plan.info
		tag = fmt.Sprintf("shard%dof%d", plan.info.Index, plan.info.Count)
	}
	dir, err := makeRunDir(o.out, cmd, tag, r.Summary.Started)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify %s: %v\n", cmd, err)
		return nil, 2
	}
	r.setDir(dir)
	historyDir = filepath.Join(dir, "histories")
	r.Run.Full = cmd == "all" && !r.Run.Filters.any() && plan == nil
	fmt.Printf("verify %s: writing to %s/\n", cmd, dir)
	if plan != nil {
		fmt.Printf("shard %d of %d: %d of the %d items, dealt by cost from %s\n", plan.info.Index, plan.info.Count, len(plan.mine), plan.info.Items, plan.info.Costs)
	}
	return r, -1
}

// finish writes the report and returns the exit code its verdict gives.
func finish(r *Report) int {
	if !r.save("") {
		return 1
	}
	fmt.Printf("verdict: %s: %s\n", strings.ToUpper(r.Summary.Verdict), r.Summary.headline())
	if r.Summary.Verdict != verdictPass {
		return 1
	}
	return 0
}

// checkFilters refuses a filter value that names nothing (a domain,
// property, implementation or bug that does not exist), listing the valid
// ones, and a combination of filters that selects nothing cmd could run.
func checkFilters(cmd string, o options) error {
	domains, properties, impls := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, s := range suites.All() {
		domains[s.Domain], properties[s.Property], impls[s.Impl] = true, true, true
	}
	for _, b := range bugs.Catalogue() {
		domains[b.Domain], properties[b.Killer], impls[b.Impl] = true, true, true
	}
	for _, f := range []struct {
		flag, value, noun string
		valid             map[string]bool
	}{
		{"domain", o.domain, "domain", domains},
		{"property", o.property, "property", properties},
		{"impl", o.impl, "implementation", impls},
	} {
		if err := checkValues(f.flag, f.value, f.noun, f.valid); err != nil {
			return err
		}
	}
	if o.bug != "" {
		if _, ok := bugs.Lookup(bugs.ID(o.bug)); !ok {
			return fmt.Errorf("-bug %s: no such seeded bug (go run ./cmd/verify list shows them)", o.bug)
		}
	}
	switch {
	case cmd != "mutants" && len(suites.Select(o.domain, o.property, o.impl)) == 0:
		return fmt.Errorf("no suite matches the filters (go run ./cmd/verify list %s shows what each selects)", filterArgs(o))
	case cmd == "mutants" && len(selectBugs(o)) == 0:
		return fmt.Errorf("no seeded bug matches the filters (go run ./cmd/verify list %s shows what each selects)", filterArgs(o))
	}
	return nil
}

// checkValues refuses a value of a comma-separated filter that is not one
// of valid (compared as suites.Matches compares: without regard to case).
func checkValues(flag, value, noun string, valid map[string]bool) error {
	if value == "" {
		return nil
	}
	var names []string
	for n := range valid {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, v := range strings.Split(value, ",") {
		found := false
		for _, n := range names {
			found = found || strings.EqualFold(strings.TrimSpace(v), n)
		}
		if !found {
			return fmt.Errorf("-%s %s: no such %s; the %ss are: %s", flag, strings.TrimSpace(v), noun, pluralNoun(noun), strings.Join(names, ", "))
		}
	}
	return nil
}

func pluralNoun(noun string) string {
	if strings.HasSuffix(noun, "y") {
		return strings.TrimSuffix(noun, "y") + "ie"
	}
	return noun
}

// filterArgs are o's filters as flags.
func filterArgs(o options) string {
	var parts []string
	for _, kv := range [][2]string{{"-domain", o.domain}, {"-property", o.property}, {"-impl", o.impl}, {"-bug", o.bug}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+shellQuote(kv[1]))
		}
	}
	return strings.Join(parts, " ")
}
