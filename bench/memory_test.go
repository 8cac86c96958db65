package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/memverify/memverify/model/overlap"
	refcount "github.com/memverify/memverify/model/refcount"
	sizeclass "github.com/memverify/memverify/model/sizeclass"
	tensormap "github.com/memverify/memverify/model/tensormap"
)

// The memory benchmarks report what each implementation and peer keeps on
// the Go heap per live object at steady state, as the metric B/live-entry:
// the live heap (HeapAlloc just after runtime.GC) after building N live
// objects less the live heap before, over N. N is large (about 100k) so
// that what does not grow with N (a registry's shards, a pool's classes)
// weighs little, as it does in a process that holds that many. The
// structure is built from nothing inside the measurement: a map's grown
// table, a ring's preallocated slots and a shard array count, and the
// build's garbage does not. One build is one op; time per op is not
// reported (it is the build's, which is not what is measured).
//
// What a live object is, per domain:
//
//	refcount   an owned pointer (Register), and a buffer with 8 aliases
//	           (RegisterBuffer; per buffer: its 9 holders together)
//	sizeclass  a block of the 32 KiB class cached by the pool after a Free
//	           (10k of them, not 100k: see scMemLive)
//	bank       a live block of the free list, with the ~1 free block
//	           between neighbours that bankLayout leaves
//	tensormap  a live entry at the steady state of the insert-lookup
//	           benchmark (capacity twice the live count, the retired half
//	           reused), after as many inserts and retires as it makes
//
// The goals (internal/goals) hold each implementation to the peer it is
// compared with: refcount to XSyncMap, sizeclass to syncPool, tensormap to
// GoMap, and bank, which has no Go peer, to its model. The heap is the Go
// heap: a peer that keeps its state in C (the cabi examples) is not
// measured here.

// memLive is the live count of the memory benchmarks.
const memLive = 100_000

// liveBytes returns the live heap that build leaves reachable, per object
// of n. Collecting once before reading the heap, not twice: a sync.Pool
// keeps what it holds across one collection (in its victim cache) and
// drops it at the second, and the peer is measured holding its blocks.
func liveBytes(n int, build func() any) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// memBench measures build in each of b.N ops and reports the last
// measure as B/live-entry; ns/op is suppressed.
func memBench(b *testing.B, n int, build func() any) {
	var per float64
	for range b.N {
		per = liveBytes(n, build)
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(per, "B/live-entry")
}

// BenchmarkRefcountMemory: per owned pointer, and per buffer with 8
// aliases, for the model, the implementations and the map peers.
func BenchmarkRefcountMemory(b *testing.B) {
	for _, im := range rcImpls {
		b.Run("live=pointer/impl="+im.name, func(b *testing.B) {
			memBench(b, memLive, func() any {
				r := im.make()
				for i := range memLive {
					must(b, r.Register(0x10000+refcount.Addr(i)*64, 64, refcount.ArrayNew))
				}
				return r
			})
		})
	}
	const buffers = memLive / 10 // 9 holders each: about as many entries as the owned pointers
	for _, im := range rcImpls {
		b.Run("live=buffer/aliases=8/impl="+im.name, func(b *testing.B) {
			memBench(b, buffers, func() any {
				r := im.make()
				var aliases [8]refcount.Addr
				for i := range buffers {
					real := 0x10000 + refcount.Addr(i)*4096
					for j := range aliases {
						aliases[j] = real + refcount.Addr(j+1)*256
					}
					if _, err := r.RegisterBuffer(real, 4096, aliases[:], refcount.ArrayNew); err != nil {
						b.Fatal(err)
					}
				}
				return r
			})
		})
	}
}

// bumpDevice hands out addresses and keeps no record of them, so that the
// heap measured is the pool's alone (spec.SimDevice keeps a map entry per
// block it has given out).
type bumpDevice struct{ next sizeclass.Addr }

func (d *bumpDevice) Malloc(n int64) (sizeclass.Addr, error) {
	p := d.next
	d.next += sizeclass.Addr(n)
	return p, nil
}

func (d *bumpDevice) Free(sizeclass.Addr) error { return nil }

// scMemLive is BenchmarkSizeclassMemory's count of cached blocks: 320 MiB
// of 32 KiB blocks. Not memLive: an Alloc that misses every cache costs
// LockFree and Sharded a scan of every block the pool has handed out (the
// private slots are searched through the block table), so building
// 100k cached blocks one miss at a time takes them minutes.
const scMemLive = 10_000

// BenchmarkSizeclassMemory: per block cached by the pool, for the model,
// the implementations and the sync.Pool peer: scMemLive blocks of the
// smallest class allocated, then all freed into the cache.
func BenchmarkSizeclassMemory(b *testing.B) {
	cfg := sizeclass.DefaultConfig()
	size := cfg.Classes[0]
	for _, im := range scImpls {
		b.Run(fmt.Sprintf("live=%d/impl=%s", scMemLive, im.name), func(b *testing.B) {
			addrs := make([]sizeclass.Addr, scMemLive) // outside the measure: the caller's
			memBench(b, scMemLive, func() any {
				p, err := im.make(&bumpDevice{next: 1 << 30}, cfg)
				if err != nil {
					b.Fatal(err)
				}
				for i := range addrs {
					if addrs[i], err = p.Alloc(size); err != nil {
						b.Fatal(err)
					}
				}
				for _, a := range addrs {
					must(b, p.Free(a, size))
				}
				return p
			})
		})
	}
}

// BenchmarkBankMemory: per live block of a free list restored to
// bankLayout's state, for the model and the optimised list.
func BenchmarkBankMemory(b *testing.B) {
	cfg, st := bankLayout(memLive, memLive)
	for _, li := range listImpls {
		if li.name == "Null" {
			continue // keeps nothing
		}
		b.Run(fmt.Sprintf("live=%dk/impl=%s", memLive/1000, li.name), func(b *testing.B) {
			memBench(b, memLive, func() any {
				l, err := li.make(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Restore(st); err != nil {
					b.Fatal(err)
				}
				return l
			})
		})
	}
}

// tmMemLive is the live count of BenchmarkTensorMapMemory: the largest of
// BenchmarkTensorMapInsertLookup's, whose steady state it measures.
const tmMemLive = 65536

// BenchmarkTensorMapMemory: per live entry at the steady state of the
// insert-lookup benchmark's trace (layout=tiles), for the model, the ring
// and the Go map peer.
func BenchmarkTensorMapMemory(b *testing.B) {
	for _, im := range tmImpls {
		b.Run(fmt.Sprintf("live=%d/impl=%s", tmMemLive, im.name), func(b *testing.B) {
			memBench(b, tmMemLive, func() any { return tmSteady(b, im, tmMemLive) })
		})
	}
}

// tmSteady builds a map of im with capacity 2·live and runs the warm-up of
// tmInsertLookup: 2·live inserts, retired so that live entries stay live.
func tmSteady(b *testing.B, im tmImpl, live int) tensormap.Map {
	m, err := im.make(tensormap.Config{Capacity: 2 * live})
	if err != nil {
		b.Fatal(err)
	}
	tiles := [4]overlap.View{tmPart("tiles", 0), tmPart("tiles", 1), tmPart("tiles", 2), tmPart("tiles", 3)}
	n := uint64(live)
	for i := range 2 * n {
		if err := m.Insert(tmStorage(i), tiles[i%4], tensormap.Task(i)); err != nil {
			b.Fatal(err)
		}
		if i >= n && i%1024 == 0 {
			if err := m.Retire(tensormap.Task(i + 1 - n)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := m.Retire(tensormap.Task(n)); err != nil {
		b.Fatal(err)
	}
	return m
}
