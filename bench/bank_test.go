package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

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
					tr := newFreeListTrace(b, li, cfg, st, dir)
					// The setup's garbage (the state's copies, several MB
					// at 100k) is collected before the clock starts, so
					// that a collection it would trigger is not charged
					// to the operations measured, which allocate nothing.
					runtime.GC()
					b.ReportAllocs()
					b.ResetTimer()
					tr.run(b, b.N)
				})
			}
		}
	}
}

// sweepSizes are BenchmarkBankFreeListSweep's live counts, smallest first.
var sweepSizes = []int{1_000, 10_000, 100_000}

// BenchmarkBankFreeListSweep measures the growth of the optimised list's
// cost across the sweep as a paired comparison: one benchmark holds the
// three lists of BenchmarkBankFreeList (1k, 10k and 100k live blocks, the
// same traces) and runs b.N ops on each in turn, timing each list apart.
// Every sample so times the three sizes within a tenth of a second of each
// other. Measured one after the other, as BenchmarkBankFreeList's separate
// sub-benchmarks are, the sizes are seconds to minutes apart, and this host
// changes speed by about 1.4× from one phase to the next (every benchmark
// at once; see README.md), so the ratio of two sizes' medians depends on
// which phases their samples fell in. Within one sample the phase is
// mostly common to the sizes and cancels out of their ratio.
//
// Each list runs its b.N ops in one stretch. Taking turns in shorter
// stretches would pair the sizes more closely but charges each list for
// refilling the caches after the others: in turns of 16384 ops, the 100k
// list's median came out 1.19× its own benchmark's in the same minutes
// (65536 ops: 1.09×; one stretch: 1.01×).
//
// It reports, per sample, each size's ns/op (ns/op@1k, ...) and the ratio
// of each larger size's to the smallest's (x@10k/1k, x@100k/1k), which the
// logarithmic-growth goal is judged on.
func BenchmarkBankFreeListSweep(b *testing.B) {
	li := listImpls[1] // FreeListOpt
	for _, dir := range []spec.Direction{spec.BottomUp, spec.TopDown} {
		b.Run(fmt.Sprintf("dir=%v/impl=%s", dir, li.name), func(b *testing.B) {
			traces := make([]*freeListTrace, len(sweepSizes))
			for i, n := range sweepSizes {
				cfg, st := bankLayout(n, uint64(n))
				traces[i] = newFreeListTrace(b, li, cfg, st, dir)
			}
			spent := make([]time.Duration, len(sweepSizes))
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for i, tr := range traces {
				start := time.Now()
				tr.run(b, b.N)
				spent[i] = time.Since(start)
			}
			b.StopTimer()
			per := func(i int) float64 { return float64(spent[i].Nanoseconds()) / float64(b.N) }
			for i, n := range sweepSizes {
				b.ReportMetric(per(i), fmt.Sprintf("ns/op@%dk", n/1000))
				if i > 0 {
					b.ReportMetric(per(i)/per(0), fmt.Sprintf("x@%dk/%dk", n/1000, sweepSizes[0]/1000))
				}
			}
			// ns/op, as go test computes it, is the three lists' ops
			// together over b.N: their sum, not a cost of one op.
			b.ReportMetric(0, "ns/op")
		})
	}
}

// freeListTrace is the steady-state trace of the free-list benchmarks on
// one list: each op frees a random live block and allocates a block of
// random size in its place.
type freeListTrace struct {
	l    spec.FreeList
	base spec.Addr
	dir  spec.Direction
	// The live blocks are kept as 32-bit unit counts from the range's
	// start, 4 bytes a block rather than 8: at 100k blocks the slice is
	// 400 KB, and its random slot per op competes for the same 1 MiB L2 as
	// the list being measured, so a wider slice would charge the list for
	// the harness's own memory. (Every address here is a multiple of
	// benchAlign inside a range of far fewer than 2^32 units.)
	live []uint32
	r    *rand.Rand
}

// newFreeListTrace restores the starting state st into a new list of li.
func newFreeListTrace(b *testing.B, li listImpl, cfg spec.Config, st spec.State, dir spec.Direction) *freeListTrace {
	l, err := li.make(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Restore(st); err != nil {
		b.Fatal(err)
	}
	tr := &freeListTrace{l: l, base: cfg.Offset, dir: dir, live: make([]uint32, 0, len(st.Allocations)),
		r: rand.New(rand.NewPCG(42, uint64(len(st.Allocations))))}
	for _, a := range st.Allocations {
		tr.live = append(tr.live, uint32((a.Addr-cfg.Offset)/benchAlign))
	}
	return tr
}

// run performs n ops of the trace.
func (tr *freeListTrace) run(b *testing.B, n int) {
	l, live, r, base := tr.l, tr.live, tr.r, tr.base
	for range n {
		k := r.IntN(len(live))
		if err := l.Free(base + spec.Addr(live[k])*benchAlign); err != nil {
			b.Fatal(err)
		}
		a, err := l.Allocate(int64(benchAlign*(1+r.IntN(benchUnits))), tr.dir, 0)
		if err != nil {
			b.Fatal(err)
		}
		live[k] = uint32((a - base) / benchAlign)
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
