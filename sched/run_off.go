//go:build !sched

package sched

import (
	"fmt"
	"runtime"
	"sync"

	"pgregory.net/rapid"
)

// Without the `sched` tag nothing can be scheduled: points are empty and
// locks are sync's. Run still runs the scenario, once, with real goroutines
// running freely (a stress run, as the race detector likes), and reports a
// failure the same way, with the calls and returns in the order they were
// recorded; Explore skips.

// Scheduler is handed to a body by Run. Built without the `sched` tag it
// only starts goroutines, records calls and returns, and collects failures.
type Scheduler struct {
	mu     sync.Mutex
	opts   Options
	rec    Schedule
	ids    map[uint64]int // runtime goroutine id → goroutine number
	fail   *failure
	all    sync.WaitGroup
	others sync.WaitGroup
}

// Run runs body once. Built without the `sched` tag, the goroutines it
// starts run freely; see the package documentation.
func Run(t *rapid.T, opts Options, body func(*Scheduler)) Schedule {
	t.Helper()
	s := &Scheduler{opts: opts, rec: Schedule{Strategy: "unscheduled (built without -tags " + Tag + ")"}, ids: map[uint64]int{}}
	s.start("main", nil, func() { body(s) })
	s.all.Wait()
	if opts.Record != nil {
		opts.Record(s.rec)
	}
	if s.fail != nil {
		reportFailure(t, s.fail, s.rec, opts.repro(t.Name(), true))
	}
	return s.rec
}

// Exploration is what Explore did.
type Exploration struct {
	Schedules int  // schedules run
	Complete  bool // every schedule within the preemption bound was run
}

// Explore needs the `sched` tag: without it there is nothing to enumerate,
// and it skips the test.
func Explore(t rapid.TB, opts Options, body func(*Scheduler)) Exploration {
	t.Helper()
	t.Skipf("sched: Explore enumerates schedules only in a build with -tags %s", Tag)
	return Exploration{}
}

// Go starts fn as a goroutine of the run, named name in the timeline.
func (s *Scheduler) Go(name string, fn func()) {
	s.start(name, &s.others, fn)
}

func (s *Scheduler) start(name string, group *sync.WaitGroup, fn func()) {
	s.mu.Lock()
	id := len(s.rec.Goroutines)
	s.rec.Goroutines = append(s.rec.Goroutines, name)
	if parent, ok := s.ids[goid()]; ok {
		s.record(parent, KindSpawn, name)
	}
	s.mu.Unlock()
	s.all.Add(1)
	if group != nil {
		group.Add(1)
	}
	go func() {
		defer s.all.Done()
		if group != nil {
			defer group.Done()
		}
		s.mu.Lock()
		s.ids[goid()] = id
		s.mu.Unlock()
		normal := false
		defer func() { s.exit(id, name, normal, recover()) }()
		fn()
		normal = true
	}()
}

func (s *Scheduler) exit(id int, name string, normal bool, r any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r != nil:
		buf := make([]byte, 16<<10)
		s.failLocked(id, fmt.Sprintf("goroutine %s panicked: %v\n%s", name, r, buf[:runtime.Stack(buf, false)]),
			&failure{repanic: r, hasPanic: true})
	case !normal:
		s.failLocked(id, fmt.Sprintf("goroutine %s called runtime.Goexit (t.FailNow in a goroutine of the run? use Scheduler.Fatalf)", name),
			&failure{goexit: true})
	default:
		s.record(id, KindExit, "")
	}
}

// Wait blocks the body's goroutine until every other goroutine of the run
// has ended.
func (s *Scheduler) Wait() {
	s.mu.Lock()
	g := s.self()
	name := s.rec.Goroutines[g]
	s.record(g, KindWait, "")
	s.mu.Unlock()
	if g != 0 {
		s.Fatalf("Wait called from goroutine %s; only the body (main) may wait for the others", name)
	}
	s.others.Wait()
}

// Call records that the calling goroutine begins the operation op and
// returns the logical time, which orders the run's steps: a call recorded
// before another operation's return began after that operation ended.
func (s *Scheduler) Call(op string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(s.self(), KindCall, op)
	return int64(len(s.rec.Steps) - 1)
}

// Return records that the calling goroutine's operation ended with result,
// and returns the logical time (see Call).
func (s *Scheduler) Return(result string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record(s.self(), KindReturn, result)
	return int64(len(s.rec.Steps) - 1)
}

// Fatalf fails the run with the formatted message and ends the calling
// goroutine; the others run to their end, then Run fails the test.
func (s *Scheduler) Fatalf(format string, args ...any) {
	s.mu.Lock()
	s.failLocked(s.self(), fmt.Sprintf(format, args...), nil)
	s.mu.Unlock()
	runtime.Goexit()
}

// self returns the calling goroutine's number; a goroutine the run did not
// start gets the body's column. Called with mu held.
func (s *Scheduler) self() int { return s.ids[goid()] }

// record appends a step. Called with mu held.
func (s *Scheduler) record(g int, k Kind, what string) {
	s.rec.Steps = append(s.rec.Steps, Step{G: g, Kind: k, What: what})
}

// failLocked keeps the run's first failure. Called with mu held.
func (s *Scheduler) failLocked(g int, msg string, f *failure) {
	if s.fail != nil {
		return
	}
	if f == nil {
		f = &failure{}
	}
	f.msg = msg
	s.fail = f
	s.record(g, KindFail, headline(msg))
}
