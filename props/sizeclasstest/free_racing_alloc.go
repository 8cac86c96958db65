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

// CheckFreeRacingAlloc races a Free of an address the pool has not handed
// out yet against the Alloc that gets it from the device. A warm-up leaves a
// drawn number of blocks in use and none cached (so the table of a pool that
// keeps one may grow while the race runs). Each round takes the address the
// device will hand out next, p, and one goroutine frees p over and over
// while another calls Alloc of a drawn size, which no cached block can
// serve, so it must get p from the device. Free is linearizable: each call
// is ordered before the Alloc (ErrUnknownPointer) or after it (the first
// such call frees the block; later ones answer ErrDoubleFree), and a call
// made after the Alloc returned is ordered after it (judgeFreeRace). A Free
// whose lookup missed p, then found the block the Alloc had just published
// and answered nil without freeing it, shows as a second success. Then the
// block must really be free: another Free answers ErrDoubleFree, Stats agree
// with the model run through the same calls serially, and an Alloc of the
// same size takes p back from the cache (so every block stays in use for
// the next round). Last, the invariants hold, and Close leaves the device
// empty.
//
// Failures are timing-dependent: a seed that failed may pass on a rerun.
func CheckFreeRacingAlloc(t rapid.TB, factory PoolFactory) {
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
			r := drawFreeRace(rt, sizes, round, len(held), dev.NextAddr())
			got, err, answers := raceFreeAlloc(func() (spec.Addr, error) { return pool.Alloc(r.n) },
				func() error { return pool.Free(r.p) }, r.delay, r.extra)
			if err := r.judge(got, err, answers, func() error { return pool.Free(r.p) }); err != nil {
				rt.Fatalf("%v", err)
			}
			if q, _ := model.Alloc(r.n); q != r.p {
				rt.Fatalf("%v: the model's Alloc(%d) = %v", r, r.n, q)
			}
			model.Free(r.p)
			if err := sameUsage(pool.Stats(), model.Stats()); err != nil {
				rt.Fatalf("%v, then one Free succeeded: %v\nanswers %v", r, err, answers)
			}
			held = append(held, alloc(r.n, fmt.Sprintf("round %d: after the race, the", round)))
		}
		if err := checkPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
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
		if err := checkPoolInvariants(pool, dev, nil, true); err != nil {
			rt.Fatalf("%v", err)
		}
	})
}

// freeRace is one round of the FreeRacingAlloc checks: Free(freeOn, p)
// races Alloc(allocOn, n), which must get p from the device, after delay
// yields, with extra more Frees once the Alloc has returned; held blocks
// are in use meanwhile. The streams are shown only for a StreamAllocator.
type freeRace struct {
	round, held     int
	n               int64
	p               spec.Addr
	delay, extra    int
	streams         bool
	allocOn, freeOn spec.Stream
}

func drawFreeRace(t *rapid.T, sizes []int64, round, held int, p spec.Addr) freeRace {
	return freeRace{round: round, held: held, p: p,
		n:     rapid.SampledFrom(sizes).Draw(t, "n"),
		delay: rapid.IntRange(0, 3).Draw(t, "delay"),
		extra: rapid.IntRange(0, 2).Draw(t, "extra"),
	}
}

func (r freeRace) String() string {
	if r.streams {
		return fmt.Sprintf("round %d: %d blocks in use; Free(s%d, %v) races Alloc(s%d, %d) after %d yields",
			r.round, r.held, r.freeOn, r.p, r.allocOn, r.n, r.delay)
	}
	return fmt.Sprintf("round %d: %d blocks in use; Free(%v) races Alloc(%d) after %d yields", r.round, r.held, r.p, r.n, r.delay)
}

// judge checks the outcome of the race: the Alloc got p, the Frees'
// answers are ordered around it (judgeFreeRace), and one more Free
// answers ErrDoubleFree.
func (r freeRace) judge(got spec.Addr, err error, answers freeRaceAnswers, free func() error) error {
	if err != nil || got != r.p {
		return fmt.Errorf("%v: Alloc = %v, %v; no block is cached, so it must get %v from the device", r, got, err, r.p)
	}
	if err := judgeFreeRace(answers); err != nil {
		return fmt.Errorf("%v: %v\nanswers %v", r, err, answers)
	}
	if err := free(); !errors.Is(err, spec.ErrDoubleFree) {
		return fmt.Errorf("%v: a Free answered nil, yet another Free of the block answers %v, not ErrDoubleFree\nanswers %v", r, err, answers)
	}
	return nil
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

// CheckStreamsFreeRacingAlloc is CheckFreeRacingAlloc for a
// StreamAllocator: the Alloc runs on stream 0 and the racing Frees on
// stream 1. After the race the block must be free, pending on stream 1 and
// cached once, another Free must answer ErrDoubleFree, and an Alloc of the
// same size on stream 1 (whose later work is ordered after its free) takes
// it back without a device call. Last, every block is freed, every stream
// synchronised, and Close leaves the device empty.
func CheckStreamsFreeRacingAlloc(t rapid.TB, factory StreamAllocatorFactory) {
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
		held := make([][]spec.Addr, 2) // per stream
		for range rapid.IntRange(0, 24).Draw(rt, "held") {
			n := rapid.SampledFrom(sizes).Draw(rt, "n")
			p, err := a.Alloc(allocOn, n)
			if err != nil {
				rt.Fatalf("warm-up Alloc(s%d, %d): %v", allocOn, n, err)
			}
			held[allocOn] = append(held[allocOn], p)
		}
		for round := range rapid.IntRange(1, 6).Draw(rt, "rounds") {
			r := drawFreeRace(rt, sizes, round, len(held[0])+len(held[1]), dev.NextAddr())
			r.streams, r.allocOn, r.freeOn = true, allocOn, freeOn
			got, err, answers := raceFreeAlloc(func() (spec.Addr, error) { return a.Alloc(allocOn, r.n) },
				func() error { return a.Free(freeOn, r.p) }, r.delay, r.extra)
			if err := r.judge(got, err, answers, func() error { return a.Free(freeOn, r.p) }); err != nil {
				rt.Fatalf("%v", err)
			}
			if err := reusedOnFreeingStream(a, dev, r); err != nil {
				rt.Fatalf("%v\nanswers %v", err, answers)
			}
			held[freeOn] = append(held[freeOn], r.p)
		}
		if err := freeSyncAndClose(a, dev, held); err != nil {
			rt.Fatalf("%v", err)
		}
	})
}

// reusedOnFreeingStream checks that after the race r the block is free,
// pending on the stream that freed it and cached once, and that an Alloc
// of the same size on that stream takes it back without a device call.
func reusedOnFreeingStream(a spec.StreamAllocator, dev *spec.SimDevice, r freeRace) error {
	var found bool
	for _, b := range a.Blocks() {
		if b.Addr == r.p {
			found = true
			if b.InUse || !b.Pending || b.Stream != r.freeOn || b.Cached != 1 {
				return fmt.Errorf("%v: a Free answered nil, yet the block is %+v: want free, pending on s%d, cached once", r, b, r.freeOn)
			}
		}
	}
	if !found {
		return fmt.Errorf("%v: the block is not listed by Blocks", r)
	}
	mallocs := dev.Stats().Mallocs
	if q, err := a.Alloc(r.freeOn, r.n); err != nil || q != r.p || dev.Stats().Mallocs != mallocs {
		return fmt.Errorf("%v: after the race, Alloc(s%d, %d) = %v, %v with %d device mallocs; want %v, the only free block, from the cache",
			r, r.freeOn, r.n, q, err, dev.Stats().Mallocs-mallocs, r.p)
	}
	return nil
}
