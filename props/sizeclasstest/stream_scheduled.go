package sizeclasstest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/draw"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// CheckStreamScheduled checks a StreamAllocator under interleavings that a
// scheduler chooses (package sched). Each case warms the allocator up (a
// few blocks of SmallPoolConfig's first class handed out on stream 0, some
// freed there and synchronised), then two or three goroutines, each driving
// a stream of its own, allocate, free their own blocks and the warm-up's
// (two may free the same one), synchronise their streams, trim, and now and
// then close. Once they have all returned, the body trims and closes. The
// history must be linearizable under the model (porcupine): above all, no
// block is handed to a stream while another may still use it, and never to
// two holders; the device must have freed every block exactly once.
//
// As for CheckScheduled, the implementation must be instrumented with
// package sched and built with -tags sched for the interleavings to be
// chosen (the Streams allocator of this module is), and a user's own
// allocator instrumented the same way is checked the same way; without the
// tag each case is one free-running stress run. opts chooses the strategy,
// the repro command and the bounds.
func CheckStreamScheduled(t rapid.TB, factory StreamAllocatorFactory, opts sched.Options) {
	t.Helper()
	checkCases(t, drawStreamCase, factory, opts)
}

// streamCase is one case of CheckStreamScheduled: the warm-up's blocks held
// and freed, and each goroutine's calls. A Free's P is a reference until
// the call is made: -1 the goroutine's last block, i ≥ 0 the warm-up's
// held block i.
type streamCase struct {
	held, freed int
	plans       [][]spec.StreamOp
}

// drawStreamCase draws a case. It shrinks to two goroutines, each
// allocating a block and freeing it on its stream.
func drawStreamCase(t *rapid.T) streamCase {
	sc := streamCase{held: rapid.IntRange(1, 2).Draw(t, "held"), freed: rapid.IntRange(0, 2).Draw(t, "freed")}
	n := 2
	if draw.Rarely(t, 3, "third goroutine") {
		n = 3
	}
	sc.plans = make([][]spec.StreamOp, n)
	for g := range sc.plans {
		menu := sc.menu(g)
		for range rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("G%d calls", g+1)) {
			sc.plans[g] = append(sc.plans[g], menu[rapid.IntRange(0, len(menu)-1).Draw(t, "call")])
		}
	}
	return sc
}

// ownBlock stands for the goroutine's last block in a Free's P.
const ownBlock = ^spec.Addr(0)

// menu is what goroutine g, on stream g+1, draws its calls from (its order
// is the shrink order).
func (sc streamCase) menu(g int) []spec.StreamOp {
	s := spec.Stream(g + 1)
	n := SmallPoolConfig().Classes[0]
	return []spec.StreamOp{
		{Kind: spec.StreamAlloc, Stream: s, N: n}, {Kind: spec.StreamFree, Stream: s, P: ownBlock},
		{Kind: spec.StreamFree, Stream: s, P: spec.Addr(g % sc.held)}, {Kind: spec.StreamSync, Stream: s},
		{Kind: spec.StreamAlloc, Stream: s, N: n}, {Kind: spec.StreamSync, Stream: 0},
		{Kind: spec.StreamTrim}, {Kind: spec.StreamAlloc, Stream: s, N: SmallPoolConfig().Classes[2] + 1},
		{Kind: spec.StreamClose},
	}
}

// warmUp hands out held+freed blocks on stream 0, frees the last freed of
// them there and synchronises it, and returns the held ones and the calls
// made.
func (sc streamCase) warmUp(a spec.StreamAllocator) ([]spec.Addr, []replayCall, error) {
	var calls []replayCall
	do := func(op spec.StreamOp) (spec.Result, error) {
		res := applyStreamOp(a, op)
		calls = append(calls, replayCall{op, res})
		if res.Err != "" {
			return res, fmt.Errorf("warm-up %v: %v", op, res)
		}
		return res, nil
	}
	var addrs []spec.Addr
	for range sc.held + sc.freed {
		res, err := do(spec.StreamOp{Kind: spec.StreamAlloc, N: SmallPoolConfig().Classes[0]})
		if err != nil {
			return nil, nil, err
		}
		addrs = append(addrs, res.Addr)
	}
	for _, p := range addrs[sc.held:] {
		if _, err := do(spec.StreamOp{Kind: spec.StreamFree, P: p}); err != nil {
			return nil, nil, err
		}
	}
	if _, err := do(spec.StreamOp{Kind: spec.StreamSync}); err != nil {
		return nil, nil, err
	}
	return addrs[:sc.held], calls, nil
}

// run is the body of one scheduled run.
func (sc streamCase) run(s *sched.Scheduler, factory StreamAllocatorFactory) (undecided string) {
	dev := spec.NewSimDevice(1 << 40)
	a, err := factory(dev, SmallPoolConfig())
	if err != nil {
		s.Fatalf("factory: %v", err)
	}
	held, setup, err := sc.warmUp(a)
	if err != nil {
		s.Fatalf("%v", err)
	}
	h := &runHistory{s: s}
	apply := func(op spec.StreamOp) spec.Result { return applyStreamOp(a, op) }
	record := func(client int, op spec.StreamOp) spec.Result { return recordCall(h, client, op, apply) }
	for g, plan := range sc.plans {
		s.Go(fmt.Sprintf("G%d", g+1), func() {
			var own spec.Addr
			for _, op := range plan {
				switch {
				case op.Kind != spec.StreamFree:
				case op.P == ownBlock:
					op.P = own
				default:
					op.P = held[op.P]
				}
				if res := record(g, op); op.Kind == spec.StreamAlloc && res.Err == "" {
					own = res.Addr
				}
			}
		})
	}
	s.Wait()
	record(len(sc.plans), spec.StreamOp{Kind: spec.StreamTrim})
	record(len(sc.plans), spec.StreamOp{Kind: spec.StreamClose})
	if undecided := h.linearizable(streamModel(setup), "model"); undecided != "" {
		return undecided
	}
	h.deviceClean(dev)
	return ""
}

// applyStreamOp runs op on a. A Close's answer is its error and the
// addresses of the blocks it reported in use.
func applyStreamOp(a spec.StreamAllocator, op spec.StreamOp) spec.Result {
	if op.Kind != spec.StreamClose {
		return op.Apply(a)
	}
	leaks, err := a.Close()
	addrs := make([]string, len(leaks))
	for i, b := range leaks {
		addrs[i] = b.Addr.String()
	}
	return spec.Result{Err: spec.ErrName(err), State: "leaks [" + strings.Join(addrs, " ") + "]"}
}

// streamModel is the porcupine model of a history after the set-up calls.
// An Alloc may take any block the model allows (StreamModel.Candidates),
// and must take one if there is one; a block new to the model has the
// address the implementation's device gave it, and must never have been
// seen before (the device never hands an address out twice).
func streamModel(setup []replayCall) porcupine.Model {
	return replayModel(func(calls []replayCall) (bool, string) {
		dev := &scriptDevice{}
		m, _ := spec.NewStreamModel(dev, SmallPoolConfig())
		seen := map[spec.Addr]bool{}
		legal := true
		for _, c := range append(setup[:len(setup):len(setup)], calls...) {
			legal = replayStreamCall(m, dev, seen, c.in.(spec.StreamOp), c.out.(spec.Result))
		}
		_, closed := m.Candidates(0, 1)
		return legal, fmt.Sprintf("%v %v %v", errors.Is(closed, spec.ErrClosed), m.Blocks(), slices.Sorted(maps.Keys(seen)))
	})
}

// replayStreamCall applies op to the model, adopting the implementation's
// choice got where the contract allows one, and reports whether got is an
// answer the contract allows.
func replayStreamCall(m *spec.StreamModel, dev *scriptDevice, seen map[spec.Addr]bool, op spec.StreamOp, got spec.Result) bool {
	if op.Kind != spec.StreamAlloc {
		return applyStreamOp(m, op) == got
	}
	c, err := m.Candidates(op.Stream, op.N)
	switch {
	case err != nil || op.N == 0:
		return applyStreamOp(m, op) == got
	case got.Err != "" || got.Addr == 0:
		return false
	case len(c) > 0:
		_, err := m.AllocFrom(op.Stream, op.N, got.Addr)
		return err == nil
	case seen[got.Addr]:
		return false
	}
	seen[got.Addr] = true
	dev.next = got.Addr
	p, err := m.Alloc(op.Stream, op.N)
	return err == nil && p == got.Addr
}
