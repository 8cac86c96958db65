//go:build sched

package sched

import (
	"runtime"
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
	g.s.acquire(g, m, "", func() bool {
		if !m.mu.TryLock() {
			return false
		}
		m.book.Lock()
		m.holder = g
		m.book.Unlock()
		return true
	}, func() ([]*goroutine, string) {
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
	g.s.point(g, KindLock, g.s.lockLabel(m, "try"))
	if !m.mu.TryLock() {
		return false
	}
	m.book.Lock()
	m.holder = g
	m.book.Unlock()
	return true
}

// Unlock unlocks m. As with sync.Mutex, it is a run-time error if m is not
// locked.
func (m *Mutex) Unlock() {
	m.book.Lock()
	m.holder = nil
	m.book.Unlock()
	m.mu.Unlock()
	if g := caller(); g != nil {
		g.s.released(g, m, "")
	}
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
	g.s.acquire(g, rw, " (read)", func() bool {
		rw.book.Lock()
		defer rw.book.Unlock()
		if len(rw.pending) > 0 || !rw.rw.TryRLock() {
			return false
		}
		rw.readers = append(rw.readers, g)
		return true
	}, func() ([]*goroutine, string) {
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
	g.s.point(g, KindLock, g.s.lockLabel(rw, "try"))
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
	g.s.point(g, KindLock, g.s.lockLabel(rw, "try (read)"))
	rw.book.Lock()
	defer rw.book.Unlock()
	ok := len(rw.pending) == 0 && rw.rw.TryRLock()
	if ok {
		rw.readers = append(rw.readers, g)
	}
	return ok
}

// Unlock unlocks rw for writing.
func (rw *RWMutex) Unlock() {
	rw.book.Lock()
	rw.writer = nil
	rw.book.Unlock()
	rw.rw.Unlock()
	if g := caller(); g != nil {
		g.s.released(g, rw, "")
	}
}

// RUnlock undoes one RLock.
func (rw *RWMutex) RUnlock() {
	g := caller()
	rw.book.Lock()
	if g != nil {
		rw.readers = remove(rw.readers, g)
	}
	rw.book.Unlock()
	rw.rw.RUnlock()
	if g != nil {
		g.s.released(g, rw, " (read)")
	}
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
	s.point(g, KindLock, s.lockLabel(key, mode))
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
		s.point(g, KindBlock, s.lockLabel(key, mode)+" (held outside the scheduler)")
		time.Sleep(50 * time.Microsecond)
	}
}

// released wakes the goroutines blocked on key and makes a scheduling point.
func (s *Scheduler) released(g *goroutine, key any, mode string) {
	s.mu.Lock()
	s.release(key)
	s.mu.Unlock()
	s.point(g, KindUnlock, s.lockLabel(key, mode))
}

// lockLabel names a lock in the timeline, with the function that called the
// lock method: "m1 (read) in Sharded.Register".
func (s *Scheduler) lockLabel(key any, mode string) string {
	s.mu.Lock()
	name := s.nameOf(key)
	s.mu.Unlock()
	if fn := callerFunc(); fn != "" {
		return name + mode + " in " + fn
	}
	return name + mode
}

// callerFunc names the first function outside this package on the stack
// (the code that used the lock), without its package path:
// "(*Sharded).Register" becomes "Sharded.Register". Resolving a frame is the
// slow part, so each program counter is resolved once.
func callerFunc() string {
	var pcs [12]uintptr
	n := runtime.Callers(2, pcs[:])
	for _, pc := range pcs[:n] {
		f, ok := frameNames.Load(pc)
		if !ok {
			fr, _ := runtime.CallersFrames([]uintptr{pc}).Next()
			f = frameName{short: shortFunc(fr.Function), inside: strings.HasPrefix(fr.Function, pkgPrefix)}
			frameNames.Store(pc, f)
		}
		if fn := f.(frameName); !fn.inside {
			return fn.short
		}
	}
	return ""
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
