package refcounttest

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// lastReleaseReaders is how many goroutines of CheckRegistryLastRelease ask
// IsRegistered during each race.
const lastReleaseReaders = 2

// CheckRegistryLastRelease drops the last references of a shared buffer from
// several goroutines at the same instant, many times, and checks that exactly
// one free happens, with the real pointer, size and kind, and that afterwards
// nothing of the buffer is registered. It targets the classic refcount races: a
// drop done as check-then-subtract (a missed or doubled transition to zero), and
// a free performed by more than one of the racing releases. Meanwhile readers
// ask IsRegistered of every holder over and over: a holder is only released
// during the race, so once a reader is told it is gone, it must stay gone. (A
// holder's last drop and the buffer's count are two words in a sharded
// registry; a reader that meets the drop half done must not see the holder
// come back.)
func CheckRegistryLastRelease(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	workers := max(4, runtime.GOMAXPROCS(0))
	rapid.Check(t, func(rt *rapid.T) {
		aliases := rapid.IntRange(1, workers-1).Draw(rt, "aliases")
		if rapid.IntRange(0, 3).Draw(rt, "wide") == 0 {
			// More than 10 holders: LockFree keeps such a buffer's counts
			// copy on write, a path of its own through every release.
			aliases = rapid.IntRange(10, 15).Draw(rt, "wide-aliases")
		}
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
			watched := slices.Compact(slices.Clone(holders))
			back := make([]spec.Addr, lastReleaseReaders) // per reader, a holder seen gone and then registered
			var stop atomic.Bool
			var start, done, reading sync.WaitGroup
			start.Add(1)
			for i, p := range holders {
				done.Add(1)
				go func() {
					defer done.Done()
					start.Wait()
					errs[i] = r.Unregister(p)
				}()
			}
			for k := range back {
				reading.Add(1)
				go func() {
					defer reading.Done()
					gone := make([]bool, len(watched))
					start.Wait()
					for !stop.Load() {
						for j, p := range watched {
							switch in := r.IsRegistered(p); {
							case in && gone[j]:
								back[k] = p
								return
							case !in:
								gone[j] = true
							}
						}
						runtime.Gosched() // let the releases on, with fewer cores than goroutines
					}
				}()
			}
			start.Done()
			done.Wait()
			stop.Store(true)
			reading.Wait()
			for _, p := range back {
				if p != 0 {
					rt.Fatalf("round %d: IsRegistered(%#x) answered false, then true, while its holders were only being released", round, uint64(p))
				}
			}
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
