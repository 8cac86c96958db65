//go:build sched

package sched

import "fmt"

// ProcPin is the scheduler's stand-in for the runtime's procPin (the pin
// that sync.Pool uses for its per-P slots). Called from a goroutine a
// scheduler runs, it pins the goroutine to a virtual P of the run, chosen
// by the goroutine's number (g mod Options.Procs, the same on every replay),
// and returns the P's number and true. While pinned, no other goroutine of
// the run is pinned to that P — what the real pin guarantees the code
// between the two calls — but every goroutine goes on reaching points, so
// the pinned code interleaves with the other Ps' at each of them (the real
// pin would throw if a pinned goroutine parked at a point). Pins nest, as
// the runtime's do. From any other goroutine it returns 0, false, and the
// code pins itself for real:
//
//	func procPin() int {
//		if p, ok := sched.ProcPin(); ok {
//			return p
//		}
//		return runtimeProcPin()
//	}
func ProcPin() (int, bool) {
	g := caller()
	if g == nil {
		return 0, false
	}
	p := g.id % g.s.opts.procs()
	g.pins++
	if g.pins == 1 {
		g.s.proc(p).Lock()
	}
	return p, true
}

// ProcUnpin undoes ProcPin; from a goroutine no scheduler runs it does
// nothing.
func ProcUnpin() {
	g := caller()
	if g == nil || g.pins == 0 {
		return
	}
	g.pins--
	if g.pins == 0 {
		g.s.proc(g.id % g.s.opts.procs()).Unlock()
	}
}

// proc returns the lock of virtual P p, named "P<p>" in the timeline. The
// locks belong to the run, so a failed run, whose goroutines are unwound
// wherever they were, leaves them behind with itself.
func (s *Scheduler) proc(p int) *Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.procs == nil {
		s.procs = make([]*Mutex, s.opts.procs())
		for i := range s.procs {
			s.procs[i] = new(Mutex)
			s.lockNames[s.procs[i]] = fmt.Sprintf("P%d", i)
		}
	}
	return s.procs[p]
}
