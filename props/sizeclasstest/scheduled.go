package sizeclasstest

import (
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// CheckScheduled checks a Pool under interleavings that a scheduler chooses
// (package sched), where the other concurrent properties hope the Go
// runtime interleaves goroutines badly. Each case warms a pool of
// SmallPoolConfig up (blocks cached, now and then more than a P's front
// cache holds; blocks held), then two or three goroutines play one of a few
// race shapes — allocating and freeing blocks of one class; freeing one
// held block at once; in pin mode, allocating and freeing while another
// trims; allocating and freeing while another closes; allocating a block
// new to the pool while another frees the address the device hands out
// next; over a deep cache, allocating while another frees a held block
// past its full front cache — each adding up to two calls of any kind. Once they have all
// returned, the body checks the dump (every free block in exactly one
// cache, no block in use in any), trims and closes. The history must be
// linearizable (porcupine) under the contract: an Alloc hands out a free
// block of its class or a new one, never one in use or one the device got
// back; a Free frees a block in use, once; each block a Trim releases is
// free and not frozen at that instant (a Trim racing Allocs and Frees
// releases its blocks one at a time; the body's, alone, releases every such
// block); Close reports exactly the blocks in use, and after it every call
// answers ErrClosed. And the device must have freed every block exactly
// once: no double free, nothing left after the Close.
//
// The scheduler runs the goroutines one at a time and switches between
// them only at schedule points: a pool must be instrumented with package
// sched (atomics of sched's types, sched.Mutex locks, sched.Yield in
// spin-waits, sched.ProcPin for per-P data) and built with -tags sched
// for its interleavings to be chosen; the pools of this module are. A
// user's own pool instrumented the same way is checked the same way. Built
// without the tag, each case is one free-running stress run of the same
// scenario, checked the same way, except that a Trim cannot say which
// blocks it released and is taken on trust. opts chooses the strategy
// (sched.PCT is the better default), the repro command and the bounds;
// every draw, the schedule's included, is rapid's, so a failure shrinks to
// few calls and few preemptions and replays from -rapid.seed, and prints
// the interleaving as a timeline.
func CheckScheduled(t rapid.TB, factory PoolFactory, opts sched.Options) {
	t.Helper()
	checkCases(t, drawPoolCase, factory, opts)
}

// poolCase is one case of CheckScheduled: the warm-up, and each
// goroutine's calls.
type poolCase struct {
	cached, held int  // blocks of the first class the warm-up leaves cached, and held
	pinned       bool // the warm-up ends in pin mode
	plans        [][]poolCall
}

// poolCall is a call of a goroutine's plan. A Free names its block by
// where it comes from, resolved when the call is made: a block the
// goroutine's own Allocs got (the index-th, counted back from its last), a
// held block, or the address the device will hand out next.
type poolCall struct {
	op    spec.Op
	free  freeOf
	index int
}

type freeOf uint8

const (
	freeNone freeOf = iota
	freeOwn         // the block of the goroutine's index-th last successful Alloc
	freeHeld        // the index-th block the warm-up holds
	freeNext        // the address the device hands out next
)

func (c poolCall) String() string {
	switch c.free {
	case freeOwn:
		return fmt.Sprintf("Free(own %d)", c.index)
	case freeHeld:
		return fmt.Sprintf("Free(held %d)", c.index)
	case freeNext:
		return "Free(next)"
	}
	return c.op.String()
}

// poolShape is the race a case sets up: the calls that race one another
// in a pool's bugs come in a few shapes, and a case drawing every call from
// every kind would seldom put two of a shape side by side. Each goroutine
// adds a few calls of any kind after its part (none, when shrunk).
type poolShape uint8

const (
	shapeChurn    poolShape = iota // every goroutine allocates blocks of the first class and frees them
	shapeFree                      // every goroutine frees the same held block, then allocates
	shapeTrim                      // in pin mode, one allocates and frees while another trims
	shapeClose                     // one allocates and frees while another closes the pool
	shapePublish                   // one allocates a block new to the pool while another frees its address
	shapeOverflow                  // over a deep warm-up, one allocates while another frees a held block past its full front cache
	poolShapes
)

// drawPoolCase draws a case. It shrinks to two goroutines each allocating
// a block of the first class and freeing it, from a warm-up that cached
// one block and holds one.
func drawPoolCase(t *rapid.T) poolCase {
	shape := poolShape(rapid.IntRange(0, int(poolShapes)-1).Draw(t, "shape"))
	sc := poolCase{cached: rapid.IntRange(1, 3).Draw(t, "cached"), held: rapid.IntRange(1, 2).Draw(t, "held")}
	if shape == shapeOverflow || shape != shapeTrim && draw.Rarely(t, 2, "deep") {
		// More than a P's front cache holds (LockFree's private slots,
		// Sharded's shard): the rest go to stacks and central lists. Not
		// under a racing Trim: each block it releases is a step of the
		// history (trimmed), and a dozen of them that commute make a
		// history porcupine takes long to refute.
		sc.cached = rapid.IntRange(9, 12).Draw(t, "deep cached")
	}
	// Trim races Allocs and Frees in the other shapes too (an extra call):
	// this one has them race in pin mode.
	sc.pinned = shape == shapeTrim
	n := 2
	if draw.Rarely(t, 3, "third goroutine") {
		n = 3
	}
	sc.plans = make([][]poolCall, n)
	for g := range sc.plans {
		sc.plans[g] = sc.part(t, shape, g)
		menu := sc.menu(sc.cached < 9)
		for range rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("G%d extra calls", g+1)) {
			sc.plans[g] = append(sc.plans[g], menu[rapid.IntRange(0, len(menu)-1).Draw(t, "call")])
		}
	}
	return sc
}

// part is goroutine g's part in shape.
func (sc poolCase) part(t *rapid.T, shape poolShape, g int) []poolCall {
	cls := SmallPoolConfig().Classes
	alloc := poolCall{op: spec.Op{Kind: spec.OpAlloc, N: cls[0]}}
	freeOwnAt := func(i int) poolCall { return poolCall{op: spec.Op{Kind: spec.OpFree}, free: freeOwn, index: i} }
	churn := func() []poolCall {
		k := rapid.IntRange(1, 2).Draw(t, "allocs")
		plan := slices.Repeat([]poolCall{alloc}, k)
		for i := range k {
			plan = append(plan, freeOwnAt(rapid.IntRange(0, k-1-i).Draw(t, "free which")))
		}
		return plan
	}
	switch {
	case shape == shapeChurn || g > 1:
		return churn()
	case shape == shapeFree:
		return []poolCall{{op: spec.Op{Kind: spec.OpFree}, free: freeHeld}, alloc}
	case shape == shapeTrim && g == 1:
		return []poolCall{{op: spec.Op{Kind: spec.OpTrim}}}
	case shape == shapeClose && g == 1:
		return []poolCall{{op: spec.Op{Kind: spec.OpClose}}}
	case shape == shapePublish && g == 0:
		return []poolCall{{op: spec.Op{Kind: spec.OpAlloc, N: cls[1]}}} // the warm-up caches none of this class
	case shape == shapePublish:
		return []poolCall{{op: spec.Op{Kind: spec.OpFree}, free: freeNext}}
	case shape == shapeOverflow && g == 0:
		return []poolCall{alloc}
	case shape == shapeOverflow:
		// The warm-up's front cache is full: the block goes behind it
		// (a stack, a central list) while the other goroutine takes one
		// from there.
		return []poolCall{{op: spec.Op{Kind: spec.OpFree}, free: freeHeld}}
	}
	return churn()
}

// menu is what a goroutine draws its extra calls from, in one draw each
// (its order is the shrink order: one draw a call keeps rapid's shrinking
// short). SetPinned is not among them: the warm-up sets pin mode, and it
// stays so while the goroutines run. An Alloc racing SetPinned(true) may
// freeze its block whichever way the race goes (Sharded and LockFree read
// the mode after they claim the block, the safe side: a block frozen once
// too often is held till Close, one frozen too seldom could be trimmed
// under a captured graph), and no single order of the calls explains that.
// CheckPinnedTrimRace races pin mode. Trim is among them only with trim
// set (not over a deep warm-up: see drawPoolCase).
func (sc poolCase) menu(trim bool) []poolCall {
	cls := SmallPoolConfig().Classes
	alloc := func(n int64) poolCall { return poolCall{op: spec.Op{Kind: spec.OpAlloc, N: n}} }
	free := func(f freeOf, i int) poolCall { return poolCall{op: spec.Op{Kind: spec.OpFree}, free: f, index: i} }
	do := func(k spec.OpKind, on bool) poolCall { return poolCall{op: spec.Op{Kind: k, On: on}} }
	menu := []poolCall{alloc(cls[0]), free(freeOwn, 0), free(freeHeld, sc.held-1), alloc(cls[1]), free(freeNext, 0),
		alloc(cls[2] + 1), do(spec.OpClose, false)}
	if trim {
		menu = append(menu, do(spec.OpTrim, false))
	}
	return menu
}

// warmUp allocates blocks of the first class, frees sc.cached of them (the
// last ones), and returns the ones it holds; it ends in pin mode if
// sc.pinned.
func (sc poolCase) warmUp(pool spec.Pool) ([]spec.Addr, error) {
	var addrs []spec.Addr
	for range sc.cached + sc.held {
		a, err := pool.Alloc(SmallPoolConfig().Classes[0])
		if err != nil {
			return nil, fmt.Errorf("warm-up Alloc: %w", err)
		}
		addrs = append(addrs, a)
	}
	for _, a := range addrs[sc.held:] {
		if err := pool.Free(a); err != nil {
			return nil, fmt.Errorf("warm-up Free(%v): %w", a, err)
		}
	}
	if sc.pinned {
		if err := pool.SetPinned(true); err != nil {
			return nil, err
		}
	}
	return addrs[:sc.held], nil
}

// run is the body of one scheduled run: it builds the pool, warms it up,
// runs the goroutines, then checks the history and the device, failing the
// run through s. It returns why the history proved nothing, if it did not.
func (sc poolCase) run(s *sched.Scheduler, factory PoolFactory) (undecided string) {
	cfg, dev := SmallPoolConfig(), &poolDevice{SimDevice: spec.NewSimDevice(1 << 40), freed: map[int][]spec.Addr{}}
	pool, err := factory(dev, cfg)
	if err != nil {
		s.Fatalf("factory: %v", err)
	}
	held, err := sc.warmUp(pool)
	if err != nil {
		s.Fatalf("%v", err)
	}
	init := newPoolState(cfg, pool.Blocks(), sc.pinned)
	h := &runHistory{s: s}
	record := func(client int, op spec.Op) poolAnswer {
		call := s.Call(op.String())
		dev.take()
		res := poolAnswer{Result: applyPoolOp(pool, op)}
		if op.Kind == spec.OpTrim {
			res.Released, res.Known = dev.take()
		}
		ret := s.Return(res.String())
		h.add(trimmed(client, op, res, 2*call, 2*ret)...)
		return res
	}
	for g, plan := range sc.plans {
		s.Go(fmt.Sprintf("G%d", g+1), func() {
			var own []spec.Addr
			for _, c := range plan {
				op := c.op
				switch c.free {
				case freeOwn:
					if c.index < len(own) {
						op.P = own[len(own)-1-c.index]
					}
				case freeHeld:
					op.P = held[c.index%len(held)]
				case freeNext:
					op.P = dev.NextAddr()
				}
				if res := record(g, op); op.Kind == spec.OpAlloc && res.Err == "" {
					own = append(own, res.Addr)
				}
			}
		})
	}
	s.Wait()
	// Between calls every free block is in exactly one cache and no block
	// in use in any (a stack corrupted by a race lists one twice).
	if err := checkPoolInvariants(pool, dev.SimDevice, map[spec.Addr]bool{}, closedBy(h.ops)); err != nil {
		s.Fatalf("once every goroutine has returned: %v\n%s", err, linear.Describe(h.ops))
	}
	// Then a Trim and a Close, whose answers show what is left: both join
	// the history, after every other call. This Trim runs alone, so it
	// must release every free block that is not frozen (On marks it so).
	record(len(sc.plans), spec.Op{Kind: spec.OpTrim, On: true})
	record(len(sc.plans), spec.Op{Kind: spec.OpClose})
	if undecided := h.linearizable(poolModel(init), "contract"); undecided != "" {
		return undecided
	}
	h.deviceClean(dev.SimDevice)
	return ""
}

// closedBy reports whether a call of history closed the pool.
func closedBy(history []porcupine.Operation) bool {
	for _, h := range history {
		if op, ok := h.Input.(spec.Op); ok && op.Kind == spec.OpClose && h.Output.(poolAnswer).Err == "" {
			return true
		}
	}
	return false
}
