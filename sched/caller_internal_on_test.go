//go:build sched

package sched

import (
	"runtime"
	"testing"
)

// TestCallerShortcutAgreesWithTheGoroutineID checks caller's shortcut (the
// stack starts in Scheduler.run) against the goroutine id, for a scheduled
// goroutine and for a plain one it starts.
func TestCallerShortcutAgreesWithTheGoroutineID(t *testing.T) {
	var checked bool
	Explore(t, Options{Preemptions: NoPreemptions}, func(s *Scheduler) {
		check := func(where string, want bool) {
			scheduled, sure := startsInRun(stackPCs())
			g, _ := managed.Load(goid())
			if !sure || scheduled != want || (g != nil) != want || want && caller() != g.(*goroutine) {
				t.Errorf("%s: shortcut says scheduled=%v (sure=%v), id says %v", where, scheduled, sure, g != nil)
			}
		}
		check("body", true)
		plain := make(chan struct{})
		s.Go("A", func() {
			check("A", true)
			go func() { check("plain goroutine", false); close(plain) }()
			<-plain
		})
		s.Wait()
		checked = true
	})
	if !checked {
		t.Fatal("the body did not run")
	}
	if scheduled, _ := startsInRun(stackPCs()); scheduled || caller() != nil {
		t.Fatal("the test's own goroutine is taken for a scheduled one")
	}
}

// stackPCs walks the caller's stack as caller does.
func stackPCs() []uintptr {
	var pcs [stackDepth]uintptr
	return pcs[:runtime.Callers(2, pcs[:])]
}
