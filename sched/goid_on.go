//go:build sched

package sched

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// Points and locks take no argument that names the scheduler, so caller
// must recognise the goroutine that calls them. The sure way is its runtime
// id, parsed from runtime.Stack: managed maps the id of every goroutine a
// scheduler runs to its record. That costs a formatted traceback, so the
// common case takes a shortcut: while a single scheduler has goroutines
// alive (solo), a caller whose stack starts in Scheduler.run is one of them,
// and since only the holder of the turn runs code under test, it is the
// holder. running counts the schedulers with goroutines alive, so that a
// build with the tag pays one atomic load per point while none is.
var (
	managed sync.Map // goroutine id (uint64) → *goroutine
	byG     sync.Map // the runtime's g of a scheduled goroutine (getg) → *goroutine
	running atomic.Int32

	liveMu sync.Mutex
	live   = map[*Scheduler]bool{}
	solo   atomic.Pointer[Scheduler]
)

// begin and end bracket the life of a scheduler's goroutines.
func begin(s *Scheduler) { setLive(s, true) }
func end(s *Scheduler)   { setLive(s, false) }

func setLive(s *Scheduler, on bool) {
	liveMu.Lock()
	defer liveMu.Unlock()
	if on {
		live[s] = true
		running.Add(1)
	} else {
		delete(live, s)
		running.Add(-1)
	}
	solo.Store(nil)
	if len(live) == 1 {
		for only := range live {
			solo.Store(only)
		}
	}
}

// caller returns the scheduled goroutine that is calling, or nil for any
// other goroutine (one started with a plain go statement, or a test that does
// not run under a scheduler).
func caller() *goroutine {
	if running.Load() == 0 {
		return nil
	}
	if gp := getg(); gp != 0 {
		if g, ok := byG.Load(gp); ok {
			return g.(*goroutine)
		}
		return nil
	}
	if s := solo.Load(); s != nil {
		var pcs [stackDepth]uintptr
		n := runtime.Callers(2, pcs[:])
		scheduled, sure := startsInRun(pcs[:n])
		if sure && !scheduled {
			return nil
		}
		if sure {
			s.mu.Lock()
			g := s.cur
			s.mu.Unlock()
			if g != nil {
				// The walk names the function at the point too
				// (callerFunc): keep it, it is the costly part.
				g.pcs, g.npcs = pcs, n
				return g
			}
		}
	}
	if g, ok := managed.Load(goid()); ok {
		g := g.(*goroutine)
		g.npcs = 0
		return g
	}
	return nil
}

// alone reports that a point has nothing to choose: one scheduler runs, and
// only one of its goroutines has not ended (the body, before it starts the
// others or after they have ended). Whether the caller is that goroutine or
// one the scheduler does not run, the point does nothing then, and caller's
// walk of the stack, the costly part of a point, is saved. Such points are
// not recorded: the body's set-up and final checks leave only their calls,
// returns and locks in the timeline. Locks still are steps: they keep
// their holders for the goroutines to come.
func alone() bool {
	if running.Load() == 0 {
		return true
	}
	s := solo.Load()
	if s == nil {
		return false
	}
	s.mu.Lock()
	one := s.live == 1
	s.mu.Unlock()
	return one
}

// stackDepth is how many frames caller walks: a goroutine whose stack is
// deeper is told by its id instead.
const stackDepth = 64

// startsInRun reports whether the stack pcs, walked from the caller's
// caller, starts in Scheduler.run; sure is false when the stack is deeper
// than the walk.
func startsInRun(pcs []uintptr) (scheduled, sure bool) {
	n := len(pcs)
	if n == stackDepth || n < 2 {
		return false, false
	}
	// The outermost frame is runtime.goexit; the one above it is the
	// function the go statement started. A return address may lie just past
	// its function's end, hence pc−1.
	pc := pcs[n-2] - 1
	if v, ok := entryPCs.Load(pc); ok {
		return v.(bool), true
	}
	f := runtime.FuncForPC(pc)
	is := f != nil && f.Name() == pkgPrefix+"(*Scheduler).run"
	entryPCs.Store(pc, is)
	return is, true
}

var entryPCs sync.Map // pc → whether it lies in Scheduler.run

// pkgPrefix is this package's path and a dot, as function names start.
var pkgPrefix = func() string {
	pc, _, _, _ := runtime.Caller(0)
	name := runtime.FuncForPC(pc).Name() // ".../sched.init.func1" or the like
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	return name[:slash+1+dot+1]
}()
