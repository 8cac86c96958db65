package bank

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
)

// FreeListOpt is the optimised free list: blocks in a node array linked in
// address order, free blocks indexed by an address tree and, under best fit,
// by size-class trees (see tree.go), allocated blocks by a hash map from
// start address. Allocate, AllocateAt and Free cost O(log n) expected in the
// number of blocks; Stats is O(1). Node indexes are int32, so one list holds
// at most 2^31 blocks. It is not safe for concurrent use.
type FreeListOpt struct {
	cfg   spec.Config
	align uint64
	sized bool // keep the size-class trees: only best fit reads them

	nodes []node
	spare []int32 // recycled node slots
	head  int32   // the block at the lowest address

	live      map[uint64]int32 // allocated block start → node
	addrRoot  int32
	classRoot [64]int32
	classMask uint64 // bit c set: size class c has a free block

	allocated, free uint64
	largest         uint64 // only read under BugStaleLargest
	rng             uint64
}

var _ spec.FreeList = (*FreeListOpt)(nil)

// NewFreeListOpt returns an optimised free list of one free block over the
// whole range of cfg.
func NewFreeListOpt(cfg spec.Config) (*FreeListOpt, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	f := &FreeListOpt{cfg: cfg, align: uint64(cfg.Alignment), sized: cfg.Policy == spec.BestFit, rng: 0x9e3779b97f4a7c15}
	f.reset()
	return f, nil
}

// reset makes the list one free block over the whole range.
func (f *FreeListOpt) reset() {
	f.nodes = f.nodes[:0]
	f.spare = f.spare[:0]
	f.live = make(map[uint64]int32)
	f.addrRoot = nilNode
	for c := range f.classRoot {
		f.classRoot[c] = nilNode
	}
	f.classMask = 0
	f.allocated, f.free = 0, uint64(f.cfg.Size)
	f.largest = uint64(f.cfg.Size)
	f.head = f.newNode(uint64(f.cfg.Offset), uint64(f.cfg.Size), nilNode, nilNode)
	f.index(f.head)
}

// Config implements spec.FreeList.
func (f *FreeListOpt) Config() spec.Config { return f.cfg }

func (f *FreeListOpt) newNode(addr, size uint64, prev, next int32) int32 {
	f.rng ^= f.rng << 13
	f.rng ^= f.rng >> 7
	f.rng ^= f.rng << 17
	n := node{addr: addr, size: size, prev: prev, next: next, prio: uint32(f.rng >> 32),
		al: nilNode, ar: nilNode, sl: nilNode, sr: nilNode}
	if k := len(f.spare); k > 0 {
		i := f.spare[k-1]
		f.spare = f.spare[:k-1]
		f.nodes[i] = n
		return i
	}
	f.nodes = append(f.nodes, n)
	return int32(len(f.nodes) - 1)
}

func (f *FreeListOpt) release(i int32) { f.spare = append(f.spare, i) }

// class is the size class of a free block of size bytes (size ≥ alignment).
func (f *FreeListOpt) class(size uint64) int { return bits.Len64(size/f.align) - 1 }

// index adds free node i to the indexes.
func (f *FreeListOpt) index(i int32) {
	f.addrRoot = f.insertAddr(f.addrRoot, i)
	if f.sized {
		f.indexSize(i)
	}
}

// unindex removes free node i from the indexes.
func (f *FreeListOpt) unindex(i int32) {
	f.addrRoot = f.deleteAddr(f.addrRoot, i)
	if f.sized {
		f.unindexSize(i)
	}
}

// indexSize adds free node i to its size class.
func (f *FreeListOpt) indexSize(i int32) {
	c := f.class(f.nodes[i].size)
	f.classRoot[c] = f.insertSize(f.classRoot[c], i)
	f.classMask |= 1 << c
}

// unindexSize removes free node i, at its current size, from its size class.
func (f *FreeListOpt) unindexSize(i int32) {
	c := f.class(f.nodes[i].size)
	f.classRoot[c] = f.deleteSize(f.classRoot[c], i)
	if f.classRoot[c] == nilNode {
		f.classMask &^= 1 << c
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
	if !ok || n > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %d overflows when aligned to %d", spec.ErrInvalidSize, size, f.align)
	}
	return n, nil
}

// carve allocates [a, a+n) out of free node i, which contains it. The free
// part left below a keeps node i, and so does the part above when nothing is
// left below: its address-tree position cannot change (no other free block
// lies between), so only the annotations on its path are refreshed. Only a
// block split in three inserts a node into the address tree.
func (f *FreeListOpt) carve(i int32, a, n uint64) {
	b := f.nodes[i]
	end := b.addr + b.size
	if f.sized {
		f.unindexSize(i)
	}
	var x int32 // the allocated block
	switch {
	case a > b.addr: // i keeps the part below; the rest may leave a part above
		f.nodes[i].size = a - b.addr
		f.fixAddr(f.addrRoot, i)
		x = f.newNode(a, n, i, b.next)
		f.linkAfter(i, x)
		if f.sized {
			f.indexSize(i)
		}
		if a+n < end {
			r := f.newNode(a+n, end-(a+n), x, f.nodes[x].next)
			f.linkAfter(x, r)
			f.index(r)
		}
	case a+n < end: // i keeps the part above
		f.nodes[i].addr, f.nodes[i].size = a+n, end-(a+n)
		f.fixAddr(f.addrRoot, i)
		x = f.newNode(a, n, b.prev, i)
		f.linkBefore(i, x)
		if f.sized {
			f.indexSize(i)
		}
	default: // an exact fit: i itself is allocated
		f.addrRoot = f.deleteAddr(f.addrRoot, i)
		x = i
	}
	f.nodes[x].allocated = true
	f.live[a] = x
	f.allocated += n
	f.free -= n
}

// linkAfter puts new node x after node i in address order.
func (f *FreeListOpt) linkAfter(i, x int32) {
	q := f.nodes[i].next
	f.nodes[x].prev, f.nodes[x].next = i, q
	f.nodes[i].next = x
	if q != nilNode {
		f.nodes[q].prev = x
	}
}

// linkBefore puts new node x before node i in address order.
func (f *FreeListOpt) linkBefore(i, x int32) {
	p := f.nodes[i].prev
	f.nodes[x].prev, f.nodes[x].next = p, i
	f.nodes[i].prev = x
	if p != nilNode {
		f.nodes[p].next = x
	} else {
		f.head = x
	}
}

// Free implements spec.FreeList.
func (f *FreeListOpt) Free(addr spec.Addr) error {
	i, ok := f.live[uint64(addr)]
	if !ok || (!bugs.On(BugStaleIndex) && !f.nodes[i].allocated) {
		if bugs.On(BugUnknownFreeAccepted) {
			return nil // FreeListOpt::deallocate ignores unknown addresses
		}
		return fmt.Errorf("%w: %#x", spec.ErrUnknownAddress, uint64(addr))
	}
	if !bugs.On(BugStaleIndex) {
		delete(f.live, uint64(addr))
	}
	n := f.nodes[i].size
	f.nodes[i].allocated = false
	f.allocated -= n
	f.free += n
	// Merge into a free predecessor (which stays in the address tree at the
	// same key), then absorb a free successor (which leaves it).
	inTree := false
	if p := f.nodes[i].prev; p != nilNode && !f.nodes[p].allocated && !bugs.On(BugOneSidedCoalesce) {
		if f.sized {
			f.unindexSize(p)
		}
		f.nodes[p].size += f.nodes[i].size
		f.unlink(i)
		i, inTree = p, true
	}
	if q := f.nodes[i].next; q != nilNode && !f.nodes[q].allocated {
		f.unindex(q)
		f.nodes[i].size += f.nodes[q].size
		f.unlink(q)
	}
	if inTree {
		f.fixAddr(f.addrRoot, i)
	} else {
		f.addrRoot = f.insertAddr(f.addrRoot, i)
	}
	if f.sized {
		f.indexSize(i)
	}
	if bugs.On(BugStaleLargest) {
		f.largest = max(f.largest, f.nodes[i].size)
	}
	return nil
}

// unlink drops node i, whose bytes a neighbour has absorbed, from the list.
func (f *FreeListOpt) unlink(i int32) {
	p, q := f.nodes[i].prev, f.nodes[i].next
	if p != nilNode {
		f.nodes[p].next = q
	} else {
		f.head = q
	}
	if q != nilNode {
		f.nodes[q].prev = p
	}
	f.release(i)
}

// Stats implements spec.FreeList.
func (f *FreeListOpt) Stats() spec.Stats {
	s := spec.Stats{TotalAllocatable: f.cfg.Size, Allocated: int64(f.allocated), Free: int64(f.free)}
	if f.addrRoot != nilNode {
		s.LargestFree = int64(f.nodes[f.addrRoot].maxSize)
	}
	if bugs.On(BugStaleLargest) {
		s.LargestFree = int64(f.largest) // a cache refreshed on free, never on allocation
	}
	return s
}

// Blocks implements spec.FreeList.
func (f *FreeListOpt) Blocks() []spec.Block {
	var out []spec.Block
	for i := f.head; i != nilNode; i = f.nodes[i].next {
		n := &f.nodes[i]
		out = append(out, spec.Block{Addr: spec.Addr(n.addr), Size: int64(n.size), Allocated: n.allocated})
	}
	return out
}
