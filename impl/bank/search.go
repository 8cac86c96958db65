package bank

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// Allocate implements spec.FreeList.
func (f *FreeListOpt) Allocate(size int64, dir spec.Direction, limit spec.Addr) (spec.Addr, error) {
	if !knownDirection(dir) {
		return 0, spec.CheckDirection(dir)
	}
	n, err := f.allocSize(size)
	if err != nil {
		return 0, err
	}
	lo, ok := f.lowest(limit)
	if bugs.On(BugLimitAfterAlloc) {
		lo, ok = uint64(f.cfg.Offset), true // the limit is checked after allocating, below
	}
	var c cursor
	var a uint64
	found := false
	if ok && lo < uint64(f.cfg.End()) {
		if f.cfg.Policy == spec.BestFit {
			a, found = f.bestFit(&c, n, dir, lo)
		} else {
			a, found = f.firstFit(&c, n, dir, lo, uint64(f.cfg.End()))
		}
	}
	if !found {
		return 0, fmt.Errorf("%w: %d bytes %v above %#x", spec.ErrOutOfMemory, n, dir, uint64(limit))
	}
	if bugs.Enabled && f.blocks.deep() && bugs.On(PerfDeepRedescend) {
		f.redescend(n, dir, lo)
	}
	f.carve(&c, a, n)
	if bugs.On(BugLimitAfterAlloc) && a < uint64(limit) {
		// FreeListOpt throws here and nobody records the block: it leaks.
		return 0, fmt.Errorf("%w: cannot allocate below %#x (got %#x)", spec.ErrOutOfMemory, uint64(limit), a)
	}
	return spec.Addr(a), nil
}

// knownDirection reports whether dir is BottomUp or TopDown: the searches
// below test for one of the two and would take any other value for the
// other, and not the same one in each. (The call that refuses one, with
// spec.CheckDirection's error, stays out of the fast path.)
func knownDirection(dir spec.Direction) bool {
	return dir == spec.BottomUp || dir == spec.TopDown || bugs.On(BugDirectionUnchecked)
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
	if !knownDirection(dir) {
		return 0, spec.CheckDirection(dir)
	}
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
			var c cursor
			if a, ok := f.firstFit(&c, n, dir, ws, w.End); ok {
				f.carve(&c, a, n)
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
// bytes in the free gaps' intersection with [lo, hi); lo is aligned. It
// points c at the entry whose gap holds the place and returns the address,
// or false.
//
// Entries at or above lo have their gaps wholly at or above lo, and those
// ending at or below hi have them wholly below hi, so one annotated descent
// finds the first gap big enough; only the entry that straddles lo and the
// one that holds hi-1 need a look of their own, and neither exists when lo
// is the range's start and hi its end (plain Allocate without a limit: one
// descent).
func (f *FreeListOpt) firstFit(c *cursor, n uint64, dir spec.Direction, lo, hi uint64) (uint64, bool) {
	var s cursor // the entry holding lo, when it starts below lo
	var sg, send uint64
	straddle := false
	if lo > uint64(f.cfg.Offset) && f.blocks.seekLE(&s, lo, 0) {
		k, v, end := f.span(&s)
		sg, send, straddle = max(end-v, lo), end, k < lo
	}
	if dir == spec.BottomUp {
		if straddle && fits(sg, min(send, hi), n) {
			*c = s
			return sg, true
		}
		if f.blocks.firstFit(c, lo, n) {
			_, v, end := f.span(c)
			if g := end - v; fits(g, hi, n) {
				return g, true
			}
		}
		return 0, false
	}
	// Top-down: the gap of the entry holding hi-1, cut to the window, is
	// highest; then the rightmost big-enough gap wholly inside; then the
	// straddling entry's.
	below := hi
	if hi < uint64(f.cfg.End()) && f.blocks.seekLE(c, hi-1, 0) {
		k, v, end := f.span(c)
		start, top := max(end-v, lo), min(end, hi)
		if fits(start, top, n) {
			return f.topPlace(top, n, start), true
		}
		if straddle && k < lo {
			return 0, false // one entry spans the whole window
		}
		below = k
	}
	if below == uint64(f.cfg.End()) {
		below = math.MaxUint64 // every entry starts below the end
	}
	if f.blocks.lastFit(c, lo, below, n) {
		_, v, end := f.span(c)
		return f.topPlace(end, n, end-v), true
	}
	if straddle && fits(sg, min(send, hi), n) {
		*c = s
		return f.topPlace(min(send, hi), n, sg), true
	}
	return 0, false
}

// fits reports whether [start, top) holds n bytes.
func fits(start, top, n uint64) bool { return top > start && top-start >= n }

// topPlace is the highest aligned place for n bytes ending at or below top,
// not below start (the caller checked top-start ≥ n).
func (f *FreeListOpt) topPlace(top, n, start uint64) uint64 {
	a := spec.AlignDown(top-n, f.align)
	if bugs.On(BugTopDownOffByAlign) && a >= start+f.align {
		a -= f.align // offset computed as block_size - alloc_size - alignment
	}
	return a
}

// holding points c at the entry whose gap contains address x, if there is
// one, and returns the gap.
func (f *FreeListOpt) holding(c *cursor, x uint64) (g, end uint64, ok bool) {
	if !f.blocks.seekLE(c, x, 0) {
		return 0, 0, false
	}
	_, v, end := f.span(c)
	return end - v, end, x >= end-v
}

// bestFit finds the smallest free gap holding a place for n bytes at or
// above lo (ties by address, per direction), points c at its entry and
// returns the place in it.
func (f *FreeListOpt) bestFit(c *cursor, n uint64, dir spec.Direction, lo uint64) (uint64, bool) {
	var bg, bs uint64 // the best gap so far
	found := false
	if bugs.On(BugBestFitClass) {
		bg, bs, found = f.classFit(n, dir, lo)
	} else if f.bySize.smallest(c, n, lo) {
		bs, bg = f.bySize.at(c)
		found = true
		if dir == spec.TopDown { // the highest gap of that size
			f.bySize.seekLE(c, bs, math.MaxUint64)
			_, bg = f.bySize.at(c)
		}
	}
	// The gap straddling lo is not in the size search (its address is below
	// lo) but may be usable from lo.
	if g, end, ok := f.holding(c, lo); ok && g < lo && end-lo >= n {
		if ss := end - g; !found || ss < bs || (ss == bs && dir == spec.BottomUp) {
			bg, bs, found = g, ss, true
		}
	}
	if !found {
		return 0, false
	}
	f.blocks.seekLE(c, bg, 0) // the gap's entry: no other entry starts inside it
	start := max(bg, lo)
	if dir == spec.TopDown {
		return f.topPlace(bg+bs, n, start), true
	}
	return start, true
}

// classFit is FreeListOpt's "BEST" (for BugBestFitClass): in the first
// power-of-two class of size / alignment, from the request's up, holding a
// gap of at least n bytes at or above lo, the first such gap by address
// (the last top-down). A linear walk: it only runs in the seeded bug.
func (f *FreeListOpt) classFit(n uint64, dir spec.Direction, lo uint64) (bg, bs uint64, found bool) {
	class := func(size uint64) int { return bits.Len64(size/f.align) - 1 }
	best := math.MaxInt
	for _, b := range f.Blocks() {
		g, size := uint64(b.Addr), uint64(b.Size)
		if b.Allocated || size < n || g < lo {
			continue
		}
		if k := class(size); k < best || (k == best && dir == spec.TopDown) {
			best, bg, bs, found = k, g, size, true
		}
	}
	return bg, bs, found
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
	var c cursor
	if _, end, ok := f.holding(&c, a); !ok || end-a < n {
		return fmt.Errorf("%w: [%#x, +%d)", spec.ErrNotFree, a, n)
	}
	f.carve(&c, a, n)
	return nil
}
