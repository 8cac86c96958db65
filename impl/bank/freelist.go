package bank

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// FreeListOpt is the optimised free list. Its blocks live in one B+-tree
// keyed by address (btree.go), one entry per allocated block holding the
// size of the free gap that follows it: entry (k, v) spans [k, next) up to
// the next entry's address (or the end of the range), the block [k, next-v)
// then the gap [next-v, next). A head entry at the range's start, with an
// empty block, holds the gap before the first allocation. Inner nodes keep
// the largest gap below each child. Under best fit a second tree orders the
// gaps by (size, address). Allocate, AllocateAt and Free cost O(log n) in
// the number of blocks; Stats is O(1). It is not safe for concurrent use.
type FreeListOpt struct {
	cfg   spec.Config
	align uint64
	end   uint64 // cfg.End()
	sized bool   // keep bySize: only best fit reads it

	blocks index // allocated blocks (and the head): address → free gap after it
	bySize index // best fit: free gaps by (size, address)

	allocated, free uint64
	largest         uint64 // only read under BugStaleLargest
}

var _ spec.FreeList = (*FreeListOpt)(nil)

// NewFreeListOpt returns an optimised free list of one free block over the
// whole range of cfg.
func NewFreeListOpt(cfg spec.Config) (*FreeListOpt, error) {
	return newFreeListOpt(cfg, 0, false)
}

// FreeListOptions tunes the layout of a FreeListOpt's trees. The zero value
// is NewFreeListOpt's, the fastest. The others are for verification: they
// let a few dozen blocks build the trees of several levels (splits, lending
// between leaves, merges, annotations refreshed across levels) and 64-bit
// keys that only lists of hundreds of blocks and ranges of 2^32 units reach
// otherwise, so that properties over small ranges exercise those paths.
type FreeListOptions struct {
	// NodeWidth is the most entries a node holds, MinNodeWidth to
	// MaxNodeWidth; 0 is the default (31 with 32-bit keys, 15 with 64).
	NodeWidth int
	// WideKeys keeps keys and values in 64 bits even when the range fits 32.
	WideKeys bool
}

// The node widths FreeListOptions accepts.
const (
	MinNodeWidth = 4
	MaxNodeWidth = fan
)

// NewFreeListOptWith is NewFreeListOpt with the layout of opt. A NodeWidth
// out of range is ErrInvalidConfig, and so is one too narrow for the range:
// its tree could grow past the height the list's cursors hold (maxDepth),
// which at 4 entries a node takes 2^17 blocks, at 8 entries 2^33.
func NewFreeListOptWith(cfg spec.Config, opt FreeListOptions) (*FreeListOpt, error) {
	w := opt.NodeWidth
	if w != 0 && (w < MinNodeWidth || w > MaxNodeWidth) {
		return nil, fmt.Errorf("%w: node width %d outside [%d, %d]", spec.ErrInvalidConfig, w, MinNodeWidth, MaxNodeWidth)
	}
	if w != 0 && cfg.Alignment > 0 && cfg.Size > 0 {
		if units := uint64(cfg.Size) >> bits.TrailingZeros64(uint64(cfg.Alignment)); !fitsDepth(w, units) {
			return nil, fmt.Errorf("%w: nodes of %d entries cannot hold the blocks of %d units in %d levels", spec.ErrInvalidConfig, w, units, maxDepth)
		}
	}
	return newFreeListOpt(cfg, int32(w), opt.WideKeys)
}

// fitsDepth reports whether a tree of nodes of width entries stays within
// maxDepth levels whatever it holds of a range of units allocation units.
// It holds at most units+1 entries (a block takes a unit at least, and the
// head entry one more), and at most width entries in each of the 2^31
// nodes an int32 names; a tree of maxDepth+1 levels holds at least
// 2·(width/2)^maxDepth (a root of two children, every other node at least
// half full). So the default widths, 15 and 31, fit any range.
func fitsDepth(width int, units uint64) bool {
	most := min(units+1, math.MaxInt32*uint64(width))
	least := uint64(2) // entries of a tree of maxDepth+1 levels, at the fewest
	for range maxDepth {
		hi, lo := bits.Mul64(least, uint64(width/2))
		if hi != 0 {
			return true // beyond any tree
		}
		least = lo
	}
	return most < least
}

// newFreeListOpt is NewFreeListOpt with trees of nodes of width entries
// (4..fan; 0 is the default), at 64 bits if wide even when the range fits
// 32; tests use narrow nodes to build deep trees from few blocks, and both
// key widths.
func newFreeListOpt(cfg spec.Config, width int32, wide bool) (*FreeListOpt, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &FreeListOpt{cfg: cfg, align: uint64(cfg.Alignment), end: uint64(cfg.End()), sized: cfg.Policy == spec.BestFit}
	off, size := uint64(cfg.Offset), uint64(cfg.Size)
	f.blocks.init(size, f.align, off, 0, width, false, wide)
	if f.sized {
		f.bySize.init(size, f.align, 0, off, width, true, wide)
	}
	f.reset()
	return f, nil
}

// reset makes the list one free block over the whole range: the head entry
// and its gap.
func (f *FreeListOpt) reset() {
	f.blocks.reset()
	f.blocks.insert(uint64(f.cfg.Offset), uint64(f.cfg.Size))
	if f.sized {
		f.bySize.reset()
		f.bySize.insert(uint64(f.cfg.Size), uint64(f.cfg.Offset))
	}
	f.allocated, f.free = 0, uint64(f.cfg.Size)
	f.largest = uint64(f.cfg.Size)
}

// Config implements spec.FreeList.
func (f *FreeListOpt) Config() spec.Config { return f.cfg }

// span is the entry c points at: its address k, its gap's size v, and the
// end of the entry (the next entry's address, or the end of the range).
// The block is [k, end-v), the gap [end-v, end).
func (f *FreeListOpt) span(c *cursor) (k, v, end uint64) {
	k, v, end, ok := f.blocks.span(c)
	if !ok {
		end = f.end
	}
	return k, v, end
}

// size adds the gap [a, a+s) to bySize, if it is kept.
func (f *FreeListOpt) size(a, s uint64) {
	if f.sized && s > 0 {
		f.bySize.insert(s, a)
	}
}

// unsize takes the gap [a, a+s) out of bySize, if it is kept.
func (f *FreeListOpt) unsize(a, s uint64) {
	if f.sized && s > 0 {
		f.bySize.delete(s, a)
	}
}

// allocSize is align(max(size, MinAllocation)), overflow-checked.
func (f *FreeListOpt) allocSize(size int64) (uint64, error) {
	if size <= 0 {
		return 0, fmt.Errorf("%w: %d", spec.ErrInvalidSize, size)
	}
	if !bugs.On(BugMinIgnored) {
		size = max(size, f.cfg.MinAllocation)
	}
	n, ok := spec.AlignUp(uint64(size), f.align)
	if bugs.On(BugAlignByMask) {
		n = (uint64(size) + f.align - 1) &^ (f.align - 1)
	}
	if !ok || n > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %d overflows when aligned to %d", spec.ErrInvalidSize, size, f.align)
	}
	return n, nil
}

// carve allocates [a, a+n) out of the gap of the entry c points at, which
// contains it; c is spent. The entry keeps the part of the gap below a and
// a new entry, right after it and most often in the same leaf, takes the
// block and the rest of the gap: one walk up the path. Only an empty head
// block at a becomes the allocation itself.
func (f *FreeListOpt) carve(c *cursor, a, n uint64) {
	k, v, end := f.span(c)
	g := end - v
	f.unsize(g, v)
	f.size(g, a-g)
	f.size(a+n, end-(a+n))
	if a == k {
		f.blocks.set(c, a, end-(a+n))
	} else {
		f.blocks.split(c, k, a-g, a, end-(a+n))
	}
	f.allocated += n
	f.free -= n
}

// Free implements spec.FreeList. The block and the gap after it join the
// gap of the entry before, which absorbs the entry: coalescing on both sides
// at once, in one walk up the path.
func (f *FreeListOpt) Free(addr spec.Addr) error {
	a := uint64(addr)
	var c cursor
	ok := f.blocks.seekLE(&c, a, 0)
	var k, v, end uint64
	if ok {
		k, v, end = f.span(&c)
	}
	n := end - v - k // the block's size
	if !ok || k != a || n == 0 {
		if bugs.On(BugStaleIndex) && ok && v > 0 && a == end-v {
			// Takes the free gap at a for a live block: a second free of a
			// block counts its bytes twice.
			f.allocated -= v
			f.free += v
			return nil
		}
		if bugs.On(BugUnknownFreeAccepted) {
			return nil // FreeListOpt::deallocate ignores unknown addresses
		}
		return fmt.Errorf("%w: %#x", spec.ErrUnknownAddress, a)
	}
	f.allocated -= n
	f.free += n
	// The entry before: most often the previous slot of the same leaf.
	leaf := f.blocks.height() - 1
	sameLeaf := c.pos[leaf] > 0
	var prev cursor
	hasPrev := sameLeaf
	var pv uint64
	if sameLeaf {
		pv = f.blocks.prevValue(&c)
	} else {
		prev = c
		if hasPrev = f.blocks.prev(&prev); hasPrev {
			_, pv = f.blocks.at(&prev)
		}
	}
	merged := n + v
	f.unsize(end-v, v)
	switch {
	case !hasPrev || (bugs.On(BugOneSidedCoalesce) && pv > 0):
		// The head (or, under the bug, a block whose gap before it stays
		// apart) keeps its entry with an empty block.
		f.size(a, merged)
		f.blocks.set(&c, a, merged)
	default:
		f.unsize(a-pv, pv)
		merged += pv
		f.size(a-pv, merged)
		if sameLeaf {
			c.pos[leaf]-- // c now points at the entry before
			f.blocks.absorb(&c, 1, merged)
		} else {
			pa, _ := f.blocks.at(&prev)
			f.blocks.set(&prev, pa, merged)
			f.blocks.deleteAt(&c)
		}
	}
	if bugs.On(BugStaleLargest) {
		f.largest = max(f.largest, merged)
	}
	return nil
}

// Stats implements spec.FreeList.
func (f *FreeListOpt) Stats() spec.Stats {
	s := spec.Stats{TotalAllocatable: f.cfg.Size, Allocated: int64(f.allocated), Free: int64(f.free),
		LargestFree: int64(f.blocks.top())}
	if bugs.On(BugStaleLargest) {
		s.LargestFree = int64(f.largest) // a cache refreshed on free, never on allocation
	}
	return s
}

// Blocks implements spec.FreeList: each entry's block, then its gap.
func (f *FreeListOpt) Blocks() []spec.Block {
	var out []spec.Block
	var c cursor
	for ok := f.blocks.first(&c); ok; {
		k, v := f.blocks.at(&c)
		end := uint64(f.cfg.End())
		if ok = f.blocks.next(&c); ok {
			end, _ = f.blocks.at(&c)
		}
		if n := end - v - k; n > 0 {
			out = append(out, spec.Block{Addr: spec.Addr(k), Size: int64(n), Allocated: true})
		}
		if v > 0 {
			out = append(out, spec.Block{Addr: spec.Addr(end - v), Size: int64(v)})
		}
	}
	return out
}
