package sizeclasstest

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// StreamAllocatorFactory builds the StreamAllocator under test over a
// device and a configuration.
type StreamAllocatorFactory func(dev spec.Device, cfg spec.Config) (spec.StreamAllocator, error)

// CheckStreamOrdered is the sequential property of stream-ordered reuse:
// rapid draws a configuration (SmallPoolConfig, or about one time in six any
// valid shape, see drawPoolConfig), then Alloc and Free on three streams,
// Synchronize, Trim (with device frees made to fail) and an occasional
// Close, and applies each to StreamModel and factory's allocator. Every
// block the allocator hands out must be allowed by the safety rule — no
// other stream holds it, and if another stream freed it, that stream has
// been synchronised since — which is checked from the calls alone; where the
// model allows a choice of cached block, the allocator's pick must be one of
// the model's candidates, which the model then adopts. After every call the
// results, the block dumps and the device calls must agree, the device must
// hold every block whose free is not synchronised, and it must see no
// double free and, after Close, hold nothing. A mismatch fails t with the
// shrunk op trace.
func CheckStreamOrdered(t rapid.TB, factory StreamAllocatorFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		env := poolEnv{SmallPoolConfig(), 0}
		if draw.Rarely(rt, 6, "shapedConfig") {
			env = drawPoolConfig(rt)
		} else {
			env.capacity = rapid.Int64Range(16<<10, 128<<10).Draw(rt, "capacity")
		}
		m := &streamMachine{cfg: env.cfg, modelDev: spec.NewSimDevice(env.capacity), implDev: spec.NewSimDevice(env.capacity),
			safety: streamSafety{holder: map[spec.Addr]spec.Stream{}, pending: map[spec.Addr]spec.Stream{}}}
		m.model, _ = spec.NewStreamModel(m.modelDev, env.cfg)
		var err error
		if m.impl, err = factory(m.implDev, env.cfg); err != nil {
			rt.Fatalf("factory: %v", err)
		}
		rt.Repeat(m.actions())
	})
}

// streamMachine is the state of one CheckStreamOrdered run.
type streamMachine struct {
	cfg               spec.Config
	model             *spec.StreamModel
	impl              spec.StreamAllocator
	modelDev, implDev *spec.SimDevice
	safety            streamSafety
	tr                trace.Trace
	live, seen        []spec.Addr
	closed            bool
}

// streamSafety follows which stream may still touch each block, from the
// calls alone: the stream it was handed to (until freed), or the stream it
// was freed on (until that stream is synchronised).
type streamSafety struct {
	holder  map[spec.Addr]spec.Stream
	pending map[spec.Addr]spec.Stream
}

// handedOut checks that p may go to s: no other stream holds it or may
// still be using it.
func (g *streamSafety) handedOut(p spec.Addr, s spec.Stream) error {
	if h, ok := g.holder[p]; ok {
		return fmt.Errorf("block %v handed to stream %d while stream %d holds it", p, s, h)
	}
	if f, ok := g.pending[p]; ok && f != s {
		return fmt.Errorf("block %v handed to stream %d while stream %d, which freed it, may still be using it (not synchronised)", p, s, f)
	}
	delete(g.pending, p)
	g.holder[p] = s
	return nil
}

// step applies op to both sides and fails t with the trace if the
// allocator broke the safety rule or disagrees with the model.
func (m *streamMachine) step(t *rapid.T, op spec.StreamOp) {
	op.Fault.Inject(m.modelDev)
	op.Fault.Inject(m.implDev)
	defer m.modelDev.ClearFaults()
	defer m.implDev.ClearFaults()
	err := m.apply(op)
	if err == nil {
		err = m.compare()
	}
	if err != nil {
		t.Fatalf("%s", trace.Failure(err.Error(), &m.tr, ""))
	}
}

// apply runs op on the allocator, judges its answer against the safety rule
// and the model, and follows the blocks' holders.
func (m *streamMachine) apply(op spec.StreamOp) error {
	var allowed []spec.Addr
	if op.Kind == spec.StreamAlloc {
		allowed, _ = m.model.Candidates(op.Stream, op.N)
	}
	got := op.Apply(m.impl)
	m.tr.Add(op, got)
	if op.Kind == spec.StreamAlloc && got.Err == "" && got.Addr != 0 {
		if err := m.safety.handedOut(got.Addr, op.Stream); err != nil {
			return err
		}
	}
	if len(allowed) > 0 && got.Err == "" && slices.Contains(allowed, got.Addr) {
		if _, err := m.model.AllocFrom(op.Stream, op.N, got.Addr); err != nil {
			return fmt.Errorf("model refused the pick %v: %v", got.Addr, err)
		}
	} else if want := op.Apply(m.model); got != want {
		return fmt.Errorf("%v returned %v, the model %v (cached blocks it may hand out: %v)", op, got, want, allowed)
	}
	return m.follow(op, got)
}

// follow updates who may touch each block after op answered got, and checks
// that a Trim kept every block whose free is not synchronised.
func (m *streamMachine) follow(op spec.StreamOp, got spec.Result) error {
	switch {
	case op.Kind == spec.StreamAlloc && got.Addr != 0:
		m.live = append(m.live, got.Addr)
		m.seen = append(m.seen, got.Addr)
	case op.Kind == spec.StreamFree && got.Err == "" && op.P != 0:
		delete(m.safety.holder, op.P)
		m.safety.pending[op.P] = op.Stream
		m.live = slices.DeleteFunc(m.live, func(q spec.Addr) bool { return q == op.P })
	case op.Kind == spec.StreamSync:
		for p, s := range m.safety.pending {
			if s == op.Stream {
				delete(m.safety.pending, p)
			}
		}
	case op.Kind == spec.StreamTrim:
		for p := range m.safety.pending {
			if _, ok := slices.BinarySearch(m.implDev.Live(), p); !ok {
				return fmt.Errorf("Trim returned %v to the device while its free on stream %d is not synchronised", p, m.safety.pending[p])
			}
		}
	case op.Kind == spec.StreamClose:
		m.closed = true // Close waits for every stream and frees everything
		clear(m.safety.pending)
		clear(m.safety.holder)
	}
	return nil
}

// compare checks the block dumps and the devices after a call.
func (m *streamMachine) compare() error {
	if v := m.implDev.Violations(); len(v) > 0 {
		return fmt.Errorf("device misuse: %v", v)
	}
	if g, w := m.impl.Blocks(), m.model.Blocks(); !reflect.DeepEqual(g, w) {
		return fmt.Errorf("Blocks = %v, the model %v", g, w)
	}
	if g, w := m.implDev.Stats(), m.modelDev.Stats(); g != w {
		return fmt.Errorf("device calls %+v, the model's %+v", g, w)
	}
	if g, w := m.implDev.Live(), m.modelDev.Live(); !slices.Equal(g, w) {
		return fmt.Errorf("device holds %v, the model's %v", g, w)
	}
	if m.closed && len(m.implDev.Live()) > 0 {
		return fmt.Errorf("leak: the device still holds %v after Close", m.implDev.Live())
	}
	return nil
}

// actions are the calls rapid draws from; the stream shrinks to 0.
func (m *streamMachine) actions() map[string]func(*rapid.T) {
	stream := func(t *rapid.T) spec.Stream { return spec.Stream(rapid.IntRange(0, 2).Draw(t, "stream")) }
	return map[string]func(*rapid.T){
		"Alloc": func(t *rapid.T) {
			m.step(t, spec.StreamOp{Kind: spec.StreamAlloc, Stream: stream(t), N: drawRequest(t, m.cfg), Fault: drawFault(t, spec.MallocFails)})
		},
		"Free": func(t *rapid.T) {
			m.step(t, spec.StreamOp{Kind: spec.StreamFree, Stream: stream(t), P: drawFreeTarget(t, m.live, m.seen)})
		},
		"FreeLive": func(t *rapid.T) {
			if len(m.live) == 0 {
				t.Skip("nothing live")
			}
			m.step(t, spec.StreamOp{Kind: spec.StreamFree, Stream: stream(t), P: rapid.SampledFrom(m.live).Draw(t, "p")})
		},
		"Synchronize": func(t *rapid.T) { m.step(t, spec.StreamOp{Kind: spec.StreamSync, Stream: stream(t)}) },
		"Trim":        func(t *rapid.T) { m.step(t, spec.StreamOp{Kind: spec.StreamTrim, Fault: drawFault(t, spec.FreeFails)}) },
		"Close": func(t *rapid.T) {
			if !draw.Rarely(t, 7, "close") {
				t.Skip("Close is drawn rarely")
			}
			m.step(t, spec.StreamOp{Kind: spec.StreamClose})
		},
	}
}
