package banktest

import (
	"slices"

	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckFreeListRoundTrip checks State and Restore: after random calls, the
// state extracted from factory's list restores into a fresh list to the same
// blocks, statistics and state; restoring a list's own state changes nothing;
// restoring an earlier snapshot replaces the live allocations exactly as the
// model does; and a state of another configuration, or an invalid layout, is
// refused with ErrIncompatibleState, nothing changed.
func CheckFreeListRoundTrip(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawListConfig(rt, rapid.SampledFrom([]bank.Policy{bank.FirstFit, bank.BestFit}).Draw(rt, "policy"))
		d, err := NewFreeListDiff(cfg, factory)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		snaps := []bank.State{d.Model.State()}
		apply := func(t *rapid.T, op bank.Op) {
			if err := d.Apply(op); err != nil {
				t.Fatalf("%v", err)
			}
		}
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate": func(t *rapid.T) {
				apply(t, bank.Op{Kind: bank.OpAllocate, Size: drawAllocSize(t, cfg), Dir: drawDir(t)})
				snaps = append(snaps, d.Model.State())
			},
			"Free": func(t *rapid.T) { apply(t, bank.Op{Kind: bank.OpFree, Addr: drawLive(t, cfg, d.Model)}) },
			"IntoFresh": func(t *rapid.T) {
				if err := restoreIntoFresh(d, factory); err != nil {
					t.Fatalf("%v", err)
				}
			},
			"RestoreOwn": func(t *rapid.T) { apply(t, bank.Op{Kind: bank.OpRestore, State: d.Impl.State()}) },
			"RestoreSnapshot": func(t *rapid.T) {
				apply(t, bank.Op{Kind: bank.OpRestore, State: rapid.SampledFrom(snaps).Draw(t, "snapshot")})
			},
			"RestoreOther": func(t *rapid.T) {
				apply(t, bank.Op{Kind: bank.OpRestore, State: drawRestoreState(t, cfg, snaps)})
			},
		})
	})
}

// restoreIntoFresh restores the state of d's implementation into a fresh list
// from factory and compares the two: a state must carry everything a list
// needs to go on where the other left off.
func restoreIntoFresh(d *FreeListDiff, factory FreeListFactory) error {
	s := d.Impl.State()
	fresh, err := factory(d.cfg)
	if err != nil {
		return d.Fail("factory refused %+v: %v", d.cfg, err)
	}
	what := "Restore(State()) into a fresh list"
	if err := fresh.Restore(s); err != nil {
		return d.Fail("%s: %v", what, err)
	}
	if w, g := d.Impl.Blocks(), fresh.Blocks(); !slices.Equal(w, g) {
		return d.Fail("%s gives Blocks() = %v, the original %v", what, g, w)
	}
	if w, g := d.Impl.Stats(), fresh.Stats(); w != g {
		return d.Fail("%s gives Stats() = %+v, the original %+v", what, g, w)
	}
	if g := fresh.State(); !stateEqual(g, s) {
		return d.Fail("%s gives State() = %v, want %v", what, g, s)
	}
	return nil
}
