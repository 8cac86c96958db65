package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memverify/memverify/suites"
)

// runAll is the main job: every suite, the overlap checkers' accuracy,
// every seeded bug, one report (this shard's part of each, under -shard).
// The report also shows the newest benchmark run of the same commit under
// -out, if there is one: benchmarks take too long for every run, and a
// report that shows them beside the properties is read once, not twice.
func runAll(o options) int {
	rep, code := begin("all", &o)
	if code >= 0 {
		return code
	}
	rep.Suites = runSuites(o)
	printSuiteSummary(rep.Suites)
	fmt.Println()
	if suites.Matches(o.domain, "overlap") && o.plan.keeps(accuracyItem) {
		rep.Accuracy = measureAccuracy()
		fmt.Println()
	}
	if len(selectBugs(o)) > 0 {
		c, err := runMutants(o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "verify mutants: %v\n", err)
			rep.Errors = append(rep.Errors, err.Error())
		} else {
			rep.Campaign = &c
			printCampaignSummary(c)
		}
	}
	rep.addBench(o.out)
	return finish(rep)
}

// addBench copies into r the results of the newest bench run under out
// whose commit is r's, when r's tree is clean: benchmarks of other code
// would be passed off as this code's.
func (r *Report) addBench(out string) {
	if r.Summary.Dirty || r.Summary.Commit == "unknown" {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "bench-*"))
	sort.Sort(sort.Reverse(sort.StringSlice(dirs))) // names sort by start
	for _, d := range dirs {
		var b Report
		data, err := os.ReadFile(filepath.Join(d, "report.json"))
		if err != nil || json.Unmarshal(data, &b) != nil {
			continue
		}
		if b.Summary.Commit == r.Summary.Commit && !b.Summary.Dirty && len(b.Bench) > 0 {
			r.Bench, r.Goals, r.GoalRuns = b.Bench, b.Goals, b.GoalRuns
			r.BenchSource = "the bench run " + filepath.Base(d) + " of the same commit (" + strings.TrimPrefix(b.BenchSource, "this run: ") + ")"
			return
		}
	}
}
