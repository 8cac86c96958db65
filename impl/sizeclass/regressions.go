package sizeclass

import (
	"runtime"
	"sync/atomic"

	"github.com/memverify/memverify/internal/bugs"
)

// Seeded performance regressions of the sizeclass domain (internal/bugs'
// regression catalogue): each leaves every answer as it was and costs what
// the benchmark gate must catch.
const (
	// PerfAllocRecord: LockFree records every request in a heap object.
	PerfAllocRecord bugs.ID = "sizeclass/perf-alloc-record"
	// PerfLockedWhenParallel: Sharded leaves its pinned per-P fast path
	// whenever more than one P runs.
	PerfLockedWhenParallel bugs.ID = "sizeclass/perf-locked-when-parallel"
)

func init() {
	bugs.RegisterRegression(
		bugs.Regression{ID: PerfAllocRecord, Domain: "sizeclass", Impl: "LockFree", Kind: "one allocation per op", Tier: "hard",
			Summary: "LockFree's Alloc keeps a record of the last request in a fresh heap object: one allocation per call",
			Benches: []string{"BenchmarkSizeclassPair/class=32K/impl=LockFree"}},
		bugs.Regression{ID: PerfLockedWhenParallel, Domain: "sizeclass", Impl: "Sharded", Kind: "a slower parallel path", Tier: "statistical",
			Summary: "Sharded runs as with Spread (each call on the next shard in turn, under its mutex) whenever GOMAXPROCS > 1: correct, slower, and a path the one-P counts never take",
			Benches: []string{"BenchmarkSizeclassParallel/impl=Sharded"}},
	)
}

// allocRecord is what PerfAllocRecord keeps of a request.
type allocRecord struct{ n int64 }

// lastAlloc holds the newest record; a store is atomic, so that the
// regression adds an allocation and no data race.
var lastAlloc atomic.Pointer[allocRecord]

// recordAlloc is PerfAllocRecord's extra allocation.
//
//go:noinline
func recordAlloc(n int64) { lastAlloc.Store(&allocRecord{n: n}) }

// lockedWhenParallel reports whether PerfLockedWhenParallel puts a new
// pool in Spread's locked mode: with more than one P.
func lockedWhenParallel() bool { return runtime.GOMAXPROCS(0) > 1 }
