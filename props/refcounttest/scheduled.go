package refcounttest

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// CheckScheduled checks a Registry under interleavings that a scheduler
// chooses (package sched), where the other concurrent properties hope the Go
// runtime interleaves goroutines badly. Each case sets up an owned pointer
// and a buffer whose alias may be listed twice, then two or three goroutines
// play one of a few race shapes on them — the buffer's holders released at
// once; a holder released while another goroutine asks of it; an owned
// pointer registered while another is released; a pointer released twice
// and registered again, with another size; a second buffer, whose alias
// list may clash with the first's, registered while another goroutine asks
// of its holders; a Close racing a registration — each goroutine adding up
// to two calls of any kind. Once they have all returned the body takes
// Stats and closes the registry. The history must be linearizable under the
// model, frees included: each free happens inside the call that drops the
// registration's last reference (or the Close), as the model's does at that
// point in the order (porcupine). And every registration made has been
// freed exactly once in all, with its real pointer, size and kind.
//
// The scheduler runs the goroutines one at a time and switches between them
// only at schedule points: an implementation must be instrumented with
// package sched (its atomics declared with sched's types, its locks
// sched.Mutex or sched.RWMutex, its spin-waits calling sched.Yield) and
// built with -tags sched for its interleavings to be chosen; the
// implementations of this module are. A user's own registry instrumented
// the same way is checked the same way. Built without the tag, or for code
// without points, each case is one free-running stress run of the same
// scenario, checked the same way (frees are then checked in total, not per
// call). opts chooses the strategy (sched.PCT is the better default; its
// steps about the decisions a run makes, which Schedule.Decisions reports),
// the repro command and the bounds; every draw, the schedule's included, is
// rapid's, so a failure shrinks to few calls and few preemptions and
// replays from -rapid.seed. A failure prints the interleaving as a
// timeline, one column per goroutine, with each call and its result.
func CheckScheduled(t rapid.TB, factory RegistryFactory, opts sched.Options) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) { runScheduled(rt, factory, opts) })
}

// runScheduled draws one case of CheckScheduled and runs it under opts,
// returning the schedule it ran.
func runScheduled(rt *rapid.T, factory RegistryFactory, opts sched.Options) sched.Schedule {
	sc := drawScheduledCase(rt)
	var undecided string
	schedule := sched.Run(rt, opts, func(s *sched.Scheduler) { undecided = sc.run(s, factory) })
	if undecided != "" {
		// rapid draws another case instead, and fails the run if too few prove anything.
		rt.Skipf("%s: this history proves nothing", undecided)
	}
	return schedule
}

// The addresses of CheckScheduled: an owned pointer registered before the
// goroutines start, another that they may register, a buffer registered
// before they start (its aliases at schedAlias and schedAlias2) and one
// that they may register, just below it, whose alias list may name a holder
// of the first (then it is refused, and must leave nothing registered; the
// clash comes last in address order, after holders it could have left
// registered). Under a hash that is a good mix, a buffer's holders land in
// different shards or buckets: with four shards, Sharded's, each of the
// first buffer's holders has a shard of its own.
const (
	schedOwned    = spec.Addr(0x1000)
	schedOwned2   = spec.Addr(0x1040)
	schedBuf      = spec.Addr(0x2000)
	schedAlias    = spec.Addr(0x2030)
	schedAlias2   = spec.Addr(0x2040)
	schedBuf2     = spec.Addr(0x1ff0)
	schedBuf2Size = 0x60
)

// scheduledCase is one case of CheckScheduled: the set-up buffer's aliases,
// the second buffer's, and each goroutine's calls.
type scheduledCase struct {
	aliases, aliases2 []spec.Addr
	retained          bool // the set-up Retains the buffer's real pointer
	plans             [][]scheduledOp
}

// scheduledShape is the race a case sets up: the calls that race one another
// in a registry's bugs come in a few shapes, and a case drawing every call
// from every kind would seldom put two of a shape side by side. Each
// goroutine adds a few calls of any kind after its part (none, when shrunk).
type scheduledShape uint8

const (
	shapeRelease  scheduledShape = iota // each goroutine releases a holder of the buffer: its last releases race
	shapeQuery                          // one releases the alias while another asks of it and of the real pointer
	shapeCount                          // one registers an owned pointer while another releases one
	shapeRevive                         // both release the owned pointer, one registers it again, with another size
	shapeRegister                       // one registers the second buffer while another asks of its holders
	shapeClose                          // one registers or releases while another closes
	scheduledShapes
)

// drawScheduledCase draws a case. It shrinks to two goroutines of one call
// each that release the buffer's two holders, its real pointer and its
// alias: the race of its last releases.
func drawScheduledCase(t *rapid.T) scheduledCase {
	var sc scheduledCase
	sc.aliases = []spec.Addr{schedAlias}
	if draw.Rarely(t, 3, "second alias") {
		sc.aliases = append(sc.aliases, rapid.SampledFrom([]spec.Addr{schedAlias, schedAlias2}).Draw(t, "alias"))
	}
	sc.aliases2 = []spec.Addr{schedBuf2 + 8}
	if draw.Rarely(t, 3, "clash") {
		sc.aliases2 = append(sc.aliases2, sc.aliases[len(sc.aliases)-1])
	}
	sc.retained = draw.Rarely(t, 4, "retained")
	shape := scheduledShape(rapid.IntRange(0, int(scheduledShapes)-1).Draw(t, "shape"))
	n := 2
	if draw.Rarely(t, 3, "third goroutine") {
		n = 3
	}
	sc.plans = make([][]scheduledOp, n)
	menu := sc.menu()
	for g := range sc.plans {
		sc.plans[g] = sc.part(shape, g)
		for range rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("G%d extra calls", g+1)) {
			sc.plans[g] = append(sc.plans[g], menu[rapid.IntRange(0, len(menu)-1).Draw(t, "call")])
		}
	}
	return sc
}

// pointers are the pointers a case's calls name: the buffer's holders
// first, then the owned pointers and the second buffer's holders.
func (sc scheduledCase) pointers() []spec.Addr {
	return append(sc.holders(), schedOwned, schedOwned2, schedBuf2, schedBuf2+8)
}

// holders are the buffer's holders, each once.
func (sc scheduledCase) holders() []spec.Addr {
	return slices.Compact(append([]spec.Addr{schedBuf}, sc.aliases...))
}

func call(k spec.OpKind, p spec.Addr) scheduledOp { return scheduledOp{Op: spec.Op{Kind: k, P: p}} }

func register(p spec.Addr, bytes int64) scheduledOp {
	return scheduledOp{Op: spec.Op{Kind: spec.OpRegister, P: p, Bytes: bytes, Alloc: spec.ScalarNew}}
}

// part is goroutine g's part in shape; a goroutine beyond the shape's
// releases a holder of its own.
func (sc scheduledCase) part(shape scheduledShape, g int) []scheduledOp {
	hs := sc.holders()
	own := hs[g%len(hs)]
	alias := hs[len(hs)-1]
	second := scheduledOp{Op: spec.Op{Kind: spec.OpRegisterBuffer, P: schedBuf2, Bytes: schedBuf2Size, Aliases: sc.aliases2, Alloc: spec.AlignedAlloc}}
	parts := map[scheduledShape][2][]scheduledOp{
		shapeQuery:    {{call(spec.OpUnregister, alias)}, {call(spec.OpRefs, alias), call(spec.OpIsRegistered, alias), call(spec.OpRefs, schedBuf)}},
		shapeCount:    {{register(schedOwned2, 0x40)}, {call(spec.OpUnregister, schedOwned)}},
		shapeRevive:   {{call(spec.OpUnregister, schedOwned)}, {call(spec.OpUnregister, schedOwned), register(schedOwned, 0x80)}},
		shapeRegister: {{second}, {call(spec.OpIsRegistered, schedBuf2), call(spec.OpIsRegistered, schedBuf2+8), call(spec.OpUnregister, alias)}},
		shapeClose:    {{register(schedOwned2, 0x40), call(spec.OpUnregister, schedOwned)}, {{Op: spec.Op{Kind: spec.OpClose}}}},
	}
	if p, ok := parts[shape]; ok && g < 2 {
		return slices.Clone(p[g])
	}
	return []scheduledOp{call(spec.OpUnregister, own)}
}

// menu is what a goroutine draws its extra calls from, in one draw each:
// its order is the shrink order. One draw a call keeps rapid's shrinking
// short: every draw it can change is a run of the whole case to try.
func (sc scheduledCase) menu() []scheduledOp {
	var menu []scheduledOp
	for _, h := range sc.holders() {
		menu = append(menu, call(spec.OpUnregister, h), call(spec.OpRefs, h), call(spec.OpIsRegistered, h), call(spec.OpRetain, h))
	}
	return append(menu, register(schedOwned2, 0x40), call(spec.OpUnregister, schedOwned), call(spec.OpUnregister, schedOwned2),
		register(schedOwned, 0x80), call(spec.OpRefs, schedOwned), call(spec.OpRetain, schedOwned),
		scheduledOp{Op: spec.Op{Kind: spec.OpRegisterBuffer, P: schedBuf2, Bytes: schedBuf2Size, Aliases: sc.aliases2, Alloc: spec.AlignedAlloc}},
		call(spec.OpUnregister, schedBuf2), call(spec.OpIsRegistered, schedBuf2+8),
		scheduledOp{snapshot: snapStats}, scheduledOp{Op: spec.Op{Kind: spec.OpClose}})
}

// setup is the calls the body makes before the goroutines start.
func (sc scheduledCase) setup() []scheduledOp {
	ops := []scheduledOp{
		{Op: spec.Op{Kind: spec.OpRegister, P: schedOwned, Bytes: 0x40, Alloc: spec.ScalarNew}},
		{Op: spec.Op{Kind: spec.OpRegisterBuffer, P: schedBuf, Bytes: 0x100, Aliases: sc.aliases, Alloc: spec.AlignedAlloc}},
	}
	if sc.retained {
		ops = append(ops, scheduledOp{Op: spec.Op{Kind: spec.OpRetain, P: schedBuf}})
	}
	return ops
}

// run is the body of one scheduled run: it builds the registry, sets it up,
// runs the goroutines, then checks the history and the frees, failing the
// run through s. It returns why the history proved nothing, if it did not.
func (sc scheduledCase) run(s *sched.Scheduler, factory RegistryFactory) (undecided string) {
	frees := newAttributedFrees(len(sc.plans))
	r := factory(frees)
	for _, op := range sc.setup() {
		if res := op.apply(r, nil); res.Err != "" {
			s.Fatalf("set-up %v: %v", op, res)
		}
	}
	frees.take(0) // the set-up frees nothing
	var mu sync.Mutex
	var history []porcupine.Operation
	record := func(client int, op scheduledOp) {
		call := s.Call(op.String())
		res := op.apply(r, frees)
		ret := s.Return(res.String())
		mu.Lock()
		history = append(history, porcupine.Operation{ClientId: client, Input: op, Output: res, Call: call, Return: ret})
		mu.Unlock()
	}
	for g, plan := range sc.plans {
		s.Go(fmt.Sprintf("G%d", g+1), func() {
			for _, op := range plan {
				record(g, op)
			}
		})
	}
	s.Wait()
	// Then Stats and a Close, whose leak report and frees show what is
	// left: both join the history, after every other call.
	for _, op := range []scheduledOp{{snapshot: snapStats}, {Op: spec.Op{Kind: spec.OpClose}}} {
		record(len(sc.plans), op)
	}
	res := linear.Check(scheduledModel(sc.setup(), sc.pointers()), history, scheduledCheckTime)
	switch res.Verdict {
	case linear.NotLinearizable:
		s.Fatalf("the history is not linearizable under the model (frees included): %v\n%s", res, linear.Describe(history))
	case linear.Unknown:
		return res.String()
	}
	if err := sc.exactlyOnce(frees, history); err != "" {
		s.Fatalf("%s", err)
	}
	return ""
}

// exactlyOnce checks that every registration the case made (the set-up's
// and the goroutines' successful ones) was freed exactly once in all, the
// final Close's frees included, with its real pointer, size and kind.
func (sc scheduledCase) exactlyOnce(frees *attributedFrees, history []porcupine.Operation) string {
	want := map[freeCall]int{}
	for _, op := range sc.setup() {
		if op.Kind != spec.OpRetain {
			want[freeCall{op.P, op.Bytes, op.Alloc}]++
		}
	}
	for _, h := range history {
		op, res := h.Input.(scheduledOp), h.Output.(scheduledResult)
		if (op.Kind == spec.OpRegister || op.Kind == spec.OpRegisterBuffer) && op.snapshot == 0 && res.Err == "" {
			want[freeCall{op.P, op.Bytes, op.Alloc}]++
		}
	}
	got := map[freeCall]int{}
	for _, f := range frees.all() {
		got[f]++
	}
	for _, f := range sortedFrees(want, got) {
		if want[f] != got[f] {
			return fmt.Sprintf("%v was called %d times in all (the final Close included); the registrations made want it %d times\nall frees: %v",
				f, got[f], want[f], frees.all())
		}
	}
	return ""
}

// scheduledCheckTime is how long porcupine may take over one history of a
// scheduled case. A history of a dozen or two calls that is linearizable is
// decided in milliseconds; one that is not may take long to prove so, and
// a failure's shrinking checks many: one undecided after a second proves
// nothing, and the case is skipped.
const scheduledCheckTime = time.Second
