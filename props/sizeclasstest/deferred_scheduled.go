package sizeclasstest

import (
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// CheckDeferredScheduled checks a DeferredAllocator under interleavings
// that a scheduler chooses (package sched). Each case allocates a few
// blocks of owner context 0, then two or three goroutines, each a context
// of its own (the first the owner, perhaps), free them — two may free the
// same block — while others run GC, ask Pending or allocate, and now and
// then one closes the allocator. Once they have all returned, the body runs
// GC and asks Pending, then frees what is left from the owner. The history
// must be linearizable under the model (porcupine), and the device must
// have freed every block exactly once: a queue drained twice frees twice, a
// foreign free that a drain loses is never freed.
//
// As for CheckScheduled, the implementation must be instrumented with
// package sched and built with -tags sched for the interleavings to be
// chosen (the Deferred allocator of this module is), and a user's own
// allocator instrumented the same way is checked the same way; without the
// tag each case is one free-running stress run. opts chooses the strategy,
// the repro command and the bounds.
func CheckDeferredScheduled(t rapid.TB, factory DeferredAllocatorFactory, opts sched.Options) {
	t.Helper()
	checkCases(t, drawDeferredCase, factory, opts)
}

// deferredCase is one case of CheckDeferredScheduled: how many blocks the
// body allocates, whether goroutine 1 is the owner, and each goroutine's
// calls (a Free names the block by its number).
type deferredCase struct {
	blocks int
	owner  bool
	plans  [][]spec.DeferredOp
}

// drawDeferredCase draws a case. It shrinks to two foreign goroutines, each
// freeing a block of its own and then running GC.
func drawDeferredCase(t *rapid.T) deferredCase {
	sc := deferredCase{blocks: rapid.IntRange(2, 4).Draw(t, "blocks"), owner: draw.Rarely(t, 3, "owner")}
	n := 2
	if draw.Rarely(t, 3, "third goroutine") {
		n = 3
	}
	sc.plans = make([][]spec.DeferredOp, n)
	for g := range sc.plans {
		menu := sc.menu(g)
		for range rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("G%d calls", g+1)) {
			sc.plans[g] = append(sc.plans[g], menu[rapid.IntRange(0, len(menu)-1).Draw(t, "call")])
		}
	}
	return sc
}

// ctx is goroutine g's context: the owner's (0) for goroutine 0 of a case
// with the owner, a foreign one otherwise.
func (sc deferredCase) ctx(g int) spec.Context {
	if g == 0 && sc.owner {
		return 0
	}
	return spec.Context(g + 1)
}

// menu is what goroutine g draws its calls from (its order is the shrink
// order): frees of its own block first, then GC, then frees of the next
// goroutine's block (a race of two frees of one block), Pending, Alloc and
// Close. A Free's P is the block's number until the call is made.
func (sc deferredCase) menu(g int) []spec.DeferredOp {
	ctx := sc.ctx(g)
	free := func(i int) spec.DeferredOp {
		return spec.DeferredOp{Kind: spec.DeferredFree, Ctx: ctx, P: spec.Addr(i % sc.blocks)}
	}
	return []spec.DeferredOp{free(g), {Kind: spec.DeferredGC}, free(g + 1), free(g + sc.blocks - 1),
		{Kind: spec.DeferredGC}, {Kind: spec.DeferredPending}, {Kind: spec.DeferredAlloc, N: 256}, {Kind: spec.DeferredClose}}
}

// run is the body of one scheduled run.
func (sc deferredCase) run(s *sched.Scheduler, factory DeferredAllocatorFactory) (undecided string) {
	dev := spec.NewSimDevice(1 << 40)
	d := factory(dev, 0)
	var setup []replayCall
	blocks := make([]spec.Addr, sc.blocks)
	for i := range blocks {
		op := spec.DeferredOp{Kind: spec.DeferredAlloc, N: 256}
		res := op.Apply(d)
		if res.Err != "" {
			s.Fatalf("set-up %v: %v", op, res)
		}
		blocks[i] = res.Addr
		setup = append(setup, replayCall{op, res})
	}
	h := &runHistory{s: s}
	apply := func(op spec.DeferredOp) spec.Result { return op.Apply(d) }
	record := func(client int, op spec.DeferredOp) { recordCall(h, client, op, apply) }
	for g, plan := range sc.plans {
		s.Go(fmt.Sprintf("G%d", g+1), func() {
			for _, op := range plan {
				if op.Kind == spec.DeferredFree {
					op.P = blocks[op.P]
				}
				record(g, op)
			}
		})
	}
	s.Wait()
	record(len(sc.plans), spec.DeferredOp{Kind: spec.DeferredGC})
	record(len(sc.plans), spec.DeferredOp{Kind: spec.DeferredPending})
	if undecided := h.linearizable(deferredModel(setup), "model"); undecided != "" {
		return undecided
	}
	if err := drainedOnce(d, dev, blocks); err != "" {
		s.Fatalf("%s\n%s", err, linear.Describe(h.ops))
	}
	return ""
}

// drainedOnce frees from the owner every block the device still holds (an
// ErrUnknownPointer or an ErrClosed is fine: a goroutine freed or closed
// it), and checks that the device freed every block exactly once.
func drainedOnce(d spec.DeferredAllocator, dev *spec.SimDevice, blocks []spec.Addr) string {
	for _, p := range dev.Live() {
		_ = d.Free(0, p)
	}
	if v := dev.Violations(); len(v) > 0 {
		return fmt.Sprintf("the device was misused: %v", v)
	}
	if live := dev.Live(); len(live) > 0 {
		// The allocator was closed with these blocks handed out (they are
		// the caller's then), or it lost their frees.
		for _, p := range live {
			if err := d.Free(0, p); !strings.Contains(spec.ErrName(err), "ErrClosed") {
				return fmt.Sprintf("the device still holds %v: a free the allocator took was never made (Free(ctx0, %v) now: %v)", live, p, err)
			}
		}
	}
	return ""
}

// deferredModel is the porcupine model of a history after the set-up calls.
func deferredModel(setup []replayCall) porcupine.Model {
	return replayModel(func(calls []replayCall) (bool, string) {
		dev := &scriptDevice{}
		m := spec.NewDeferredModel(dev, 0)
		legal := true
		for _, c := range append(setup[:len(setup):len(setup)], calls...) {
			op, got := c.in.(spec.DeferredOp), c.out.(spec.Result)
			if op.Kind == spec.DeferredAlloc {
				dev.next = got.Addr
			}
			legal = op.Apply(m) == got
		}
		var key strings.Builder
		for _, c := range calls {
			key.WriteString(c.key() + ";")
		}
		return legal, key.String()
	})
}
