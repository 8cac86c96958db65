package banktest

import (
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckFreeListStateMachine is the differential state machine of a free list
// under first fit: rapid draws a configuration and a sequence of Allocate,
// AllocateAt, AllocateAvoiding, Free and Restore calls (valid and invalid,
// both directions, with and without address limits), applies each to the
// model and to factory's list, and after every call compares the result
// (addresses exactly: first fit leaves no choice), Blocks, Stats and State,
// and checks FreeListInvariants. At the end it frees everything and expects
// one free block. A mismatch fails t with the op trace.
func CheckFreeListStateMachine(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	checkFreeListMachine(t, factory, bank.FirstFit)
}

// checkFreeListMachine runs the state machine under policy: the model in the
// same policy fixes every address.
func checkFreeListMachine(t rapid.TB, factory FreeListFactory, policy bank.Policy) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawListConfig(rt, policy)
		d, err := NewFreeListDiff(cfg, factory)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		m := &freeListMachine{d: d, cfg: cfg, snaps: []bank.State{d.Model.State()}}
		repeatLong(rt, m.actions())
		if err := d.FreeAll(); err != nil {
			rt.Fatalf("%v", err)
		}
	})
}

// freeListMachine is the state of one run: the diff, and the model's states
// taken so far, for Restore.
type freeListMachine struct {
	d     *FreeListDiff
	cfg   bank.Config
	snaps []bank.State
}

func (m *freeListMachine) apply(t *rapid.T, op bank.Op) {
	if err := m.d.Apply(op); err != nil {
		t.Fatalf("%v", err)
	}
}

// actions are the calls rapid chooses among. Allocate and Free are listed
// twice, so that a sequence fills the range and empties it again.
func (m *freeListMachine) actions() map[string]func(*rapid.T) {
	cfg := m.cfg
	alloc := func(t *rapid.T) {
		m.apply(t, bank.Op{Kind: bank.OpAllocate, Size: drawAllocSize(t, cfg), Dir: drawDir(t), Limit: drawLimit(t, cfg)})
	}
	free := func(t *rapid.T) { m.apply(t, bank.Op{Kind: bank.OpFree, Addr: drawLive(t, cfg, m.d.Model)}) }
	return map[string]func(*rapid.T){
		"Allocate":  alloc,
		"Allocate2": alloc,
		"AllocateSmall": func(t *rapid.T) {
			// Small blocks leave holes of a few units: several free blocks
			// per size class, where first and best fit part ways.
			size := rapid.Int64Range(1, 6*cfg.Alignment).Draw(t, "smallSize")
			m.apply(t, bank.Op{Kind: bank.OpAllocate, Size: size, Dir: drawDir(t), Limit: drawLimit(t, cfg)})
		},
		"AllocateAt": func(t *rapid.T) {
			m.apply(t, bank.Op{Kind: bank.OpAllocateAt, Addr: drawListAddr(t, cfg, m.d.Model.Blocks()), Size: drawAllocSize(t, cfg)})
		},
		"AllocateAvoiding": func(t *rapid.T) {
			m.apply(t, bank.Op{Kind: bank.OpAllocateAvoiding, Size: drawAllocSize(t, cfg), Dir: drawDir(t),
				Avoid: drawAvoid(t, cfg), Limit: drawLimit(t, cfg)})
		},
		"Fragment": m.fragment,
		"Free":     free,
		"Free2":    free,
		"Snapshot": func(t *rapid.T) { m.snaps = append(m.snaps, m.d.Model.State()) },
		"Restore": func(t *rapid.T) {
			m.apply(t, bank.Op{Kind: bank.OpRestore, State: drawRestoreState(t, cfg, m.snaps)})
		},
	}
}

// fragment fills the free space with the smallest blocks, then frees every
// other allocated block: many gaps of one size, so that the best-fit tree of
// gaps (by size, ties by address) grows several levels under narrow nodes,
// its inner slots carry ties, and later frees put new smallest gaps in it.
// The fill is a burst of up to 64 calls, cut short when shrinking.
func (m *freeListMachine) fragment(t *rapid.T) {
	for range drawBurst(t, 64) {
		before := m.d.Model.Stats().Free
		m.apply(t, bank.Op{Kind: bank.OpAllocate, Size: m.cfg.Alignment, Dir: bank.BottomUp})
		if m.d.Model.Stats().Free == before {
			break // no room left
		}
	}
	var allocated []bank.Addr
	for _, b := range m.d.Model.Blocks() {
		if b.Allocated {
			allocated = append(allocated, b.Addr)
		}
	}
	for i := 0; i < len(allocated); i += 2 {
		m.apply(t, bank.Op{Kind: bank.OpFree, Addr: allocated[i]})
	}
}
