// LockFree's Treiber stacks: heads that pack a tag with a slot index, so
// that a head popped and pushed back no longer compares equal (no ABA), and
// the slot table that turns a slot index into its block (overview at the
// type, in lockfree.go).

package sizeclass

import (
	"cmp"
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// stack is one class's free list in one shard; padded so neighbouring
// stacks do not share a cache line.
type stack struct {
	head sched.Uint64 // tag<<32 | slot; slot 0 is the empty stack
	_    [56]byte
}

func pack(tag, slot uint32) uint64 { return uint64(tag)<<32 | uint64(slot) }

// push puts b on s.
func (l *LockFree) push(s *stack, b *block) {
	for {
		old := s.head.Load()
		if bugs.On(BugPushNextLate) {
			// b is published first and linked after: a pop in between
			// reads the next b had when it was last on a stack.
			if s.head.CompareAndSwap(old, pack(uint32(old>>32)+1, b.idx)) {
				b.next.Store(uint32(old))
				return
			}
			continue
		}
		if b.next.Load() != uint32(old) { // often equal: a block popped and pushed back
			b.next.Store(uint32(old))
		}
		tag := uint32(old>>32) + 1
		if bugs.On(BugABAHead) {
			tag = 0
		}
		if s.head.CompareAndSwap(old, pack(tag, b.idx)) {
			return
		}
	}
}

// pop takes the top block of s, nil if s is empty. Like push, it never
// blocks, so it may run pinned.
func (l *LockFree) pop(s *stack) *block {
	for {
		old := s.head.Load()
		slot := uint32(old)
		if slot == 0 {
			return nil
		}
		b := l.slots.get(slot)
		next := b.next.Load()
		tag := uint32(old>>32) + 1
		if bugs.On(BugABAHead) {
			tag = 0 // another thread may pop this block, pop its next and push it back before the CAS
		}
		if s.head.CompareAndSwap(old, pack(tag, next)) {
			return b
		}
	}
}

// slotTable maps slot indexes to blocks: two levels, so a lookup is two
// atomic loads and the table grows without moving entries. Slots are
// assigned and recycled under core.slow; a recycled slot is safe because the
// stack heads carry tags.
type slotTable struct {
	dir   [slotDirs]sched.Pointer[[slotChunk]sched.Pointer[block]]
	next  uint32   // next never-used slot, under slow
	free  []uint32 // recycled slots, under slow
	limit uint32   // slots that may be used; 0 is all slotChunk*slotDirs (tests set fewer)
}

const (
	slotChunk = 1 << 12
	slotDirs  = 1 << 10
)

func (t *slotTable) get(i uint32) *block {
	return t.dir[i/slotChunk].Load()[i%slotChunk].Load()
}

// assign gives b a slot.
func (t *slotTable) assign(b *block) error {
	var i uint32
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if t.next == 0 {
			t.next = 1 // slot 0 means "none"
		}
		if limit := cmp.Or(t.limit, slotChunk*slotDirs); t.next >= limit {
			return fmt.Errorf("%w: block table full", spec.ErrOutOfMemory)
		}
		i = t.next
		t.next++
	}
	chunk := t.dir[i/slotChunk].Load()
	if chunk == nil {
		chunk = new([slotChunk]sched.Pointer[block])
		t.dir[i/slotChunk].Store(chunk)
	}
	chunk[i%slotChunk].Store(b)
	b.idx = i
	return nil
}

// release recycles b's slot.
func (t *slotTable) release(b *block) {
	t.free = append(t.free, b.idx)
}
