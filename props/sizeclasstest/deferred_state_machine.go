package sizeclasstest

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// DeferredFactory builds the DeferredAllocator under test over a device,
// owned by owner.
type DeferredFactory func(dev spec.Device, owner spec.Context) spec.DeferredAllocator

// CheckDeferred is the sequential differential property of deferred frees:
// rapid draws Alloc, Free from the owner and from other contexts (of live,
// queued, freed and junk addresses), GC, Pending and an occasional Close,
// with device mallocs and frees made to fail now and then; each call goes to
// DeferredModel and to factory's allocator, over two simulated devices, and
// after every call the results, the device calls and the device's live
// blocks must agree, and the device must have seen no double free.
func CheckDeferred(t rapid.TB, factory DeferredFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		capacity := rapid.Int64Range(4<<10, 32<<10).Draw(rt, "capacity")
		mdev, idev := spec.NewSimDevice(capacity), spec.NewSimDevice(capacity)
		model, impl := spec.NewDeferredModel(mdev, 0), factory(idev, 0)
		var tr trace.Trace
		var live, seen []spec.Addr
		step := func(t *rapid.T, op spec.DeferredOp) {
			op.Fault.Inject(mdev)
			op.Fault.Inject(idev)
			want, got := op.Apply(model), op.Apply(impl)
			mdev.ClearFaults()
			idev.ClearFaults()
			tr.Add(op, got)
			fail := func(format string, args ...any) {
				t.Fatalf("%s", trace.Failure(fmt.Sprintf(format, args...), &tr, ""))
			}
			if got != want {
				fail("%v returned %v, the model %v", op, got, want)
			}
			if v := idev.Violations(); len(v) > 0 {
				fail("device misuse: %v", v)
			}
			if g, w := idev.Stats(), mdev.Stats(); g != w {
				fail("device calls %+v, the model's %+v", g, w)
			}
			if g, w := idev.Live(), mdev.Live(); !slices.Equal(g, w) {
				fail("device holds %v, the model's %v", g, w)
			}
			if op.Kind == spec.DeferredAlloc && got.Addr != 0 {
				live = append(live, got.Addr)
				seen = append(seen, got.Addr)
			}
			if op.Kind == spec.DeferredFree && got.Err == "" {
				live = slices.DeleteFunc(live, func(q spec.Addr) bool { return q == op.P })
			}
		}
		ctx := func(t *rapid.T) spec.Context { return spec.Context(rapid.IntRange(0, 2).Draw(t, "ctx")) }
		rt.Repeat(map[string]func(*rapid.T){
			"Alloc": func(t *rapid.T) {
				n := rapid.SampledFrom([]int64{-1, 0, 1, 256, 1000, 4096}).Draw(t, "n")
				step(t, spec.DeferredOp{Kind: spec.DeferredAlloc, N: n, Fault: drawFault(t, spec.MallocFails)})
			},
			"Free": func(t *rapid.T) {
				p := drawFreeTarget(t, live, seen)
				step(t, spec.DeferredOp{Kind: spec.DeferredFree, Ctx: ctx(t), P: p, Fault: drawFault(t, spec.FreeFails)})
			},
			"FreeLive": func(t *rapid.T) {
				if len(live) == 0 {
					t.Skip("nothing live")
				}
				p := rapid.SampledFrom(live).Draw(t, "p")
				step(t, spec.DeferredOp{Kind: spec.DeferredFree, Ctx: ctx(t), P: p, Fault: drawFault(t, spec.FreeFails)})
			},
			"GC":      func(t *rapid.T) { step(t, spec.DeferredOp{Kind: spec.DeferredGC, Fault: drawFault(t, spec.FreeFails)}) },
			"Pending": func(t *rapid.T) { step(t, spec.DeferredOp{Kind: spec.DeferredPending}) },
			"Close": func(t *rapid.T) {
				if rapid.IntRange(0, 14).Draw(t, "rarely") != 0 {
					t.Skip("Close is drawn rarely")
				}
				step(t, spec.DeferredOp{Kind: spec.DeferredClose})
			},
		})
	})
}

// CheckDeferredConcurrent frees blocks of one owner from several contexts
// at once — the owner and three foreign contexts, each in its own
// goroutine — while another goroutine runs GC in a loop and device frees
// are made to fail now and then. Afterwards a last GC must leave the queue
// empty and the device holding nothing, with no double free, and every
// injected failure must have been reported exactly once in some call's
// error.
func CheckDeferredConcurrent(t rapid.TB, factory DeferredFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		dev := spec.NewSimDevice(1 << 40)
		d := factory(dev, 0)
		n := rapid.IntRange(4, 40).Draw(rt, "blocks")
		failures := rapid.IntRange(0, 3).Draw(rt, "failures")
		const contexts = 4
		shares := make([][]spec.Addr, contexts)
		for i := range n {
			a, err := d.Alloc(256)
			if err != nil {
				rt.Fatalf("Alloc: %v", err)
			}
			c := rapid.IntRange(0, contexts-1).Draw(rt, fmt.Sprintf("ctx%d", i))
			shares[c] = append(shares[c], a)
		}
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
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for _, a := range share {
					keep(d.Free(spec.Context(c), a))
				}
			}()
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
		dev.ClearFaults()
		keep(d.GC())
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
