package banktest

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckBanks is the differential state machine of the banks: rapid draws a
// configuration and a sequence of interleaved and sharded allocations (valid
// and invalid), frees and page-address queries, applies each to the model and
// to factory's banks, and after every call compares the result (buffer and
// page addresses exactly), Buffers, Stats and Blocks, and checks the block
// invariants. A mismatch fails t with the op trace.
func CheckBanks(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		d, err := NewBanksDiff(cfg, factory)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		apply := func(t *rapid.T, op spec.BanksOp) {
			if err := d.Apply(op); err != nil {
				t.Fatalf("%v", err)
			}
		}
		alloc := func(t *rapid.T) { apply(t, drawBanksAlloc(t, cfg)) }
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate":  alloc,
			"Allocate2": alloc,
			"Free": func(t *rapid.T) {
				apply(t, spec.BanksOp{Kind: spec.OpFreeBuffer, Addr: drawBuffer(t, cfg, d.Model.Buffers())})
			},
			"PageAddress": func(t *rapid.T) {
				live := d.Model.Buffers()
				if len(live) == 0 {
					apply(t, spec.BanksOp{Kind: spec.OpPageAddress, Addr: drawBuffer(t, cfg, nil)})
					return
				}
				buf := rapid.SampledFrom(live).Draw(t, "buffer")
				apply(t, spec.BanksOp{Kind: spec.OpPageAddress, Addr: buf.Addr, Page: drawPage(t, buf)})
			},
		})
	})
}

// CheckBanksPageMapping checks the page mapping of factory's banks alone,
// with no model: after every allocation and free, PageMappingInvariants holds
// (every page of every live buffer in a slot of its own block in its bank, at
// most ceil(pages / n) pages a bank, no byte of a bank shared by two pages)
// and so do the block invariants.
func CheckBanksPageMapping(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		var tr trace.Trace
		step := func(t *rapid.T, op spec.BanksOp) {
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
				step(t, spec.BanksOp{Kind: spec.OpFreeBuffer, Addr: drawBuffer(t, cfg, b.Buffers())})
			},
		})
	})
}

// fillOp is the trace entry of a pattern written through the page mapping.
type fillOp struct {
	addr spec.Addr
	seed uint64
}

func (f fillOp) String() string { return fmt.Sprintf("Fill(%#x, pattern %d)", uint64(f.addr), f.seed) }

// patternByte is byte j of page i of the pattern seed: distinct seeds give
// different bytes almost everywhere, so a page overwritten by another buffer
// shows.
func patternByte(seed uint64, page int64, j int64) byte {
	x := seed*0x9e3779b97f4a7c15 + uint64(page)*0xbf58476d1ce4e5b9 + uint64(j)*0x94d049bb133111eb
	x ^= x >> 31
	x *= 0xd6e8feb86659fd39
	return byte(x>>32) | 1 // never 0, so an unwritten byte never matches
}

// CheckBanksIsolation is the end-to-end property: every live buffer of
// factory's banks is filled, through PageAddress, with its own pattern in a
// simulated memory (spec.Memory, bounds-checked per bank); random
// allocations, frees and rewrites follow; after every step every live
// buffer's bytes are read back and must be its own pattern. A buffer whose
// bytes changed was hit by an operation on another; a write that leaves its
// bank is a failure too.
func CheckBanksIsolation(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		mem, err := spec.NewMemory(cfg)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		var tr trace.Trace
		seeds := map[spec.Addr]uint64{} // live buffer → its pattern
		var next uint64
		fail := func(t *rapid.T, format string, args ...any) {
			t.Fatalf("%s", trace.Failure(fmt.Sprintf(format, args...), &tr, ""))
		}
		fill := func(t *rapid.T, buf spec.Buffer) {
			next++
			seeds[buf.Addr] = next
			tr.Add(fillOp{buf.Addr, next}, "ok")
			for i := int64(0); i < buf.Pages(); i++ {
				bank, abs, err := b.PageAddress(buf.Addr, i)
				if err != nil {
					fail(t, "PageAddress(%#x, %d): %v", uint64(buf.Addr), i, err)
				}
				data := make([]byte, buf.PageLen(i))
				for j := range data {
					data[j] = patternByte(next, i, int64(j))
				}
				if err := mem.Write(bank, abs, data); err != nil {
					fail(t, "page %d of buffer %#x: %v", i, uint64(buf.Addr), err)
				}
			}
		}
		verify := func(t *rapid.T) {
			live := b.Buffers()
			if got, want := len(live), len(seeds); got != want {
				fail(t, "Buffers() lists %d buffers, %d are live", got, want)
			}
			for _, buf := range live {
				seed, ok := seeds[buf.Addr]
				if !ok {
					fail(t, "Buffers() lists %#x, which is not live", uint64(buf.Addr))
				}
				for i := int64(0); i < buf.Pages(); i++ {
					bank, abs, err := b.PageAddress(buf.Addr, i)
					if err != nil {
						fail(t, "PageAddress(%#x, %d): %v", uint64(buf.Addr), i, err)
					}
					got := make([]byte, buf.PageLen(i))
					if err := mem.Read(bank, abs, got); err != nil {
						fail(t, "page %d of buffer %#x: %v", i, uint64(buf.Addr), err)
					}
					for j, c := range got {
						if w := patternByte(seed, i, int64(j)); c != w {
							fail(t, "byte %d of page %d of buffer %#x (bank %d, %#x) is %#x, its pattern %d wrote %#x: another buffer's operation changed it",
								j, i, uint64(buf.Addr), bank, uint64(abs)+uint64(j), c, seed, w)
						}
					}
				}
			}
		}
		alloc := func(t *rapid.T) {
			op := drawBanksAlloc(t, cfg)
			r := op.Apply(b)
			tr.Add(op, r)
			if r.Err != "" {
				return
			}
			i := slices.IndexFunc(b.Buffers(), func(x spec.Buffer) bool { return x.Addr == r.Addr })
			if i < 0 {
				fail(t, "%v succeeded but Buffers() does not list %#x", op, uint64(r.Addr))
			}
			fill(t, b.Buffers()[i])
		}
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate":  alloc,
			"Allocate2": alloc,
			"Free": func(t *rapid.T) {
				op := spec.BanksOp{Kind: spec.OpFreeBuffer, Addr: drawBuffer(t, cfg, b.Buffers())}
				r := op.Apply(b)
				tr.Add(op, r)
				if _, live := seeds[op.Addr]; live != (r.Err == "") {
					fail(t, "%v returned %v for a buffer that is live: %v", op, r, live)
				}
				delete(seeds, op.Addr)
			},
			"Rewrite": func(t *rapid.T) {
				if live := b.Buffers(); len(live) > 0 {
					fill(t, rapid.SampledFrom(live).Draw(t, "buffer"))
				}
			},
			"": verify,
		})
	})
}
