package sizeclass

import (
	"errors"
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// block is the metadata of one device block, shared by Sharded and LockFree.
// Fields that change after creation are atomic: fast paths touch them
// without a lock.
//
// use is the in-use state and the requested size in one word, so a pair of
// calls changes one atomic per call: 0 is free, n > 0 is in use for a
// request of n bytes, useReleased is being returned to the device, and
// LockFree's usePrivate is free in a P's private slot. A class block goes
// from free to in use only by a compare-and-swap claim (Sharded's cache
// entries, LockFree's private slots: that claim is what makes those entries
// mere hints; LockFree's stacks too, where the pop alone would not do: see
// closeLocked), a large block under core.slow; and from in use to free only
// by a compare-and-swap in Free, so of two racing frees exactly one wins.
type block struct {
	addr   spec.Addr
	size   int64
	class  int // -1 for a large block
	idx    uint32
	next   sched.Uint32 // LockFree: slot of the next block in its stack
	use    sched.Int64
	frozen sched.Bool
	// Pad to 128 bytes (an allocation size class, so blocks are 128-byte
	// aligned): blocks used by different goroutines must not share a cache
	// line, or their use words would bounce between cores.
	_ [128 - 44]byte
}

const useReleased = -1

func (b *block) describe(cached int) spec.Block {
	u := b.use.Load()
	return spec.Block{Addr: b.addr, Size: b.size, Class: b.class, Requested: max(u, 0),
		InUse: u > 0, Frozen: b.frozen.Load(), Cached: cached}
}

// free moves b from in use to free; false if it was not in use.
func (b *block) free() bool { return b.freeTo(0) }

// freeTo moves b from in use to the free state to (0, or LockFree's
// usePrivate); false if it was not in use.
func (b *block) freeTo(to int64) bool {
	for {
		u := b.use.Load()
		if u <= 0 {
			return false
		}
		if b.use.CompareAndSwap(u, to) {
			return true
		}
	}
}

// core is what Sharded and LockFree share: the table from address to block
// (lock-free reads), the slow path that calls the device, the large blocks,
// and Trim, Stats and Close. slow serialises device calls and every change
// to the set of blocks; the per-class caches are the implementations' own.
type core struct {
	// Pools are allocated next to arbitrary objects: the leading padding
	// keeps the fields below off their lines (layout.go).
	_ [isolation]byte
	// Read on every call; written rarely.
	dev    spec.Device
	cls    classes
	table  blockTable
	pinned sched.Bool
	closed sched.Bool
	// Written by the slow paths (a large request, a miss). The padding
	// keeps these words off the cache lines of the fields above, which
	// every fast-path call on every P reads: a lock or a counter written
	// next to them would make those lines bounce between cores.
	_      [128]byte
	slow   sched.Mutex
	large  []*block // under slow, insertion order
	misses sched.Int64
	hits   sched.Int64 // hits counted off the fast path (large blocks, steals)
	fails  sched.Int64
	// onNew and onDrop, when set, are called under slow as a block is
	// created (before the device call; an error refuses the allocation) and
	// as it is dropped (also when the device call failed); onAdd is called
	// under slow once a new block is in the table.
	onNew  func(*block) error
	onDrop func(*block)
	onAdd  func(*block)
	_      [128]byte // and off the lines of the embedding pool's fields
}

// init readies an empty core over dev (ErrInvalidConfig for a bad cfg).
func (c *core) init(dev spec.Device, cfg spec.Config) error {
	cls, err := newClasses(cfg)
	if err != nil {
		return err
	}
	c.dev, c.cls = dev, cls
	return nil
}

// check runs the argument checks of Alloc, returning the block size and
// class of n, or done with the answer (null for n == 0, or an error).
func (c *core) check(n int64) (size int64, class int, done bool, err error) {
	if c.closed.Load() {
		return 0, 0, true, spec.ErrClosed
	}
	if n == 0 {
		return 0, 0, true, nil
	}
	if n < 0 {
		return 0, 0, true, fmt.Errorf("%w: %d bytes", spec.ErrInvalidSize, n)
	}
	size, class, err = c.cls.classify(n)
	return size, class, err != nil, err
}

// handOut gives b, a free large block found under slow, to a request of n
// bytes. Nothing else changes a free large block's use word while slow is
// held (Free only moves in-use blocks to free, Close holds slow), so a store
// does.
func (c *core) handOut(b *block, n int64) spec.Addr {
	b.use.Store(n)
	return c.freeze(b)
}

// lockOpen takes slow unless the pool is closed, which it reports as
// ErrClosed with slow not held. Every call checks closed on entry, but a
// Close may run while it waits for slow: under slow it looks again, or it
// would hand out, trim or free blocks that Close has returned to the device.
func (c *core) lockOpen() error {
	c.slow.Lock()
	if c.closed.Load() && !bugs.On(BugCloseUnclaimed) {
		c.slow.Unlock()
		return spec.ErrClosed
	}
	return nil
}

// closeLocked closes the pool and returns every block to the device,
// reporting those in use (sorted by address). Called with slow held, the
// pool open.
//
// Calls that passed their closed check before it may still be running: a
// fast-path Alloc about to claim a cached block, a Free about to mark one
// free. So each block's use word is moved to useReleased, whatever it held,
// before the block goes back to the device: a claim (a compare-and-swap
// from a free state) and a Free (one from in use) then both fail on it, and
// see closed. A block claimed before its word was moved is reported in use,
// and so is the Alloc that claimed it ordered before Close.
func (c *core) closeLocked() ([]spec.Block, error) {
	if bugs.On(BugCloseUnclaimed) {
		var all []spec.Block
		c.table.all(func(b *block) { all = append(all, b.describe(0)) })
		c.closed.Store(true) // a racing call claims or frees a block before this
		sortBlocks(all)
		return closeAll(c.dev, all)
	}
	c.closed.Store(true)
	var all []spec.Block
	c.table.all(func(b *block) {
		u := b.use.Load()
		for !b.use.CompareAndSwap(u, useReleased) {
			u = b.use.Load()
		}
		all = append(all, spec.Block{Addr: b.addr, Size: b.size, Class: b.class, Requested: max(u, 0),
			InUse: u > 0, Frozen: b.frozen.Load()})
	})
	sortBlocks(all) // returned in address order, as the model does
	return closeAll(c.dev, all)
}

// freeFailed is the error of a Free whose block was not in use: a double
// free, or the pool was closed while the Free ran.
func (c *core) freeFailed(p spec.Addr) error {
	if c.closed.Load() {
		return spec.ErrClosed
	}
	return errDoubleFree(p)
}

// freeze marks b, just handed out, frozen if pin mode is on; it returns b's
// address. The loads keep the common case free of stores.
func (c *core) freeze(b *block) spec.Addr {
	if c.pinned.Load() && !b.frozen.Load() {
		b.frozen.Store(true)
	}
	return b.addr
}

// freeMissed is the answer of a Free of p that found no block: p is null,
// the pool was closed when the Free began, or Free's one table.get(p)
// missed. It never looks p up again.
//
// Why ErrUnknownPointer is linearizable: closed only goes from false to
// true, so if it is false here it was false from the Free's start until now,
// and the get that missed ran on an open pool. A get is linearizable
// (blockTable): at some instant during it, no block at p was in the table.
// A block enters the table (mallocLocked's put, after its use word is set)
// before the Alloc that created it returns, and that Alloc takes effect at
// the put; a block leaves the table only when Trim releases it, after which
// p is unknown in the model too. So at that instant the pool held no block
// at p: the Free takes effect then, before any Alloc that goes on to publish
// p, and the model answers ErrUnknownPointer. (One history is outside this
// argument: a Trim releasing several blocks drops them from the table one
// at a time, so Frees of two of them, one after the other during the Trim,
// can answer ErrUnknownPointer for the first and ErrDoubleFree for the
// second, which no order of the three calls gives: the model's Trim is one
// step. Both Frees are of blocks already freed, errors either way.) A second get would gain
// nothing: one that found a block a racing Alloc had just published would
// order this Free after that Alloc, so it would have to free the block, and
// answering nil without doing so loses the free (BugFreeSecondLookup plants
// that). One probe keeps Free's lookup a single lock-free read of the table,
// and Free lock-free. If closed is true here, the Free takes effect at this
// load, after the Close that set it: ErrClosed.
func (c *core) freeMissed(p spec.Addr) error {
	if c.closed.Load() {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	if bugs.On(BugFreeSecondLookup) {
		if c.table.get(p) != nil { // a racing Alloc may have published p since the first
			return nil // found, and taken for freed: the block stays in use
		}
	}
	return fmt.Errorf("%w: %v", spec.ErrUnknownPointer, p)
}

// allocLarge serves a large request: the first free large block in insertion
// order that is big enough, else a new one.
func (c *core) allocLarge(n, size int64, trim func() (int64, error)) (spec.Addr, error) {
	if err := c.lockOpen(); err != nil {
		return 0, err
	}
	defer c.slow.Unlock()
	for _, b := range c.large {
		if b.size >= size && b.use.Load() == 0 { // Free never sets 0 → n, and we hold slow
			c.hits.Add(1)
			return c.handOut(b, n), nil
		}
	}
	return c.mallocLocked(n, size, -1, trim)
}

// mallocLocked gets a new block from the device; on exhaustion it trims and,
// if that released anything, retries once. Called with slow held.
func (c *core) mallocLocked(n, size int64, class int, trim func() (int64, error)) (spec.Addr, error) {
	b := &block{size: size, class: class}
	if c.onNew != nil {
		err := c.onNew(b)
		if errors.Is(err, spec.ErrOutOfMemory) {
			// The pool's own bookkeeping is full (LockFree's slots): a
			// trim frees entries as it frees device memory, so the
			// contract's trim and retry applies here too.
			if released, _ := trim(); released > 0 {
				err = c.onNew(b)
			}
		}
		if err != nil {
			return 0, err
		}
	}
	p, err := c.dev.Malloc(size)
	if errors.Is(err, spec.ErrOutOfMemory) {
		if released, _ := trim(); released > 0 {
			p, err = c.dev.Malloc(size)
		}
	}
	if err != nil {
		if c.onDrop != nil {
			c.onDrop(b)
		}
		return 0, fmt.Errorf("sizeclass: alloc %d bytes: %w", n, err)
	}
	b.addr = p
	b.use.Store(n) // before it is published: a Free of p must see it in use
	c.table.put(b)
	if c.onAdd != nil {
		c.onAdd(b)
	}
	if class < 0 {
		c.large = append(c.large, b)
	}
	c.misses.Add(1)
	return c.freeze(b), nil
}

// claimRelease claims b, free in the state free (0, or LockFree's
// usePrivate), for Trim to release, unless it is frozen. Class blocks are
// claimed and freed without the lock Trim holds, so the claim comes first
// and the flag is read after it: an Alloc in pin mode freezes the block it
// holds before the Free that makes it free again, so a claim that finds it
// free sees every such freeze. Read first, the flag could be stale: such an
// Alloc and its Free could fit between the read and the claim, and Trim
// would return a frozen block to the device. A frozen block claimed is put
// back as it was (a concurrent claim that failed meanwhile dropped its
// cache entry, which is only a hint: the steals find the block again).
func claimRelease(b *block, free int64) bool {
	if bugs.On(BugTrimFrozenFirst) {
		if b.frozen.Load() {
			return false
		}
		return b.use.CompareAndSwap(free, useReleased) // an Alloc and a Free of b may fit before this
	}
	if !b.use.CompareAndSwap(free, useReleased) {
		return false
	}
	if b.frozen.Load() {
		b.use.Store(free)
		return false
	}
	return true
}

// trimLarge releases the free, non-frozen large blocks. Called with slow held.
func (c *core) trimLarge(release func(*block)) {
	kept := c.large[:0]
	for _, b := range c.large {
		if claimRelease(b, 0) {
			release(b)
		} else {
			kept = append(kept, b)
		}
	}
	clear(c.large[len(kept):])
	c.large = kept
}

// releaser returns a function that hands blocks back to the device, and a
// function that reports the bytes and errors so far. keepEntry leaves the
// block in the table (a seeded bug). Called with slow held.
func (c *core) releaser(keepEntry bool) (func(*block), func() (int64, error)) {
	var released int64
	var errs []error
	release := func(b *block) {
		released += b.size
		if !keepEntry {
			c.table.remove(b.addr)
		}
		if c.onDrop != nil {
			c.onDrop(b)
		}
		if err := c.dev.Free(b.addr); err != nil {
			c.fails.Add(1)
			errs = append(errs, err)
		}
	}
	return release, func() (int64, error) { return released, errors.Join(errs...) }
}

// stats sums the blocks in the table; hits is the implementation's count of
// hits on its fast path.
func (c *core) stats(hits int64) spec.Stats {
	if c.closed.Load() {
		return spec.Stats{}
	}
	s := c.cls.newStats()
	s.Misses, s.FreeFailures = c.misses.Load(), c.fails.Load()
	s.Hits = c.hits.Load() + hits
	c.table.all(func(b *block) { c.cls.count(&s, b.describe(0)) })
	return s
}

// blocks lists the table, with the cache counts the implementation found.
func (c *core) blocks(cached map[*block]int) []spec.Block {
	out := make([]spec.Block, 0, c.table.size())
	c.table.all(func(b *block) { out = append(out, b.describe(cached[b])) })
	sortBlocks(out)
	return out
}

// countLarge adds the free large blocks to cached (the large list is their
// cache). Called with slow held.
func (c *core) countLarge(cached map[*block]int) {
	for _, b := range c.large {
		if b.use.Load() == 0 {
			cached[b]++
		}
	}
}

func errDoubleFree(p spec.Addr) error { return fmt.Errorf("%w: %v", spec.ErrDoubleFree, p) }
