package sizeclasstest

import (
	"fmt"
	"runtime"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckPinnedTrimRace races Trim against Allocs and Frees in pin mode. A
// warm-up caches blocks of every class with pin mode off, so that they are
// free and not frozen; then pin mode goes on, goroutines run drawn plans of
// Alloc and Free (each frees only its own blocks), and another goroutine
// calls Trim a drawn number of times after drawn numbers of yields. Every
// block handed out while pin mode is on is frozen, and a frozen block stays
// held from the device until Close (a graph captured meanwhile replays on
// it), whatever Trim runs beside the Alloc that froze it: afterwards each
// such block must still be held and listed frozen, and the pool's
// invariants must hold. A Trim that reads a block's frozen flag before it
// claims the block can see it unfrozen, then claim it after an Alloc froze
// it and its Free returned it.
//
// Failures are timing-dependent: a seed that failed may pass on a rerun.
func CheckPinnedTrimRace(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg, dev, pool := newSmallPool(rt, factory)
		cacheBlocks(rt, pool, cfg, 12)
		if err := pool.SetPinned(true); err != nil {
			rt.Fatalf("SetPinned(true): %v", err)
		}
		plans := make([][]planOp, 2)
		for g := range plans {
			plans[g] = drawPlan(rt, cfg, fmt.Sprintf("g%d.", g))
		}
		delays := rapid.SliceOfN(rapid.IntRange(0, 16), 1, 4).Draw(rt, "trimDelays")
		describe := func() string { return fmt.Sprintf("plans %v\nTrim after %v yields", plans, delays) }

		runs, trims := trimWhileRunning(pool, plans, delays)
		for i, err := range trims {
			if err != nil {
				rt.Fatalf("Trim #%d: %v\n%s", i, err, describe())
			}
		}
		pinned := map[spec.Addr]bool{}
		for g, r := range runs {
			for i, e := range r.errs {
				if e != "" {
					rt.Fatalf("goroutine %d, op %d (%v): %s\n%s", g, i, plans[g][i], e, describe())
				}
			}
			for _, a := range r.addrs {
				pinned[a] = true
			}
		}
		if err := checkPoolInvariants(pool, dev, pinned, false); err != nil {
			rt.Fatalf("%v (every block here was handed out in pin mode)\n%s", err, describe())
		}
		if _, err := pool.Close(); err != nil {
			rt.Fatalf("Close: %v", err)
		}
		if err := checkPoolInvariants(pool, dev, nil, true); err != nil {
			rt.Fatalf("%v\n%s", err, describe())
		}
	})
}

// trimWhileRunning runs each plan on pool in a goroutine of its own while
// another calls Trim after each delay (in yields), and returns what the
// plans did and what each Trim answered.
func trimWhileRunning(pool spec.Pool, plans [][]planOp, delays []int) ([]planRun, []error) {
	runs := make([]planRun, len(plans))
	trims := make([]error, len(delays))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range plans {
		wg.Go(func() {
			<-start
			runs[g] = runPlan(pool, plans[g], runtime.Gosched)
		})
	}
	wg.Go(func() {
		<-start
		for i, d := range delays {
			for range d {
				runtime.Gosched()
			}
			_, trims[i] = pool.Trim()
		}
	})
	close(start)
	wg.Wait()
	return runs, trims
}
