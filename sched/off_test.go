//go:build !sched

package sched_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// Without the tag the lock and atomic types are sync's own: the same types, so the
// normal build pays nothing for them.
var (
	_ *sync.Mutex          = (*sched.Mutex)(nil)
	_ *sync.RWMutex        = (*sched.RWMutex)(nil)
	_ *atomic.Bool         = (*sched.Bool)(nil)
	_ *atomic.Int32        = (*sched.Int32)(nil)
	_ *atomic.Int64        = (*sched.Int64)(nil)
	_ *atomic.Uint32       = (*sched.Uint32)(nil)
	_ *atomic.Uint64       = (*sched.Uint64)(nil)
	_ *atomic.Uintptr      = (*sched.Uintptr)(nil)
	_ *atomic.Pointer[int] = (*sched.Pointer[int])(nil)
)

func TestUnscheduledRunStillChecksAndReports(t *testing.T) {
	withRapid(t, 1, 5)
	o := record(t.Name(), func(tb rapid.TB) {
		rapid.Check(tb, func(rt *rapid.T) {
			sched.Run(rt, sched.Options{}, func(s *sched.Scheduler) {
				s.Go("A", func() {
					s.Call("Check()")
					s.Fatalf("checked in A")
				})
				s.Wait()
			})
		})
	})
	for _, want := range []string{"checked in A", "unscheduled (built without -tags sched)", "call Check()",
		"reproduce: go test -tags sched ./sched -run '^TestUnscheduledRunStillChecksAndReports$'"} {
		if !o.failed || !strings.Contains(o.output, want) {
			t.Fatalf("the report does not say %q:\n%s", want, o.output)
		}
	}
}

func TestCorrectScenariosPassUnscheduled(t *testing.T) {
	withRapid(t, 1, 20)
	for _, sc := range scenarios {
		o := record(t.Name(), func(tb rapid.TB) {
			rapid.Check(tb, func(rt *rapid.T) { sched.Run(rt, sched.Options{}, sc.body(true)) })
		})
		if o.failed {
			t.Fatalf("%s: %s", sc.name, o.output)
		}
	}
}

func TestExploreNeedsTheTag(t *testing.T) {
	ran := false
	o := record(t.Name(), func(tb rapid.TB) {
		sched.Explore(tb, sched.Options{}, func(*sched.Scheduler) { ran = true })
	})
	if o.failed || ran || !strings.Contains(o.output, "-tags sched") {
		t.Fatalf("Explore did not skip: ran=%v\n%s", ran, o.output)
	}
}

func TestProcPinNeedsTheTag(t *testing.T) {
	if p, ok := sched.ProcPin(); ok || p != 0 {
		t.Fatalf("ProcPin without the tag = %d, %v", p, ok)
	}
	sched.ProcUnpin()
}

func TestRecordGetsTheStressRun(t *testing.T) {
	withRapid(t, 1, 3)
	n := 0
	o := record(t.Name(), func(tb rapid.TB) {
		rapid.Check(tb, func(rt *rapid.T) {
			sched.Run(rt, sched.Options{Record: func(sched.Schedule) { n++ }}, func(s *sched.Scheduler) {
				s.Go("A", func() { s.Call("Op()"); s.Return("ok") })
				s.Wait()
			})
		})
	})
	if o.failed || n != 3 {
		t.Fatalf("%d runs recorded of 3:\n%s", n, o.output)
	}
}
