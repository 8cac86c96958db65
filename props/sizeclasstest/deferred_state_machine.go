package sizeclasstest

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// DeferredAllocatorFactory builds the DeferredAllocator under test over a
// device, owned by owner.
type DeferredAllocatorFactory func(dev spec.Device, owner spec.Context) spec.DeferredAllocator

// CheckDeferredStateMachine is the sequential differential property of
// deferred frees: rapid draws Alloc, Free from the owner and from other
// contexts (of live, queued, freed and junk addresses), GC, Pending and an
// occasional Close, with device mallocs and frees made to fail now and then;
// each call goes to DeferredModel and to factory's allocator, over two
// simulated devices, and after every call the results, the device calls and
// the device's live blocks must agree, and the device must have seen no
// double free. A mismatch fails t with the shrunk op trace.
func CheckDeferredStateMachine(t rapid.TB, factory DeferredAllocatorFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		capacity := rapid.Int64Range(4<<10, 32<<10).Draw(rt, "capacity")
		m := &deferredMachine{modelDev: spec.NewSimDevice(capacity), implDev: spec.NewSimDevice(capacity)}
		m.model, m.impl = spec.NewDeferredModel(m.modelDev, 0), factory(m.implDev, 0)
		rt.Repeat(m.actions())
	})
}

// deferredMachine is the state of one CheckDeferredStateMachine run.
type deferredMachine struct {
	model             *spec.DeferredModel
	impl              spec.DeferredAllocator
	modelDev, implDev *spec.SimDevice
	tr                trace.Trace
	live, seen        []spec.Addr
}

// step applies op to both sides and fails t with the trace if they
// disagree.
func (m *deferredMachine) step(t *rapid.T, op spec.DeferredOp) {
	op.Fault.Inject(m.modelDev)
	op.Fault.Inject(m.implDev)
	want, got := op.Apply(m.model), op.Apply(m.impl)
	m.modelDev.ClearFaults()
	m.implDev.ClearFaults()
	m.tr.Add(op, got)
	if err := m.compare(op, got, want); err != nil {
		t.Fatalf("%s", trace.Failure(err.Error(), &m.tr, ""))
	}
	if op.Kind == spec.DeferredAlloc && got.Addr != 0 {
		m.live = append(m.live, got.Addr)
		m.seen = append(m.seen, got.Addr)
	}
	if op.Kind == spec.DeferredFree && got.Err == "" {
		m.live = slices.DeleteFunc(m.live, func(q spec.Addr) bool { return q == op.P })
	}
}

func (m *deferredMachine) compare(op spec.DeferredOp, got, want spec.Result) error {
	if got != want {
		return fmt.Errorf("%v returned %v, the model %v", op, got, want)
	}
	if v := m.implDev.Violations(); len(v) > 0 {
		return fmt.Errorf("device misuse: %v", v)
	}
	if g, w := m.implDev.Stats(), m.modelDev.Stats(); g != w {
		return fmt.Errorf("device calls %+v, the model's %+v", g, w)
	}
	if g, w := m.implDev.Live(), m.modelDev.Live(); !slices.Equal(g, w) {
		return fmt.Errorf("device holds %v, the model's %v", g, w)
	}
	return nil
}

// actions are the calls rapid draws from. The context of a Free shrinks to
// the owner; the sizes of an Alloc shrink to 1 byte, with null and negative
// sizes last.
func (m *deferredMachine) actions() map[string]func(*rapid.T) {
	ctx := func(t *rapid.T) spec.Context { return spec.Context(rapid.IntRange(0, 2).Draw(t, "ctx")) }
	return map[string]func(*rapid.T){
		"Alloc": func(t *rapid.T) {
			n := rapid.SampledFrom([]int64{1, 256, 1000, 4096, 0, -1}).Draw(t, "n")
			m.step(t, spec.DeferredOp{Kind: spec.DeferredAlloc, N: n, Fault: drawFault(t, spec.MallocFails)})
		},
		"Free": func(t *rapid.T) {
			p := drawFreeTarget(t, m.live, m.seen)
			m.step(t, spec.DeferredOp{Kind: spec.DeferredFree, Ctx: ctx(t), P: p, Fault: drawFault(t, spec.FreeFails)})
		},
		"FreeLive": func(t *rapid.T) {
			if len(m.live) == 0 {
				t.Skip("nothing live")
			}
			p := rapid.SampledFrom(m.live).Draw(t, "p")
			m.step(t, spec.DeferredOp{Kind: spec.DeferredFree, Ctx: ctx(t), P: p, Fault: drawFault(t, spec.FreeFails)})
		},
		"GC": func(t *rapid.T) {
			m.step(t, spec.DeferredOp{Kind: spec.DeferredGC, Fault: drawFault(t, spec.FreeFails)})
		},
		"Pending": func(t *rapid.T) { m.step(t, spec.DeferredOp{Kind: spec.DeferredPending}) },
		"Close": func(t *rapid.T) {
			if !draw.Rarely(t, 7, "close") {
				t.Skip("Close is drawn rarely")
			}
			m.step(t, spec.DeferredOp{Kind: spec.DeferredClose})
		},
	}
}
