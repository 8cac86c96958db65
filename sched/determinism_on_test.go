//go:build sched

package sched_test

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// schedulesOf runs body as a rapid property under seed and opts and returns
// the schedule of every passing check and the whole output.
func schedulesOf(t *testing.T, seed int, opts sched.Options, body func(*sched.Scheduler)) ([]sched.Schedule, string) {
	withRapid(t, seed, 30)
	var got []sched.Schedule
	o := record(t.Name(), func(tb rapid.TB) {
		rapid.Check(tb, func(rt *rapid.T) { got = append(got, sched.Run(rt, opts, body)) })
	})
	return got, o.output
}

func TestOneSeedTwiceGivesTheSameSchedules(t *testing.T) {
	for _, sc := range scenarios {
		for _, st := range strategies {
			for _, correct := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/correct=%v", sc.name, st.name, correct), func(t *testing.T) {
					a, outA := schedulesOf(t, 7, st.opts, sc.body(correct))
					b, outB := schedulesOf(t, 7, st.opts, sc.body(correct))
					if len(a) != len(b) {
						t.Fatalf("%d schedules, then %d", len(a), len(b))
					}
					for i := range a {
						if at := a[i].Divergence(b[i]); at >= 0 {
							t.Fatalf("check %d: the schedules part at step %d:\n%s\n%s", i+1, at, a[i].Timeline(), b[i].Timeline())
						}
					}
					if len(a) == 0 && correct {
						t.Fatal("no schedule was recorded")
					}
					if !correct && outA != outB { // a passing run's output holds its duration
						t.Fatalf("the reports differ:\n%s\n----\n%s", outA, outB)
					}
				})
			}
		}
	}
}

// TestShrinksOpsAndScheduleTogether draws each goroutine's operations and
// the schedule from one rapid test case; the reported case is shrunk in both:
// two increments and the one preemption the lost update needs.
func TestShrinksOpsAndScheduleTogether(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			withRapid(t, 1, 100)
			o := record(t.Name(), func(tb rapid.TB) {
				rapid.Check(tb, func(rt *rapid.T) {
					ops := [2][]string{}
					for g := range ops {
						ops[g] = rapid.SliceOfN(rapid.SampledFrom([]string{"Get", "Inc"}), 1, 4).Draw(rt, fmt.Sprintf("ops %d", g))
					}
					sched.Run(rt, st.opts, func(s *sched.Scheduler) {
						var n atomic.Int64
						incs := 0
						for g := range ops {
							for _, op := range ops[g] {
								if op == "Inc" {
									incs++
								}
							}
							s.Go(fmt.Sprint("G", g), func() {
								for _, op := range ops[g] {
									s.Call(op + "()")
									sched.Point("load n")
									v := n.Load()
									if op == "Inc" {
										sched.Point("store n")
										n.Store(v + 1)
									}
									s.Return(fmt.Sprint(v))
								}
							})
						}
						s.Wait()
						if got := n.Load(); got != int64(incs) {
							s.Fatalf("lost update: n = %d after %d increments", got, incs)
						}
					})
				})
			})
			mustFail(t, o, "lost update")
			report := o.output[strings.LastIndex(o.output, "lost update: n ="):]
			// PCT's few draws (priorities, change points) shrink to the minimal
			// case; the walk's draw per decision is tied to the decisions before
			// it, so an op that shrinking removes takes the preemption along, and
			// an op or so may stay.
			calls, most := strings.Count(report, "call "), 2
			if st.name == "walk" {
				most = 3
			}
			if calls > most || !strings.Contains(report, "after 2 increments") {
				t.Fatalf("not shrunk to %d calls and two increments (%d calls):\n%s", most, calls, report)
			}
			t.Logf("shrunk to %d calls", calls)
			if m := regexp.MustCompile(`(\d+) preemptions`).FindStringSubmatch(report); m == nil || m[1] != "1" {
				t.Fatalf("not shrunk to one preemption:\n%s", report)
			}
		})
	}
}
