package bench

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// The sizeclass benchmarks use the default configuration (the seed's 11
// classes) over a simulated device large enough never to run out. A cached
// pair is one Alloc and one Free of a block that stays in the cache, so after
// the first pair no call reaches the device. Peers: a sync.Pool per class
// holding addresses, what a Go user would reach for (it has no accounting,
// no double-free detection, no pin mode, boxes each address it holds, and
// drops cached blocks at a GC — a leak when the blocks are device memory).

// scPool is what a benchmark drives: Free takes the size, which the
// sync.Pool peer needs and the pools ignore.
type scPool interface {
	Alloc(n int64) (spec.Addr, error)
	Free(p spec.Addr, n int64) error
}

type scAdapter struct{ spec.Pool }

func (a scAdapter) Free(p spec.Addr, _ int64) error { return a.Pool.Free(p) }

// scSyncPool is the peer: one sync.Pool of addresses per class, large
// requests straight to the device.
type scSyncPool struct {
	dev   spec.Device
	cfg   spec.Config
	pools []sync.Pool
}

func newSCSyncPool(dev spec.Device, cfg spec.Config) *scSyncPool {
	return &scSyncPool{dev: dev, cfg: cfg, pools: make([]sync.Pool, len(cfg.Classes))}
}

func (s *scSyncPool) Alloc(n int64) (spec.Addr, error) {
	size, _ := s.cfg.Round(n)
	c := s.cfg.ClassOf(size)
	if c < 0 {
		return s.dev.Malloc(size)
	}
	if v := s.pools[c].Get(); v != nil {
		return v.(spec.Addr), nil
	}
	return s.dev.Malloc(s.cfg.Classes[c])
}

func (s *scSyncPool) Free(p spec.Addr, n int64) error {
	size, _ := s.cfg.Round(n)
	c := s.cfg.ClassOf(size)
	if c < 0 {
		return s.dev.Free(p)
	}
	s.pools[c].Put(p)
	return nil
}

type scImpl struct {
	name       string
	concurrent bool
	make       func(spec.Device, spec.Config) (scPool, error)
}

func scWrap(p spec.Pool, err error) (scPool, error) { return scAdapter{p}, err }

var scImpls = []scImpl{
	{"Model", false, func(d spec.Device, c spec.Config) (scPool, error) { return scWrap(spec.NewModel(d, c)) }},
	{"Mutex", true, func(d spec.Device, c spec.Config) (scPool, error) { return scWrap(impl.NewMutex(d, c)) }},
	{"Sharded", true, func(d spec.Device, c spec.Config) (scPool, error) {
		return scWrap(impl.NewSharded(d, c, impl.ShardedOptions{}))
	}},
	{"LockFree", true, func(d spec.Device, c spec.Config) (scPool, error) { return scWrap(impl.NewLockFree(d, c)) }},
	{"syncPool", true, func(d spec.Device, c spec.Config) (scPool, error) { return newSCSyncPool(d, c), nil }},
}

func scNew(b *testing.B, im scImpl) scPool {
	b.Helper()
	p, err := im.make(spec.NewSimDevice(1<<50), spec.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func scPair(b *testing.B, p scPool, n int64) {
	a, err := p.Alloc(n)
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Free(a, n); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSizeclassPair is one cached Alloc+Free pair per op, per class,
// on one goroutine.
func BenchmarkSizeclassPair(b *testing.B) {
	for _, size := range spec.DefaultConfig().Classes {
		b.Run(fmt.Sprintf("class=%s", scSizeName(size)), func(b *testing.B) {
			for _, im := range scImpls {
				b.Run("impl="+im.name, func(b *testing.B) {
					p := scNew(b, im)
					scPair(b, p, size) // the block is cached from here on
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						scPair(b, p, size)
					}
				})
			}
		})
	}
}

func scSizeName(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dM", n>>20)
	}
	return fmt.Sprintf("%dK", n>>10)
}

// scTraceOp is one step of a mixed-size trace: allocate N bytes into slot
// Slot, or free the block in slot Slot.
type scTraceOp struct {
	Alloc bool
	Slot  int
	N     int64
}

// scTrace draws a trace over 64 slots: sizes spread over every class (mostly
// the small ones) with a large request now and then; each op frees a full
// slot or fills an empty one, and the trace ends with every slot empty, so
// it can be replayed.
func scTrace(ops int, seed uint64) []scTraceOp {
	r := rand.New(rand.NewPCG(seed, 7))
	classes := spec.DefaultConfig().Classes
	const slots = 64
	full := make([]int64, slots)
	var out []scTraceOp
	for range ops {
		s := r.IntN(slots)
		if full[s] != 0 {
			out = append(out, scTraceOp{Slot: s, N: full[s]})
			full[s] = 0
			continue
		}
		var n int64
		switch k := r.IntN(100); {
		case k < 1:
			n = classes[len(classes)-1] + 1 + r.Int64N(1<<20)
		default:
			c := min(int(r.ExpFloat64()*1.5), len(classes)-1)
			n = 1 + r.Int64N(classes[c])
		}
		full[s] = n
		out = append(out, scTraceOp{Alloc: true, Slot: s, N: n})
	}
	for s, n := range full {
		if n != 0 {
			out = append(out, scTraceOp{Slot: s, N: n})
		}
	}
	return out
}

func scReplay(b *testing.B, p scPool, trace []scTraceOp, addrs []spec.Addr) {
	for _, op := range trace {
		if op.Alloc {
			a, err := p.Alloc(op.N)
			if err != nil {
				b.Fatal(err)
			}
			addrs[op.Slot] = a
		} else if err := p.Free(addrs[op.Slot], op.N); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSizeclassMixed replays a mixed-size trace on one goroutine; one
// op is one replay of the whole trace, and ns/call its cost per Alloc or
// Free.
func BenchmarkSizeclassMixed(b *testing.B) {
	trace := scTrace(4096, 1)
	for _, im := range scImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			p := scNew(b, im)
			addrs := make([]spec.Addr, 64)
			scReplay(b, p, trace, addrs) // warm the caches
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				scReplay(b, p, trace, addrs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(trace)), "ns/call")
		})
	}
}

// BenchmarkSizeclassParallel runs cached Alloc+Free pairs under RunParallel,
// each goroutine cycling through the four smallest classes; one op is one
// pair.
func BenchmarkSizeclassParallel(b *testing.B) {
	sizes := spec.DefaultConfig().Classes[:4]
	for _, im := range scImpls {
		if !im.concurrent {
			continue
		}
		b.Run("impl="+im.name, func(b *testing.B) {
			p := scNew(b, im)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					scPair(b, p, sizes[i&3])
					i++
				}
			})
		})
	}
}

// BenchmarkSizeclassParallelMixed replays the mixed trace on every
// goroutine under RunParallel (each with its own slots); one op is one
// replay of the trace.
func BenchmarkSizeclassParallelMixed(b *testing.B) {
	trace := scTrace(1024, 2)
	for _, im := range scImpls {
		if !im.concurrent {
			continue
		}
		b.Run("impl="+im.name, func(b *testing.B) {
			p := scNew(b, im)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				addrs := make([]spec.Addr, 64)
				for pb.Next() {
					scReplay(b, p, trace, addrs)
				}
			})
		})
	}
}
