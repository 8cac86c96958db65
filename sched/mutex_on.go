//go:build sched

package sched

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// Mutex is a mutual exclusion lock that the scheduler sees. A scheduled
// goroutine reaches a scheduling point before it takes the lock and after it
// releases it; when the lock is held by another scheduled goroutine it blocks
// in the scheduler (it is not runnable, so the holder runs, and a cycle of
// such waits is reported as a deadlock). Any other goroutine uses the real
// lock underneath, so a Mutex works in every goroutine. The zero value is
// unlocked; a Mutex must not be copied after first use.
type Mutex struct {
	mu     sync.Mutex
	book   sync.Mutex // guards holder
	holder *goroutine // the scheduled goroutine that holds mu; nil: free, or held by another goroutine
}

// Lock locks m.
func (m *Mutex) Lock() {
	g := caller()
	if g == nil {
		m.mu.Lock()
		return
	}
	g.s.acquire(g, m, "", func() bool { return m.take(g) }, func() ([]*goroutine, string) {
		m.book.Lock()
		defer m.book.Unlock()
		if m.holder == nil {
			return nil, ""
		}
		return []*goroutine{m.holder}, "held by"
	})
}

// TryLock tries to lock m and reports whether it did.
func (m *Mutex) TryLock() bool {
	g := caller()
	if g == nil {
		return m.mu.TryLock()
	}
	g.s.point(g, KindLock, g.s.lockLabel(g, m, "try"))
	return m.take(g)
}

// take takes m for g if it is free.
func (m *Mutex) take(g *goroutine) bool {
	if !m.mu.TryLock() {
		return false
	}
	m.book.Lock()
	m.holder = g
	m.book.Unlock()
	return true
}

// Unlock unlocks m. As with sync.Mutex, it is a run-time error if m is not
// locked; but see unwound.
func (m *Mutex) Unlock() {
	g := caller()
	g.release(&m.book, m, "", func() bool { return m.holder == g }, func() { m.holder = nil }, m.mu.Unlock)
}

// release releases a lock that the scheduler sees, key, for g (nil: a
// goroutine no scheduler runs): under book, it forgets g as a holder, then
// releases the real lock and makes the point after the release. held says
// whether g holds the lock; one that does not, being unwound, skips it all
// (see unwound). held is read under book, so it is a func.
func (g *goroutine) release(book *sync.Mutex, key any, mode string, held func() bool, forget, unlock func()) {
	book.Lock()
	if g.unwound(!held()) {
		book.Unlock()
		return
	}
	forget()
	book.Unlock()
	unlock()
	if g != nil {
		g.s.released(g, key, mode)
	}
}

// unwound reports whether g, a goroutine of a failed run being unwound,
// releases a lock it does not hold (notHeld): a deferred Unlock after an
// Unlock at whose point the unwinding caught it, before its Lock again. That
// release is skipped: sync's would be a fatal error, which no test survives,
// and the run has failed already.
func (g *goroutine) unwound(notHeld bool) bool {
	if g == nil || !notHeld {
		return false
	}
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	return g.s.aborting
}

// RWMutex is a reader/writer lock that the scheduler sees (see Mutex). As in
// sync.RWMutex, a writer waiting for the lock keeps new readers out, so a
// goroutine that read-locks twice while a writer waits deadlocks, and the
// scheduler reports it.
type RWMutex struct {
	rw      sync.RWMutex
	book    sync.Mutex   // guards the fields below
	writer  *goroutine   // the scheduled goroutine holding the write lock
	readers []*goroutine // scheduled goroutines holding a read lock
	pending []*goroutine // scheduled writers waiting
}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() {
	g := caller()
	if g == nil {
		rw.rw.Lock()
		return
	}
	waiting := false
	g.s.acquire(g, rw, "", func() bool {
		rw.book.Lock()
		defer rw.book.Unlock()
		ok := rw.rw.TryLock()
		if ok {
			rw.writer = g
		}
		if ok && waiting {
			rw.pending = remove(rw.pending, g)
		} else if !ok && !waiting {
			rw.pending, waiting = append(rw.pending, g), true
		}
		return ok
	}, func() ([]*goroutine, string) {
		rw.book.Lock()
		defer rw.book.Unlock()
		if rw.writer != nil {
			return []*goroutine{rw.writer}, "held by"
		}
		return append([]*goroutine(nil), rw.readers...), "held by"
	})
}

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	g := caller()
	if g == nil {
		rw.rw.RLock()
		return
	}
	g.s.acquire(g, rw, " (read)", func() bool { return rw.takeRead(g) }, func() ([]*goroutine, string) {
		rw.book.Lock()
		defer rw.book.Unlock()
		if rw.writer != nil {
			return []*goroutine{rw.writer}, "held by"
		}
		return append([]*goroutine(nil), rw.pending...), "kept from readers by the waiting writer"
	})
}

// TryLock tries to lock rw for writing and reports whether it did.
func (rw *RWMutex) TryLock() bool {
	g := caller()
	if g == nil {
		return rw.rw.TryLock()
	}
	g.s.point(g, KindLock, g.s.lockLabel(g, rw, "try"))
	rw.book.Lock()
	defer rw.book.Unlock()
	ok := rw.rw.TryLock()
	if ok {
		rw.writer = g
	}
	return ok
}

// TryRLock tries to lock rw for reading and reports whether it did.
func (rw *RWMutex) TryRLock() bool {
	g := caller()
	if g == nil {
		return rw.rw.TryRLock()
	}
	g.s.point(g, KindLock, g.s.lockLabel(g, rw, "try (read)"))
	return rw.takeRead(g)
}

// takeRead read-locks rw for g unless it is write-locked or a writer
// waits (as sync's, a waiting writer keeps new readers out).
func (rw *RWMutex) takeRead(g *goroutine) bool {
	rw.book.Lock()
	defer rw.book.Unlock()
	if len(rw.pending) > 0 || !rw.rw.TryRLock() {
		return false
	}
	rw.readers = append(rw.readers, g)
	return true
}

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() {
	g := caller()
	g.release(&rw.book, rw, "", func() bool { return rw.writer == g }, func() { rw.writer = nil }, rw.rw.Unlock)
}

// RUnlock undoes one RLock.
func (rw *RWMutex) RUnlock() {
	g := caller()
	g.release(&rw.book, rw, " (read)", func() bool { return slices.Contains(rw.readers, g) }, func() {
		if g != nil {
			rw.readers = remove(rw.readers, g)
		}
	}, rw.rw.RUnlock)
}

// RLocker returns a Locker whose Lock and Unlock call rw.RLock and
// rw.RUnlock.
func (rw *RWMutex) RLocker() sync.Locker { return rlocker{rw} }

type rlocker struct{ rw *RWMutex }

func (r rlocker) Lock()   { r.rw.RLock() }
func (r rlocker) Unlock() { r.rw.RUnlock() }

func remove(gs []*goroutine, g *goroutine) []*goroutine {
	for i, o := range gs {
		if o == g {
			return append(gs[:i], gs[i+1:]...)
		}
	}
	return gs
}

// acquire takes a lock for g: a scheduling point, then try until it
// succeeds. While try fails because scheduled goroutines keep g out
// (blockers: the holders, or for a reader the waiting writers, and how they
// keep it out), g blocks until the lock is released; when it is held outside the
// scheduler, g spins, letting the others run and the holder progress.
func (s *Scheduler) acquire(g *goroutine, key any, mode string, try func() bool, blockers func() ([]*goroutine, string)) {
	s.point(g, KindLock, s.lockLabel(g, key, mode))
	for !try() {
		s.mu.Lock()
		if s.aborting {
			s.mu.Unlock()
			runtime.Goexit() // a lock that cannot be had while unwinding ends the goroutine
		}
		if hs, _ := blockers(); len(hs) > 0 {
			s.block(g, key, func() string {
				return holdersText(blockers())
			})
			continue
		}
		s.mu.Unlock()
		s.point(g, KindBlock, s.lockLabel(g, key, mode)+" (held outside the scheduler)")
		time.Sleep(50 * time.Microsecond)
	}
}

// released wakes the goroutines blocked on key and makes a scheduling point.
func (s *Scheduler) released(g *goroutine, key any, mode string) {
	s.mu.Lock()
	s.release(key)
	s.mu.Unlock()
	s.point(g, KindUnlock, s.lockLabel(g, key, mode))
}

// lockLabel names a lock in the timeline, with the function that called the
// lock method: "m1 (read) in Sharded.Register".
func (s *Scheduler) lockLabel(g *goroutine, key any, mode string) string {
	s.mu.Lock()
	name := s.nameOf(key)
	s.mu.Unlock()
	if _, fn := g.callerFunc(lockFrames); fn != "" {
		return name + mode + " in " + fn
	}
	return name + mode
}

// How many frames callerFunc walks from a lock's label (lockLabel, the
// scheduler's, the lock method's, the caller's) and from an atomic's
// (atomicLabel, atomicPoint, the method, if it is not inlined, the
// caller's). The walk costs by the frame, and it is most of a point's cost.
const (
	lockFrames   = 6
	atomicFrames = 4
)

// callerFunc names the first function outside this package on the stack
// (the code that used the lock or the atomic), without its package path:
// "(*Sharded).Register" becomes "Sharded.Register"; and returns its program
// counter. It looks at most frames frames up from its caller, and at the
// walk caller made, if it made one. Resolving a frame is slow too, so each
// program counter is resolved once.
func (g *goroutine) callerFunc(frames int) (uintptr, string) {
	pcs := g.pcs[:g.npcs] // caller's walk, from the caller of the locking or atomic method
	if g.npcs == 0 {
		var buf [lockFrames]uintptr
		pcs = buf[:runtime.Callers(2, buf[:min(frames, len(buf))])]
	}
	for _, pc := range pcs {
		f, ok := frameNames.Load(pc)
		if !ok {
			fr, _ := runtime.CallersFrames([]uintptr{pc}).Next()
			f = frameName{short: shortFunc(fr.Function), inside: strings.HasPrefix(fr.Function, pkgPrefix)}
			frameNames.Store(pc, f)
		}
		if fn := f.(frameName); !fn.inside {
			return pc, fn.short
		}
	}
	return 0, ""
}

type frameName struct {
	short  string
	inside bool // a function of this package
}

var frameNames sync.Map // program counter → frameName

func shortFunc(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	return strings.NewReplacer("(*", "", ")", "").Replace(name)
}
