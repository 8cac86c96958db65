package sizeclasstest

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckConcurrent runs drawn plans of Alloc and Free, one per goroutine, in
// parallel on factory's pool (each goroutine frees only its own blocks),
// then runs the same plans one after another on the model, and compares:
// every op's error (null frees of failed allocations included), the live
// allocations (Stats.InUse, Requested and the per-class counts), and the
// number of successful Allocs (Hits + Misses). Then, with no call running,
// it checks the pool's invariants and that every cached block can be handed
// out again without a device call (a pool must look in all its caches
// before asking the device), frees everything and checks Close leaves the
// device empty.
func CheckConcurrent(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg, dev, pool := newSmallPool(rt, factory)
		plans := make([][]planOp, 4)
		for g := range plans {
			plans[g] = drawPlan(rt, cfg, fmt.Sprintf("g%d.", g))
		}
		runs := runPlansInParallel(pool, plans)
		if err := sameAsSerialModel(pool, cfg, plans, runs); err != nil {
			rt.Fatalf("%v\nplans %v", err, plans)
		}
		if err := checkPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
			rt.Fatalf("after the parallel phase: %v\nplans %v", err, plans)
		}
		reuseEveryCachedBlock(rt, pool, dev, cfg)
		for _, r := range runs {
			for a := range r.live {
				if err := pool.Free(a); err != nil {
					rt.Fatalf("Free(%v) of a live block: %v", a, err)
				}
			}
		}
		if _, err := pool.Close(); err != nil {
			rt.Fatalf("Close: %v", err)
		}
		if err := checkPoolInvariants(pool, dev, nil, true); err != nil {
			rt.Fatalf("%v", err)
		}
	})
}

// planRun is what one goroutine's plan did: the error of each op, reduced
// to sentinel names, its allocations in order (0 for a failed one), and the
// blocks it still holds.
type planRun struct {
	errs  []string
	addrs []spec.Addr
	live  map[spec.Addr]bool
}

// runPlan runs plan on p; yield, when set, runs between ops (the parallel
// phase yields the processor so goroutines interleave and spread over Ps).
func runPlan(p spec.Pool, plan []planOp, yield func()) planRun {
	r := planRun{live: map[spec.Addr]bool{}}
	for _, op := range plan {
		if yield != nil {
			yield()
		}
		if op.Alloc {
			a, err := p.Alloc(op.N)
			r.errs = append(r.errs, spec.ErrName(err))
			r.addrs = append(r.addrs, a)
			if a != 0 {
				r.live[a] = true
			}
			continue
		}
		a := r.addrs[op.Index]
		err := p.Free(a)
		r.errs = append(r.errs, spec.ErrName(err))
		if err == nil {
			delete(r.live, a)
		}
	}
	return r
}

// runPlansInParallel runs each plan on pool in a goroutine of its own, all
// released at once, and returns what each did.
func runPlansInParallel(pool spec.Pool, plans [][]planOp) []planRun {
	runs := make([]planRun, len(plans))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range plans {
		wg.Go(func() {
			<-start
			runs[g] = runPlan(pool, plans[g], runtime.Gosched)
		})
	}
	close(start)
	wg.Wait()
	return runs
}

// sameAsSerialModel runs plans one after another on a model and compares
// its errors and live allocations with what the parallel runs did to pool.
func sameAsSerialModel(pool spec.Pool, cfg spec.Config, plans [][]planOp, runs []planRun) error {
	model, _ := spec.NewModel(spec.NewSimDevice(1<<40), cfg)
	for g, plan := range plans {
		want := runPlan(model, plan, nil)
		if !slices.Equal(runs[g].errs, want.errs) {
			return fmt.Errorf("goroutine %d ran %v\nerrors %q, the model %q", g, plan, runs[g].errs, want.errs)
		}
	}
	got, want := pool.Stats(), model.Stats()
	for i := range got.Classes {
		if got.Classes[i].InUse != want.Classes[i].InUse {
			return fmt.Errorf("class %d: %d blocks in use, the model %d", i, got.Classes[i].InUse, want.Classes[i].InUse)
		}
	}
	if got.InUse != want.InUse || got.Requested != want.Requested || got.Hits+got.Misses != want.Hits+want.Misses {
		return fmt.Errorf("Stats = %+v, the model (run serially) %+v", got, want)
	}
	return nil
}

// reuseEveryCachedBlock allocates, class by class, as many blocks as the
// pool has cached, checks none of those calls went to the device, and frees
// them again.
func reuseEveryCachedBlock(t *rapid.T, pool spec.Pool, dev *spec.SimDevice, cfg spec.Config) {
	st := pool.Stats()
	mallocs := dev.Stats().Mallocs
	var taken []spec.Addr
	for i, size := range cfg.Classes {
		for range st.Classes[i].Blocks - st.Classes[i].InUse {
			a, err := pool.Alloc(size)
			if err != nil {
				t.Fatalf("Alloc(%d) with a cached block of its class: %v", size, err)
			}
			taken = append(taken, a)
		}
	}
	if n := dev.Stats().Mallocs - mallocs; n != 0 {
		t.Fatalf("the pool cached %+v, yet %d of %d Allocs went to the device", st.Classes, n, len(taken))
	}
	for _, a := range taken {
		if err := pool.Free(a); err != nil {
			t.Fatalf("Free(%v): %v", a, err)
		}
	}
}
