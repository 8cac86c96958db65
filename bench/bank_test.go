package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	impl "github.com/memverify/memverify/impl/bank"
	spec "github.com/memverify/memverify/model/bank"
)

// The free-list benchmarks run one steady-state trace: each op frees a
// random live block and allocates a block of random size (1 to 64 units of
// 32 bytes), so the live count stays at N while the free blocks fragment.
// The starting layout is restored, not built op by op: N live blocks with
// random gaps between them (about N free blocks too), in a range twice what
// they need. One op of the trace is one Free plus one Allocate.

const (
	benchAlign = 32
	benchUnits = 64
)

// bankLayout builds the starting state for n live blocks and the config.
func bankLayout(n int, seed uint64) (spec.Config, spec.State) {
	r := rand.New(rand.NewPCG(seed, 1))
	cfg := spec.Config{Offset: 1 << 20, Alignment: benchAlign}
	st := spec.State{Offset: cfg.Offset, Alignment: benchAlign}
	next := cfg.Offset
	for range n {
		next += spec.Addr(benchAlign * r.IntN(benchUnits)) // a hole, sometimes none
		size := int64(benchAlign * (1 + r.IntN(benchUnits)))
		st.Allocations = append(st.Allocations, spec.Region{Addr: next, Size: size})
		next += spec.Addr(size)
	}
	cfg.Size = 2 * int64(next-cfg.Offset)
	st.Size = cfg.Size
	return cfg, st
}

type listImpl struct {
	name string
	make func(spec.Config) (spec.FreeList, error)
}

// nullList keeps nothing: every call succeeds at once. Under
// BenchmarkBankFreeList it measures the benchmark loop itself (the random
// choice of victim and size, the slice of live blocks, 4 bytes a block
// touched at random, and the interface calls), so that the lists' own cost
// can be told from it.
type nullList struct{ cfg spec.Config }

func (l *nullList) Config() spec.Config { return l.cfg }
func (l *nullList) Allocate(int64, spec.Direction, spec.Addr) (spec.Addr, error) {
	return l.cfg.Offset, nil
}
func (l *nullList) AllocateAt(spec.Addr, int64) error { return nil }
func (l *nullList) AllocateAvoiding(int64, spec.Direction, []spec.Range, spec.Addr) (spec.Addr, error) {
	return l.cfg.Offset, nil
}
func (l *nullList) Free(spec.Addr) error     { return nil }
func (l *nullList) Stats() spec.Stats        { return spec.Stats{} }
func (l *nullList) Blocks() []spec.Block     { return nil }
func (l *nullList) State() spec.State        { return spec.State{} }
func (l *nullList) Restore(spec.State) error { return nil }

var listImpls = []listImpl{
	{"Model", func(c spec.Config) (spec.FreeList, error) { return spec.NewModel(c) }},
	{"FreeListOpt", func(c spec.Config) (spec.FreeList, error) { return impl.NewFreeListOpt(c) }},
	{"FreeListOptBestFit", func(c spec.Config) (spec.FreeList, error) {
		c.Policy = spec.BestFit
		return impl.NewFreeListOpt(c)
	}},
	{"Null", func(c spec.Config) (spec.FreeList, error) { return &nullList{cfg: c}, nil }},
}

// BenchmarkBankFreeList measures one free plus one allocation at 1k, 10k and
// 100k live blocks, bottom-up and top-down, for the model and the optimised
// list (first fit, and best fit for reference), and the loop's own cost
// (impl=Null, a list that does nothing).
func BenchmarkBankFreeList(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		cfg, st := bankLayout(n, uint64(n))
		for _, dir := range []spec.Direction{spec.BottomUp, spec.TopDown} {
			for _, li := range listImpls {
				name := fmt.Sprintf("live=%dk/dir=%v/impl=%s", n/1000, dir, li.name)
				b.Run(name, func(b *testing.B) {
					l, err := li.make(cfg)
					if err != nil {
						b.Fatal(err)
					}
					if err := l.Restore(st); err != nil {
						b.Fatal(err)
					}
					// The live blocks are kept as 32-bit unit counts from
					// the range's start, 4 bytes a block rather than 8: at
					// 100k blocks the slice is 400 KB, and its random slot
					// per op competes for the same 1 MiB L2 as the list
					// being measured, so a wider slice would charge the list
					// for the harness's own memory. (Every address here is
					// a multiple of benchAlign inside a range of far fewer
					// than 2^32 units.)
					live := make([]uint32, 0, n)
					for _, r := range st.Allocations {
						live = append(live, uint32((r.Addr-cfg.Offset)/benchAlign))
					}
					r := rand.New(rand.NewPCG(42, uint64(n)))
					// The setup's garbage (the state's copies, several MB
					// at 100k) is collected before the clock starts, so
					// that a collection it would trigger is not charged
					// to the operations measured, which allocate nothing.
					runtime.GC()
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						k := r.IntN(len(live))
						if err := l.Free(cfg.Offset + spec.Addr(live[k])*benchAlign); err != nil {
							b.Fatal(err)
						}
						a, err := l.Allocate(int64(benchAlign*(1+r.IntN(benchUnits))), dir, 0)
						if err != nil {
							b.Fatal(err)
						}
						live[k] = uint32((a - cfg.Offset) / benchAlign)
					}
				})
			}
		}
	}
}

type banksImpl struct {
	name string
	make func(spec.BanksConfig) (spec.Banks, error)
}

var banksImpls = []banksImpl{
	{"Model", func(c spec.BanksConfig) (spec.Banks, error) { return spec.NewBanksModel(c) }},
	{"Concurrent", func(c spec.BanksConfig) (spec.Banks, error) { return impl.NewConcurrent(c) }},
}

// pageBanks is twelve DRAM-like banks with one 1000-page interleaved buffer
// of 2 KiB tiles among 64 others.
func pageBanks(b *testing.B, build func(spec.BanksConfig) (spec.Banks, error)) (spec.Banks, spec.Addr, int64) {
	offs := make([]spec.Addr, 12)
	for i := range offs {
		offs[i] = spec.Addr(i) << 32
	}
	bk, err := build(spec.BanksConfig{Offsets: offs, List: spec.Config{Size: 1 << 30, Alignment: 32}})
	if err != nil {
		b.Fatal(err)
	}
	var addr spec.Addr
	for i := range 64 {
		a, err := bk.AllocateBuffer(1000*2048, 2048, spec.BottomUp)
		if err != nil {
			b.Fatal(err)
		}
		if i == 32 {
			addr = a
		}
	}
	return bk, addr, 1000
}

// BenchmarkBankPageAddress measures the interleaved page-address
// computation: one PageAddress call for successive pages of a live buffer.
func BenchmarkBankPageAddress(b *testing.B) {
	for _, bi := range banksImpls {
		b.Run("impl="+bi.name, func(b *testing.B) {
			bk, addr, pages := pageBanks(b, bi.make)
			b.ReportAllocs()
			b.ResetTimer()
			var sink spec.Addr
			for i := range b.N {
				_, a, err := bk.PageAddress(addr, int64(i)%pages)
				if err != nil {
					b.Fatal(err)
				}
				sink += a
			}
			_ = sink
		})
	}
}

// BenchmarkBankPageAddressParallel is BenchmarkBankPageAddress from every
// P at once, for the implementation safe for concurrent use.
func BenchmarkBankPageAddressParallel(b *testing.B) {
	b.Run("impl=Concurrent", func(b *testing.B) {
		bk, addr, pages := pageBanks(b, banksImpls[1].make)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			var i int64
			for pb.Next() {
				if _, _, err := bk.PageAddress(addr, i%pages); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
}
