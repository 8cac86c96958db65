package sizeclass

import (
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// blockTable maps a block's address to its block for Sharded and LockFree:
// open addressing with linear probing over an array of slots, each an
// address (the key) and a pointer to its block. Reads take no lock and
// write nothing (Free's lookup is a hash, a load or two and a compare);
// writes happen under core.slow only, since blocks are created and dropped
// on the slow path alone.
//
// The probe compares the keys in the array, never the addresses in the
// blocks: a block's line is written by the P that holds it (its use word),
// so a lookup that passed over another P's block on its way, as one does
// whenever two blocks' homes collide, would take that line from the other
// core on every call. With the keys here, a lookup reads only lines that the
// slow path writes, and then the line of the block it finds.
//
// A slot is empty (key 0: never used, ends a probe), holds a block under its
// address, or is a tombstone (key tombKey, the block was dropped: the probe
// goes on). put takes empty slots only and stores the pointer before the
// key, so a reader that finds its key finds the block; remove clears the
// pointer, then turns the key into tombKey, so a reader that found the key
// just before gets the block or nil, both answers of an instant during its
// call (a block at a reused address gets a new slot, and only after the
// remove). Growing, or clearing out tombstones, builds a new array and
// publishes it with one store; a reader still probing the old array sees
// the table as it was just before, which is a state the table really had,
// so reads stay linearizable.
type blockTable struct {
	arr sched.Pointer[tableArray]
	// live and dead change on the slow path: padded off the line of arr,
	// which every Free reads.
	_    [128]byte
	live sched.Int64 // blocks in the table
	dead int         // tombstones in arr, under slow
}

type tableArray struct {
	// Every Free on every P reads shift and slots: the padding keeps
	// them off the lines of the objects allocated next to the array
	// (layout.go), such as a benchmark's per-goroutine counters.
	_     [isolation]byte
	shift uint   // 64 - log2(len(slots))
	mask  uint64 // len(slots) - 1
	slots []tableSlot
	_     [isolation]byte
}

// tableSlot is one entry: key is the block's address, 0 while the slot is
// empty (blocks never have address 0) and tombKey once its block was
// dropped.
type tableSlot struct {
	key sched.Uint64
	b   sched.Pointer[block]
}

// tombKey is the key of a dropped block's slot: no block has this address,
// since a block of at least one byte there would end past the address
// space. A lookup of it finds a tombstone, whose pointer is nil.
const tombKey = ^uint64(0)

const tableMinSlots = 64

// home spreads addresses (multiples of the alignment, so their low bits
// are zero) over the table: Fibonacci hashing keeps the high bits of the
// product, which depend on every bit of p.
func (a *tableArray) home(p spec.Addr) uint64 {
	return (uint64(p) * 0x9E3779B97F4A7C15) >> a.shift
}

// get returns the block at p (not 0, the key of empty slots), nil if there
// is none. It stays within the inlining budget, and compares with p first:
// Free calls it on every call, and its block is most often at its home.
func (t *blockTable) get(p spec.Addr) *block {
	a := t.arr.Load()
	if a == nil {
		return nil
	}
	for i := a.home(p); ; i++ {
		s := &a.slots[i&a.mask]
		k := spec.Addr(s.key.Load())
		if k == p {
			return s.b.Load()
		}
		if k == 0 {
			return nil
		}
	}
}

// put adds b, whose address is not in the table. Called with slow held.
func (t *blockTable) put(b *block) {
	a := t.arr.Load()
	if a == nil || (int(t.live.Load())+t.dead+1)*4 > len(a.slots)*3 {
		a = t.rebuild(a, int(t.live.Load())+1)
	}
	for i := a.home(b.addr); ; i = (i + 1) & a.mask {
		// Only empty slots are taken (see the type); the next rebuild
		// clears the tombstones out.
		if s := &a.slots[i]; s.key.Load() == 0 {
			s.b.Store(b)
			s.key.Store(uint64(b.addr))
			t.live.Add(1)
			return
		}
	}
}

// remove drops the block at p, if any. Called with slow held.
func (t *blockTable) remove(p spec.Addr) {
	a := t.arr.Load()
	if a == nil {
		return
	}
	for i := a.home(p); ; i = (i + 1) & a.mask {
		s := &a.slots[i]
		if k := spec.Addr(s.key.Load()); k == p {
			s.b.Store(nil)
			s.key.Store(tombKey)
			t.live.Add(-1)
			t.dead++
			return
		} else if k == 0 {
			return
		}
	}
}

// rebuild publishes a fresh array with room for at least want blocks at a
// load of one half, holding the blocks of old. Called with slow held.
func (t *blockTable) rebuild(old *tableArray, want int) *tableArray {
	n := tableMinSlots
	for n < want*2 {
		n *= 2
	}
	shift := uint(64)
	for m := n; m > 1; m >>= 1 {
		shift--
	}
	a := &tableArray{shift: shift, mask: uint64(n - 1), slots: isolated[tableSlot](n)}
	if old != nil {
		for i := range old.slots {
			b := old.slots[i].b.Load()
			if b == nil {
				continue
			}
			j := a.home(b.addr)
			for a.slots[j].key.Load() != 0 {
				j = (j + 1) & a.mask
			}
			a.slots[j].b.Store(b)
			a.slots[j].key.Store(uint64(b.addr))
		}
	}
	t.dead = 0
	t.arr.Store(a)
	return a
}

// all calls f for every block in the table.
func (t *blockTable) all(f func(*block)) {
	a := t.arr.Load()
	if a == nil {
		return
	}
	for i := range a.slots {
		if b := a.slots[i].b.Load(); b != nil {
			f(b)
		}
	}
}

// size is the number of blocks in the table.
func (t *blockTable) size() int { return int(t.live.Load()) }

// find returns the first block in the table for which f is true, nil if
// there is none.
func (t *blockTable) find(f func(*block) bool) *block {
	a := t.arr.Load()
	if a == nil {
		return nil
	}
	for i := range a.slots {
		if b := a.slots[i].b.Load(); b != nil && f(b) {
			return b
		}
	}
	return nil
}
