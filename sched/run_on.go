//go:build sched

package sched

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"pgregory.net/rapid"
)

// Run runs body once under the scheduler: body runs as the goroutine "main",
// starts others with Scheduler.Go, and every choice of which goroutine runs
// next is drawn from t with opts.Strategy. Run returns the schedule once every
// goroutine has ended. A failure (Scheduler.Fatalf, a panic, t.Fatal in a
// scheduled goroutine, a deadlock, a livelock, a stall) fails t with the
// timeline and the repro command; rapid then shrinks the draws — the test's
// and the schedule's together — and replays the smallest failing case.
func Run(t *rapid.T, opts Options, body func(*Scheduler)) Schedule {
	t.Helper()
	var c chooser = &walk{t: t}
	if opts.Strategy.pct {
		c = &pct{t: t, depth: opts.Strategy.depth, steps: opts.Strategy.steps}
	}
	s := newScheduler(opts, c, opts.Strategy.String())
	s.execute(body)
	s.mu.Lock() // a stalled goroutine may still be running
	rec := s.rec
	s.mu.Unlock()
	if opts.Record != nil {
		opts.Record(rec)
	}
	if s.fail != nil {
		s.report(t, true)
	}
	return rec
}

// Exploration is what Explore did.
type Exploration struct {
	Schedules int  // schedules run
	Complete  bool // every schedule within the preemption bound was run
}

// Explore runs body once for every schedule with at most opts.Preemptions
// preemptions (depth-first, the schedule without preemptions first), or
// until opts.MaxSchedules. body must build its state afresh on every call.
// The first failing schedule fails t; the search is deterministic, so the
// same command finds it again. A scenario whose choices differ between two
// runs of the same schedule (it depends on something the scheduler does not
// control: a map's order, time, a goroutine it does not run) fails too.
// t may be a *rapid.T, to explore every schedule of each drawn test case.
func Explore(t rapid.TB, opts Options, body func(*Scheduler)) Exploration {
	t.Helper()
	d := &dfs{bound: opts.preemptions()}
	_, withRapid := t.(*rapid.T)
	for n := 1; ; n++ {
		strategy := fmt.Sprintf("exhaustive (preemptions ≤ %d), schedule %d", d.bound, n)
		s := newScheduler(opts, d, strategy)
		s.execute(body)
		if opts.Record != nil {
			opts.Record(s.rec)
		}
		switch {
		case d.mismatch == "":
		case s.fail == nil:
			s.fail = &failure{msg: d.mismatch}
		case !s.fail.quiet:
			s.fail.msg = d.mismatch + "\nand then: " + s.fail.msg
		}
		if s.fail != nil {
			s.report(t, withRapid)
			return Exploration{Schedules: n}
		}
		if !d.advance() {
			return Exploration{Schedules: n, Complete: true}
		}
		if n >= opts.maxSchedules() {
			t.Logf("sched: stopped after %d schedules (Options.MaxSchedules); the search is incomplete", n)
			return Exploration{Schedules: n}
		}
	}
}

// execute runs body as the goroutine "main" and returns when every
// goroutine has ended or been unwound, or when one has stalled.
func (s *Scheduler) execute(body func(*Scheduler)) {
	s.mu.Lock()
	g := s.newGoroutine("main", func() { body(s) })
	ok := s.draw(func() { s.choose.started(g) })
	s.mu.Unlock()
	if !ok {
		return
	}
	begin(s)
	s.start(g)
	s.mu.Lock()
	s.cur = g
	s.mu.Unlock()
	g.wake <- struct{}{}
	if !s.await() {
		return // abandoned: the stalled goroutine unwinds the rest if it ends
	}
	s.mu.Lock()
	s.unwinding = true
	s.mu.Unlock()
	if s.unwind(s.await) {
		end(s)
	}
}

// unwind ends every goroutine still parked, one at a time, and reports
// whether all ended; wait waits for the turn to come back (nil: block).
func (s *Scheduler) unwind(wait func() bool) bool {
	for _, g := range s.gs {
		s.mu.Lock()
		if g.state == done {
			s.mu.Unlock()
			continue
		}
		s.aborting = true
		s.cur = g
		s.mu.Unlock()
		g.wake <- struct{}{}
		if wait == nil {
			<-s.back
		} else if !wait() {
			return false
		}
	}
	return true
}

// await waits for the turn to come back to the orchestrator. It returns
// false, after failing the run, when the goroutine holding the turn makes no
// step for longer than opts.Stall.
func (s *Scheduler) await() bool {
	stall := s.opts.stall()
	tick := time.NewTicker(max(stall/8, time.Millisecond))
	defer tick.Stop()
	s.mu.Lock()
	last, since := s.progress, time.Now()
	s.mu.Unlock()
	for {
		select {
		case <-s.back:
			return true
		case now := <-tick.C:
			s.mu.Lock()
			if s.progress != last {
				last, since = s.progress, now
			} else if now.Sub(since) > stall {
				s.stalled()
				s.mu.Unlock()
				return false
			}
			s.mu.Unlock()
		}
	}
}

// stalled fails the run whose turn holder has run past opts.Stall without a
// step. Its goroutine cannot be stopped from outside: the run is abandoned,
// and that goroutine unwinds the others if it ever ends. Called with mu held.
func (s *Scheduler) stalled() {
	who, stack := "the run", ""
	if g := s.cur; g != nil {
		who, stack = "goroutine "+g.name+g.during(), stackOfGoroutine(g.goid)
	}
	msg := fmt.Sprintf("stall: %s ran for more than %v without reaching a scheduling point: it is blocked "+
		"outside the scheduler (a channel, a sync.WaitGroup, a lock that is not a sched.Mutex, a goroutine "+
		"started without sched.Go, time, I/O) or loops without a point", who, s.opts.stall())
	if stack != "" {
		msg += "\n" + stack
	}
	aborting := s.aborting
	s.aborting = true
	s.abandoned, s.unwinding = true, false
	if s.fail == nil || !aborting {
		s.fail = &failure{msg: msg}
	} else {
		s.fail.msg += "\n(and then, while unwinding) " + msg
	}
	if s.cur != nil {
		s.record(s.cur, KindFail, headline(msg))
	}
}

// stackOfGoroutine returns the stack of the goroutine with runtime id id.
func stackOfGoroutine(id uint64) string {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	head := "goroutine " + strconv.FormatUint(id, 10) + " "
	for _, st := range strings.Split(all, "\n\n") {
		if strings.HasPrefix(st, head) {
			return st
		}
	}
	return ""
}

// report fails t with the run's failure.
func (s *Scheduler) report(t rapid.TB, withRapid bool) {
	t.Helper()
	reportFailure(t, s.fail, s.rec, s.opts.repro(t.Name(), withRapid))
}
