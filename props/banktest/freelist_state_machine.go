package banktest

import (
	"slices"

	spec "github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckFreeList is the differential state machine of the bank free list,
// first fit: rapid draws a configuration and a sequence of Allocate,
// AllocateAt, AllocateAvoiding, Free and Restore calls (valid and invalid,
// both directions, with and without address limits), applies each to the
// model and to factory's list, and after every call compares the result
// (addresses exactly: first fit leaves no choice), Blocks, Stats and State,
// and checks the invariants (FreeListInvariants). At the end it frees
// everything and expects one free block. A mismatch fails t with the op trace.
func CheckFreeList(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	checkFreeList(t, factory, spec.FirstFit)
}

// CheckFreeListBestFit is CheckFreeList for the best-fit policy, against the
// model's best-fit mode (the smallest feasible block, ties by address).
func CheckFreeListBestFit(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	checkFreeList(t, factory, spec.BestFit)
}

func checkFreeList(t rapid.TB, factory FreeListFactory, policy spec.Policy) {
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawListConfig(rt, policy)
		d, err := NewFreeListDiff(cfg, factory)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		snaps := []spec.State{d.Model.State()}
		apply := func(t *rapid.T, op spec.Op) {
			if err := d.Apply(op); err != nil {
				t.Fatalf("%v", err)
			}
		}
		alloc := func(t *rapid.T) {
			apply(t, spec.Op{Kind: spec.OpAllocate, Size: drawAllocSize(t, cfg), Dir: drawDir(t), Limit: drawLimit(t, cfg)})
		}
		free := func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpFree, Addr: drawLive(t, cfg, d.Model)}) }
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate":  alloc,
			"Allocate2": alloc, // allocation twice as likely as the rest, so the range fills
			"AllocateSmall": func(t *rapid.T) {
				// Small blocks leave holes of a few units: several free blocks
				// per size class, where first and best fit part ways.
				size := rapid.Int64Range(1, 6*cfg.Alignment).Draw(t, "smallSize")
				apply(t, spec.Op{Kind: spec.OpAllocate, Size: size, Dir: drawDir(t), Limit: drawLimit(t, cfg)})
			},
			"AllocateAt": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpAllocateAt, Addr: drawListAddr(t, cfg, d.Model.Blocks()), Size: drawAllocSize(t, cfg)})
			},
			"AllocateAvoiding": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpAllocateAvoiding, Size: drawAllocSize(t, cfg), Dir: drawDir(t),
					Avoid: drawAvoid(t, cfg), Limit: drawLimit(t, cfg)})
			},
			"Fragment": func(t *rapid.T) {
				// Fill the free space with the smallest blocks, then free
				// every other allocated block: many gaps of one size, so
				// the best-fit tree of gaps (by size, ties by address)
				// grows several levels under narrow nodes, its inner slots
				// carry ties, and later frees put new smallest gaps in it.
				for range 64 {
					before := d.Model.Stats().Free
					apply(t, spec.Op{Kind: spec.OpAllocate, Size: cfg.Alignment, Dir: spec.BottomUp})
					if d.Model.Stats().Free == before {
						break // no room left
					}
				}
				var allocated []spec.Addr
				for _, b := range d.Model.Blocks() {
					if b.Allocated {
						allocated = append(allocated, b.Addr)
					}
				}
				for i := 0; i < len(allocated); i += 2 {
					apply(t, spec.Op{Kind: spec.OpFree, Addr: allocated[i]})
				}
			},
			"Free":     free,
			"Free2":    free,
			"Snapshot": func(t *rapid.T) { snaps = append(snaps, d.Model.State()) },
			"Restore": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpRestore, State: drawRestoreState(t, cfg, snaps)})
			},
		})
		if err := d.FreeAll(); err != nil {
			rt.Fatalf("%v", err)
		}
	})
}

// CheckFreeListRoundTrip checks State and Restore: after random calls, the
// state extracted from factory's list restores into a fresh list to the same
// blocks, statistics and state; restoring a list's own state changes nothing;
// restoring an earlier snapshot replaces the live allocations exactly as the
// model does; and a state of another configuration, or an invalid layout, is
// refused with ErrIncompatibleState, nothing changed.
func CheckFreeListRoundTrip(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawListConfig(rt, rapid.SampledFrom([]spec.Policy{spec.FirstFit, spec.BestFit}).Draw(rt, "policy"))
		d, err := NewFreeListDiff(cfg, factory)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		snaps := []spec.State{d.Model.State()}
		apply := func(t *rapid.T, op spec.Op) {
			if err := d.Apply(op); err != nil {
				t.Fatalf("%v", err)
			}
		}
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpAllocate, Size: drawAllocSize(t, cfg), Dir: drawDir(t)})
				snaps = append(snaps, d.Model.State())
			},
			"Free": func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpFree, Addr: drawLive(t, cfg, d.Model)}) },
			"IntoFresh": func(t *rapid.T) {
				s := d.Impl.State()
				fresh, err := factory(cfg)
				if err != nil {
					t.Fatalf("%v", d.Fail("factory refused %+v: %v", cfg, err))
				}
				if err := fresh.Restore(s); err != nil {
					t.Fatalf("%v", d.Fail("Restore(State()) into a fresh list: %v", err))
				}
				if w, g := d.Impl.Blocks(), fresh.Blocks(); !slices.Equal(w, g) {
					t.Fatalf("%v", d.Fail("Restore(State()) into a fresh list gives Blocks() = %v, the original %v", g, w))
				}
				if w, g := d.Impl.Stats(), fresh.Stats(); w != g {
					t.Fatalf("%v", d.Fail("Restore(State()) into a fresh list gives Stats() = %+v, the original %+v", g, w))
				}
				if g := fresh.State(); !StateEqual(g, s) {
					t.Fatalf("%v", d.Fail("Restore(State()) into a fresh list gives State() = %v, want %v", g, s))
				}
			},
			"RestoreOwn": func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpRestore, State: d.Impl.State()}) },
			"RestoreSnapshot": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpRestore, State: rapid.SampledFrom(snaps).Draw(t, "snapshot")})
			},
			"RestoreOther": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpRestore, State: drawRestoreState(t, cfg, snaps)})
			},
		})
	})
}
