package banktest

import (
	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckPageMapping checks the page mapping of factory's banks alone, with no
// model: after every allocation and free, PageMappingInvariants holds (every
// page of every live buffer in a slot of its own block in its bank, at most
// ceil(pages / n) pages a bank, no byte of a bank shared by two pages) and so
// does FreeListInvariants. An implementation whose choices the model does not
// fix exactly can still be held to these.
func CheckPageMapping(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		var tr trace.Trace
		step := func(t *rapid.T, op bank.BanksOp) {
			tr.Add(op, op.Apply(b))
			if err := PageMappingInvariants(b); err != nil {
				t.Fatalf("%s", trace.Failure(err.Error(), &tr, ""))
			}
			if err := FreeListInvariants(cfg.List, b.Blocks(), b.Stats()); err != nil {
				t.Fatalf("%s", trace.Failure(err.Error(), &tr, ""))
			}
		}
		alloc := func(t *rapid.T) { step(t, drawBanksAlloc(t, cfg)) }
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate":  alloc,
			"Allocate2": alloc,
			"Free": func(t *rapid.T) {
				step(t, bank.BanksOp{Kind: bank.OpFreeBuffer, Addr: drawBuffer(t, cfg, b.Buffers())})
			},
		})
	})
}
