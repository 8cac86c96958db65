package banktest_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/banktest"
	"pgregory.net/rapid"
)

// The planted bugs below (and lenientFree, in example_test.go) are the kind a user makes in a thin layer over a
// correct free list or bank manager. Each is found by a Check function, and
// its counterexample must shrink to about the few calls that show it: a
// generator whose rare branch (a stray address, an address limit, a range at
// the top of the address space) is switched on by shrinking would drag that
// branch into every shrunk trace.

// firstFreeAsLargest reports the first free block's size as the largest: a
// scan that stops at the first free block it meets.
type firstFreeAsLargest struct{ bank.FreeList }

func (l firstFreeAsLargest) Stats() bank.Stats {
	st := l.FreeList.Stats()
	if i := slices.IndexFunc(l.Blocks(), func(b bank.Block) bool { return !b.Allocated }); i >= 0 {
		st.LargestFree = l.Blocks()[i].Size
	}
	return st
}

// threeRecords keeps its allocations in a table of three and answers
// ErrOutOfMemory to a fourth Allocate while three are live.
type threeRecords struct{ bank.FreeList }

func (l threeRecords) Allocate(size int64, dir bank.Direction, limit bank.Addr) (bank.Addr, error) {
	if len(l.State().Allocations) >= 3 {
		return 0, bank.ErrOutOfMemory
	}
	return l.FreeList.Allocate(size, dir, limit)
}

// restoreIgnoresMinimum restores a state whose minimum allocation differs
// from its own, comparing only the range and the alignment.
type restoreIgnoresMinimum struct{ bank.FreeList }

func (l restoreIgnoresMinimum) Restore(s bank.State) error {
	s.MinAllocation = l.Config().MinAllocation
	return l.FreeList.Restore(s)
}

// acceptsUnknownBuffer ignores ErrUnknownAddress from FreeBuffer.
type acceptsUnknownBuffer struct{ bank.Banks }

func (b acceptsUnknownBuffer) FreeBuffer(a bank.Addr) error {
	if err := b.Banks.FreeBuffer(a); !errors.Is(err, bank.ErrUnknownAddress) {
		return err
	}
	return nil
}

// clampsPage answers a page past a buffer's end with its last page instead of
// refusing it.
type clampsPage struct{ bank.Banks }

func (b clampsPage) PageAddress(a bank.Addr, page int64) (int, bank.Addr, error) {
	for _, buf := range b.Buffers() {
		if buf.Addr == a && page >= buf.Pages() {
			page = buf.Pages() - 1
		}
	}
	return b.Banks.PageAddress(a, page)
}

// bankZeroOffset places every page at bank 0's offset, whatever its bank.
type bankZeroOffset struct{ bank.Banks }

func (b bankZeroOffset) PageAddress(a bank.Addr, page int64) (int, bank.Addr, error) {
	inBank, abs, err := b.Banks.PageAddress(a, page)
	if err == nil {
		offs := b.Config().Offsets
		abs = abs - offs[inBank] + offs[0]
	}
	return inBank, abs, err
}

// rareConfig records whether the configuration the last factory call was
// given (that of the shrunk case, which rapid replays last) took a rare
// branch no planted bug needs: a range at the top of the address space (the
// generators put one there now and then, to reach sums that wrap) or an
// address limit.
var rareConfig bool

// model and banksModel build the reference implementations the planted bugs wrap.
func model(wrap func(bank.FreeList) bank.FreeList) banktest.FreeListFactory {
	return func(c bank.Config) (bank.FreeList, error) {
		rareConfig = c.Offset >= 1<<63
		m, err := bank.NewModel(c)
		if err != nil {
			return nil, err
		}
		return wrap(m), nil
	}
}

func banksModel(wrap func(bank.Banks) bank.Banks) banktest.BanksFactory {
	return func(c bank.BanksConfig) (bank.Banks, error) {
		rareConfig = c.List.Offset >= 1<<63 || c.Limit != 0
		m, err := bank.NewBanksModel(c)
		if err != nil {
			return nil, err
		}
		return wrap(m), nil
	}
}

// plantedBugs pairs each planted bug with the Check function that finds it
// and the longest shrunk trace accepted: the fewest calls that show the bug,
// except for firstFreeAsLargest, which rapid sometimes leaves inside a
// fragmenting burst. Measured with -shrink.seeds=100 (seeds 1 to 100), every
// bug shrinks to its fewest calls under every seed but firstFreeAsLargest:
// 1 call for 39 seeds, 2 to 5 for 38, 7 for 21, and 13 and 14 for one each,
// where the shrinker stops in a local minimum. No shrunk configuration sat at
// the top of the address space or had a limit.
var plantedBugs = []struct {
	name  string
	check func(rapid.TB)
	bound int
}{
	{"FreeListStateMachine/lenientFree", func(t rapid.TB) {
		banktest.CheckFreeListStateMachine(t, model(func(l bank.FreeList) bank.FreeList { return lenientFree{l} }))
	}, 1},
	{"FreeListStateMachine/firstFreeAsLargest", func(t rapid.TB) {
		banktest.CheckFreeListStateMachine(t, model(func(l bank.FreeList) bank.FreeList { return firstFreeAsLargest{l} }))
	}, 7},
	{"FreeListBestFit/threeRecords", func(t rapid.TB) {
		banktest.CheckFreeListBestFit(t, model(func(l bank.FreeList) bank.FreeList { return threeRecords{l} }))
	}, 4},
	{"FreeListRoundTrip/restoreIgnoresMinimum", func(t rapid.TB) {
		banktest.CheckFreeListRoundTrip(t, model(func(l bank.FreeList) bank.FreeList { return restoreIgnoresMinimum{l} }))
	}, 1},
	{"BanksStateMachine/acceptsUnknownBuffer", func(t rapid.TB) {
		banktest.CheckBanksStateMachine(t, banksModel(func(b bank.Banks) bank.Banks { return acceptsUnknownBuffer{b} }))
	}, 1},
	{"BanksStateMachine/clampsPage", func(t rapid.TB) {
		banktest.CheckBanksStateMachine(t, banksModel(func(b bank.Banks) bank.Banks { return clampsPage{b} }))
	}, 2},
	{"Isolation/bankZeroOffset", func(t rapid.TB) {
		banktest.CheckIsolation(t, banksModel(func(b bank.Banks) bank.Banks { return bankZeroOffset{b} }))
	}, 2},
}

// TestMain keeps rapid from writing fail files: every failure in this
// package's tests and examples is planted.
func TestMain(m *testing.M) {
	flag.Parse()
	flag.Set("rapid.nofailfile", "true")
	os.Exit(m.Run())
}

var shrinkSeeds = flag.Int("shrink.seeds", 0, "measure the shrunk lengths of the planted bugs over seeds 1 to this, and log them")

// testSeeds are the seeds TestShrinkToSimplestCase runs each planted bug
// under. They are fixed, so that the test is deterministic: a shrinker
// stopping in a local minimum now and then must not make it flaky.
var testSeeds = []int{1, 2}

// TestShrinkToSimplestCase runs each planted bug under testSeeds and bounds
// the length of its shrunk trace; the shrunk configuration must take no rare
// branch. With -shrink.seeds it measures instead.
func TestShrinkToSimplestCase(t *testing.T) {
	seeds := testSeeds
	if *shrinkSeeds > 0 {
		seeds = nil
		for s := 1; s <= *shrinkSeeds; s++ {
			seeds = append(seeds, s)
		}
	}
	seedFlag := flag.Lookup("rapid.seed")
	defer seedFlag.Value.Set(seedFlag.Value.String())
	for _, c := range plantedBugs {
		t.Run(c.name, func(t *testing.T) {
			hist := map[int]int{} // steps → seeds
			longest, longestSeed, rare := 0, 0, 0
			for _, seed := range seeds {
				seedFlag.Value.Set(fmt.Sprint(seed))
				res := props.Run(c.name, c.check)
				if res.Outcome != props.Failed {
					t.Fatalf("seed %d: the planted bug was not found: %v\n%s", seed, res.Outcome, res.Output)
				}
				n := trace.StepsIn(res.Output)
				hist[n]++
				if n > longest {
					longest, longestSeed = n, seed
				}
				if rareConfig {
					rare++
				}
				if *shrinkSeeds > 0 {
					continue
				}
				if n == 0 || n > c.bound {
					t.Errorf("seed %d: shrunk to %d steps, want 1 to %d:\n%s", seed, n, c.bound, res.Output)
				}
				if rareConfig {
					t.Errorf("seed %d: shrunk to a configuration at the top of the address space or with a limit:\n%s", seed, res.Output)
				}
			}
			if *shrinkSeeds > 0 {
				t.Logf("steps → seeds: %v (longest %d, seed %d); rare configuration in %d of %d",
					hist, longest, longestSeed, rare, len(seeds))
			}
		})
	}
}
