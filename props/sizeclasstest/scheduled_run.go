package sizeclasstest

import (
	"fmt"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// What the scheduled properties of this package (CheckScheduled,
// CheckDeferredScheduled, CheckStreamScheduled) share: one drawn case run
// under the scheduler, its history recorded from every goroutine, and the
// judgement of the history and of the device.

// scheduledCase is a case a scheduled property draws; run is the body of
// the run that plays it, and says why its history proved nothing, if it
// did not.
type scheduledCase[F any] interface {
	run(s *sched.Scheduler, factory F) (undecided string)
}

// checkCases checks the cases draw draws, each in one run under opts. A
// case whose history proves nothing is skipped: rapid draws another
// instead, and fails the property if too few prove anything.
func checkCases[F any, C scheduledCase[F]](t rapid.TB, draw func(*rapid.T) C, factory F, opts sched.Options) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		sc := draw(rt)
		var undecided string
		sched.Run(rt, opts, func(s *sched.Scheduler) { undecided = sc.run(s, factory) })
		if undecided != "" {
			rt.Skipf("%s: this history proves nothing", undecided)
		}
	})
}

// runHistory is the history of one scheduled run. Its goroutines append to
// it one at a time under the scheduler, but all at once in a stress run
// (no tag): hence the lock, a plain one, which is never held across a
// schedule point.
type runHistory struct {
	s   *sched.Scheduler
	mu  sync.Mutex
	ops []porcupine.Operation
}

func (h *runHistory) add(ops ...porcupine.Operation) {
	h.mu.Lock()
	h.ops = append(h.ops, ops...)
	h.mu.Unlock()
}

// recordCall makes the call op on behalf of client through apply, with its
// call and return in the timeline and in h, and returns its answer.
func recordCall[I, O fmt.Stringer](h *runHistory, client int, op I, apply func(I) O) O {
	call := h.s.Call(op.String())
	res := apply(op)
	ret := h.s.Return(res.String())
	h.add(porcupine.Operation{ClientId: client, Input: op, Output: res, Call: call, Return: ret})
	return res
}

// linearizable checks h under model, failing the run if no order of its
// calls explains their answers; it returns why the check proved nothing,
// if it did not.
func (h *runHistory) linearizable(model porcupine.Model, under string) (undecided string) {
	res := linear.Check(model, h.ops, scheduledCheckTime)
	switch res.Verdict {
	case linear.NotLinearizable:
		h.s.Fatalf("the history is not linearizable under the %s: %v\n%s", under, res, linear.Describe(h.ops))
	case linear.Unknown:
		return res.String()
	}
	return ""
}

// deviceClean fails the run if the device was misused (a double free, a
// free of memory it never handed out) or, after a Close, still holds
// memory.
func (h *runHistory) deviceClean(dev *spec.SimDevice) {
	if v := dev.Violations(); len(v) > 0 {
		h.s.Fatalf("the device was misused: %v\n%s", v, linear.Describe(h.ops))
	}
	if live := dev.Live(); len(live) > 0 {
		h.s.Fatalf("after Close the device still holds %v: blocks never given back\n%s", live, linear.Describe(h.ops))
	}
}

// scheduledCheckTime is how long porcupine may take over one history of a
// scheduled case. A history of a dozen or two calls that is linearizable is
// decided in milliseconds; one that is not may take long to prove so, and
// a failure's shrinking checks many: one undecided after a second proves
// nothing, and the case is skipped.
const scheduledCheckTime = time.Second
