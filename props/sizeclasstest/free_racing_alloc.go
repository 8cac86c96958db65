package sizeclasstest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// freeRaceAnswer is one answer of a racing Free in the FreeRacingAlloc checks:
// its sentinel name, and whether the Alloc had returned before the Free
// was called.
type freeRaceAnswer struct {
	afterAlloc bool
	name       string
}

func (a freeRaceAnswer) String() string {
	if a.afterAlloc {
		return "after:" + a.name
	}
	return a.name
}

// freeRaceAnswers lists answers in order, a run of equal ones as one with
// its count (a racing Free may answer ErrUnknownPointer hundreds of times).
type freeRaceAnswers []freeRaceAnswer

func (as freeRaceAnswers) String() string {
	var parts []string
	for i := 0; i < len(as); {
		j := i + 1
		for j < len(as) && as[j] == as[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%v×%d", as[i], j-i))
		} else {
			parts = append(parts, as[i].String())
		}
		i = j
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// raceFreeAlloc calls free over and over on one goroutine while the caller
// calls alloc once, after the first free has answered and a further delay
// of yields: the frees go on until one is called after alloc has returned,
// then extra more. It returns what alloc returned and every free's answer.
func raceFreeAlloc(alloc func() (spec.Addr, error), free func() error, delay, extra int) (spec.Addr, error, freeRaceAnswers) {
	var allocDone, freeing atomic.Bool
	var answers freeRaceAnswers
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			after := allocDone.Load()
			answers = append(answers, freeRaceAnswer{after, answerName(free())})
			freeing.Store(true)
			// Let the Alloc run: on a core shared with it, a loop that
			// never yields gives it a turn only when the scheduler
			// preempts, every 10 ms.
			runtime.Gosched()
			if after {
				if extra == 0 {
					return
				}
				extra--
			}
		}
	})
	for !freeing.Load() {
		runtime.Gosched()
	}
	for range delay {
		runtime.Gosched()
	}
	got, err := alloc()
	allocDone.Store(true)
	wg.Wait()
	return got, err, answers
}

// judgeFreeRace checks the answers of frees of p that raced the Alloc that
// first handed p out. Each free is ordered before that Alloc (p is unknown:
// ErrUnknownPointer) or after it (p is in use until one free succeeds, and
// free after that: ErrDoubleFree). So the answers must be some
// ErrUnknownPointer, none of them from a free called after the Alloc
// returned, then one success, then only ErrDoubleFree. A free that answers
// nil without freeing the block shows as a second success.
func judgeFreeRace(answers freeRaceAnswers) error {
	unknown, double := answerName(spec.ErrUnknownPointer), answerName(spec.ErrDoubleFree)
	freedBy := -1 // the free that succeeded
	for i, a := range answers {
		switch a.name {
		case unknown:
			if freedBy >= 0 {
				return fmt.Errorf("free #%d answered %s after free #%d had freed the block", i, a.name, freedBy)
			}
			if a.afterAlloc {
				return fmt.Errorf("free #%d, called after the Alloc returned the block, answered %s", i, a.name)
			}
		case "ok":
			if freedBy >= 0 {
				return fmt.Errorf("free #%d answered ok after free #%d had freed the block: one of them freed nothing", i, freedBy)
			}
			freedBy = i
		case double:
			if freedBy < 0 {
				return fmt.Errorf("free #%d answered %s, but no free before it succeeded", i, a.name)
			}
		default:
			return fmt.Errorf("free #%d answered %s", i, a.name)
		}
	}
	if freedBy < 0 {
		return fmt.Errorf("no free succeeded, though the last was called after the Alloc returned the block")
	}
	return nil
}

// CheckPoolFreeRacingAlloc races a Free of an address the pool has not
// handed out yet against the Alloc that gets it from the device. A warm-up
// leaves a drawn number of blocks in use and none cached (so the table of a
// pool that keeps one may grow while the race runs). Each round takes the
// address the device will hand out next, p, and one goroutine frees p over
// and over while another calls Alloc of a drawn size, which no cached block
// can serve, so it must get p from the device. Free is linearizable: each
// call is ordered before the Alloc (ErrUnknownPointer) or after it (the
// first such call frees the block; later ones answer ErrDoubleFree), and a
// call made after the Alloc returned is ordered after it (judgeFreeRace).
// A Free whose lookup missed p, then found the block the Alloc had just
// published and answered nil without freeing it, shows as a second
// success. Then the block must really be free: another Free answers
// ErrDoubleFree, Stats agree with the model run through the same calls
// serially, and an Alloc of the same size takes p back from the cache (so
// every block stays in use for the next round). Last, the invariants hold
// (CheckPoolInvariants), and Close leaves the device empty.
//
// Failures are timing-dependent: a seed that failed may pass on a rerun.
func CheckPoolFreeRacingAlloc(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg, dev, pool := newSmallPool(rt, factory)
		model, _ := spec.NewModel(spec.NewSimDevice(1<<40), cfg)
		sizes := planSizes(cfg)
		var held []spec.Addr
		alloc := func(n int64, what string) spec.Addr {
			got, err := pool.Alloc(n)
			want, _ := model.Alloc(n)
			if err != nil || got != want {
				rt.Fatalf("%s Alloc(%d) = %v, %v; the model %v", what, n, got, err, want)
			}
			return got
		}
		for range rapid.IntRange(0, 56).Draw(rt, "held") {
			held = append(held, alloc(rapid.SampledFrom(sizes).Draw(rt, "n"), "warm-up"))
		}
		for round := range rapid.IntRange(1, 6).Draw(rt, "rounds") {
			n := rapid.SampledFrom(sizes).Draw(rt, "n")
			delay := rapid.IntRange(0, 3).Draw(rt, "delay")
			extra := rapid.IntRange(0, 2).Draw(rt, "extra")
			p := dev.NextAddr()
			describe := func() string {
				return fmt.Sprintf("round %d: %d blocks in use; Free(%v) races Alloc(%d) after %d yields", round, len(held), p, n, delay)
			}
			got, err, answers := raceFreeAlloc(func() (spec.Addr, error) { return pool.Alloc(n) },
				func() error { return pool.Free(p) }, delay, extra)
			if err != nil || got != p {
				rt.Fatalf("%s: Alloc = %v, %v; no block is cached, so it must get %v from the device", describe(), got, err, p)
			}
			if err := judgeFreeRace(answers); err != nil {
				rt.Fatalf("%s: %v\nanswers %v", describe(), err, answers)
			}
			if err := pool.Free(p); !errors.Is(err, spec.ErrDoubleFree) {
				rt.Fatalf("%s: a Free answered nil, yet another Free of the block answers %v, not ErrDoubleFree\nanswers %v", describe(), err, answers)
			}
			if q, _ := model.Alloc(n); q != p {
				rt.Fatalf("%s: the model's Alloc(%d) = %v", describe(), n, q)
			}
			model.Free(p)
			if err := sameUsage(pool.Stats(), model.Stats()); err != nil {
				rt.Fatalf("%s, then one Free succeeded: %v\nanswers %v", describe(), err, answers)
			}
			held = append(held, alloc(n, fmt.Sprintf("round %d: after the race, the", round)))
		}
		if err := CheckPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
			rt.Fatalf("after the races: %v", err)
		}
		for _, a := range held {
			if err := pool.Free(a); err != nil {
				rt.Fatalf("Free(%v) of a live block: %v", a, err)
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

// sameUsage compares the pool's Stats with the model's, run serially through
// the same calls: the blocks held and in use, class by class, the bytes, and
// the number of successful Allocs.
func sameUsage(got, want spec.Stats) error {
	var diffs []string
	for i := range want.Classes {
		if i >= len(got.Classes) || got.Classes[i] != want.Classes[i] {
			diffs = append(diffs, fmt.Sprintf("classes %+v, the model %+v", got.Classes, want.Classes))
			break
		}
	}
	if got.Reserved != want.Reserved || got.InUse != want.InUse || got.Requested != want.Requested ||
		got.Blocks != want.Blocks || got.Hits+got.Misses != want.Hits+want.Misses {
		diffs = append(diffs, fmt.Sprintf("Stats %+v, the model %+v", got, want))
	}
	if len(diffs) > 0 {
		return errors.New(strings.Join(diffs, "; "))
	}
	return nil
}

// CheckStreamsFreeRacingAlloc is CheckPoolFreeRacingAlloc for a
// StreamAllocator: the Alloc runs on stream 0 and the racing Frees on
// stream 1. After the race the block must be free, pending on stream 1 and
// cached once, another Free must answer ErrDoubleFree, and an Alloc of the
// same size on stream 1 (whose later work is ordered after its free) takes
// it back without a device call. Last, every block is freed, every stream
// synchronised, and Close leaves the device empty.
func CheckStreamsFreeRacingAlloc(t rapid.TB, factory StreamFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := SmallPoolConfig()
		dev := spec.NewSimDevice(1 << 40)
		a, err := factory(dev, cfg)
		if err != nil {
			rt.Fatalf("factory: %v", err)
		}
		const allocOn, freeOn spec.Stream = 0, 1
		sizes := planSizes(cfg)
		held := map[spec.Addr]spec.Stream{}
		for range rapid.IntRange(0, 24).Draw(rt, "held") {
			n := rapid.SampledFrom(sizes).Draw(rt, "n")
			p, err := a.Alloc(allocOn, n)
			if err != nil {
				rt.Fatalf("warm-up Alloc(s%d, %d): %v", allocOn, n, err)
			}
			held[p] = allocOn
		}
		for round := range rapid.IntRange(1, 6).Draw(rt, "rounds") {
			n := rapid.SampledFrom(sizes).Draw(rt, "n")
			delay := rapid.IntRange(0, 3).Draw(rt, "delay")
			extra := rapid.IntRange(0, 2).Draw(rt, "extra")
			p := dev.NextAddr()
			describe := func() string {
				return fmt.Sprintf("round %d: %d blocks in use; Free(s%d, %v) races Alloc(s%d, %d) after %d yields",
					round, len(held), freeOn, p, allocOn, n, delay)
			}
			got, err, answers := raceFreeAlloc(func() (spec.Addr, error) { return a.Alloc(allocOn, n) },
				func() error { return a.Free(freeOn, p) }, delay, extra)
			if err != nil || got != p {
				rt.Fatalf("%s: Alloc = %v, %v; no block is cached, so it must get %v from the device", describe(), got, err, p)
			}
			if err := judgeFreeRace(answers); err != nil {
				rt.Fatalf("%s: %v\nanswers %v", describe(), err, answers)
			}
			if err := a.Free(freeOn, p); !errors.Is(err, spec.ErrDoubleFree) {
				rt.Fatalf("%s: a Free answered nil, yet another Free of the block answers %v, not ErrDoubleFree\nanswers %v", describe(), err, answers)
			}
			var found bool
			for _, b := range a.Blocks() {
				if b.Addr == p {
					found = true
					if b.InUse || !b.Pending || b.Stream != freeOn || b.Cached != 1 {
						rt.Fatalf("%s: a Free answered nil, yet the block is %+v: want free, pending on s%d, cached once\nanswers %v", describe(), b, freeOn, answers)
					}
				}
			}
			if !found {
				rt.Fatalf("%s: the block is not listed by Blocks", describe())
			}
			mallocs := dev.Stats().Mallocs
			if q, err := a.Alloc(freeOn, n); err != nil || q != p || dev.Stats().Mallocs != mallocs {
				rt.Fatalf("%s: after the race, Alloc(s%d, %d) = %v, %v with %d device mallocs; want %v, the only free block, from the cache",
					describe(), freeOn, n, q, err, dev.Stats().Mallocs-mallocs, p)
			}
			held[p] = freeOn
		}
		for p, s := range held {
			if err := a.Free(s, p); err != nil {
				rt.Fatalf("Free(s%d, %v) of a live block: %v", s, p, err)
			}
		}
		for _, s := range []spec.Stream{allocOn, freeOn} {
			if err := a.Synchronize(s); err != nil {
				rt.Fatalf("Synchronize(s%d): %v", s, err)
			}
		}
		if leaks, err := a.Close(); err != nil || len(leaks) != 0 {
			rt.Fatalf("Close = %v, %v; every block was freed", leaks, err)
		}
		if v := dev.Violations(); len(v) > 0 {
			rt.Fatalf("device misuse: %v", v)
		}
		if live := dev.Live(); len(live) > 0 {
			rt.Fatalf("leak: the device holds %v after Close", live)
		}
	})
}
