package sched_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/memverify/memverify/sched"
)

// The benchmarks put the package's primitives beside what a normal build
// would use instead, in one binary. b.Loop keeps the calls in its body from
// being inlined, so each variant runs in a function of its own, in which the
// primitive is inlined as in real code. Without the tag sched.Mutex is
// sync.Mutex and Point is empty, so each pair compiles to the same
// instructions (go test -c, then go tool objdump -s 'sched_test\.(store|lock)');
// with the tag they show what an instrumented binary pays outside a run.

var sink int

//go:noinline
func store(i int) { sink = i }

//go:noinline
func storeAfterPoint(i int) {
	sched.Point("label")
	sink = i
}

//go:noinline
func lockSync(mu *sync.Mutex) {
	mu.Lock()
	mu.Unlock()
}

//go:noinline
func lockSched(mu *sched.Mutex) {
	mu.Lock()
	mu.Unlock()
}

//go:noinline
func readLockSync(mu *sync.RWMutex) {
	mu.RLock()
	mu.RUnlock()
}

//go:noinline
func readLockSched(mu *sched.RWMutex) {
	mu.RLock()
	mu.RUnlock()
}

func BenchmarkPoint(b *testing.B) {
	b.Run("impl=none", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			store(i)
		}
	})
	b.Run("impl=sched", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			storeAfterPoint(i)
		}
	})
}

func BenchmarkMutex(b *testing.B) {
	var mu sync.Mutex
	var smu sched.Mutex
	b.Run("impl=sync", func(b *testing.B) {
		for b.Loop() {
			lockSync(&mu)
		}
	})
	b.Run("impl=sched", func(b *testing.B) {
		for b.Loop() {
			lockSched(&smu)
		}
	})
}

func BenchmarkRWMutex(b *testing.B) {
	var mu sync.RWMutex
	var smu sched.RWMutex
	b.Run("impl=sync", func(b *testing.B) {
		for b.Loop() {
			readLockSync(&mu)
		}
	})
	b.Run("impl=sched", func(b *testing.B) {
		for b.Loop() {
			readLockSched(&smu)
		}
	})
}

func BenchmarkYield(b *testing.B) {
	b.Run("impl=runtime", func(b *testing.B) {
		for b.Loop() {
			runtime.Gosched()
		}
	})
	b.Run("impl=sched", func(b *testing.B) {
		for b.Loop() {
			sched.Yield()
		}
	})
}
