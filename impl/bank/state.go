package bank

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// State implements spec.FreeList.
func (f *FreeListOpt) State() spec.State {
	s := spec.State{Offset: f.cfg.Offset, Size: f.cfg.Size, Alignment: f.cfg.Alignment, MinAllocation: f.cfg.MinAllocation}
	for i := f.head; i != nilNode; i = f.nodes[i].next {
		if n := &f.nodes[i]; n.allocated {
			s.Allocations = append(s.Allocations, spec.Region{Addr: spec.Addr(n.addr), Size: int64(n.size)})
		}
	}
	return s
}

// Restore implements spec.FreeList. The state is checked whole before the
// list is touched; then the list is rebuilt in one pass over the sorted
// regions, O(n log n).
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
	f.reset()
	for _, r := range rs {
		f.carve(f.holding(uint64(r.Addr)), uint64(r.Addr), uint64(r.Size))
	}
	return nil
}
