//go:build sched

package sched

import (
	"fmt"
	"runtime"
)

// Enabled reports whether this binary was built with the `sched` tag, that is
// whether Point, Yield, Go, Mutex and RWMutex hand control to a scheduler.
const Enabled = true

// Point marks a place where another goroutine may run first: put one before
// every access to shared state that another goroutine can change. Called
// from a goroutine a scheduler runs, it is a scheduling point labelled label
// in the timeline; from any other goroutine it does nothing.
func Point(label string) {
	if alone() {
		return
	}
	if g := caller(); g != nil {
		g.s.point(g, KindPoint, label)
	}
}

// Yield gives the processor to another goroutine, as spin-waits must. Under
// a scheduler it lets every other runnable goroutine go first (so a spin-wait
// cannot starve the goroutine it waits for), then calls runtime.Gosched.
func Yield() {
	if g := caller(); g != nil {
		g.s.point(g, KindYield, "")
	}
	runtime.Gosched() // a goroutine outside the scheduler may be what the spin-wait waits for
}

// Goroutine returns the calling goroutine's number in its scheduled run (0
// runs the body, the others are numbered as they start) and true; outside a
// scheduled run it returns 0, false. Code that picks per-P or per-thread
// state (procPin) uses it to pick the same state on every replay.
func Goroutine() (int, bool) {
	if g := caller(); g != nil {
		return g.id, true
	}
	return 0, false
}

// Go starts fn in a new goroutine. Called from a goroutine a scheduler runs,
// the new goroutine is scheduled too, named name in the timeline; from any
// other goroutine it is `go fn()`.
func Go(name string, fn func()) {
	if g := caller(); g != nil {
		g.s.spawn(g, name, fn)
		return
	}
	go fn()
}

// Go starts fn as a goroutine of the run, named name in the timeline. It
// must be called from a goroutine of the run (the body, or one it started).
func (s *Scheduler) Go(name string, fn func()) {
	s.spawn(s.self("Go"), name, fn)
}

// spawn starts fn as a new goroutine of s, then makes a scheduling point of
// the parent's, so the child may run first.
func (s *Scheduler) spawn(parent *goroutine, name string, fn func()) {
	s.mu.Lock()
	if s.aborting {
		s.mu.Unlock()
		runtime.Goexit() // no new goroutine joins a run that is being unwound
	}
	g := s.newGoroutine(name, fn)
	ok := s.draw(func() { s.choose.started(g) })
	if !ok {
		g.state = done
		s.live--
		s.mu.Unlock()
		runtime.Goexit()
	}
	s.start(g)
	s.mu.Unlock()
	s.point(parent, KindSpawn, g.name)
}

// Wait blocks the body's goroutine until every other goroutine of the run
// has ended, so the body can check the final state. It must be called from
// the body's goroutine.
func (s *Scheduler) Wait() {
	g := s.self("Wait")
	if g.id != 0 {
		s.Fatalf("Wait called from goroutine %s; only the body (main) may wait for the others", g.name)
	}
	s.mu.Lock()
	if s.aborting {
		s.mu.Unlock()
		return
	}
	s.record(g, KindWait, "")
	if s.live > 1 {
		g.state, g.on, g.why = blocked, any(&s.join), nil
	}
	s.switchFrom(g, false)
}

// Call records that the calling goroutine begins the operation op (its text
// in the timeline) and returns the logical time: the step's index, which
// orders every step of the run. It is not a scheduling point.
func (s *Scheduler) Call(op string) int64 {
	g := s.self("Call")
	s.mu.Lock()
	defer s.mu.Unlock()
	g.call = op
	s.record(g, KindCall, op)
	return int64(len(s.rec.Steps) - 1)
}

// Return records that the calling goroutine's operation ended with result,
// and returns the logical time (see Call).
func (s *Scheduler) Return(result string) int64 {
	g := s.self("Return")
	s.mu.Lock()
	defer s.mu.Unlock()
	g.call = ""
	s.record(g, KindReturn, result)
	return int64(len(s.rec.Steps) - 1)
}

// Fatalf fails the run with the formatted message and ends the calling
// goroutine; Run then fails the test with the timeline. It must be called
// from a goroutine of the run.
func (s *Scheduler) Fatalf(format string, args ...any) {
	g := s.self("Fatalf")
	s.mu.Lock()
	s.failLocked(g, fmt.Sprintf(format, args...), nil)
	s.mu.Unlock()
	runtime.Goexit()
}

// self returns the calling goroutine's record; calling a Scheduler method
// from a goroutine the run does not own is a programming error in the test.
func (s *Scheduler) self(method string) *goroutine {
	g := caller()
	if g == nil || g.s != s {
		panic(fmt.Sprintf("sched: Scheduler.%s called from a goroutine this run does not schedule; start goroutines with Scheduler.Go or sched.Go", method))
	}
	return g
}
