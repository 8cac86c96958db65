package bank

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// State implements spec.FreeList.
func (f *FreeListOpt) State() spec.State {
	s := spec.State{Offset: f.cfg.Offset, Size: f.cfg.Size, Alignment: f.cfg.Alignment, MinAllocation: f.cfg.MinAllocation}
	for _, b := range f.Blocks() {
		if b.Allocated {
			s.Allocations = append(s.Allocations, spec.Region{Addr: b.Addr, Size: b.Size})
		}
	}
	return s
}

// Restore implements spec.FreeList. The state is checked whole before the
// list is touched; then the tree is rebuilt bottom-up from the sorted
// regions, O(n log n) for the sort and O(n) for the rest.
func (f *FreeListOpt) Restore(s spec.State) error {
	rs, err := f.restorable(s)
	if err != nil {
		return err
	}
	if bugs.On(BugRestoreKeepsOld) {
		// Replays the regions over the live allocations instead of replacing them.
		for _, r := range rs {
			if err := f.AllocateAt(r.Addr, r.Size); err != nil {
				return fmt.Errorf("%w: %v", spec.ErrIncompatibleState, err)
			}
		}
		return nil
	}
	ks, vs := f.entries(rs)
	f.blocks.build(ks, vs, buildFill(f.blocks.width()))
	if f.sized {
		sizes, addrs := gapsBySize(ks, vs, uint64(f.cfg.End()))
		f.bySize.build(sizes, addrs, buildFill(f.bySize.width()))
	}
	f.allocated = 0
	for _, r := range rs {
		f.allocated += uint64(r.Size)
	}
	f.free = uint64(f.cfg.Size) - f.allocated
	f.largest = uint64(f.cfg.Size) // under BugStaleLargest, as stale as ever
	return nil
}

// restorable checks state s against the list's configuration and returns
// its allocations sorted by address, or ErrIncompatibleState if the
// configurations differ or a region is not an aligned allocation inside the
// range, clear of the others.
func (f *FreeListOpt) restorable(s spec.State) ([]spec.Region, error) {
	if !f.cfg.Compatible(s) && !bugs.On(BugRestoreIgnoresConfig) {
		return nil, fmt.Errorf("%w: state of [%#x, +%d) align %d min %d into [%#x, +%d) align %d min %d",
			spec.ErrIncompatibleState, uint64(s.Offset), s.Size, s.Alignment, s.MinAllocation,
			uint64(f.cfg.Offset), f.cfg.Size, f.cfg.Alignment, f.cfg.MinAllocation)
	}
	rs := slices.Clone(s.Allocations)
	slices.SortFunc(rs, func(x, y spec.Region) int {
		switch {
		case x.Addr < y.Addr:
			return -1
		case x.Addr > y.Addr:
			return 1
		}
		return 0
	})
	cur := uint64(f.cfg.Offset)
	for _, r := range rs {
		n, err := f.allocSize(r.Size)
		a := uint64(r.Addr)
		if err != nil || n != uint64(r.Size) || a%f.align != 0 || a < cur || a >= uint64(f.cfg.End()) || n > uint64(f.cfg.End())-a {
			return nil, fmt.Errorf("%w: region [%#x, +%d) is not an aligned allocation inside the range, clear of the others",
				spec.ErrIncompatibleState, a, r.Size)
		}
		cur = a + n
	}
	return rs, nil
}

// entries are the blocks tree's entries for the sorted allocations rs: one
// per allocation with the gap after it, behind a head entry at the start of
// the range unless an allocation starts there.
func (f *FreeListOpt) entries(rs []spec.Region) (ks, vs []uint64) {
	ks = make([]uint64, 0, len(rs)+1)
	vs = make([]uint64, 0, len(rs)+1)
	startOf := func(i int) uint64 { // where the entry after allocation i-1 starts
		if i < len(rs) {
			return uint64(rs[i].Addr)
		}
		return uint64(f.cfg.End())
	}
	if first := startOf(0); first != uint64(f.cfg.Offset) {
		ks, vs = append(ks, uint64(f.cfg.Offset)), append(vs, first-uint64(f.cfg.Offset))
	}
	for i, r := range rs {
		end := uint64(r.Addr) + uint64(r.Size)
		ks, vs = append(ks, uint64(r.Addr)), append(vs, startOf(i+1)-end)
	}
	return ks, vs
}

// gapsBySize are the bySize tree's entries for the blocks tree's entries
// (ks, vs) of a range that ends at end: every non-empty gap as (size,
// address), sorted by size, then address.
func gapsBySize(ks, vs []uint64, end uint64) (sizes, addrs []uint64) {
	type gap struct{ size, addr uint64 }
	var gs []gap
	for i, size := range vs {
		next := end // the gap ends where the next entry starts
		if i+1 < len(ks) {
			next = ks[i+1]
		}
		if size > 0 {
			gs = append(gs, gap{size, next - size})
		}
	}
	slices.SortFunc(gs, func(x, y gap) int {
		if c := cmp.Compare(x.size, y.size); c != 0 {
			return c
		}
		return cmp.Compare(x.addr, y.addr)
	})
	sizes, addrs = make([]uint64, len(gs)), make([]uint64, len(gs))
	for i, g := range gs {
		sizes[i], addrs[i] = g.size, g.addr
	}
	return sizes, addrs
}

// buildFill is the slots per leaf a rebuilt tree starts with: four fifths
// of the width, about where random updates keep the tree (a full leaf lends
// to a neighbour before it splits; see btree.lend), so that the first
// updates neither split every leaf nor merge them.
func buildFill(width int32) int32 { return max(width-width/5, width/2+1) }
