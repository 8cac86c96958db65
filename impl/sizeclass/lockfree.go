package sizeclass

import (
	"fmt"
	"sync/atomic"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// LockFree keeps each class's free blocks on a Treiber stack whose head packs
// a 32-bit slot index with a 32-bit tag that every successful push and pop
// increments, so a head that was popped and pushed back between a reader's
// load and its compare-and-swap no longer compares equal (no ABA). Blocks
// name each other by slot index, not by pointer, so the head fits one word.
// In-use tracking is a per-block word changed by compare-and-swap, so a
// double free is detected even when two frees race.
//
// Progress: Alloc and Free of a class block served from (or returned to) its
// cache are lock-free: a thread retries only when another thread's push or
// pop succeeded, and the block table is read without locks. Everything that
// calls the device — a class miss, every large request, Trim, Close — takes
// one mutex and is blocking. Stats and Blocks are exact only when no call is
// running. Close must not race other calls.
type LockFree struct {
	core
	stacks []stack
	slots  slotTable
}

// stack is one class's free list; padded so neighbouring classes do not
// share a cache line.
type stack struct {
	head atomic.Uint64 // tag<<32 | slot; slot 0 is the empty stack
	_    [56]byte
}

var _ spec.Pool = (*LockFree)(nil)

// NewLockFree returns an empty pool over dev (ErrInvalidConfig for a bad cfg).
func NewLockFree(dev spec.Device, cfg spec.Config) (*LockFree, error) {
	l := &LockFree{}
	if err := l.init(dev, cfg); err != nil {
		return nil, err
	}
	l.stacks = make([]stack, len(l.cls.sizes))
	l.onNew = l.slots.assign
	l.onDrop = l.slots.release
	return l, nil
}

func pack(tag, slot uint32) uint64 { return uint64(tag)<<32 | uint64(slot) }

// push puts b on s.
func (l *LockFree) push(s *stack, b *block) {
	for {
		old := s.head.Load()
		b.next.Store(uint32(old))
		tag := uint32(old>>32) + 1
		if bugs.On(BugABAHead) {
			tag = 0
		}
		if s.head.CompareAndSwap(old, pack(tag, b.idx)) {
			return
		}
	}
}

// pop takes the top block of s, nil if s is empty.
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
			tag = 0
			for range 4 {
				yield() // let another thread pop this block, pop its next and push it back
			}
		}
		if s.head.CompareAndSwap(old, pack(tag, next)) {
			return b
		}
	}
}

// Alloc implements spec.Pool.
func (l *LockFree) Alloc(n int64) (spec.Addr, error) {
	size, class, done, err := l.check(n)
	if done {
		return 0, err
	}
	if class < 0 {
		return l.allocLarge(n, size, l.trimLocked)
	}
	if b := l.pop(&l.stacks[class]); b != nil {
		return l.handOut(b, n, true), nil
	}
	l.slow.Lock()
	defer l.slow.Unlock()
	// A block may have been freed since the pop: the device is asked only
	// when the class is empty.
	if b := l.pop(&l.stacks[class]); b != nil {
		return l.handOut(b, n, true), nil
	}
	return l.mallocLocked(n, size, class, l.trimLocked)
}

// Free implements spec.Pool.
func (l *LockFree) Free(p spec.Addr) error {
	b, err := l.lookup(p)
	if b == nil {
		return err
	}
	if bugs.On(BugDoubleFreeRace) {
		if b.use.Load() <= 0 {
			return errDoubleFree(p)
		}
		yield()
		b.use.Store(0)
	} else if !b.free() {
		return errDoubleFree(p)
	}
	if b.class >= 0 {
		l.push(&l.stacks[b.class], b)
	}
	return nil
}

// SetPinned implements spec.Pool.
func (l *LockFree) SetPinned(on bool) error {
	if l.closed.Load() {
		return spec.ErrClosed
	}
	l.pinned.Store(on)
	return nil
}

// Trim implements spec.Pool.
func (l *LockFree) Trim() (int64, error) {
	if l.closed.Load() {
		return 0, spec.ErrClosed
	}
	l.slow.Lock()
	defer l.slow.Unlock()
	return l.trimLocked()
}

// trimLocked empties every stack, pushes the frozen blocks back and releases
// the rest. Called with slow held.
func (l *LockFree) trimLocked() (int64, error) {
	release, result := l.releaser(bugs.On(BugTrimStaleTable))
	for i := range l.stacks {
		var frozen []*block
		for b := l.pop(&l.stacks[i]); b != nil; b = l.pop(&l.stacks[i]) {
			if b.frozen.Load() {
				frozen = append(frozen, b)
			} else {
				release(b)
			}
		}
		for j := len(frozen) - 1; j >= 0; j-- { // keep their order
			l.push(&l.stacks[i], frozen[j])
		}
	}
	l.trimLarge(release)
	return result()
}

// Stats implements spec.Pool.
func (l *LockFree) Stats() spec.Stats { return l.stats() }

// Blocks implements spec.Pool.
func (l *LockFree) Blocks() []spec.Block {
	if l.closed.Load() {
		return nil
	}
	l.slow.Lock()
	defer l.slow.Unlock()
	return l.blocks(l.cachedLocked())
}

// cachedLocked counts the stack entries of every block. The walk is bounded,
// so a corrupt stack (a cycle) shows as counts above one instead of a hang.
func (l *LockFree) cachedLocked() map[*block]int {
	cached := map[*block]int{}
	limit := l.table.Size() + 1
	for i := range l.stacks {
		slot := uint32(l.stacks[i].head.Load())
		for steps := 0; slot != 0 && steps < limit; steps++ {
			b := l.slots.get(slot)
			cached[b]++
			slot = b.next.Load()
		}
	}
	l.countLarge(cached)
	return cached
}

// Close implements spec.Pool.
func (l *LockFree) Close() ([]spec.Block, error) {
	if l.closed.Load() {
		return nil, spec.ErrClosed
	}
	l.slow.Lock()
	defer l.slow.Unlock()
	all := l.blocks(l.cachedLocked())
	l.closed.Store(true)
	return closeAll(l.dev, all)
}

// slotTable maps slot indexes to blocks: two levels, so a lookup is two
// atomic loads and the table grows without moving entries. Slots are
// assigned and recycled under core.slow; a recycled slot is safe because the
// stack heads carry tags.
type slotTable struct {
	dir  [slotDirs]atomic.Pointer[[slotChunk]atomic.Pointer[block]]
	next uint32   // next never-used slot, under slow
	free []uint32 // recycled slots, under slow
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
		if t.next >= slotChunk*slotDirs {
			return fmt.Errorf("%w: block table full", spec.ErrOutOfMemory)
		}
		i = t.next
		t.next++
	}
	chunk := t.dir[i/slotChunk].Load()
	if chunk == nil {
		chunk = new([slotChunk]atomic.Pointer[block])
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
