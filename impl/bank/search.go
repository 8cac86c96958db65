package bank

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// Allocate implements spec.FreeList.
func (f *FreeListOpt) Allocate(size int64, dir spec.Direction, limit spec.Addr) (spec.Addr, error) {
	n, err := f.allocSize(size)
	if err != nil {
		return 0, err
	}
	lo, ok := f.lowest(limit)
	if bugs.On(BugLimitAfterAlloc) {
		lo, ok = uint64(f.cfg.Offset), true // the limit is checked after allocating, below
	}
	var i int32 = nilNode
	var a uint64
	if ok && lo < uint64(f.cfg.End()) {
		if f.cfg.Policy == spec.BestFit {
			i, a = f.bestFit(n, dir, lo)
		} else {
			i, a = f.firstFit(n, dir, lo, uint64(f.cfg.End()))
		}
	}
	if i == nilNode {
		return 0, fmt.Errorf("%w: %d bytes %v above %#x", spec.ErrOutOfMemory, n, dir, uint64(limit))
	}
	f.carve(i, a, n)
	if bugs.On(BugLimitAfterAlloc) && a < uint64(limit) {
		// FreeListOpt throws here and nobody records the block: it leaks.
		return 0, fmt.Errorf("%w: cannot allocate below %#x (got %#x)", spec.ErrOutOfMemory, uint64(limit), a)
	}
	return spec.Addr(a), nil
}

// lowest is the first aligned address at or above both the limit and the
// range's start; ok is false when aligning the limit overflows.
func (f *FreeListOpt) lowest(limit spec.Addr) (uint64, bool) {
	lo, ok := spec.AlignUp(uint64(limit), f.align)
	return max(lo, uint64(f.cfg.Offset)), ok
}

// AllocateAvoiding implements spec.FreeList: the allowed windows between the
// merged avoided ranges are tried in address order (reversed top-down), each
// with one first-fit search.
func (f *FreeListOpt) AllocateAvoiding(size int64, dir spec.Direction, avoid []spec.Range, limit spec.Addr) (spec.Addr, error) {
	n, err := f.allocSize(size)
	if err != nil {
		return 0, err
	}
	for _, r := range avoid {
		if r.Start > r.End {
			return 0, fmt.Errorf("%w: avoided range %v ends before it starts", spec.ErrInvalidAddress, r)
		}
	}
	lo, ok := f.lowest(limit)
	if ok {
		wins := windows(lo, uint64(f.cfg.End()), avoid)
		for k := range wins {
			w := wins[k]
			if dir == spec.TopDown {
				w = wins[len(wins)-1-k]
			}
			ws, ok := spec.AlignUp(w.Start, f.align)
			if !ok || ws >= w.End {
				continue
			}
			if i, a := f.firstFit(n, dir, ws, w.End); i != nilNode {
				f.carve(i, a, n)
				return spec.Addr(a), nil
			}
		}
	}
	return 0, fmt.Errorf("%w: %d bytes %v above %#x avoiding %v", spec.ErrOutOfMemory, n, dir, uint64(limit), avoid)
}

type window struct{ Start, End uint64 }

// windows is [lo, end) minus the avoided ranges, in address order.
func windows(lo, end uint64, avoid []spec.Range) []window {
	rs := slices.Clone(avoid)
	if !bugs.On(BugAvoidUnsorted) {
		slices.SortFunc(rs, func(x, y spec.Range) int {
			switch {
			case x.Start < y.Start:
				return -1
			case x.Start > y.Start:
				return 1
			}
			return 0
		})
	}
	var out []window
	cur := lo
	for _, r := range rs {
		if r.Start == r.End {
			continue
		}
		s, e := uint64(r.Start), uint64(r.End)
		if s > cur {
			out = append(out, window{cur, min(s, end)})
		}
		if bugs.On(BugAvoidUnsorted) {
			cur = max(e, lo) // trusts the ranges to come sorted and disjoint
		} else {
			cur = max(cur, e)
		}
		if cur >= end {
			return out
		}
	}
	if cur < end {
		out = append(out, window{cur, end})
	}
	return out
}

// firstFit finds the lowest (bottom-up) or highest (top-down) place for n
// bytes in the free blocks' intersection with [lo, hi); lo is aligned. It
// returns the free block and the address, or nilNode.
//
// Blocks starting at or above lo and ending at or below hi are usable whole,
// so one annotated descent finds the first big enough; only the block that
// straddles lo and the one that straddles hi need a look of their own, and
// neither exists when lo is the range's start and hi its end (plain Allocate
// without a limit: one descent).
func (f *FreeListOpt) firstFit(n uint64, dir spec.Direction, lo, hi uint64) (int32, uint64) {
	s := nilNode // the free block holding lo that starts below it
	if lo > uint64(f.cfg.Offset) {
		if s = f.holding(lo); s != nilNode && f.nodes[s].addr == lo {
			s = nilNode
		}
	}
	if dir == spec.BottomUp {
		if s != nilNode && min(f.end(s), hi)-lo >= n {
			return s, lo
		}
		if i := f.leftmost(f.addrRoot, lo, n); i != nilNode && f.nodes[i].addr < hi && hi-f.nodes[i].addr >= n {
			return i, f.nodes[i].addr
		}
		return nilNode, 0
	}
	// Top-down: the block holding hi-1, cut to the window, is highest; then
	// the rightmost big-enough block wholly inside; then the one holding lo.
	below := hi
	if hi < uint64(f.cfg.End()) {
		if e := f.holding(hi - 1); e != nilNode {
			start := max(f.nodes[e].addr, lo)
			if top := min(f.end(e), hi); top-start >= n {
				return e, f.topPlace(top, n, start)
			}
			if e == s {
				return nilNode, 0 // one block spans the whole window
			}
			below = f.nodes[e].addr
		}
	}
	if i := f.rightmost(f.addrRoot, lo, below, n); i != nilNode {
		return i, f.topPlace(f.end(i), n, f.nodes[i].addr)
	}
	if s != nilNode {
		if top := min(f.end(s), hi); top-lo >= n {
			return s, f.topPlace(top, n, lo)
		}
	}
	return nilNode, 0
}

// topPlace is the highest aligned place for n bytes ending at or below top,
// not below start (the caller checked top-start ≥ n).
func (f *FreeListOpt) topPlace(top, n, start uint64) uint64 {
	a := spec.AlignDown(top-n, f.align)
	if bugs.On(BugTopDownOffByAlign) && a >= start+f.align {
		a -= f.align // offset computed as block_size - alloc_size - alignment
	}
	return a
}

func (f *FreeListOpt) end(i int32) uint64 { return f.nodes[i].addr + f.nodes[i].size }

// holding is the free block containing address x, or nilNode.
func (f *FreeListOpt) holding(x uint64) int32 {
	t, best := f.addrRoot, nilNode
	for t != nilNode {
		if f.nodes[t].addr <= x {
			best, t = t, f.nodes[t].ar
		} else {
			t = f.nodes[t].al
		}
	}
	if best != nilNode && x < f.end(best) {
		return best
	}
	return nilNode
}

// leftmost is the free block of lowest address ≥ lo whose size is ≥ n.
func (f *FreeListOpt) leftmost(t int32, lo, n uint64) int32 {
	for t != nilNode && f.nodes[t].maxSize >= n {
		nd := &f.nodes[t]
		if nd.addr < lo {
			t = nd.ar
			continue
		}
		if r := f.leftmost(nd.al, lo, n); r != nilNode {
			return r
		}
		if nd.size >= n {
			return t
		}
		t = nd.ar
	}
	return nilNode
}

// rightmost is the free block of highest address in [lo, hi) whose size is ≥ n.
func (f *FreeListOpt) rightmost(t int32, lo, hi, n uint64) int32 {
	for t != nilNode && f.nodes[t].maxSize >= n {
		nd := &f.nodes[t]
		if nd.addr >= hi {
			t = nd.al
			continue
		}
		if r := f.rightmost(nd.ar, lo, hi, n); r != nilNode {
			return r
		}
		if nd.addr < lo {
			return nilNode
		}
		if nd.size >= n {
			return t
		}
		t = nd.al
	}
	return nilNode
}

// bestFit finds the smallest free block holding a place for n bytes at or
// above lo (ties by address, per direction) and the place in it.
func (f *FreeListOpt) bestFit(n uint64, dir spec.Direction, lo uint64) (int32, uint64) {
	best := nilNode
	for mask := f.classMask &^ (1<<f.class(n) - 1); mask != 0; mask &= mask - 1 {
		c := bits.TrailingZeros64(mask)
		if bugs.On(BugBestFitClass) {
			// FreeListOpt's BEST: the first class with any fit, and in it the
			// first fit by address, not the smallest block.
			if i, _ := f.firstFitIn(c, n, dir, lo); i != nilNode {
				best = i
				break
			}
			continue
		}
		if i := f.smallestIn(f.classRoot[c], n, lo); i != nilNode {
			best = i
			if dir == spec.TopDown {
				best = f.lastOfSize(f.classRoot[c], f.nodes[i].size)
			}
			break
		}
	}
	// The block straddling lo is not in any class search (its address is
	// below lo) but may be usable from lo.
	if s := f.holding(lo); s != nilNode && f.nodes[s].addr < lo && f.end(s)-lo >= n {
		if best == nilNode || f.nodes[s].size < f.nodes[best].size ||
			(f.nodes[s].size == f.nodes[best].size && dir == spec.BottomUp) {
			best = s
		}
	}
	if best == nilNode {
		return nilNode, 0
	}
	start := max(f.nodes[best].addr, lo)
	if dir == spec.TopDown {
		return best, f.topPlace(f.end(best), n, start)
	}
	return best, start
}

// smallestIn is the first node in (size, address) order with size ≥ n and
// address ≥ lo in size tree t.
func (f *FreeListOpt) smallestIn(t int32, n, lo uint64) int32 {
	for t != nilNode && f.nodes[t].maxAddr >= lo {
		nd := &f.nodes[t]
		if nd.size < n {
			t = nd.sr
			continue
		}
		if r := f.smallestIn(nd.sl, n, lo); r != nilNode {
			return r
		}
		if nd.addr >= lo {
			return t
		}
		t = nd.sr
	}
	return nilNode
}

// lastOfSize is the node of highest address among those of exactly size in
// size tree t (one exists).
func (f *FreeListOpt) lastOfSize(t int32, size uint64) int32 {
	best := nilNode
	for t != nilNode {
		nd := &f.nodes[t]
		if nd.size <= size {
			if nd.size == size {
				best = t
			}
			t = nd.sr
		} else {
			t = nd.sl
		}
	}
	return best
}

// firstFitIn is first fit restricted to size class c (for BugBestFitClass).
func (f *FreeListOpt) firstFitIn(c int, n uint64, dir spec.Direction, lo uint64) (int32, uint64) {
	var best int32 = nilNode
	var walk func(t int32)
	walk = func(t int32) {
		if t == nilNode {
			return
		}
		walk(f.nodes[t].sl)
		nd := &f.nodes[t]
		if nd.size >= n && nd.addr >= lo &&
			(best == nilNode || (dir == spec.BottomUp) == (nd.addr < f.nodes[best].addr)) {
			best = t
		}
		walk(f.nodes[t].sr)
	}
	walk(f.classRoot[c])
	return best, 0
}

// AllocateAt implements spec.FreeList.
func (f *FreeListOpt) AllocateAt(addr spec.Addr, size int64) error {
	n, err := f.allocSize(size)
	if err != nil {
		return err
	}
	a := uint64(addr)
	if (a%f.align != 0 && !bugs.On(BugAllocateAtUnaligned)) || addr < f.cfg.Offset || addr >= f.cfg.End() || n > uint64(f.cfg.End())-a {
		return fmt.Errorf("%w: [%#x, +%d) is unaligned or outside the range", spec.ErrInvalidAddress, a, n)
	}
	i := f.holding(a)
	if i == nilNode || f.end(i)-a < n {
		return fmt.Errorf("%w: [%#x, +%d)", spec.ErrNotFree, a, n)
	}
	f.carve(i, a, n)
	return nil
}
