package sizeclasstest

import (
	"slices"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckPool is the sequential differential property of the sizeclass
// domain: rapid draws a configuration (the default classes, three small
// ones, or one time in six any valid shape: classes that are not powers of
// two, none at all, alignments from 1 byte up, see drawPoolEnv) and a device
// capacity, then sequences of Alloc (class boundaries, large, null, negative
// and overflowing sizes), Free (live, freed, interior and junk addresses),
// SetPinned, Trim, Stats and an occasional Close, with device mallocs and
// frees made to fail now and then. Each call goes to the model and to
// factory's pool; PoolDiff compares them and checks the pool's invariants
// after every call. A mismatch fails t with the shrunk op trace.
func CheckPool(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		env := drawPoolEnv(rt)
		d, err := NewPoolDiff(factory, env.cfg, env.capacity)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		var live, seen []spec.Addr
		step := func(t *rapid.T, op spec.Op) {
			got, err := d.Step(op)
			if err != nil {
				t.Fatalf("%s", trace.Failure(err.Error(), d.Trace(), ""))
			}
			if op.Kind == spec.OpAlloc && got.Addr != 0 {
				live = append(live, got.Addr)
				seen = append(seen, got.Addr)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"Alloc": func(t *rapid.T) {
				step(t, spec.Op{Kind: spec.OpAlloc, N: drawRequest(t, env.cfg), Fault: drawFault(t, spec.MallocFails)})
			},
			"AllocBurst": func(t *rapid.T) { // several blocks of one class, to fill caches
				n := drawRequest(t, env.cfg)
				for range rapid.IntRange(2, 5).Draw(t, "burst") {
					step(t, spec.Op{Kind: spec.OpAlloc, N: n})
				}
			},
			"FreeBurst": func(t *rapid.T) {
				for range rapid.IntRange(2, 5).Draw(t, "burst") {
					if len(live) == 0 {
						return
					}
					p := rapid.SampledFrom(live).Draw(t, "p")
					step(t, spec.Op{Kind: spec.OpFree, P: p})
					live = slices.DeleteFunc(live, func(q spec.Addr) bool { return q == p })
				}
			},
			"Free": func(t *rapid.T) {
				p := drawFreeTarget(t, live, seen)
				step(t, spec.Op{Kind: spec.OpFree, P: p})
				live = slices.DeleteFunc(live, func(q spec.Addr) bool { return q == p })
			},
			"SetPinned": func(t *rapid.T) {
				step(t, spec.Op{Kind: spec.OpSetPinned, On: rapid.Bool().Draw(t, "on")})
			},
			"Trim": func(t *rapid.T) {
				step(t, spec.Op{Kind: spec.OpTrim, Fault: drawFault(t, spec.FreeFails)})
			},
			"Stats": func(t *rapid.T) { step(t, spec.Op{Kind: spec.OpStats}) },
			"Close": func(t *rapid.T) {
				if rapid.IntRange(0, 14).Draw(t, "rarely") != 0 {
					t.Skip("Close is drawn rarely: it ends the interesting part")
				}
				step(t, spec.Op{Kind: spec.OpClose, Fault: drawFault(t, spec.FreeFails)})
			},
		})
	})
}
