package sizeclasstest

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckCloseRace races Close against everything else: goroutines run drawn
// plans of Alloc and Free (each frees only its own blocks) and, most often,
// one Trim, while two more goroutines each call Close after a drawn number
// of yields. A pool is safe for concurrent use, Close included, so every
// call is ordered before or after the one Close that succeeds:
//
//   - exactly one Close succeeds and the other answers ErrClosed;
//   - every call answers as if ordered before Close (its usual answer) or
//     after it (ErrClosed), and once a goroutine has seen ErrClosed it sees
//     nothing else;
//   - the leak report is exactly the blocks still held when Close ran: those
//     a warm-up phase left allocated and those the goroutines allocated and
//     had not freed (a block claimed from a cache while Close was returning
//     the blocks to the device, and left out of the report, is memory handed
//     to a caller after the device got it back);
//   - the device saw no double free and holds nothing afterwards (a Trim or
//     a second Close that waited for the first one's lock frees its blocks
//     again; an Alloc that did allocates a block nobody returns).
//
// Failures are timing-dependent: rapid's shrinking may not reproduce them,
// and a seed that failed may pass on a rerun; the output shows the plans.
func CheckCloseRace(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg, dev, pool := newSmallPool(rt, factory)
		// Warm-up: cache some blocks of every class, more than a per-P
		// front cache holds (so that some sit deeper, in shared lists or
		// stacks), and keep some blocks in use.
		cacheBlocks(rt, pool, cfg, 24)
		r := closeRace{warm: drawPlan(rt, cfg, "warm.")}
		held := runPlan(pool, r.warm, nil).live
		r.draw(rt, cfg, 3)
		leaks, err := r.run(pool)
		if err != nil {
			rt.Fatalf("%v\n%s", err, r)
		}
		for g, run := range r.runs {
			for a := range run.live {
				if held[a] {
					rt.Fatalf("goroutine %d holds block %v, which another owner holds too\n%s", g, a, r)
				}
				held[a] = true
			}
		}
		reported := map[spec.Addr]bool{}
		for _, b := range leaks {
			reported[b.Addr] = true
		}
		if !maps.Equal(reported, held) {
			rt.Fatalf("Close reported leaks %v, but the blocks held when it ran are %v\n%s",
				sortedAddrs(reported), sortedAddrs(held), r)
		}
		if err := checkPoolInvariants(pool, dev, nil, true); err != nil {
			rt.Fatalf("%v\n%s", err, r)
		}
		if _, err := pool.Alloc(cfg.Classes[0]); !errors.Is(err, spec.ErrClosed) {
			rt.Fatalf("Alloc after Close: %v, want ErrClosed\n%s", err, r)
		}
	})
}

// closeRace is one race of CheckCloseRace: the warm-up plan, each
// goroutine's plan and when it calls Trim, and how long each Close waits.
type closeRace struct {
	warm   []planOp
	plans  [][]planOp
	trims  []int // Trim after this many ops (-1: none)
	delays [2]int
	runs   []closeRaceRun
}

// draw draws the plans of the given number of goroutines, their Trims and
// the Closes' delays. A Trim shrinks to none, a delay to none.
func (r *closeRace) draw(t *rapid.T, cfg spec.Config, workers int) {
	r.plans = make([][]planOp, workers)
	r.trims = make([]int, workers)
	for g := range r.plans {
		r.plans[g] = drawPlan(t, cfg, fmt.Sprintf("g%d.", g))
		r.trims[g] = rapid.IntRange(0, len(r.plans[g])+1).Draw(t, fmt.Sprintf("g%d.trim", g)) - 1
	}
	r.delays = [2]int{rapid.IntRange(0, 64).Draw(t, "close1.delay"), rapid.IntRange(0, 64).Draw(t, "close2.delay")}
}

// run races the plans against the two Closes and returns the leak report of
// the Close that succeeded, or an error unless exactly one did and every
// goroutine's answers are ordered around it.
func (r *closeRace) run(pool spec.Pool) ([]spec.Block, error) {
	r.runs = make([]closeRaceRun, len(r.plans))
	var closes [2]struct {
		leaks []spec.Block
		err   error
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range r.plans {
		wg.Go(func() {
			<-start
			r.runs[g] = runCloseRacePlan(pool, r.plans[g], r.trims[g])
		})
	}
	for i := range closes {
		wg.Go(func() {
			<-start
			for range r.delays[i] {
				runtime.Gosched()
			}
			closes[i].leaks, closes[i].err = pool.Close()
		})
	}
	close(start)
	wg.Wait()
	for g, run := range r.runs {
		if err := run.check(); err != nil {
			return nil, fmt.Errorf("goroutine %d: %v\nanswers %q", g, err, run.answers)
		}
	}
	switch {
	case closes[0].err == nil && errors.Is(closes[1].err, spec.ErrClosed):
		return closes[0].leaks, nil
	case closes[1].err == nil && errors.Is(closes[0].err, spec.ErrClosed):
		return closes[1].leaks, nil
	}
	return nil, fmt.Errorf("two racing Closes answered %v and %v: want one nil and one ErrClosed", closes[0].err, closes[1].err)
}

func (r closeRace) String() string {
	return fmt.Sprintf("warm-up %v\nplans %v (Trim after %v ops)\nClose delays %v", r.warm, r.plans, r.trims, r.delays)
}

// closeRaceRun is what one goroutine of CheckCloseRace saw: each call's
// answer (a sentinel name), and the blocks it still holds.
type closeRaceRun struct {
	answers []string
	live    map[spec.Addr]bool
}

// runCloseRacePlan runs plan on p, yielding between calls, with a Trim
// after trimAt ops (none if trimAt < 0).
func runCloseRacePlan(p spec.Pool, plan []planOp, trimAt int) closeRaceRun {
	r := closeRaceRun{live: map[spec.Addr]bool{}}
	var addrs []spec.Addr
	for i, op := range plan {
		runtime.Gosched()
		if i == trimAt {
			_, err := p.Trim()
			r.answers = append(r.answers, "Trim:"+answerName(err))
		}
		if op.Alloc {
			a, err := p.Alloc(op.N)
			r.answers = append(r.answers, "Alloc:"+answerName(err))
			addrs = append(addrs, a)
			if err == nil {
				r.live[a] = true
			}
			continue
		}
		a := addrs[op.Index]
		err := p.Free(a)
		r.answers = append(r.answers, "Free:"+answerName(err))
		if err == nil {
			delete(r.live, a)
		}
	}
	return r
}

// check reports the first answer that is neither the call's usual one (nil:
// the plans free only their own live blocks, or null for an Alloc that
// failed) nor ErrClosed, or a call that answered anything but ErrClosed
// after one that did.
func (r closeRaceRun) check() error {
	closed := answerName(spec.ErrClosed)
	seen := false
	for i, a := range r.answers {
		_, name, _ := strings.Cut(a, ":")
		switch {
		case name == closed:
			seen = true
		case seen:
			return fmt.Errorf("call %d answered %s after an earlier call answered %s", i, name, closed)
		case name != "ok":
			return fmt.Errorf("call %d answered %s: want ok, or %s", i, name, closed)
		}
	}
	return nil
}

// answerName is err's sentinel name, "ok" for nil.
func answerName(err error) string {
	if err == nil {
		return "ok"
	}
	return spec.ErrName(err)
}

func sortedAddrs(set map[spec.Addr]bool) []spec.Addr {
	return slices.Sorted(maps.Keys(set))
}
