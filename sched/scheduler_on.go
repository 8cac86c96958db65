//go:build sched

package sched

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// The turn. Exactly one party holds it at a time: a scheduled goroutine, or
// the orchestrator (the test's goroutine in Run or Explore). A goroutine that
// does not hold it is parked on its wake channel. At a scheduling point the
// holder records the step, asks the chooser who runs next and, if that is
// another goroutine, sends on its wake channel and parks. Every hand-over is a
// channel operation, so the code that scheduled goroutines run between points
// is ordered by happens-before edges and the race detector sees it as
// sequential. The turn goes back to the orchestrator through back when every
// goroutine has ended, or when the run fails.
//
// A failed run is unwound one goroutine at a time: the orchestrator wakes each
// parked goroutine, which sees aborting and ends with runtime.Goexit (which
// code under test cannot recover from) running its deferred calls alone.

type gstate uint8

const (
	runnable gstate = iota
	blocked
	done
)

// goroutine is the scheduler's record of one goroutine it runs.
type goroutine struct {
	s     *Scheduler
	id    int
	name  string
	goid  uint64
	wake  chan struct{} // capacity 1: a hand-over never blocks the giver
	state gstate
	on    any           // what a blocked goroutine waits for: a lock, or &s.join
	why   func() string // for a deadlock report: who holds what it waits for
	call  string        // its operation in progress (Scheduler.Call)
	fn    func()        // its code, until it starts
	pins  int           // ProcPin depth: the virtual P is held while above 0
	// The program counters of the last walk of its stack by caller (npcs
	// of them; 0: caller did not walk), which callerFunc reuses.
	pcs  [stackDepth]uintptr
	npcs int
}

// Scheduler runs the goroutines of one run, one at a time, and records the
// schedule. A body gets it from Run or Explore.
type Scheduler struct {
	mu        sync.Mutex // guards everything below; the stall watchdog reads under it too
	opts      Options
	choose    chooser
	gs        []*goroutine
	cur       *goroutine // holds the turn; nil while the orchestrator does
	rec       Schedule
	pending   bool // the next step recorded is the first after a preemption
	live      int
	join      byte // Wait blocks on &join (not zero-sized, so its address is its own)
	lockNames map[any]string
	fail      *failure
	aborting  bool
	unwinding bool // an orchestrator waits on back for unwound goroutines
	abandoned bool // Run gave up on a stalled goroutine; it unwinds the rest when it ends
	progress  uint64
	back      chan struct{}
	procs     []*Mutex // the virtual Ps of ProcPin, made on first use
}

func newScheduler(opts Options, c chooser, strategy string) *Scheduler {
	return &Scheduler{
		opts:      opts,
		choose:    c,
		rec:       Schedule{Strategy: strategy, Steps: make([]Step, 0, 256)},
		lockNames: map[any]string{},
		back:      make(chan struct{}, 1),
	}
}

// newGoroutine registers a goroutine that will run fn. Called with mu held.
func (s *Scheduler) newGoroutine(name string, fn func()) *goroutine {
	for _, o := range s.gs {
		if o.name == name {
			name = fmt.Sprintf("%s#%d", name, len(s.gs))
			break
		}
	}
	g := &goroutine{s: s, id: len(s.gs), name: name, wake: make(chan struct{}, 1), fn: fn}
	s.gs = append(s.gs, g)
	s.rec.Goroutines = append(s.rec.Goroutines, name)
	s.live++
	return g
}

// start launches g's real goroutine, parked until it is first given the turn.
func (s *Scheduler) start(g *goroutine) { go s.run(g) }

// run is the body of every scheduled goroutine: caller recognises a
// scheduled goroutine by this function at the bottom of its stack.
func (s *Scheduler) run(g *goroutine) {
	id := goid()
	s.mu.Lock()
	g.goid = id
	s.mu.Unlock()
	managed.Store(id, g)
	if gp := getg(); gp != 0 {
		byG.Store(gp, g)
	}
	normal := false
	defer func() {
		r := recover()
		var stack []byte
		if r != nil {
			stack = stackOf()
		}
		s.exit(g, normal, r, stack)
	}()
	s.park(g)
	fn := g.fn
	g.fn = nil
	fn()
	normal = true
}

// park waits for g's turn; a goroutine woken to be unwound ends here.
func (s *Scheduler) park(g *goroutine) {
	<-g.wake
	s.mu.Lock()
	aborting := s.aborting
	s.mu.Unlock()
	if aborting {
		runtime.Goexit()
	}
}

// record appends a step by g. Called with mu held.
func (s *Scheduler) record(g *goroutine, k Kind, what string) {
	s.rec.Steps = append(s.rec.Steps, Step{G: g.id, Kind: k, What: what, Preempted: s.pending})
	s.pending = false
	s.progress++
}

// point is a scheduling point of g: it records the step and lets the chooser
// pick who runs next. While a failed run unwinds, points do nothing.
func (s *Scheduler) point(g *goroutine, k Kind, what string) {
	s.mu.Lock()
	if s.aborting {
		s.mu.Unlock()
		return
	}
	s.record(g, k, what)
	if len(s.rec.Steps) > s.opts.maxSteps() {
		s.failLocked(g, fmt.Sprintf("livelock: %d scheduling steps passed and the goroutines have not all ended "+
			"(a spin-wait whose condition never comes true, or a retry loop that never succeeds; Options.MaxSteps sets the bound)",
			s.opts.maxSteps()), nil)
		s.mu.Unlock()
		runtime.Goexit()
	}
	if k == KindYield && !s.draw(func() { s.choose.yielded(g) }) {
		s.mu.Unlock()
		runtime.Goexit()
	}
	s.switchFrom(g, k == KindYield)
}

// switchFrom hands the turn from g to the goroutine the chooser picks, and
// parks g unless it has ended. Called with mu held; returns with it released.
func (s *Scheduler) switchFrom(g *goroutine, yield bool) {
	cands, cont := s.candidates(g, yield)
	if len(cands) == 0 {
		s.noneRunnable(g)
		return
	}
	i := 0
	if len(cands) > 1 {
		s.rec.Decisions++
		d := decision{cur: g, cands: cands, cont: cont, yield: yield, n: s.rec.Decisions}
		if !s.draw(func() { i = s.choose.pick(d) }) {
			ended := g.state == done
			s.cur = nil
			s.mu.Unlock()
			if !ended {
				runtime.Goexit() // exit gives the turn back
			}
			s.back <- struct{}{}
			return
		}
	}
	next := cands[i]
	if next == g {
		s.mu.Unlock()
		return
	}
	if cont {
		s.rec.Preemptions++
		s.pending = true
	}
	s.cur = next
	ended := g.state == done // read before the hand-over: next may change g
	s.mu.Unlock()
	next.wake <- struct{}{}
	if !ended {
		s.park(g)
	}
}

// candidates lists the goroutines that may run next, in a canonical order:
// g first when it may go on (then cont is set and picking another is a
// preemption), then the others by number. A yielding g goes last, and only if
// no other can run.
func (s *Scheduler) candidates(g *goroutine, yield bool) (cands []*goroutine, cont bool) {
	if g.state == runnable && !yield {
		cands, cont = append(cands, g), true
	}
	for _, o := range s.gs {
		if o != g && o.state == runnable {
			cands = append(cands, o)
		}
	}
	if len(cands) == 0 && g.state == runnable {
		cands = append(cands, g)
	}
	return cands, cont
}

// noneRunnable ends a run in which g can no longer run and no other can:
// success when every goroutine has ended, a deadlock otherwise. Called with mu
// held; returns with it released (or does not return, for a blocked g).
func (s *Scheduler) noneRunnable(g *goroutine) {
	if s.live > 0 {
		s.failLocked(g, s.deadlock(), nil)
	}
	ended := g.state == done
	s.cur = nil
	s.mu.Unlock()
	if !ended {
		runtime.Goexit() // a blocked g is unwound first; exit gives the turn back
	}
	s.back <- struct{}{}
}

// deadlock describes, for each goroutine that has not ended, what it waits
// for and who holds that.
func (s *Scheduler) deadlock() string {
	var b strings.Builder
	b.WriteString("deadlock: no goroutine can run")
	for _, o := range s.gs {
		if o.state != blocked {
			continue
		}
		fmt.Fprintf(&b, "\n  %s%s waits for %s", o.name, o.during(), s.nameOf(o.on))
		if o.why != nil {
			b.WriteString(", " + o.why())
		}
	}
	return b.String()
}

// during says which operation g is in, if the test reports operations.
func (g *goroutine) during() string {
	if g.call == "" {
		return ""
	}
	return " (in " + g.call + ")"
}

// holdersText says who keeps a lock from a blocked goroutine, for a deadlock
// report ("held by A"); a holder that has ended will never release it.
func holdersText(hs []*goroutine, role string) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = h.name
		if h.state == done {
			parts[i] += " (which has ended without releasing it: blocked forever)"
		}
	}
	return role + " " + strings.Join(parts, " and ")
}

// nameOf names a lock ("m1", "m2", ... in order of first use in the run) or
// the join of Wait.
func (s *Scheduler) nameOf(key any) string {
	if key == any(&s.join) {
		return "every other goroutine to end"
	}
	if n, ok := s.lockNames[key]; ok {
		return n
	}
	n := fmt.Sprintf("m%d", len(s.lockNames)+1)
	s.lockNames[key] = n
	return n
}

// block parks g until key is released and g is picked again. Called with mu
// held; returns with it released.
func (s *Scheduler) block(g *goroutine, key any, why func() string) {
	s.record(g, KindBlock, s.nameOf(key))
	g.state, g.on, g.why = blocked, key, why
	s.switchFrom(g, false)
}

// release makes runnable every goroutine blocked on key (they try again).
// Called with mu held.
func (s *Scheduler) release(key any) {
	for _, o := range s.gs {
		if o.state == blocked && o.on == key {
			o.state, o.on, o.why = runnable, nil, nil
		}
	}
}

// failLocked records the run's first failure and starts unwinding. Called
// with mu held.
func (s *Scheduler) failLocked(g *goroutine, msg string, f *failure) {
	if s.fail != nil || s.aborting {
		return
	}
	if f == nil {
		f = &failure{}
	}
	f.msg = msg
	s.fail = f
	s.aborting = true
	if msg != "" && g != nil {
		s.record(g, KindFail, headline(msg))
	}
}

// draw runs a chooser call that may draw from rapid. rapid panics when a
// shrinking attempt runs out of data; that panic belongs to rapid, so the run
// is unwound and the orchestrator panics with the same value. Called with mu
// held.
func (s *Scheduler) draw(fn func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			s.failLocked(s.cur, "", &failure{repanic: r, hasPanic: true, quiet: true})
			ok = false
		}
	}()
	fn()
	return true
}

// exit ends g: normally, by a panic (r), or by runtime.Goexit (an unwound
// goroutine, or t.FailNow in a scheduled goroutine).
func (s *Scheduler) exit(g *goroutine, normal bool, r any, stack []byte) {
	s.mu.Lock()
	managed.Delete(g.goid)
	if gp := getg(); gp != 0 {
		byG.Delete(gp) // the runtime reuses it for another goroutine
	}
	g.state = done
	s.live--
	switch {
	case s.aborting:
	case r != nil:
		s.failLocked(g, fmt.Sprintf("goroutine %s panicked: %v\n%s", g.name, r, stack),
			&failure{repanic: r, hasPanic: true})
	case !normal:
		s.failLocked(g, fmt.Sprintf("goroutine %s called runtime.Goexit (t.FailNow in a scheduled goroutine? use Scheduler.Fatalf)", g.name),
			&failure{goexit: true})
	default:
		s.record(g, KindExit, "")
		if s.live == 1 {
			s.release(&s.join)
		}
		s.switchFrom(g, false)
		return
	}
	takeOver := s.abandoned && !s.unwinding
	if takeOver {
		s.unwinding = true
	}
	s.cur = nil
	s.mu.Unlock()
	if takeOver {
		s.unwind(nil)
		end(s)
		return
	}
	s.back <- struct{}{}
}

// stackOf returns the stack of a panicking goroutine, from inside its
// deferred recover, without the runtime's own frames.
func stackOf() []byte {
	buf := make([]byte, 16<<10)
	return buf[:runtime.Stack(buf, false)]
}
