//go:build sched && (amd64 || arm64)

package sched

// getg returns the address of the calling goroutine's runtime record (the
// g the runtime keeps in thread-local storage), an identity that costs a few
// instructions where the goroutine id (goid) costs a formatted traceback.
// The runtime reuses a g once its goroutine has ended, so a scheduled
// goroutine's entry in byG is removed before it ends (Scheduler.exit).
func getg() uintptr
