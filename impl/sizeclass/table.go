package sizeclass

import (
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// blockTable maps a block's address to its block for Sharded and LockFree:
// open addressing with linear probing over an array of atomic pointers.
// Reads take no lock and write nothing (Free's lookup is a hash, a load or
// two and a compare); writes happen under core.slow only, since blocks are
// created and dropped on the slow path alone. A slot holds nil (never used,
// ends a probe), tombstone (a dropped block: the probe goes on) or a block,
// whose addr is immutable once published. Growing (or clearing out
// tombstones) builds a new array and publishes it with one store; a reader
// still probing the old array sees the table as it was just before, which
// is a state the table really had, so reads stay linearizable.
type blockTable struct {
	arr sched.Pointer[tableArray]
	// live and dead change on the slow path: padded off the line of arr,
	// which every Free reads.
	_    [128]byte
	live sched.Int64 // blocks in the table
	dead int         // tombstones in arr, under slow
}

type tableArray struct {
	shift uint // 64 - log2(len(slots))
	slots []sched.Pointer[block]
}

// tombstone marks a slot whose block was dropped; it matches no address
// (blocks never have address 0).
var tombstone = &block{}

const tableMinSlots = 64

// home spreads addresses (multiples of the alignment, so their low bits
// are zero) over the table: Fibonacci hashing keeps the high bits of the
// product, which depend on every bit of p.
func (a *tableArray) home(p spec.Addr) uint64 {
	return (uint64(p) * 0x9E3779B97F4A7C15) >> a.shift
}

// get returns the block at p, nil if there is none.
func (t *blockTable) get(p spec.Addr) *block {
	a := t.arr.Load()
	if a == nil {
		return nil
	}
	mask := uint64(len(a.slots) - 1)
	for i := a.home(p); ; i = (i + 1) & mask {
		b := a.slots[i].Load()
		if b == nil {
			return nil
		}
		if b.addr == p {
			return b
		}
	}
}

// put adds b, whose address is not in the table. Called with slow held.
func (t *blockTable) put(b *block) {
	a := t.arr.Load()
	if a == nil || (int(t.live.Load())+t.dead+1)*4 > len(a.slots)*3 {
		a = t.rebuild(a, int(t.live.Load())+1)
	}
	mask := uint64(len(a.slots) - 1)
	for i := a.home(b.addr); ; i = (i + 1) & mask {
		old := a.slots[i].Load()
		if old == nil || old == tombstone {
			if old == tombstone {
				t.dead--
			}
			a.slots[i].Store(b)
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
	mask := uint64(len(a.slots) - 1)
	for i := a.home(p); ; i = (i + 1) & mask {
		b := a.slots[i].Load()
		if b == nil {
			return
		}
		if b.addr == p {
			a.slots[i].Store(tombstone)
			t.live.Add(-1)
			t.dead++
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
	a := &tableArray{shift: shift, slots: make([]sched.Pointer[block], n)}
	if old != nil {
		mask := uint64(n - 1)
		for i := range old.slots {
			b := old.slots[i].Load()
			if b == nil || b == tombstone {
				continue
			}
			j := a.home(b.addr)
			for a.slots[j].Load() != nil {
				j = (j + 1) & mask
			}
			a.slots[j].Store(b)
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
		if b := a.slots[i].Load(); b != nil && b != tombstone {
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
		if b := a.slots[i].Load(); b != nil && b != tombstone && f(b) {
			return b
		}
	}
	return nil
}
