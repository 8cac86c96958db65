//go:build sched

package sched_test

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// explore runs Explore on body with opts and returns how it ended.
func explore(t *testing.T, opts sched.Options, body func(*sched.Scheduler)) (outcome, sched.Exploration) {
	var ex sched.Exploration
	o := record(t.Name(), func(tb rapid.TB) { ex = sched.Explore(tb, opts, body) })
	return o, ex
}

func mustFail(t *testing.T, o outcome, wants ...string) {
	t.Helper()
	if !o.failed {
		t.Fatalf("the run passed:\n%s", o.output)
	}
	for _, w := range wants {
		if !strings.Contains(o.output, w) {
			t.Fatalf("the report does not say %q:\n%s", w, o.output)
		}
	}
	if testing.Verbose() {
		t.Logf("the report, as expected:\n%s", o.output)
	}
}

func TestDeadlockNamesTheWaitCycle(t *testing.T) {
	o, _ := explore(t, sched.Options{}, lockOrder(false))
	mustFail(t, o, "deadlock: no goroutine can run", "A waits for m2", "held by B", "B waits for m1", "held by A",
		"reproduce: go test -tags sched ./sched -run '^TestDeadlockNamesTheWaitCycle$'")
}

func TestLockNeverReleasedIsReported(t *testing.T) {
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var m sched.Mutex
		s.Go("A", func() { m.Lock() }) // ends holding m
		s.Go("B", func() { m.Lock(); m.Unlock() })
		s.Wait()
	})
	mustFail(t, o, "deadlock", "B waits for m1, held by A (which has ended without releasing it: blocked forever)")
}

func TestLivelockIsBoundedBySteps(t *testing.T) {
	o, _ := explore(t, sched.Options{MaxSteps: 200}, func(s *sched.Scheduler) {
		var ready atomic.Bool // nobody ever sets it
		s.Go("A", func() {
			for !ready.Load() {
				sched.Yield()
			}
		})
		s.Wait()
	})
	mustFail(t, o, "livelock: 200 scheduling steps passed", "yield ×")
}

func TestSpinWaitYieldsToTheGoroutineItWaitsFor(t *testing.T) {
	// Under every schedule the spinning goroutine lets the setter run: no
	// livelock, whatever the strategy would prefer.
	body := func(s *sched.Scheduler) {
		var ready atomic.Bool
		s.Go("waiter", func() {
			for {
				sched.Point("load ready")
				if ready.Load() {
					return
				}
				sched.Yield()
			}
		})
		s.Go("setter", func() {
			sched.Point("store ready")
			ready.Store(true)
		})
		s.Wait()
	}
	if o, ex := explore(t, sched.Options{MaxSteps: 100}, body); o.failed || !ex.Complete {
		t.Fatalf("exploration failed or stopped (%+v):\n%s", ex, o.output)
	}
	withRapid(t, 1, 50)
	for _, st := range strategies {
		if o := runScenario(t.Name(), sched.Options{Strategy: st.opts.Strategy, MaxSteps: 100}, body); o.failed {
			t.Fatalf("%s: %s", st.name, o.output)
		}
	}
}

func TestStallOutsideTheSchedulerIsReported(t *testing.T) {
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	o, _ := explore(t, sched.Options{Stall: 100 * time.Millisecond}, func(s *sched.Scheduler) {
		s.Go("A", func() {
			sched.Point("receive")
			<-release // a channel: the scheduler cannot see who would send
		})
		s.Go("B", func() { sched.Point("B") })
		s.Wait()
	})
	mustFail(t, o, "stall: goroutine A ran for more than 100ms without reaching a scheduling point")
	close(release) // A ends and unwinds the goroutines the abandoned run left parked
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left behind after the stalled one ended", n-before)
	}
}

func TestGoroutineOutsideTheSchedulerRunsFreely(t *testing.T) {
	// A goroutine started with a plain go statement is not scheduled: it runs
	// alongside, and a scheduled goroutine that spin-waits for it with Yield
	// sees it progress.
	o, ex := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var done atomic.Bool
		s.Go("A", func() {
			go func() {
				sched.Point("ignored") // not a scheduled goroutine: nothing happens
				done.Store(true)
			}()
			for !done.Load() {
				sched.Yield()
			}
		})
		s.Wait()
	})
	if o.failed || !ex.Complete {
		t.Fatalf("%+v\n%s", ex, o.output)
	}
}

func TestAtomicTypesArePoints(t *testing.T) {
	// A counter declared as sched.Int64 needs no explicit points: every
	// operation on it is one, labelled with the operation and its caller.
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var n sched.Int64
		s.Go("A", func() { increment(&n) })
		s.Go("B", func() { increment(&n) })
		s.Wait()
		if n.Load() != 2 {
			s.Fatalf("lost update: n = %d", n.Load())
		}
	})
	mustFail(t, o, "lost update: n = 1", "Load in increment", "Store in increment")
}

func increment(n *sched.Int64) { n.Store(n.Load() + 1) }

func TestGoroutineNumbersAreStable(t *testing.T) {
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		if id, ok := sched.Goroutine(); id != 0 || !ok {
			s.Fatalf("the body is goroutine %d, %v; want 0, true", id, ok)
		}
		for want, name := range []string{"A", "B"} {
			s.Go(name, func() {
				if id, ok := sched.Goroutine(); id != want+1 || !ok {
					s.Fatalf("%s is goroutine %d, %v; want %d, true", name, id, ok, want+1)
				}
			})
		}
		s.Wait()
	})
	if o.failed {
		t.Fatal(o.output)
	}
	if id, ok := sched.Goroutine(); ok {
		t.Fatalf("the test's goroutine is taken for scheduled goroutine %d", id)
	}
}

func TestGoFromCodeUnderTestIsScheduled(t *testing.T) {
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var n atomic.Int64
		worker := func() { // code under test that starts its own goroutine
			sched.Go("worker", func() {
				sched.Point("load n")
				v := n.Load()
				sched.Point("store n")
				n.Store(v + 1)
			})
			sched.Point("load n")
			v := n.Load()
			sched.Point("store n")
			n.Store(v + 1)
		}
		s.Go("A", worker)
		s.Wait()
		if n.Load() != 2 {
			s.Fatalf("lost update between A and the worker it started")
		}
	})
	mustFail(t, o, "lost update between A and the worker", "| worker")
}

func TestPanicInAScheduledGoroutineIsReported(t *testing.T) {
	withRapid(t, 1, 10)
	o := runScenario(t.Name(), sched.Options{}, func(s *sched.Scheduler) {
		s.Go("A", func() { sched.Point("before"); panic("boom") })
		s.Wait()
	})
	mustFail(t, o, "goroutine A panicked: boom", "interleaving (", "[rapid] panic after")
}

func TestRapidFailureInAScheduledGoroutine(t *testing.T) {
	withRapid(t, 1, 10)
	o := record(t.Name(), func(tb rapid.TB) {
		rapid.Check(tb, func(rt *rapid.T) {
			sched.Run(rt, sched.Options{}, func(s *sched.Scheduler) {
				s.Go("A", func() { sched.Point("check"); rt.Fatalf("checked in A") })
				s.Wait()
			})
		})
	})
	mustFail(t, o, "checked in A", "interleaving (", "[rapid] failed after")
}

func TestWaitOnlyFromTheBody(t *testing.T) {
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		s.Go("A", func() { s.Wait() })
		s.Wait()
	})
	mustFail(t, o, "Wait called from goroutine A")
}

func TestRWMutexReadersShareWritersExclude(t *testing.T) {
	var sharedSeen atomic.Bool
	o, ex := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var rw sched.RWMutex
		var readers, writers atomic.Int32
		check := func() {
			if w := writers.Load(); w > 1 || w == 1 && readers.Load() > 0 {
				s.Fatalf("%d writers and %d readers inside", w, readers.Load())
			}
			if readers.Load() == 2 {
				sharedSeen.Store(true)
			}
		}
		read := func() {
			rw.RLock()
			readers.Add(1)
			sched.Point("inside")
			check()
			readers.Add(-1)
			rw.RUnlock()
		}
		s.Go("R1", read)
		s.Go("R2", read)
		s.Go("W", func() {
			rw.Lock()
			writers.Add(1)
			sched.Point("inside")
			check()
			writers.Add(-1)
			rw.Unlock()
		})
		s.Wait()
	})
	if o.failed || !ex.Complete {
		t.Fatalf("%+v\n%s", ex, o.output)
	}
	if !sharedSeen.Load() {
		t.Fatal("no schedule had both readers inside at once")
	}
}

func TestRecursiveReadLockDeadlocksBehindAWriter(t *testing.T) {
	// As with sync.RWMutex: a writer waiting for the lock keeps new readers
	// out, so a reader that read-locks again waits for the writer, which
	// waits for the reader.
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var rw sched.RWMutex
		s.Go("R", func() {
			rw.RLock()
			sched.Point("between")
			rw.RLock()
			rw.RUnlock()
			rw.RUnlock()
		})
		s.Go("W", func() { rw.Lock(); rw.Unlock() })
		s.Wait()
	})
	mustFail(t, o, "deadlock", "R waits for m1", "W waits for m1, held by R")
}

func TestExploreDetectsNondeterminism(t *testing.T) {
	var runs atomic.Int32
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		odd := runs.Add(1)%2 == 1 // state the scheduler does not control
		s.Go("A", func() {
			sched.Point("a")
			if odd {
				sched.Point("extra")
			}
		})
		s.Go("B", func() { sched.Point("b") })
		s.Wait()
	})
	mustFail(t, o, "nondeterministic scenario")
}

func TestPreemptionBound(t *testing.T) {
	// The lost update needs one preemption: none is not enough, one is.
	if o, ex := explore(t, sched.Options{Preemptions: sched.NoPreemptions}, lostUpdate(false)); o.failed || !ex.Complete {
		t.Fatalf("without preemptions the lost update cannot happen, yet %+v:\n%s", ex, o.output)
	}
	o, _ := explore(t, sched.Options{Preemptions: 1}, lostUpdate(false))
	mustFail(t, o, "lost update", "1 preemptions")
}
