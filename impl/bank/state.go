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
	if !f.cfg.Compatible(s) && !bugs.On(BugRestoreIgnoresConfig) {
		return fmt.Errorf("%w: state of [%#x, +%d) align %d min %d into [%#x, +%d) align %d min %d",
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
			return fmt.Errorf("%w: region [%#x, +%d) is not an aligned allocation inside the range, clear of the others",
				spec.ErrIncompatibleState, a, r.Size)
		}
		cur = a + n
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
	// One entry per allocation with the gap after it, behind a head entry
	// at the start of the range unless an allocation starts there; then the
	// tree built bottom-up.
	ks := make([]uint64, 0, len(rs)+1)
	vs := make([]uint64, 0, len(rs)+1)
	startOf := func(i int) uint64 { // where the entry after allocation i-1 starts
		if i < len(rs) {
			return uint64(rs[i].Addr)
		}
		return uint64(f.cfg.End())
	}
	if first := startOf(0); first != uint64(f.cfg.Offset) {
		ks, vs = append(ks, uint64(f.cfg.Offset)), append(vs, first-uint64(f.cfg.Offset))
	}
	f.allocated = 0
	for i, r := range rs {
		end := uint64(r.Addr) + uint64(r.Size)
		ks, vs = append(ks, uint64(r.Addr)), append(vs, startOf(i+1)-end)
		f.allocated += uint64(r.Size)
	}
	f.blocks.build(ks, vs, buildFill(f.blocks.width()))
	if f.sized { // the gaps by (size, address), built the same way
		type gap struct{ size, addr uint64 }
		var gs []gap
		for i, size := range vs {
			end := startOf(len(rs)) // the gap ends where the next entry starts
			if i+1 < len(ks) {
				end = ks[i+1]
			}
			if size > 0 {
				gs = append(gs, gap{size, end - size})
			}
		}
		slices.SortFunc(gs, func(x, y gap) int {
			if c := cmp.Compare(x.size, y.size); c != 0 {
				return c
			}
			return cmp.Compare(x.addr, y.addr)
		})
		sizes, addrs := make([]uint64, len(gs)), make([]uint64, len(gs))
		for i, g := range gs {
			sizes[i], addrs[i] = g.size, g.addr
		}
		f.bySize.build(sizes, addrs, buildFill(f.bySize.width()))
	}
	f.free = uint64(f.cfg.Size) - f.allocated
	f.largest = uint64(f.cfg.Size) // under BugStaleLargest, as stale as ever
	return nil
}

// buildFill is the slots per leaf a rebuilt tree starts with: four fifths
// of the width, about where random updates keep the tree (a full leaf lends
// to a neighbour before it splits; see btree.lend), so that the first
// updates neither split every leaf nor merge them.
func buildFill(width int32) int32 { return max(width-width/5, width/2+1) }
