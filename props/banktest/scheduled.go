package banktest

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/linear"
	"github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// CheckScheduled checks Banks that are safe for concurrent use under
// interleavings that a scheduler chooses (package sched), where
// CheckLinearizable and CheckParallel hope the Go runtime interleaves
// goroutines badly. Each case allocates a few buffers over two banks (now
// and then a dozen, so that the index of buffer records grows while the
// goroutines run), then two or three goroutines allocate, ask page
// addresses and free — their own buffers, and the set-up's, two of them
// perhaps the same one — so that an address freed by one is soon handed to
// another. Once they have all returned, the body asks a page address of
// every buffer ever allocated and lists the buffers. The history must be
// linearizable under the model (porcupine): no address is handed to two
// live buffers, no page maps to a slot of another buffer, a live buffer's
// record is never lost, a freed one never comes back.
//
// The scheduler runs the goroutines one at a time and switches between them
// only at schedule points: the banks must be instrumented with package
// sched (atomics of sched's types, sched.Mutex locks) and built with -tags
// sched for the interleavings to be chosen; the Concurrent banks of this
// module are. A user's own banks instrumented the same way are checked the
// same way; without the tag each case is one free-running stress run of the
// same scenario. opts chooses the strategy (sched.PCT is the better
// default), the repro command and the bounds; every draw, the schedule's
// included, is rapid's, so a failure shrinks and replays from -rapid.seed
// and prints the interleaving as a timeline.
func CheckScheduled(t rapid.TB, factory BanksFactory, opts sched.Options) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) { runScheduled(rt, factory, opts) })
}

func runScheduled(rt *rapid.T, factory BanksFactory, opts sched.Options) sched.Schedule {
	sc := drawBanksCase(rt)
	var undecided string
	schedule := sched.Run(rt, opts, func(s *sched.Scheduler) { undecided = sc.run(s, factory) })
	if undecided != "" {
		// rapid draws another case instead, and fails the run if too few prove anything.
		rt.Skipf("%s: this history proves nothing", undecided)
	}
	return schedule
}

// scheduledConfig is the banks of CheckScheduled: two banks over a range of
// 64 units of 16 bytes, first fit.
var scheduledConfig = bank.BanksConfig{
	Offsets: []bank.Addr{0, 1 << 20},
	List:    bank.Config{Size: 64 * 16, Alignment: 16, Policy: bank.FirstFit},
}

// banksCase is one case of CheckScheduled: how many buffers the set-up
// allocates, and each goroutine's calls. A call's Addr is a reference until
// it is made: ownBuffer for the goroutine's last buffer, i < ownBuffer the
// set-up's buffer i.
type banksCase struct {
	setup int
	plans [][]bank.BanksOp
}

const ownBuffer = bank.Addr(1 << 16)

// drawBanksCase draws a case. It shrinks to two goroutines each allocating
// a buffer and freeing it, over one set-up buffer.
func drawBanksCase(t *rapid.T) banksCase {
	sc := banksCase{setup: rapid.IntRange(1, 3).Draw(t, "set-up buffers")}
	if draw.Rarely(t, 4, "many") {
		// The index of records starts with 16 slots and grows past 12.
		sc.setup = rapid.IntRange(10, 12).Draw(t, "set-up many")
	}
	n := 2
	if draw.Rarely(t, 3, "third goroutine") {
		n = 3
	}
	sc.plans = make([][]bank.BanksOp, n)
	for g := range sc.plans {
		menu := sc.menu(g)
		for range rapid.IntRange(1, 4).Draw(t, fmt.Sprintf("G%d calls", g+1)) {
			sc.plans[g] = append(sc.plans[g], menu[rapid.IntRange(0, len(menu)-1).Draw(t, "call")])
		}
	}
	return sc
}

// menu is what goroutine g draws its calls from (its order is the shrink
// order): allocating and freeing its own buffers first, then page addresses
// of its own and the set-up's, frees of the set-up's (goroutine g's, or the
// next one's, which another goroutine may free too), and sharded buffers.
func (sc banksCase) menu(g int) []bank.BanksOp {
	alloc := func(size int64) bank.BanksOp {
		return bank.BanksOp{Kind: bank.OpAllocateBuffer, Size: size, PageSize: 16, Dir: bank.BottomUp}
	}
	mine, next := bank.Addr(g%sc.setup), bank.Addr((g+1)%sc.setup)
	return []bank.BanksOp{
		alloc(32), {Kind: bank.OpFreeBuffer, Addr: ownBuffer}, {Kind: bank.OpPageAddress, Addr: ownBuffer, Page: 1},
		{Kind: bank.OpFreeBuffer, Addr: mine}, {Kind: bank.OpPageAddress, Addr: next}, alloc(16),
		{Kind: bank.OpFreeBuffer, Addr: next}, {Kind: bank.OpPageAddress, Addr: mine, Page: 1},
		{Kind: bank.OpAllocateSharded, Size: 32, PageSize: 16, Banks: []int{1}, Dir: bank.TopDown},
	}
}

// run is the body of one scheduled run.
func (sc banksCase) run(s *sched.Scheduler, factory BanksFactory) (undecided string) {
	b, err := factory(scheduledConfig)
	if err != nil {
		s.Fatalf("factory: %v", err)
	}
	var mu sync.Mutex
	var history []porcupine.Operation
	var seen []bank.Addr
	record := func(client int, in any, apply func() any) any {
		call := s.Call(fmt.Sprint(in))
		out := apply()
		ret := s.Return(fmt.Sprint(out))
		mu.Lock()
		history = append(history, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
		if r, ok := out.(bank.BanksResult); ok && r.Err == "" && in.(bank.BanksOp).Kind <= bank.OpAllocateSharded {
			seen = append(seen, r.Addr)
		}
		mu.Unlock()
		return out
	}
	op := func(client int, o bank.BanksOp) bank.BanksResult {
		return record(client, o, func() any { return o.Apply(b) }).(bank.BanksResult)
	}
	var setup []bank.Addr
	for range sc.setup {
		if r := op(len(sc.plans), bank.BanksOp{Kind: bank.OpAllocateBuffer, Size: 16, PageSize: 16, Dir: bank.BottomUp}); r.Err == "" {
			setup = append(setup, r.Addr)
		}
	}
	if len(setup) == 0 {
		s.Fatalf("the set-up allocated no buffer")
	}
	for g, plan := range sc.plans {
		s.Go(fmt.Sprintf("G%d", g+1), func() {
			own := bank.Addr(0)
			for _, o := range plan {
				switch {
				case o.Kind <= bank.OpAllocateSharded:
				case o.Addr == ownBuffer:
					o.Addr = own
				default:
					o.Addr = setup[int(o.Addr)%len(setup)]
				}
				if r := op(g, o); o.Kind <= bank.OpAllocateSharded && r.Err == "" {
					own = r.Addr
				}
			}
		})
	}
	s.Wait()
	// Then a page of every buffer ever allocated, and the list of buffers:
	// they join the history, after every other call.
	for _, a := range slices.Compact(slices.Sorted(slices.Values(seen))) {
		op(len(sc.plans), bank.BanksOp{Kind: bank.OpPageAddress, Addr: a})
	}
	record(len(sc.plans), banksSnapshot{}, func() any { return fmt.Sprint(b.Buffers()) })
	res := linear.Check(scheduledModel(), history, scheduledCheckTime)
	switch res.Verdict {
	case linear.NotLinearizable:
		s.Fatalf("the history is not linearizable under the model: %v\n%s", res, linear.Describe(history))
	case linear.Unknown:
		return res.String()
	}
	return ""
}

// banksSnapshot is Buffers() as a call of a history; its answer is the list,
// printed.
type banksSnapshot struct{}

func (banksSnapshot) String() string { return "Buffers()" }

// scheduledModel is the porcupine model of a CheckScheduled history: its
// state is the calls made so far, replayed on a fresh model at each step
// (histories are short), with a digest of the model for porcupine's cache.
func scheduledModel() porcupine.Model {
	type state struct {
		ops    []bank.BanksOp
		digest string
	}
	replay := func(ops []bank.BanksOp) *bank.BanksModel {
		m, _ := bank.NewBanksModel(scheduledConfig)
		for _, op := range ops {
			op.Apply(m)
		}
		return m
	}
	return porcupine.Model{
		Init: func() any { return &state{digest: banksDigest(replay(nil))} },
		Step: func(st, input, output any) (bool, any) {
			s := st.(*state)
			m := replay(s.ops)
			if _, ok := input.(banksSnapshot); ok {
				return fmt.Sprint(m.Buffers()) == output, st
			}
			op := input.(bank.BanksOp)
			if op.Apply(m) != output.(bank.BanksResult) {
				return false, st
			}
			return true, &state{ops: append(slices.Clip(s.ops), op), digest: banksDigest(m)}
		},
		Equal: func(a, b any) bool { return a.(*state).digest == b.(*state).digest },
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			h.Write([]byte(s.(*state).digest))
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) },
		DescribeState:     func(s any) string { return s.(*state).digest },
	}
}

// scheduledCheckTime is how long porcupine may take over one history of a
// scheduled case. A history of a dozen or two calls that is linearizable is
// decided in milliseconds; one that is not may take long to prove so, and
// a failure's shrinking checks many: one undecided after a second proves
// nothing, and the case is skipped.
const scheduledCheckTime = time.Second
