//go:build cgo

package bench

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/memverify/memverify/cabi"
	"github.com/memverify/memverify/cabi/examples"
	bk "github.com/memverify/memverify/model/bank"
	sc "github.com/memverify/memverify/model/sizeclass"
)

// The Cabi benchmarks measure the C examples of package cabi (built with
// the machine's C compiler; skipped without one) beside the Go
// implementations, on the operations of BenchmarkRefcountPair,
// BenchmarkBankFreeList and BenchmarkSizeclassPair, so that one run gives
// the ratios. Each C example appears twice:
//
//	impl=CExample     the operation looped n times on the C side, in one
//	                  cgo call: the implementation's own cost per operation
//	impl=CExampleCgo  one cgo call per table call, through the adapter that
//	                  the suites use: what a Go caller of the library pays
//
// BenchmarkCabiCgoOverhead states the cost of the boundary itself.
//
//	go test ./bench -run '^$' -bench Cabi -benchmem

// cabiExample builds the example called name into a temporary directory
// of b's and opens it.
func cabiExample(b *testing.B, name string) *cabi.Library {
	b.Helper()
	path, err := examples.Build(b.TempDir(), name)
	if errors.Is(err, examples.ErrNoCompiler) {
		b.Skipf("the C examples need a C compiler: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	lib, err := cabi.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	return lib
}

// BenchmarkCabiCgoOverhead: call=Empty is one cgo call of a C function
// that does nothing (every adapter call pays it once); call=Callback is one
// call from C into a Go function that does nothing (a freer or a device
// call pays it); call=RefcountPair times the C example's register and
// unregister both ways in one sample, b.N of each, and reports ns/op@loop
// (looped in C), ns/op@cgo (one cgo call per table call, two per op) and
// ns/cgo-call, half their difference: the boundary's cost per call seen
// on a real operation. (Its ns/op is the two timings' sum, not an op's
// cost, and is reported as 0.)
func BenchmarkCabiCgoOverhead(b *testing.B) {
	b.Run("call=Empty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cabi.EmptyCall()
		}
	})
	b.Run("call=Callback", func(b *testing.B) {
		b.ReportAllocs()
		b.ResetTimer()
		cabi.CallbackLoop(b.N)
	})
	lib := cabiExample(b, "refcount")
	b.Run("call=RefcountPair", func(b *testing.B) {
		reg := cabiRegistry(b, lib)
		base := rcBase()
		// Warm both paths first (the C allocator's free lists, the
		// registry's arrays), so neither timing pays for a cold start.
		must(b, reg.LoopPairs(base, rcSpan, rcSpan))
		warm := 0
		pairs(b, reg, base, func() bool { warm++; return warm <= rcSpan })
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		must(b, reg.LoopPairs(base, rcSpan, b.N))
		loop := time.Since(start)
		n := 0
		start = time.Now()
		pairs(b, reg, base, func() bool { n++; return n <= b.N })
		percall := time.Since(start)
		b.StopTimer()
		perOp := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
		b.ReportMetric(perOp(loop), "ns/op@loop")
		b.ReportMetric(perOp(percall), "ns/op@cgo")
		b.ReportMetric((perOp(percall)-perOp(loop))/2, "ns/cgo-call")
		b.ReportMetric(0, "ns/op")
	})
}

func cabiRegistry(b *testing.B, lib *cabi.Library) *cabi.Registry {
	rt, err := lib.Refcount()
	if err != nil {
		b.Fatal(err)
	}
	reg, err := rt.NewRegistry(noFree)
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// BenchmarkCabiRefcountPair is BenchmarkRefcountPair (one Register and one
// Unregister of an owned pointer) for the C example, beside the model and
// the implementations.
func BenchmarkCabiRefcountPair(b *testing.B) {
	lib := cabiExample(b, "refcount")
	for _, im := range rcImpls {
		if im.name != "Model" && im.name != "Sharded" && im.name != "LockFree" {
			continue
		}
		b.Run("impl="+im.name, func(b *testing.B) {
			r := im.make()
			b.ReportAllocs()
			pairs(b, r, rcBase(), b.Loop)
		})
	}
	b.Run("impl=CExample", func(b *testing.B) {
		reg := cabiRegistry(b, lib)
		b.ReportAllocs()
		b.ResetTimer()
		must(b, reg.LoopPairs(rcBase(), rcSpan, b.N))
	})
	b.Run("impl=CExampleCgo", func(b *testing.B) {
		reg := cabiRegistry(b, lib)
		b.ReportAllocs()
		pairs(b, reg, rcBase(), b.Loop)
	})
}

// BenchmarkCabiBankFreeList is BenchmarkBankFreeList at 1k live blocks
// (one Free and one Allocate of the steady-state trace) for the C example,
// beside the model and FreeListOpt. The C loop draws the trace's victims
// and sizes from the same distributions with a generator of its own.
func BenchmarkCabiBankFreeList(b *testing.B) {
	lib := cabiExample(b, "bank")
	bt, err := lib.Bank()
	if err != nil {
		b.Fatal(err)
	}
	const n = 1_000
	cfg, st := bankLayout(n, uint64(n))
	cExample := listImpl{"CExampleCgo", func(c bk.Config) (bk.FreeList, error) { return bt.NewFreeList(c) }}
	for _, dir := range []bk.Direction{bk.BottomUp, bk.TopDown} {
		prefix := fmt.Sprintf("live=%dk/dir=%v/", n/1000, dir)
		for _, li := range []listImpl{listImpls[0], listImpls[1], cExample} {
			b.Run(prefix+"impl="+li.name, func(b *testing.B) {
				tr := newFreeListTrace(b, li, cfg, st, dir)
				runtime.GC()
				b.ReportAllocs()
				b.ResetTimer()
				tr.run(b, b.N)
			})
		}
		b.Run(prefix+"impl=CExample", func(b *testing.B) {
			tr := newFreeListTrace(b, cExample, cfg, st, dir)
			l := tr.l.(*cabi.FreeList)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			must(b, l.LoopTrace(tr.live, tr.base, benchAlign, benchUnits, dir, uint64(n), b.N))
		})
	}
}

// BenchmarkCabiSizeclassPair is BenchmarkSizeclassPair for the smallest
// and a middle class (one cached Alloc and Free) for the C example, beside
// the model and the implementations.
func BenchmarkCabiSizeclassPair(b *testing.B) {
	lib := cabiExample(b, "sizeclass")
	st, err := lib.Sizeclass()
	if err != nil {
		b.Fatal(err)
	}
	cExample := scImpl{"CExampleCgo", true, func(d sc.Device, c sc.Config) (scPool, error) {
		return scWrap(st.NewPool(d, c))
	}}
	for _, size := range []int64{32 << 10, 8 << 20} {
		prefix := fmt.Sprintf("class=%s/", scSizeName(size))
		for _, im := range append(scImpls[:4:4], cExample) {
			b.Run(prefix+"impl="+im.name, func(b *testing.B) {
				p := scNew(b, im)
				scPair(b, p, size)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					scPair(b, p, size)
				}
			})
		}
		b.Run(prefix+"impl=CExample", func(b *testing.B) {
			p, err := st.NewPool(sc.NewSimDevice(1<<50), sc.DefaultConfig())
			if err != nil {
				b.Fatal(err)
			}
			must(b, p.LoopPairs(size, 1)) // the block is cached from here on
			b.ReportAllocs()
			b.ResetTimer()
			must(b, p.LoopPairs(size, b.N))
		})
	}
}

var _ rcRegistry = (*cabi.Registry)(nil)
