package sizeclass_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// TestFreeRacingAlloc: a Free of p racing the Alloc that first hands p out
// (it gets p from the device and publishes the block) answers
// ErrUnknownPointer, ordered before the Alloc, or frees the block, ordered
// after it. Sharded and LockFree once looked p up a second time after a
// miss, found the block just published and answered nil without freeing
// it: the block stayed in use and a second Free succeeded where the model
// answers ErrDoubleFree. The property FreeRacingAlloc (props) checks the
// same race in more states and on every pool; this keeps the regression in
// the package's own tests, on the two pools whose Free looks blocks up
// without a lock (Mutex and Streams hold one lock across Free and Alloc).
func TestFreeRacingAlloc(t *testing.T) {
	trials := 2000
	if testing.Short() {
		trials = 200
	}
	for _, pl := range pools {
		if pl.name == "Mutex" {
			continue
		}
		t.Run(pl.name, func(t *testing.T) {
			for trial := range trials {
				dev := spec.NewSimDevice(1 << 40)
				pool, err := pl.make(dev, spec.DefaultConfig())
				if err != nil {
					t.Fatal(err)
				}
				p := dev.NextAddr()
				var allocDone, freeing atomic.Bool
				var freed int
				var wg sync.WaitGroup
				wg.Go(func() { // free p until a Free called after the Alloc returned has answered
					for {
						after := allocDone.Load()
						err := pool.Free(p)
						freeing.Store(true)
						runtime.Gosched() // let the Alloc run on a shared core
						switch {
						case err == nil:
							freed++
						case errors.Is(err, spec.ErrUnknownPointer) && freed == 0 && !after:
						case errors.Is(err, spec.ErrDoubleFree) && freed > 0:
						default:
							t.Errorf("trial %d: Free(%v) answered %v (after the Alloc returned: %t; frees that succeeded before: %d)", trial, p, err, after, freed)
						}
						if after {
							return
						}
					}
				})
				for !freeing.Load() { // wait until the frees have begun
					runtime.Gosched()
				}
				got, err := pool.Alloc(100)
				allocDone.Store(true)
				wg.Wait()
				if err != nil || got != p {
					t.Fatalf("trial %d: Alloc(100) = %v, %v; want %v from the device", trial, got, err, p)
				}
				if freed != 1 {
					t.Fatalf("trial %d: %d Frees of %v answered nil; want exactly one", trial, freed, p)
				}
				if err := pool.Free(p); !errors.Is(err, spec.ErrDoubleFree) {
					t.Fatalf("trial %d: a Free of %v answered nil, yet the next Free answers %v, not ErrDoubleFree", trial, p, err)
				}
				if st := pool.Stats(); st.InUse != 0 || st.Blocks != 1 {
					t.Fatalf("trial %d: after the race, Stats = %+v; want one block, free", trial, st)
				}
				if _, err := pool.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
