package banktest

import (
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckBanksStateMachine is the differential state machine of banks: rapid
// draws a configuration and a sequence of interleaved and sharded
// allocations (valid and invalid), frees and page-address queries, applies
// each to the model and to factory's banks, and after every call compares the
// result (buffer and page addresses exactly), Buffers, Stats and Blocks, and
// checks FreeListInvariants of the shared layout. A mismatch fails t with the
// op trace.
func CheckBanksStateMachine(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		d, err := NewBanksDiff(cfg, factory)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		apply := func(t *rapid.T, op bank.BanksOp) {
			if err := d.Apply(op); err != nil {
				t.Fatalf("%v", err)
			}
		}
		alloc := func(t *rapid.T) { apply(t, drawBanksAlloc(t, cfg)) }
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate":  alloc,
			"Allocate2": alloc,
			"Free": func(t *rapid.T) {
				apply(t, bank.BanksOp{Kind: bank.OpFreeBuffer, Addr: drawBuffer(t, cfg, d.Model.Buffers())})
			},
			"PageAddress": func(t *rapid.T) {
				live := d.Model.Buffers()
				if len(live) == 0 {
					apply(t, bank.BanksOp{Kind: bank.OpPageAddress, Addr: drawBuffer(t, cfg, nil)})
					return
				}
				buf := rapid.SampledFrom(live).Draw(t, "buffer")
				apply(t, bank.BanksOp{Kind: bank.OpPageAddress, Addr: buf.Addr, Page: drawPage(t, buf)})
			},
		})
	})
}
