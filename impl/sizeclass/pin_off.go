//go:build !sched

package sizeclass

import (
	_ "unsafe" // for go:linkname
)

// procPin disables preemption of the calling goroutine and returns the id of
// its P (0 ≤ id < GOMAXPROCS); procUnpin undoes it. While pinned, no other
// goroutine runs on that P, so data that only goroutines pinned to P i touch
// is exclusive to the pinned one — the same pin that sync.Pool uses for its
// per-P private slots. Code between the two must not block, allocate much,
// or call out (a lock, a device call, a callback): it runs with preemption
// off. The runtime keeps both symbols reachable by linkname for existing
// users (go.dev/issue/67401). Under the sched tag they are pin_on.go's.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
