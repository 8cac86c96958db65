//go:build sched

package sched_test

import (
	"fmt"
	"testing"

	"github.com/memverify/memverify/sched"
)

// Under every schedule, two goroutines pinned to one virtual P never run
// their pinned code at once, and goroutines of different Ps do, in some.
func TestProcPinExcludesItsP(t *testing.T) {
	overlapped := false
	o, ex := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var inside [2]int // goroutines inside their pinned section, by P
		for i := range 3 {
			s.Go(fmt.Sprint("G", i+1), func() {
				p, ok := sched.ProcPin()
				if !ok {
					s.Fatalf("ProcPin in a scheduled goroutine answered false")
				}
				inside[p]++
				if inside[p] > 1 {
					s.Fatalf("two goroutines pinned to P%d at once", p)
				}
				sched.Point("pinned")
				overlapped = overlapped || inside[0] > 0 && inside[1] > 0
				inside[p]--
				sched.ProcUnpin()
			})
		}
		s.Wait()
	})
	if o.failed || !ex.Complete {
		t.Fatalf("%+v\n%s", ex, o.output)
	}
	if !overlapped {
		t.Fatalf("in %d schedules, goroutines of P0 and P1 were never pinned at once", ex.Schedules)
	}
}

// Pins nest, as the runtime's do: the inner pair neither blocks nor lets
// the P go.
func TestProcPinNests(t *testing.T) {
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		s.Go("A", func() {
			p, _ := sched.ProcPin()
			q, _ := sched.ProcPin()
			if p != q {
				s.Fatalf("nested pins on P%d and P%d", p, q)
			}
			sched.ProcUnpin()
			sched.Point("still pinned")
			sched.ProcUnpin()
		})
		s.Wait()
	})
	if o.failed {
		t.Fatal(o.output)
	}
}

func TestProcPinOutsideARunIsFalse(t *testing.T) {
	if p, ok := sched.ProcPin(); ok || p != 0 {
		t.Fatalf("ProcPin outside a run = %d, %v", p, ok)
	}
	sched.ProcUnpin() // a no-op
}

// A run that fails while a goroutine is parked between an Unlock and its
// Lock again unwinds it; its deferred Unlock then releases a lock it does
// not hold, which is skipped instead of sync's fatal error.
func TestUnwindingSkipsTheUnlockOfALockNotHeld(t *testing.T) {
	o, _ := explore(t, sched.Options{}, func(s *sched.Scheduler) {
		var mu sched.Mutex
		between := false
		s.Go("A", func() {
			mu.Lock()
			defer mu.Unlock()
			mu.Unlock()
			between = true // the Unlock's point may let B run here
			sched.Point("between")
			between = false
			mu.Lock()
		})
		s.Go("B", func() {
			if between {
				s.Fatalf("B ran while A was between its Unlock and its Lock")
			}
		})
		s.Wait()
	})
	mustFail(t, o, "B ran while A was between")
}

// Options.Record receives every schedule a run makes.
func TestRecordGetsEverySchedule(t *testing.T) {
	var got []sched.Schedule
	o, ex := explore(t, sched.Options{Record: func(s sched.Schedule) { got = append(got, s) }}, func(s *sched.Scheduler) {
		s.Go("A", func() { sched.Point("a") })
		s.Wait()
	})
	if o.failed || len(got) != ex.Schedules || len(got) == 0 {
		t.Fatalf("%d schedules recorded of %d\n%s", len(got), ex.Schedules, o.output)
	}
}
