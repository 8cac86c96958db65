package bench

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/puzpuzpuz/xsync/v4"

	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
)

// The refcount benchmarks compare the model behind one mutex, both
// implementations and two registries a Go programmer would write instead:
// refcounts in a sync.Map and in an xsync.Map. The peers are minimal (the
// calls measured here, no scopes, no leak report) and are not linearizable when
// two goroutines race on one pointer; the benchmarks never do that. Every
// parallel benchmark gives each goroutine pointers of its own.
//
//	go test ./bench -run '^$' -bench 'Refcount' -count=10

// rcRegistry is what the benchmarks call.
type rcRegistry interface {
	Register(p spec.Addr, bytes int64, kind spec.Kind) error
	RegisterBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) (spec.BufferID, error)
	Unregister(p spec.Addr) error
	IsRegistered(p spec.Addr) bool
}

var noFree = spec.FreerFunc(func(spec.Addr, int64, spec.Kind) {})

var rcImpls = []struct {
	name string
	make func() rcRegistry
}{
	{"Model", func() rcRegistry { return spec.NewLocked(noFree) }}, // the model behind one mutex: the baseline
	{"Sharded", func() rcRegistry { return impl.NewSharded(noFree) }},
	{"Sharded16", func() rcRegistry { return impl.NewShardedN(noFree, 16) }}, // the seed's typical shard count
	{"LockFree", func() rcRegistry { return impl.NewLockFree(noFree) }},
	{"SyncMap", func() rcRegistry { return &syncMapRegistry{} }},
	{"XSyncMap", func() rcRegistry { return &xsyncRegistry{m: xsync.NewMap[spec.Addr, xsEntry]()} }},
}

// peerBuf is a shared buffer of the peer registries.
type peerBuf struct {
	real  spec.Addr
	bytes int64
	kind  spec.Kind
	total atomic.Int64
}

var errPeer = errors.New("peer registry: refused")

// syncMapRegistry keeps one heap entry per pointer in a sync.Map.
type syncMapRegistry struct{ m sync.Map }

type smEntry struct {
	n     atomic.Int64
	bytes int64
	kind  spec.Kind
	buf   *peerBuf
}

func (r *syncMapRegistry) Register(p spec.Addr, bytes int64, kind spec.Kind) error {
	e := &smEntry{bytes: bytes, kind: kind}
	e.n.Store(1)
	if _, loaded := r.m.LoadOrStore(p, e); loaded {
		return errPeer
	}
	return nil
}

func (r *syncMapRegistry) RegisterBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) (spec.BufferID, error) {
	b := &peerBuf{real: real, bytes: bytes, kind: kind}
	b.total.Store(int64(len(aliases) + 1))
	for i, p := range append([]spec.Addr{real}, aliases...) {
		e := &smEntry{buf: b}
		e.n.Store(1)
		if old, loaded := r.m.LoadOrStore(p, e); loaded {
			if i > 0 && old.(*smEntry).buf == b { // listed twice
				old.(*smEntry).n.Add(1)
				continue
			}
			return 0, errPeer // minimal: no rollback
		}
	}
	return 1, nil
}

func (r *syncMapRegistry) Unregister(p spec.Addr) error {
	v, ok := r.m.Load(p)
	if !ok {
		return errPeer
	}
	e := v.(*smEntry)
	if e.n.Add(-1) == 0 {
		r.m.CompareAndDelete(p, e)
		if e.buf == nil {
			noFree(p, e.bytes, e.kind)
		}
	}
	if e.buf != nil && e.buf.total.Add(-1) == 0 {
		noFree(e.buf.real, e.buf.bytes, e.buf.kind)
	}
	return nil
}

func (r *syncMapRegistry) IsRegistered(p spec.Addr) bool {
	_, ok := r.m.Load(p)
	return ok
}

// xsyncRegistry keeps entries by value in an xsync.Map, updated in place with
// Compute (which locks one bucket).
type xsyncRegistry struct {
	m *xsync.Map[spec.Addr, xsEntry]
}

type xsEntry struct {
	n     int64
	bytes int64
	kind  spec.Kind
	buf   *peerBuf
}

func (r *xsyncRegistry) Register(p spec.Addr, bytes int64, kind spec.Kind) error {
	dup := false
	r.m.Compute(p, func(old xsEntry, loaded bool) (xsEntry, xsync.ComputeOp) {
		if loaded {
			dup = true
			return old, xsync.CancelOp
		}
		return xsEntry{n: 1, bytes: bytes, kind: kind}, xsync.UpdateOp
	})
	if dup {
		return errPeer
	}
	return nil
}

func (r *xsyncRegistry) RegisterBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) (spec.BufferID, error) {
	b := &peerBuf{real: real, bytes: bytes, kind: kind}
	b.total.Store(int64(len(aliases) + 1))
	conflict := false
	for _, p := range append([]spec.Addr{real}, aliases...) {
		r.m.Compute(p, func(old xsEntry, loaded bool) (xsEntry, xsync.ComputeOp) {
			switch {
			case !loaded:
				return xsEntry{n: 1, buf: b}, xsync.UpdateOp
			case old.buf == b:
				old.n++
				return old, xsync.UpdateOp
			}
			conflict = true
			return old, xsync.CancelOp
		})
		if conflict {
			return 0, errPeer // minimal: no rollback
		}
	}
	return 1, nil
}

func (r *xsyncRegistry) Unregister(p spec.Addr) error {
	var e xsEntry
	found := false
	r.m.Compute(p, func(old xsEntry, loaded bool) (xsEntry, xsync.ComputeOp) {
		if !loaded {
			return old, xsync.CancelOp
		}
		found, e = true, old
		if old.n--; old.n == 0 {
			return old, xsync.DeleteOp
		}
		return old, xsync.UpdateOp
	})
	if !found {
		return errPeer
	}
	if e.buf == nil {
		if e.n == 1 {
			noFree(p, e.bytes, e.kind)
		}
	} else if e.buf.total.Add(-1) == 0 {
		noFree(e.buf.real, e.buf.bytes, e.buf.kind)
	}
	return nil
}

func (r *xsyncRegistry) IsRegistered(p spec.Addr) bool {
	_, ok := r.m.Load(p)
	return ok
}

// rcSpan is how many distinct pointers one goroutine cycles through, and
// rcWorker the address distance between goroutines' ranges.
const (
	rcSpan   = 1024
	rcWorker = spec.Addr(1) << 32
)

var rcWorkers atomic.Uint64

// rcBase gives each parallel goroutine a range of its own.
func rcBase() spec.Addr { return spec.Addr(rcWorkers.Add(1)) * rcWorker }

func must(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

// pairs registers and unregisters pointers (64-byte aligned, cycling over
// rcSpan of them from base): one op is one Register plus one Unregister.
func pairs(b *testing.B, r rcRegistry, base spec.Addr, more func() bool) {
	for i := 0; more(); i = (i + 1) % rcSpan {
		p := base + spec.Addr(i)*64
		must(b, r.Register(p, 64, spec.ArrayNew))
		must(b, r.Unregister(p))
	}
}

// BenchmarkRefcountPair: one Register + Unregister of an owned pointer.
func BenchmarkRefcountPair(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			r := im.make()
			b.ReportAllocs()
			pairs(b, r, rcBase(), b.Loop)
		})
	}
}

// BenchmarkRefcountPairParallel: the same from every goroutine, on disjoint pointers.
func BenchmarkRefcountPairParallel(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			r := im.make()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) { pairs(b, r, rcBase(), pb.Next) })
		})
	}
}

// buffers registers a buffer with 8 aliases and releases its 9 holders, the
// last release freeing it: one op is one buffer's lifetime.
func buffers(b *testing.B, r rcRegistry, base spec.Addr, more func() bool) {
	var aliases [8]spec.Addr
	for i := 0; more(); i = (i + 1) % rcSpan {
		real := base + spec.Addr(i)*4096
		for j := range aliases {
			aliases[j] = real + spec.Addr(j+1)*256
		}
		if _, err := r.RegisterBuffer(real, 4096, aliases[:], spec.ArrayNew); err != nil {
			b.Fatal(err)
		}
		for _, a := range aliases {
			must(b, r.Unregister(a))
		}
		must(b, r.Unregister(real))
	}
}

// BenchmarkRefcountBuffer: a buffer with 8 aliases, from registration to free.
func BenchmarkRefcountBuffer(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			r := im.make()
			b.ReportAllocs()
			buffers(b, r, rcBase(), b.Loop)
		})
	}
}

// BenchmarkRefcountBufferParallel: the same from every goroutine.
func BenchmarkRefcountBufferParallel(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			r := im.make()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) { buffers(b, r, rcBase(), pb.Next) })
		})
	}
}

// rcPopulation is how many owned pointers the lookup benchmarks register.
const rcPopulation = 1 << 14

// populated returns a registry holding rcPopulation owned pointers, 16-byte
// aligned, from 0x10000. It collects the garbage the population left (grown
// tables, map buckets) before returning: otherwise a collection cycle started
// by the setup runs during the timed lookups and dominates them.
func populated(b *testing.B, make func() rcRegistry) rcRegistry {
	r := make()
	for i := range rcPopulation {
		must(b, r.Register(0x10000+spec.Addr(i)*16, 16, spec.ScalarNew))
	}
	runtime.GC()
	return r
}

// lookups asks IsRegistered of registered pointers, striding through them from
// a per-goroutine start; one op is one lookup.
func lookups(b *testing.B, r rcRegistry, start int, more func() bool) {
	for i := start; more(); i = (i + 7919) % rcPopulation {
		if !r.IsRegistered(0x10000 + spec.Addr(i)*16) {
			b.Fatal("lost a registration")
		}
	}
}

// BenchmarkRefcountLookup: IsRegistered on a populated registry.
func BenchmarkRefcountLookup(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			r := populated(b, im.make)
			b.ReportAllocs()
			b.ResetTimer()
			lookups(b, r, 0, b.Loop)
		})
	}
}

// BenchmarkRefcountLookupParallel: the same from every goroutine.
func BenchmarkRefcountLookupParallel(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			r := populated(b, im.make)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) { lookups(b, r, int(rcWorkers.Add(1)*101)%rcPopulation, pb.Next) })
		})
	}
}
