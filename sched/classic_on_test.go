//go:build sched

package sched_test

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// budget is the rapid checks each strategy gets to kill a classic bug: every
// one dies well inside it on seed 1 (the figures are logged).
const budget = 100

var strategies = []struct {
	name string
	opts sched.Options
}{
	{"pct", sched.Options{Strategy: sched.PCT(3, 20)}},
	{"walk", sched.Options{Strategy: sched.RandomWalk()}},
}

// runScenario runs a scenario as a rapid property under opts and returns how
// it ended.
func runScenario(name string, opts sched.Options, body func(*sched.Scheduler)) outcome {
	return record(name, func(tb rapid.TB) {
		rapid.Check(tb, func(t *rapid.T) { sched.Run(t, opts, body) })
	})
}

func TestClassicBugsAreKilledOnTheFirstSeed(t *testing.T) {
	for _, sc := range scenarios {
		for _, st := range strategies {
			t.Run(sc.name+"/"+st.name, func(t *testing.T) {
				withRapid(t, 1, budget)
				o := runScenario(t.Name(), st.opts, sc.body(false))
				if !o.failed {
					t.Fatalf("the bug survived %d checks:\n%s", budget, o.output)
				}
				if !strings.Contains(o.output, sc.message) || !strings.Contains(o.output, "interleaving (") {
					t.Fatalf("the failure does not say %q with a timeline:\n%s", sc.message, o.output)
				}
				if want := "reproduce: go test -tags sched ./sched -run '^TestClassicBugsAreKilledOnTheFirstSeed$/^" + sc.name; !strings.Contains(o.output, want) {
					t.Fatalf("the failure does not end with the repro command %q...:\n%s", want, o.output)
				}
				t.Logf("killed at check %d", checksToFail(o.output))
				if testing.Verbose() {
					t.Logf("the report:\n%s", o.output[strings.Index(o.output, "Failed test output:"):])
				}
			})
		}
	}
}

func TestClassicBugsCorrectVersionsPass(t *testing.T) {
	for _, sc := range scenarios {
		for _, st := range strategies {
			t.Run(sc.name+"/"+st.name, func(t *testing.T) {
				withRapid(t, 1, budget)
				if o := runScenario(t.Name(), st.opts, sc.body(true)); o.failed {
					t.Fatalf("the correct version failed:\n%s", o.output)
				}
			})
		}
	}
}

func TestExhaustiveSearchKillsClassicBugs(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			o := record(t.Name(), func(tb rapid.TB) { sched.Explore(tb, sched.Options{Preemptions: 2}, sc.body(false)) })
			if !o.failed || !strings.Contains(o.output, sc.message) {
				t.Fatalf("the search with 2 preemptions missed the bug:\n%s", o.output)
			}
			t.Logf("killed at schedule %d", schedulesToFail(o.output))

			var ex sched.Exploration
			if o := record(t.Name(), func(tb rapid.TB) { ex = sched.Explore(tb, sched.Options{Preemptions: 2}, sc.body(true)) }); o.failed {
				t.Fatalf("the correct version failed:\n%s", o.output)
			}
			if !ex.Complete {
				t.Fatalf("the search of the correct version stopped early after %d schedules", ex.Schedules)
			}
			t.Logf("correct version: all %d schedules pass", ex.Schedules)
		})
	}
}

var classicSeeds = flag.Int("classic.seeds", 0, "measure the checks each strategy needs to kill each classic bug over seeds 1 to this, and log them")

// TestClassicBugsOverSeeds logs, for each classic bug and strategy, how many
// of the seeds kill it within the budget and the median check of the kill,
// and fails where a strategy kills a bug on fewer than half of them.
func TestClassicBugsOverSeeds(t *testing.T) {
	if *classicSeeds == 0 {
		t.Skip("measurement: run with -classic.seeds=N")
	}
	all := append(strategies[:len(strategies):len(strategies)],
		struct {
			name string
			opts sched.Options
		}{"pct-default", sched.Options{Strategy: sched.PCT(2, 0)}})
	for _, sc := range scenarios {
		for _, st := range all {
			var checks []int
			for seed := 1; seed <= *classicSeeds; seed++ {
				withRapid(t, seed, budget)
				if o := runScenario(t.Name(), st.opts, sc.body(false)); o.failed {
					checks = append(checks, checksToFail(o.output))
				}
			}
			slices.Sort(checks)
			median := 0
			if len(checks) > 0 {
				median = checks[len(checks)/2]
			}
			t.Logf("%-12s %-11s killed on %d of %d seeds, median check %d, worst %d", sc.name, st.name, len(checks), *classicSeeds, median, slices.Max(append(checks, 0)))
			// Measured over 20 seeds: every strategy kills every scenario
			// on at least 17 (ABA, the rarest); half is the floor below
			// which a strategy has lost its reach.
			if 2*len(checks) < *classicSeeds {
				t.Errorf("%s under %s: killed on %d of %d seeds, fewer than half", sc.name, st.name, len(checks), *classicSeeds)
			}
		}
	}
}
