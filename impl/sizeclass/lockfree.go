package sizeclass

import (
	"runtime"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// LockFree keeps each class's free blocks on Treiber stacks, one per P and
// class, whose heads pack a 32-bit slot index with a 32-bit tag that every
// successful push and pop increments, so a head that was popped and pushed
// back between a reader's load and its compare-and-swap no longer compares
// equal (no ABA, unless a multiple of 2^32 pushes and pops of that one stack
// fall between the two and the tag wraps round: a pop descheduled for that
// long). Blocks name each other by slot index, not by pointer, so
// the head fits one word. In-use tracking is a per-block word changed by
// compare-and-swap, so a double free is detected even when two frees race.
//
// A call pins its goroutine to its P (procPin) for the few instructions of
// its fast path and uses that P's stacks, so goroutines on different Ps
// push and pop different heads and no cache line is written from two Ps.
// The P id only picks the stacks — any number of callers may use a stack —
// so Ps beyond the shards made at creation share them.
//
// In front of the stacks, each P has private slots per class holding up to
// privateSlots free blocks (a LIFO), touched with plain loads and stores by
// the goroutine pinned to that P only (sync.Pool's private slot, for
// blocks, a few deep). A block in a slot is marked usePrivate and is taken
// by compare-and-swap from usePrivate to in use, by the slot's owner or by
// a thief; the loser finds the entry stale and drops it. A Free that finds
// the slots full pushes on the stack. So a cached pair costs two atomic
// read-modify-writes on the block (the claim and the free), where the
// stacks cost four (pop, mark in use, free, push). An Alloc whose own slots
// and stack are empty pops the class's stacks of the other Ps, then claims
// a block from another P's private slots, before it asks the device, so the
// pool never holds more device memory than the model. The private slots
// are off in a -race build (see race_off.go); the stacks alone then carry
// the load.
//
// Progress: Alloc and Free of a class block served from (or returned to) the
// private slots or a stack are lock-free: the slot path is a bounded
// sequence (at most privateSlots compare-and-swaps, each failing only if
// another thread claimed that block), a stack operation retries only when
// another thread's push or pop on the same stack succeeded, and the block
// table is read without locks or retries. Trim is the exception: it takes
// every block off the stacks while it runs, and puts the frozen ones back,
// so an Alloc meanwhile may find the stacks empty, take the slow path and
// wait for the Trim to finish. Pinning makes no other caller
// wait (it only defers preemption, and a stop-the-world, for those
// instructions). Everything that calls the device — a class miss, every
// large request, Trim, Close — takes one mutex and is blocking. Stats and
// Blocks are exact only when no call is running (fast-path hits are counted
// per P without synchronisation). Close may race every other call
// (core.closeLocked): that is why a block popped off a stack is claimed by
// compare-and-swap too.
type LockFree struct {
	core
	shards []lfShard
	slots  slotTable
	// private enables the per-P private slots (off in -race builds, whose
	// detector cannot see the exclusion the pin gives, and with the
	// seeded ABA bug, whose Alloc runs unpinned).
	private bool
	_       [isolation]byte // off the lines of the next object (layout.go)
}

// usePrivate is the use word of a free block in a private slot: free (Free
// of it is a double free), but claimed by compare-and-swap rather than by a
// pop, which tells it apart from a free block on a stack (use 0).
const usePrivate = -2

// lfShard is one P's stacks, one per class, its private slots (class c's
// are private[c*privateSlots:][:privN[c]]), and the hits they served.
// private, privN and hits are touched only by a goroutine pinned to the
// shard's P (in a -race build, which cannot see that exclusion, the private
// slots are off and hitsRace is added to instead).
type lfShard struct {
	stacks   []stack
	private  []*block
	privN    []int32
	hits     int64
	hitsRace sched.Int64
	_        [128 - 88]byte
}

// privateSlots is how many free blocks of a class a P keeps in its private
// slots.
const privateSlots = 8

// popPrivate claims the newest block of class in sh's private slots that is
// still there, for a request of n bytes; stale entries are dropped. Like
// shard.pop it indexes the slots directly and reaches the count through one
// pointer, which keeps it within the inlining budget (at its edge: a line
// more makes it a call again): it runs on every cached Alloc.
func (sh *lfShard) popPrivate(class int, n int64) *block {
	count := &sh.privN[class]
	base := class * privateSlots
	for k := *count; k > 0; {
		k--
		b := sh.private[base+int(k)]
		if bugs.On(BugPrivateByStore) {
			b.use.Store(usePrivate) // "the slot is mine"
		}
		if b.use.CompareAndSwap(usePrivate, n) {
			*count = k
			return b
		}
	}
	*count = 0
	return nil
}

var _ spec.Pool = (*LockFree)(nil)

// NewLockFree returns an empty pool over dev (ErrInvalidConfig for a bad
// cfg), with one shard per P (GOMAXPROCS at creation).
func NewLockFree(dev spec.Device, cfg spec.Config) (*LockFree, error) {
	l := &LockFree{}
	if err := l.init(dev, cfg); err != nil {
		return nil, err
	}
	// Each shard's arrays are written by its P on every call: isolated
	// (layout.go), no other P's data or neighbouring object shares their
	// lines.
	l.shards = isolated[lfShard](runtime.GOMAXPROCS(0))
	for i := range l.shards {
		l.shards[i].stacks = isolated[stack](len(l.cls.sizes))
		l.shards[i].private = isolated[*block](len(l.cls.sizes) * privateSlots)
		l.shards[i].privN = isolated[int32](len(l.cls.sizes))
	}
	l.private = !raceEnabled && !bugs.On(BugABAHead)
	l.onNew = l.slots.assign
	l.onDrop = l.slots.release
	return l, nil
}

// Alloc implements spec.Pool.
func (l *LockFree) Alloc(n int64) (spec.Addr, error) {
	if bugs.On(PerfAllocRecord) {
		recordAlloc(n)
	}
	// As in Sharded.Alloc, the flag first and the class last, each its own
	// test: one condition joining them made the compiler set a flag from
	// the two and test it again.
	class := -1
	if !l.closed.Load() {
		class = l.cls.small(n)
	}
	if class < 0 {
		size, c, done, err := l.check(n)
		if done {
			return 0, err
		}
		if c < 0 {
			return l.allocLarge(n, size, l.trimLocked)
		}
		class = c
	}
	var b *block
	if bugs.On(BugABAHead) {
		// The seeded bug's pop runs unpinned: another goroutine of the same
		// P can pop and push between its read of the head and its CAS.
		if b = l.pop(&l.shards[l.hint()].stacks[class]); b != nil {
			l.hits.Add(1)
		}
	} else {
		i := procPin()
		if uint(i) < uint(len(l.shards)) { // the bounds check too (Sharded.Alloc)
			sh := &l.shards[i]
			if l.private {
				if b := sh.popPrivate(class, n); b != nil {
					sh.hits++
					procUnpin()
					return l.freeze(b), nil
				}
			}
			if b = l.pop(&sh.stacks[class]); b != nil {
				if raceEnabled {
					sh.hitsRace.Add(1)
				} else {
					sh.hits++
				}
			}
		} else if b = l.pop(&l.shards[i%len(l.shards)].stacks[class]); b != nil {
			l.hits.Add(1) // the shard is shared with another P: no exclusion
		}
		procUnpin()
	}
	// A block off a stack is the popper's alone, but a Close that began
	// after the pop may have released it: it is claimed from free, not
	// marked in use with a store. (If the claim fails, the slow path below
	// reports the pool closed.)
	if b != nil && l.claimPopped(b, n) {
		return l.freeze(b), nil
	}
	return l.allocMiss(n, class)
}

// allocMiss serves a class request that the caller's private slots and
// stack could not. It is a function of its own so that its deferred unlock
// and its frame stay off Alloc's cached path, whose prologue would otherwise
// zero the defer's state on every call.
func (l *LockFree) allocMiss(n int64, class int) (spec.Addr, error) {
	if a := l.steal(class, n); a != 0 {
		return a, nil
	}
	if err := l.lockOpen(); err != nil {
		return 0, err
	}
	defer l.slow.Unlock()
	// A block may have been freed since the pops: the device is asked only
	// when no stack or private slot holds a block of the class.
	if a := l.steal(class, n); a != 0 {
		return a, nil
	}
	return l.mallocLocked(n, l.cls.sizes[class], class, l.trimLocked)
}

// claimPopped marks b, just popped off a stack, in use for a request of n
// bytes; false if a Close released it after it was pushed. The seeded bug
// marks it with a store, as if the pop made b the popper's alone.
func (l *LockFree) claimPopped(b *block, n int64) bool {
	if bugs.On(BugPopByStore) {
		b.use.Store(n) // a Close may have released b since the pop
		return true
	}
	return b.use.CompareAndSwap(0, n)
}

// hint is the shard of the caller's P.
func (l *LockFree) hint() int {
	i := procPin()
	procUnpin()
	return i % len(l.shards)
}

// steal hands out a block of class from any shard's stack or, failing
// that, from any P's private slot (claimed by compare-and-swap; the slot
// keeps a stale pointer that its owner drops). 0 if there is none.
func (l *LockFree) steal(class int, n int64) spec.Addr {
	for i := range l.shards {
		if b := l.pop(&l.shards[i].stacks[class]); b != nil && l.claimPopped(b, n) {
			l.hits.Add(1)
			return l.freeze(b)
		}
	}
	b := l.table.find(func(b *block) bool {
		return b.class == class && b.use.Load() == usePrivate && b.use.CompareAndSwap(usePrivate, n)
	})
	if b == nil {
		return 0
	}
	l.hits.Add(1)
	return l.freeze(b)
}

// Free implements spec.Pool.
func (l *LockFree) Free(p spec.Addr) error {
	// Two exits rather than one lookup result that may be nil for three
	// reasons: with the nil set on one branch and tested after the merge,
	// the compiler set a flag from p and closed and tested it again.
	if p == 0 || l.closed.Load() {
		return l.freeMissed(p) // null or closed (core.freeMissed)
	}
	b := l.table.get(p)
	if b == nil {
		return l.freeMissed(p) // unknown (core.freeMissed)
	}
	if bugs.On(BugDoubleFreeRace) {
		if b.use.Load() <= 0 {
			return errDoubleFree(p)
		}
		b.use.Store(0)
		if b.class >= 0 {
			l.push(&l.shards[l.hint()].stacks[b.class], b)
		}
		return nil
	}
	if b.class < 0 {
		if !b.free() {
			return l.freeFailed(p)
		}
		return nil
	}
	i := procPin()
	if l.private && uint(i) < uint(len(l.shards)) { // as in Alloc
		// The P's private slots take the block unless they are full.
		sh := &l.shards[i]
		class := b.class
		count := &sh.privN[class]
		if k := *count; k < privateSlots {
			if !b.freeTo(usePrivate) {
				procUnpin()
				return l.freeFailed(p)
			}
			sh.private[class*privateSlots+int(k)] = b
			*count = k + 1
			procUnpin()
			return nil
		}
	}
	if !b.free() {
		procUnpin()
		return l.freeFailed(p)
	}
	l.push(&l.shards[i%len(l.shards)].stacks[b.class], b)
	procUnpin()
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
	if err := l.lockOpen(); err != nil {
		return 0, err
	}
	defer l.slow.Unlock()
	return l.trimLocked()
}

// trimLocked empties every stack, pushes the frozen blocks back and releases
// the rest, then releases the non-frozen blocks of the private slots and the
// large blocks. Called with slow held.
func (l *LockFree) trimLocked() (int64, error) {
	release, result := l.releaser(bugs.On(BugTrimStaleTable))
	for i := range l.shards {
		for c := range l.shards[i].stacks {
			st := &l.shards[i].stacks[c]
			var frozen []*block
			for b := l.pop(st); b != nil; b = l.pop(st) {
				if b.frozen.Load() {
					frozen = append(frozen, b)
				} else {
					release(b)
				}
			}
			for j := len(frozen) - 1; j >= 0; j-- { // keep their order
				l.push(st, frozen[j])
			}
		}
	}
	// Blocks in private slots are claimed for release by compare-and-swap;
	// the slots keep stale pointers, which their owners drop.
	var private []*block
	l.table.all(func(b *block) {
		if claimRelease(b, usePrivate) {
			private = append(private, b)
		}
	})
	for _, b := range private {
		release(b)
	}
	l.trimLarge(release)
	return result()
}

// Stats implements spec.Pool.
func (l *LockFree) Stats() spec.Stats {
	var hits int64
	for i := range l.shards {
		hits += l.shards[i].hits + l.shards[i].hitsRace.Load()
	}
	return l.stats(hits)
}

// Blocks implements spec.Pool.
func (l *LockFree) Blocks() []spec.Block {
	if l.lockOpen() != nil {
		return nil
	}
	defer l.slow.Unlock()
	return l.blocks(l.cachedLocked())
}

// cachedLocked counts the stack entries of every block. The walk is bounded,
// so a corrupt stack (a cycle) shows as counts above one instead of a hang.
func (l *LockFree) cachedLocked() map[*block]int {
	cached := map[*block]int{}
	limit := l.table.size() + 1
	for i := range l.shards {
		for c := range l.shards[i].stacks {
			slot := uint32(l.shards[i].stacks[c].head.Load())
			for steps := 0; slot != 0 && steps < limit; steps++ {
				b := l.slots.get(slot)
				cached[b]++
				slot = b.next.Load()
			}
		}
	}
	l.table.all(func(b *block) {
		if b.use.Load() == usePrivate {
			cached[b]++
		}
	})
	l.countLarge(cached)
	return cached
}

// Close implements spec.Pool.
func (l *LockFree) Close() ([]spec.Block, error) {
	if err := l.lockOpen(); err != nil {
		return nil, err
	}
	defer l.slow.Unlock()
	return l.closeLocked()
}
