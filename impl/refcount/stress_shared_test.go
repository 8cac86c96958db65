package refcount_test

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// TestStressShared races every mutating call on a handful of shared pointers
// from several goroutines, with table rebuilds (Stats, Live) alongside, then
// drains what is left. Whatever the interleaving, references balance: every
// reference a successful call created is dropped by exactly one successful
// Unregister, and every registration is freed exactly once.
func TestStressShared(t *testing.T) {
	for name, mk := range factories {
		t.Run(name, func(t *testing.T) {
			ops := 20000
			if raceEnabled || testing.Short() {
				ops = 3000
			}
			var frees atomic.Int64
			r := mk(spec.FreerFunc(func(spec.Addr, int64, spec.Kind) { frees.Add(1) }))
			pool := []spec.Addr{0x1000, 0x1008, 0x1010, 0x1018, 0x2000, 0x2010}
			var registrations, refsMade, refsDropped atomic.Int64
			var stop atomic.Bool
			var wg, bg sync.WaitGroup
			bg.Add(1)
			go func() {
				defer bg.Done()
				for !stop.Load() {
					r.Stats()
					r.Live()
				}
			}()
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(w), 99))
					for range ops {
						p := pool[rng.IntN(len(pool))]
						switch rng.IntN(6) {
						case 0:
							if r.Register(p, 8, spec.ScalarNew) == nil {
								registrations.Add(1)
								refsMade.Add(1)
							}
						case 1:
							aliases := []spec.Addr{p + 8, p + 8}
							if _, err := r.RegisterBuffer(p, 0x20, aliases, spec.Custom); err == nil {
								registrations.Add(1)
								refsMade.Add(3)
							}
						case 2:
							if r.Retain(p) == nil {
								refsMade.Add(1)
							}
						default:
							if r.Unregister(p) == nil {
								refsDropped.Add(1)
							}
						}
					}
				}()
			}
			wg.Wait()
			stop.Store(true)
			bg.Wait()
			for _, p := range append(pool, 0x1020, 0x2008, 0x2018) {
				for r.Unregister(p) == nil {
					refsDropped.Add(1)
				}
			}
			if s := r.Stats(); s != (spec.Stats{}) {
				t.Fatalf("Stats() = %+v after draining", s)
			}
			if refsMade.Load() != refsDropped.Load() {
				t.Fatalf("%d references made, %d dropped", refsMade.Load(), refsDropped.Load())
			}
			if frees.Load() != registrations.Load() {
				t.Fatalf("%d registrations, %d frees", registrations.Load(), frees.Load())
			}
			t.Logf("%d registrations, %d references", registrations.Load(), refsMade.Load())
		})
	}
}

// TestStressUpgrade races Retains past the width of a packed share field (so
// the buffer's counts move to copy on write mid-race, helped by whoever meets
// the move) against releases and table rebuilds; the buffer must be freed
// exactly once, after its last reference.
func TestStressUpgrade(t *testing.T) {
	for name, mk := range factories {
		t.Run(name, func(t *testing.T) {
			rounds := 30
			if raceEnabled || testing.Short() {
				rounds = 5
			}
			for range rounds {
				var frees atomic.Int64
				r := mk(spec.FreerFunc(func(spec.Addr, int64, spec.Kind) { frees.Add(1) }))
				const real = spec.Addr(0x40000)
				aliases := make([]spec.Addr, 9) // 10 holders: 6-bit fields
				for i := range aliases {
					aliases[i] = real + spec.Addr(16*(i+1))
				}
				if _, err := r.RegisterBuffer(real, 0x1000, aliases, spec.ArrayNew); err != nil {
					t.Fatal(err)
				}
				var stop atomic.Bool
				var wg, bg sync.WaitGroup
				bg.Add(1)
				go func() {
					defer bg.Done()
					for !stop.Load() {
						r.Stats()
					}
				}()
				for w := range 4 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						p := aliases[w%2] // two goroutines per pointer
						for range 40 {
							if err := r.Retain(p); err != nil {
								t.Error(err)
								return
							}
						}
						for range 40 {
							if err := r.Unregister(p); err != nil {
								t.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				stop.Store(true)
				bg.Wait()
				if got := r.Refs(real); got != 10 {
					t.Fatalf("Refs = %d after the race, want 10", got)
				}
				for _, p := range append(aliases, real) {
					if err := r.Unregister(p); err != nil {
						t.Fatal(err)
					}
				}
				if frees.Load() != 1 {
					t.Fatalf("%d frees, want 1", frees.Load())
				}
			}
		})
	}
}
