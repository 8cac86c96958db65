package props

import (
	"runtime"
	"sync"

	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// CheckRegistryLastRelease drops the last references of a shared buffer from
// several goroutines at the same instant, many times, and checks that exactly
// one free happens, with the real pointer, size and kind, and that afterwards
// nothing of the buffer is registered. It targets the classic refcount races: a
// drop done as check-then-subtract (a missed or doubled transition to zero), and
// a free performed by more than one of the racing releases.
func CheckRegistryLastRelease(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	workers := max(4, runtime.GOMAXPROCS(0))
	rapid.Check(t, func(rt *rapid.T) {
		aliases := rapid.IntRange(1, workers-1).Draw(rt, "aliases")
		shareRetains := rapid.Bool().Draw(rt, "retain") // the real pointer's holders share one pointer
		log := &FreeLog{}
		r := factory(log)
		const real = spec.Addr(0x7000)
		for round := 0; round < 20; round++ {
			list := make([]spec.Addr, aliases)
			for i := range list {
				list[i] = real + spec.Addr(8*(i+1))
			}
			if _, err := r.RegisterBuffer(real, 0x100, list, spec.AlignedAlloc); err != nil {
				rt.Fatalf("round %d: RegisterBuffer: %v", round, err)
			}
			holders := append([]spec.Addr{real}, list...)
			if shareRetains {
				for range aliases {
					if err := r.Retain(real); err != nil {
						rt.Fatalf("round %d: Retain(real): %v", round, err)
					}
				}
				holders = make([]spec.Addr, aliases+1)
				for i := range holders {
					holders[i] = real
				}
				for _, a := range list {
					if err := r.Unregister(a); err != nil {
						rt.Fatalf("round %d: Unregister(%#x): %v", round, uint64(a), err)
					}
				}
			}
			errs := make([]error, len(holders))
			var start, done sync.WaitGroup
			start.Add(1)
			for i, p := range holders {
				done.Add(1)
				go func() {
					defer done.Done()
					start.Wait()
					errs[i] = r.Unregister(p)
				}()
			}
			start.Done()
			done.Wait()
			for i, err := range errs {
				if err != nil {
					rt.Fatalf("round %d: racing Unregister(%#x) failed: %v", round, uint64(holders[i]), err)
				}
			}
			frees := log.Take()
			if len(frees) != 1 || frees[0] != (FreeCall{real, 0x100, spec.AlignedAlloc}) {
				rt.Fatalf("round %d: %d holders released at once (shared pointer: %v) freed %v; want exactly one Free(%#x, 256, AlignedAlloc)",
					round, len(holders), shareRetains, frees, uint64(real))
			}
			for _, p := range holders {
				if r.IsRegistered(p) || r.Refs(p) != 0 {
					rt.Fatalf("round %d: %#x still registered after the last release", round, uint64(p))
				}
			}
			if s := r.Stats(); s != (spec.Stats{}) {
				rt.Fatalf("round %d: Stats() = %+v after the last release, want zero", round, s)
			}
		}
	})
}
