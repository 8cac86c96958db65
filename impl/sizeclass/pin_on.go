//go:build sched

package sizeclass

import (
	_ "unsafe" // for go:linkname

	"github.com/memverify/memverify/sched"
)

// Under the sched tag, a goroutine that a scheduler runs must not pin
// itself for real (pin_off.go says what the pin is): the code it runs
// pinned reaches scheduling points (the atomics of a claim or a push), and
// a goroutine that parks with preemption disabled makes the runtime throw.
// Nor would a replay be sure to run it on the same P, and the P picks the
// shard. So it pins itself to a virtual P of its run (sched.ProcPin), chosen
// by its number in the run: no other goroutine of that P runs the pools'
// per-P code meanwhile, which is what the real pin guarantees, while the
// other Ps' goroutines interleave with it at every point. Any other
// goroutine pins itself for real.

// procPin pins the calling goroutine to its P, real or virtual, and returns
// the P's id.
func procPin() int {
	if p, ok := sched.ProcPin(); ok {
		return p
	}
	return runtimeProcPin()
}

// procUnpin undoes procPin.
func procUnpin() {
	if _, ok := sched.Goroutine(); ok {
		sched.ProcUnpin()
		return
	}
	runtimeProcUnpin()
}

//go:linkname runtimeProcPin runtime.procPin
func runtimeProcPin() int

//go:linkname runtimeProcUnpin runtime.procUnpin
func runtimeProcUnpin()
