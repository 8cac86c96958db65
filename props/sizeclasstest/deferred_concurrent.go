package sizeclasstest

import (
	"errors"
	"fmt"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckDeferredConcurrent frees blocks of one owner from several contexts
// at once — the owner and three foreign contexts, each in its own
// goroutine — while another goroutine runs GC in a loop and device frees
// are made to fail now and then. Afterwards a last GC must leave the queue
// empty and the device holding nothing, with no double free, and every
// injected failure must have been reported exactly once in some call's
// error.
func CheckDeferredConcurrent(t rapid.TB, factory DeferredAllocatorFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		dev := spec.NewSimDevice(1 << 40)
		d := factory(dev, 0)
		n := rapid.IntRange(4, 40).Draw(rt, "blocks")
		failures := rapid.IntRange(0, 3).Draw(rt, "failures")
		shares := make([][]spec.Addr, 4) // per context; 0 is the owner
		for i := range n {
			a, err := d.Alloc(256)
			if err != nil {
				rt.Fatalf("Alloc: %v", err)
			}
			c := rapid.IntRange(0, len(shares)-1).Draw(rt, fmt.Sprintf("ctx%d", i))
			shares[c] = append(shares[c], a)
		}
		errs := freeWhileCollecting(d, dev, shares, failures)
		dev.ClearFaults()
		if err := d.GC(); err != nil {
			errs = append(errs, err)
		}
		if p := d.Pending(); p != 0 {
			rt.Fatalf("after a last GC %d frees are still queued", p)
		}
		if v := dev.Violations(); len(v) > 0 {
			rt.Fatalf("device misuse: %v", v)
		}
		if live := dev.Live(); len(live) > 0 {
			rt.Fatalf("every block was freed, yet the device holds %v", live)
		}
		reported := 0
		for _, err := range errs {
			reported += countInjected(err)
		}
		if inj := dev.Stats().Injected; reported != inj {
			rt.Fatalf("%d device frees failed, %d failures were reported: %v", inj, reported, errs)
		}
	})
}

// freeWhileCollecting frees shares[c] from context c, one goroutine per
// context, while another goroutine runs GC until they are done, making the
// device's first failures frees fail. It returns every error the calls
// answered.
func freeWhileCollecting(d spec.DeferredAllocator, dev *spec.SimDevice, shares [][]spec.Addr, failures int) []error {
	var mu sync.Mutex
	var errs []error
	keep := func(err error) {
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	done := make(chan struct{})
	for c, share := range shares {
		wg.Go(func() {
			<-start
			for _, a := range share {
				keep(d.Free(spec.Context(c), a))
			}
		})
	}
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		<-start
		for i := 0; ; i++ {
			if i < failures {
				dev.FailNextFree(nil)
			}
			keep(d.GC())
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	close(start)
	wg.Wait()
	close(done)
	<-gcDone
	return errs
}

// countInjected counts the ErrInjected leaves of an error tree.
func countInjected(err error) int {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		n := 0
		for _, e := range j.Unwrap() {
			n += countInjected(e)
		}
		return n
	}
	if errors.Is(err, spec.ErrInjected) {
		return 1
	}
	return 0
}
