package sizeclasstest

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// StreamFactory builds the StreamAllocator under test.
type StreamFactory func(dev spec.Device, cfg spec.Config) (spec.StreamAllocator, error)

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

// CheckStreams is the property of stream-ordered reuse: rapid draws a
// configuration (SmallPoolConfig, or one time in twelve any valid shape, see
// drawPoolConfig), then Alloc and Free on three streams, Synchronize, Trim
// (with device frees made to fail) and an occasional Close, and applies each
// to StreamModel and factory's allocator. Every block the allocator hands
// out must be allowed by the safety rule — no other stream holds it, and if
// another stream freed it, that stream has been synchronised since — which
// is checked from the calls alone; where the model allows a choice of cached
// block, the allocator's pick must be one of the model's candidates, which
// the model then adopts. After every call the results, the block dumps and
// the device calls must agree, the device must hold every block whose free
// is not synchronised, and it must see no double free and, after Close,
// hold nothing.
func CheckStreams(t rapid.TB, factory StreamFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		env := scEnv{SmallPoolConfig(), 0}
		if rapid.IntRange(0, 11).Draw(rt, "config") == 0 {
			env = drawPoolConfig(rt)
		} else {
			env.capacity = rapid.Int64Range(16<<10, 128<<10).Draw(rt, "capacity")
		}
		cfg, capacity := env.cfg, env.capacity
		mdev, idev := spec.NewSimDevice(capacity), spec.NewSimDevice(capacity)
		model, _ := spec.NewStreamModel(mdev, cfg)
		impl, err := factory(idev, cfg)
		if err != nil {
			rt.Fatalf("factory: %v", err)
		}
		safety := streamSafety{holder: map[spec.Addr]spec.Stream{}, pending: map[spec.Addr]spec.Stream{}}
		var tr trace.Trace
		var live, seen []spec.Addr
		closed := false
		step := func(t *rapid.T, op spec.StreamOp) {
			fail := func(format string, args ...any) {
				t.Fatalf("%s", trace.Failure(fmt.Sprintf(format, args...), &tr, ""))
			}
			op.Fault.Inject(mdev)
			op.Fault.Inject(idev)
			defer mdev.ClearFaults()
			defer idev.ClearFaults()
			var allowed []spec.Addr
			if op.Kind == spec.StreamAlloc {
				allowed, _ = model.Candidates(op.Stream, op.N)
			}
			got := op.Apply(impl)
			tr.Add(op, got)
			if op.Kind == spec.StreamAlloc && got.Err == "" && got.Addr != 0 {
				if err := safety.handedOut(got.Addr, op.Stream); err != nil {
					fail("%v", err)
				}
			}
			if len(allowed) > 0 && got.Err == "" && slices.Contains(allowed, got.Addr) {
				if _, err := model.AllocFrom(op.Stream, op.N, got.Addr); err != nil {
					fail("model refused the pick %v: %v", got.Addr, err)
				}
			} else if want := op.Apply(model); got != want {
				fail("%v returned %v, the model %v (cached blocks it may hand out: %v)", op, got, want, allowed)
			}
			switch {
			case op.Kind == spec.StreamAlloc && got.Addr != 0:
				live = append(live, got.Addr)
				seen = append(seen, got.Addr)
			case op.Kind == spec.StreamFree && got.Err == "" && op.P != 0:
				delete(safety.holder, op.P)
				safety.pending[op.P] = op.Stream
				live = slices.DeleteFunc(live, func(q spec.Addr) bool { return q == op.P })
			case op.Kind == spec.StreamSync:
				for p, s := range safety.pending {
					if s == op.Stream {
						delete(safety.pending, p)
					}
				}
			case op.Kind == spec.StreamTrim:
				for p := range safety.pending {
					if _, ok := slices.BinarySearch(idev.Live(), p); !ok {
						fail("Trim returned %v to the device while its free on stream %d is not synchronised", p, safety.pending[p])
					}
				}
			case op.Kind == spec.StreamClose:
				closed = true // Close waits for every stream and frees everything
				clear(safety.pending)
				clear(safety.holder)
			}
			if v := idev.Violations(); len(v) > 0 {
				fail("device misuse: %v", v)
			}
			if g, w := impl.Blocks(), model.Blocks(); !reflect.DeepEqual(g, w) {
				fail("Blocks = %v, the model %v", g, w)
			}
			if g, w := idev.Stats(), mdev.Stats(); g != w {
				fail("device calls %+v, the model's %+v", g, w)
			}
			if g, w := idev.Live(), mdev.Live(); !slices.Equal(g, w) {
				fail("device holds %v, the model's %v", g, w)
			}
			if closed && len(idev.Live()) > 0 {
				fail("leak: the device still holds %v after Close", idev.Live())
			}
		}
		stream := func(t *rapid.T) spec.Stream { return spec.Stream(rapid.IntRange(0, 2).Draw(t, "stream")) }
		rt.Repeat(map[string]func(*rapid.T){
			"Alloc": func(t *rapid.T) {
				step(t, spec.StreamOp{Kind: spec.StreamAlloc, Stream: stream(t), N: drawRequest(t, cfg), Fault: drawFault(t, spec.MallocFails)})
			},
			"Free": func(t *rapid.T) {
				step(t, spec.StreamOp{Kind: spec.StreamFree, Stream: stream(t), P: drawFreeTarget(t, live, seen)})
			},
			"FreeLive": func(t *rapid.T) {
				if len(live) == 0 {
					t.Skip("nothing live")
				}
				step(t, spec.StreamOp{Kind: spec.StreamFree, Stream: stream(t), P: rapid.SampledFrom(live).Draw(t, "p")})
			},
			"Synchronize": func(t *rapid.T) { step(t, spec.StreamOp{Kind: spec.StreamSync, Stream: stream(t)}) },
			"Trim":        func(t *rapid.T) { step(t, spec.StreamOp{Kind: spec.StreamTrim, Fault: drawFault(t, spec.FreeFails)}) },
			"Close": func(t *rapid.T) {
				if rapid.IntRange(0, 14).Draw(t, "rarely") != 0 {
					t.Skip("Close is drawn rarely")
				}
				step(t, spec.StreamOp{Kind: spec.StreamClose})
			},
		})
	})
}
