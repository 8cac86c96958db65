//go:build !sched

package sched

import (
	"runtime"
	"sync"
)

// Enabled reports whether this binary was built with the `sched` tag, that is
// whether Point, Yield, Go, Mutex and RWMutex hand control to a scheduler.
const Enabled = false

// Point marks a place where another goroutine may run first: put one before
// every access to shared state that another goroutine can change. Without the
// `sched` tag it is empty and inlined away, label and all.
func Point(label string) {}

// Yield gives the processor to another goroutine, as spin-waits must.
// Without the `sched` tag it is runtime.Gosched.
func Yield() { runtime.Gosched() }

// Go starts fn in a new goroutine. Code under test starts its goroutines with
// it so that, under the `sched` tag, a goroutine started by a scheduled one is
// scheduled too. Without the tag it is `go fn()`; name only labels the
// goroutine's column in a failure timeline.
func Go(name string, fn func()) { go fn() }

// Mutex is sync.Mutex without the `sched` tag: the same type, so a normal
// build pays nothing. Under the tag it is a lock the scheduler sees.
type Mutex = sync.Mutex

// RWMutex is sync.RWMutex without the `sched` tag; see Mutex.
type RWMutex = sync.RWMutex

// Goroutine returns the calling goroutine's number in its scheduled run (0
// runs the body, the others are numbered as they start) and true; outside a
// scheduled run, and always without the `sched` tag, it returns 0, false.
// Code that picks per-P or per-thread state (procPin) uses it to pick the
// same state on every replay.
func Goroutine() (int, bool) { return 0, false }

// ProcPin pins the calling goroutine to a virtual P of its scheduled run;
// without the `sched` tag there is none, and it returns 0, false (pin for
// real then).
func ProcPin() (int, bool) { return 0, false }

// ProcUnpin undoes ProcPin; without the `sched` tag it does nothing.
func ProcUnpin() {}
