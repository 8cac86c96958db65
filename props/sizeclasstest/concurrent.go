package sizeclasstest

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// scPlanOp is one step of a goroutine's plan in CheckPoolConcurrent: an
// Alloc of N bytes, or a Free of the goroutine's own allocation number Index
// (which may have been freed already: a double free).
type scPlanOp struct {
	Alloc bool
	N     int64
	Index int
}

func (o scPlanOp) String() string {
	if o.Alloc {
		return fmt.Sprintf("Alloc(%d)", o.N)
	}
	return fmt.Sprintf("Free(#%d)", o.Index)
}

// scRun is what one goroutine's plan did: the error of each op, reduced to
// sentinel names, its allocations in order (0 for a failed one), and the
// blocks it still holds.
type scRun struct {
	errs  []string
	addrs []spec.Addr
	live  map[spec.Addr]bool
}

// runPlan runs plan on p; yield, when set, runs between ops (the parallel
// phase yields the processor so goroutines interleave and spread over Ps).
func runPlan(p spec.Pool, plan []scPlanOp, yield func()) scRun {
	r := scRun{live: map[spec.Addr]bool{}}
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

// drawPlan draws Allocs and Frees of the plan's own live allocations. A
// plan never frees a block twice: once freed, the block may belong to
// another goroutine (double frees are raced in CheckPoolDoubleFreeRace).
func drawPlan(t *rapid.T, cfg spec.Config, label string) []scPlanOp {
	n := rapid.IntRange(1, 48).Draw(t, label+"len")
	var plan []scPlanOp
	var unfreed []int
	allocs := 0
	for range n {
		if len(unfreed) == 0 || rapid.IntRange(0, 2).Draw(t, label+"kind") > 0 {
			plan = append(plan, scPlanOp{Alloc: true, N: rapid.SampledFrom(planSizes(cfg)).Draw(t, label+"n")})
			unfreed = append(unfreed, allocs)
			allocs++
			continue
		}
		i := rapid.IntRange(0, len(unfreed)-1).Draw(t, label+"index")
		plan = append(plan, scPlanOp{Index: unfreed[i]})
		unfreed = append(unfreed[:i], unfreed[i+1:]...)
	}
	return plan
}

// planSizes is every class size and the sizes just above, one large.
func planSizes(cfg spec.Config) []int64 {
	var out []int64
	for _, c := range cfg.Classes {
		out = append(out, c, c+1)
	}
	return out
}

// CheckPoolConcurrent runs drawn plans of Alloc and Free, one per goroutine,
// in parallel on factory's pool (each goroutine frees only its own blocks),
// then runs the same plans one after another on the model, and compares:
// every op's error (null frees of failed allocations included), the live allocations (Stats.InUse, Requested and the
// per-class counts), and the number of successful Allocs (Hits + Misses).
// Then, with no call running, it checks the pool's invariants and that every
// cached block can be handed out again without a device call (a pool must
// look in all its caches before asking the device), frees everything and
// checks Close leaves the device empty.
func CheckPoolConcurrent(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := SmallPoolConfig()
		const goroutines = 4
		plans := make([][]scPlanOp, goroutines)
		for g := range plans {
			plans[g] = drawPlan(rt, cfg, fmt.Sprintf("g%d.", g))
		}
		dev := spec.NewSimDevice(1 << 40)
		pool, err := factory(dev, cfg)
		if err != nil {
			rt.Fatalf("factory: %v", err)
		}
		runs := make([]scRun, goroutines)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range plans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				runs[g] = runPlan(pool, plans[g], runtime.Gosched)
			}()
		}
		close(start)
		wg.Wait()

		model, _ := spec.NewModel(spec.NewSimDevice(1<<40), cfg)
		for g, plan := range plans {
			want := runPlan(model, plan, nil)
			if !slices.Equal(runs[g].errs, want.errs) {
				rt.Fatalf("goroutine %d ran %v\nerrors %q, the model %q", g, plan, runs[g].errs, want.errs)
			}
		}
		got, want := pool.Stats(), model.Stats()
		for i := range got.Classes {
			if got.Classes[i].InUse != want.Classes[i].InUse {
				rt.Fatalf("class %d: %d blocks in use, the model %d\nplans %v", i, got.Classes[i].InUse, want.Classes[i].InUse, plans)
			}
		}
		if got.InUse != want.InUse || got.Requested != want.Requested || got.Hits+got.Misses != want.Hits+want.Misses {
			rt.Fatalf("Stats = %+v, the model (run serially) %+v\nplans %v", got, want, plans)
		}
		if err := CheckPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
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
		if err := CheckPoolInvariants(pool, dev, nil, true); err != nil {
			rt.Fatalf("%v", err)
		}
	})
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

// CheckPoolExclusive is a targeted race on the class caches: goroutines
// allocate two blocks of a hot class, claim each in a shared ownership
// table, free them and repeat. A block handed to a second holder while the
// first still holds it (a lost update or ABA in a lock-free stack) fails the
// property, as does any error or a broken invariant afterwards.
func CheckPoolExclusive(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		goroutines := rapid.IntRange(3, 4).Draw(rt, "goroutines")
		rounds := rapid.IntRange(20, 100).Draw(rt, "rounds")
		size := rapid.SampledFrom([]int64{1024, 4096}).Draw(rt, "size")
		_, dev, pool := newSmallPool(rt, factory)
		var owners sync.Map
		var mu sync.Mutex
		var problems []string
		report := func(format string, args ...any) {
			mu.Lock()
			problems = append(problems, fmt.Sprintf(format, args...))
			mu.Unlock()
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for range rounds {
					var held [2]spec.Addr
					for i := range held {
						a, err := pool.Alloc(size)
						if err != nil {
							report("goroutine %d: Alloc(%d): %v", g, size, err)
							return
						}
						if prev, taken := owners.LoadOrStore(a, g); taken {
							report("block %v handed to goroutine %d while goroutine %d holds it", a, g, prev)
							return
						}
						held[i] = a
					}
					for _, a := range held {
						owners.Delete(a)
						if err := pool.Free(a); err != nil {
							report("goroutine %d: Free(%v): %v", g, a, err)
							return
						}
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(problems) > 0 {
			rt.Fatalf("%d goroutines × %d rounds of Alloc(%d) ×2, Free ×2:\n%s", goroutines, rounds, size, strings.Join(problems, "\n"))
		}
		if err := CheckPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
			rt.Fatalf("after the race: %v", err)
		}
		if st := pool.Stats(); st.InUse != 0 {
			rt.Fatalf("every block was freed, yet Stats.InUse = %d", st.InUse)
		}
	})
}

// CheckPoolDoubleFreeRace frees one block from two goroutines at once,
// many times over: exactly one Free must succeed and the other must report
// ErrDoubleFree, and the block must then be cached once.
func CheckPoolDoubleFreeRace(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		size := rapid.SampledFrom([]int64{1, 1024, 4096, 16385}).Draw(rt, "size")
		_, dev, pool := newSmallPool(rt, factory)
		for round := range 20 {
			a, err := pool.Alloc(size)
			if err != nil {
				rt.Fatalf("Alloc(%d): %v", size, err)
			}
			var errs [2]error
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs[i] = pool.Free(a)
				}()
			}
			close(start)
			wg.Wait()
			ok, double := 0, 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, spec.ErrDoubleFree):
					double++
				}
			}
			if ok != 1 || double != 1 {
				rt.Fatalf("round %d: Alloc(%d) = %v, then two racing Frees returned %v and %v; want one success and one ErrDoubleFree", round, size, a, errs[0], errs[1])
			}
			if err := CheckPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
				rt.Fatalf("round %d, after two racing Free(%v): %v", round, a, err)
			}
		}
	})
}
