package main

// `verify merge DIR...` joins the reports of a campaign's shards (-shard
// i/n, shard.go) into the report one machine would have written: the same
// suites, bugs, verdicts and kill matrix, in every format, in a run
// directory of its own (merge-<UTC time>/). Shards are merged only when
// they describe one campaign: the same commit, budget (checks, steps,
// seeds), command, filters and deal (the shards' fingerprint), every
// shard 1 to n present once, and every item of the deal run exactly once.
// Properties that killed nothing are judged again over every shard's bugs,
// since no shard alone ran them all. The report of a bench run may be
// given beside the shards: its benchmarks join the merged report.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/suites"
)

// runMerge merges the run directories in o.args.
func runMerge(o options) int {
	if len(o.args) == 0 {
		fmt.Fprintln(os.Stderr, "verify merge: name the shards' run directories: verify merge [-out DIR] SHARD-DIR...")
		return 2
	}
	shards, bench, err := readShards(o.args)
	if err == nil {
		err = checkShards(shards)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify merge: %v\n", err)
		return 2
	}
	m, err := mergeReports(shards)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify merge: %v\n", err)
		return 2
	}
	if bench != nil {
		m.Bench, m.Goals, m.GoalRuns = bench.Bench, bench.Goals, bench.GoalRuns
		m.BenchSource = "the bench run " + bench.Run.Dir
	}
	dir, err := makeRunDir(o.out, "merge", "", time.Now())
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify merge: %v\n", err)
		return 2
	}
	m.setDir(dir)
	for i, s := range shards {
		if err := copyHistories(o.args[i], dir); err != nil {
			fmt.Fprintf(os.Stderr, "verify merge: %v\n", err)
			return 1
		}
		m.Run.Merged = append(m.Run.Merged, s.Run.Dir)
		m.Run.Machines = append(m.Run.Machines, s.Summary.Machine)
	}
	fmt.Printf("merged %d shards of verify %s\n", len(shards), m.Run.Command)
	return finish(m)
}

// readShards reads each directory's report.json: the shards, and at most
// one bench run's report.
func readShards(dirs []string) (shards []*Report, bench *Report, err error) {
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "report.json"))
		if err != nil {
			return nil, nil, fmt.Errorf("%s is no run directory: %w", d, err)
		}
		r := &Report{}
		if err := json.Unmarshal(data, r); err != nil {
			return nil, nil, fmt.Errorf("%s/report.json: %w", d, err)
		}
		if r.SchemaVersion != schemaVersion {
			return nil, nil, fmt.Errorf("%s/report.json has schema_version %d; this verify reads %d", d, r.SchemaVersion, schemaVersion)
		}
		switch {
		case r.Run.Command == "bench" && bench == nil:
			bench = r
		case r.Run.Shard == nil:
			return nil, nil, fmt.Errorf("%s is not a shard's run (verify %s without -shard)", d, r.Run.Command)
		default:
			shards = append(shards, r)
		}
	}
	if len(shards) == 0 {
		return nil, nil, fmt.Errorf("no shard among %s", strings.Join(dirs, " "))
	}
	if bench != nil && bench.Summary.Commit != shards[0].Summary.Commit {
		return nil, nil, fmt.Errorf("the bench run %s measured commit %s, the shards %s", bench.Run.Dir, bench.Summary.Commit, shards[0].Summary.Commit)
	}
	return shards, bench, nil
}

// checkShards refuses shards that are not the parts of one campaign.
func checkShards(shards []*Report) error {
	a := shards[0]
	seen := map[int]string{}
	for _, s := range shards {
		name := s.Run.Dir
		switch {
		case s.Summary.Commit != a.Summary.Commit:
			return fmt.Errorf("%s ran commit %s, %s commit %s: shards of different commits cannot be merged", name, s.Summary.Commit, a.Run.Dir, a.Summary.Commit)
		case !sameBudget(s.Summary.Budget, a.Summary.Budget):
			return fmt.Errorf("%s ran with budget %q, %s with %q: shards of different budgets cannot be merged", name, budgetText(s.Summary.Budget), a.Run.Dir, budgetText(a.Summary.Budget))
		case s.Run.Command != a.Run.Command:
			return fmt.Errorf("%s ran verify %s, %s verify %s", name, s.Run.Command, a.Run.Dir, a.Run.Command)
		case s.Run.Filters != a.Run.Filters:
			return fmt.Errorf("%s and %s ran under different filters", name, a.Run.Dir)
		case s.Run.Shard.Count != a.Run.Shard.Count || s.Run.Shard.Fingerprint != a.Run.Shard.Fingerprint:
			return fmt.Errorf("%s and %s were dealt differently (shard counts %d and %d, fingerprints %s and %s): their costs differed, or the catalogue", name, a.Run.Dir, s.Run.Shard.Count, a.Run.Shard.Count, s.Run.Shard.Fingerprint, a.Run.Shard.Fingerprint)
		case seen[s.Run.Shard.Index] != "":
			return fmt.Errorf("%s and %s are both shard %d", name, seen[s.Run.Shard.Index], s.Run.Shard.Index)
		}
		seen[s.Run.Shard.Index] = name
	}
	for i := 1; i <= a.Run.Shard.Count; i++ {
		if seen[i] == "" {
			return fmt.Errorf("shard %d of %d is missing", i, a.Run.Shard.Count)
		}
	}
	return nil
}

func sameBudget(a, b Budget) bool {
	return a.Checks == b.Checks && a.Steps == b.Steps && slices.Equal(a.Seeds, b.Seeds)
}

// mergeReports joins checked shards, in the order an unsharded run lists
// its results.
func mergeReports(shards []*Report) (*Report, error) {
	a := shards[0]
	m := &Report{SchemaVersion: schemaVersion, Summary: a.Summary, Run: RunInfo{Command: a.Run.Command, Args: os.Args[1:], Filters: a.Run.Filters}}
	m.Summary.Budget.Seeds = a.Summary.Budget.Seeds
	items := 0
	var camp *campaign
	for _, s := range shards {
		m.Summary.Started = earliest(m.Summary.Started, s.Summary.Started)
		m.Run.Finished = latest(m.Run.Finished, s.Run.Finished)
		m.Summary.Dirty = m.Summary.Dirty || s.Summary.Dirty
		m.Suites = append(m.Suites, s.Suites...)
		m.Errors = append(m.Errors, s.Errors...)
		items += len(s.Suites)
		if s.Accuracy != nil {
			if m.Accuracy != nil {
				return nil, fmt.Errorf("two shards measured the overlap accuracy")
			}
			m.Accuracy, items = s.Accuracy, items+1
		}
		if s.Campaign != nil {
			if camp == nil {
				camp = &campaign{Seeds: s.Campaign.Seeds}
			}
			camp.Baseline = append(camp.Baseline, s.Campaign.Baseline...)
			camp.Mutants = append(camp.Mutants, s.Campaign.Mutants...)
			items += len(s.Campaign.Mutants)
		}
	}
	m.Summary.Duration = m.Run.Finished.Sub(m.Summary.Started)
	if items != a.Run.Shard.Items {
		return nil, fmt.Errorf("the shards ran %d items of the %d dealt", items, a.Run.Shard.Items)
	}
	if err := sortMerged(m, camp); err != nil {
		return nil, err
	}
	m.Run.Full = m.Run.Command == "all" && !m.Run.Filters.any()
	return m, nil
}

// sortMerged puts suites, baseline runs and bugs in the order of an
// unsharded run, refuses any that ran twice, and judges silence anew.
func sortMerged(m *Report, camp *campaign) error {
	order := map[string]int{}
	for i, s := range suites.All() {
		order[s.Name()] = i
	}
	sort.SliceStable(m.Suites, func(i, j int) bool { return order[m.Suites[i].Name] < order[m.Suites[j].Name] })
	for i := 1; i < len(m.Suites); i++ {
		if m.Suites[i].Name == m.Suites[i-1].Name {
			return fmt.Errorf("suite %s ran in two shards", m.Suites[i].Name)
		}
	}
	if camp == nil {
		return nil
	}
	seedAt := map[uint64]int{}
	for i, s := range camp.Seeds {
		seedAt[s] = i
	}
	sort.SliceStable(camp.Baseline, func(i, j int) bool {
		a, b := camp.Baseline[i], camp.Baseline[j]
		if a.Domain != b.Domain {
			return a.Domain < b.Domain
		}
		if seedAt[a.BaseSeed] != seedAt[b.BaseSeed] {
			return seedAt[a.BaseSeed] < seedAt[b.BaseSeed]
		}
		return order[a.Name] < order[b.Name]
	})
	// Two shards whose bugs share a domain and implementation both ran
	// the suites of that implementation as their baseline: keep one run of
	// each (a failure, if either failed).
	camp.Baseline = slices.CompactFunc(camp.Baseline, func(a, b SuiteResult) bool {
		if a.Name == b.Name && a.BaseSeed == b.BaseSeed {
			return a.Outcome == props.Failed || b.Outcome != props.Failed
		}
		return false
	})
	sort.SliceStable(camp.Mutants, func(i, j int) bool {
		a, b := camp.Mutants[i].Bug, camp.Mutants[j].Bug
		if a.Domain != b.Domain {
			return a.Domain < b.Domain
		}
		return a.ID < b.ID
	})
	for i := 1; i < len(camp.Mutants); i++ {
		if camp.Mutants[i].Bug.ID == camp.Mutants[i-1].Bug.ID {
			return fmt.Errorf("seeded bug %s ran in two shards", camp.Mutants[i].Bug.ID)
		}
	}
	camp.Silent, camp.Unjudged = silentProperties(m.Run.Filters.Property, camp.Mutants)
	m.Campaign = camp
	return nil
}

// copyHistories copies a shard's drawings of histories into dir.
func copyHistories(shard, dir string) error {
	files, _ := filepath.Glob(filepath.Join(shard, "histories", "*.html"))
	if len(files) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "histories"), 0o755); err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "histories", filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
