package sizeclass

import (
	"fmt"
	"runtime"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// Sharded puts a small cache per P (a bounded LIFO per class) in front of
// central per-class lists, as tcmalloc puts per-CPU caches in front of its
// transfer caches.
//
// The fast path pins the calling goroutine to its P (procPin, as sync.Pool
// does), works on that P's cache with plain loads and stores — no other
// goroutine can run on the P meanwhile — and unpins. Nothing that blocks
// happens while pinned: a full or empty cache is dealt with after unpinning,
// through the central list's mutex.
//
// A cache entry is a hint, not ownership: the block's use word decides. Free
// turns it from in use to free with one compare-and-swap (so of two racing
// frees exactly one wins), and Alloc claims a block it popped with a
// compare-and-swap from free to in use; an entry whose block was claimed
// elsewhere meanwhile, or released by Trim, fails the claim and is dropped.
// That is what lets a miss take a cached block from another P without
// touching that P's cache: after the central list, Alloc scans the class's
// blocks (a lock-free index, classIndex) for a free one and claims it, and
// lists a few more free ones in its own cache as hints, so that a P short of
// a class does not scan for every block. So the pool never holds more
// device memory than the model, and a P's cache is only ever written by the
// goroutine pinned to that P. A cached pair is two atomic
// read-modify-writes (the claim and the free), both on the block, which
// stays on its P.
//
// Ps whose id is not below Shards (GOMAXPROCS grew) use the central lists
// only. In a -race build, and with Spread, the caches are guarded by a
// mutex per shard instead of the pin (see race_off.go), and such a P shares
// shard id mod Shards. Device calls, large blocks, Trim and Close share
// core's mutex. Stats counts hits made on the fast path by reading the
// shards' counters without synchronisation: it is exact only when no call
// is running. Close may race every other call (core.closeLocked).
//
// Progress: the fast path takes no lock and never waits for another caller
// (pinning only defers preemption, and a stop-the-world, for its few
// instructions); a miss takes the central list's mutex, and a device call
// the slow-path mutex, so Sharded as a whole is blocking.
type Sharded struct {
	core
	shards   []shard
	central  []central
	index    []classIndex // per class: every block, for steals
	capacity int
	// locked makes every shard access take the shard's mutex (Spread, or a
	// -race build); otherwise the pin alone makes it exclusive.
	locked bool
	spread bool
	rr     sched.Uint32
	_      [isolation]byte // off the lines of the next object (layout.go)
}

// Limits of ShardedOptions: beyond them NewSharded answers ErrInvalidConfig.
const (
	MaxShards        = 1 << 12
	MaxShardCapacity = 1 << 16
)

// ShardedOptions tunes a Sharded pool; zero fields take the defaults.
type ShardedOptions struct {
	Shards   int // per-P caches, default GOMAXPROCS
	Capacity int // blocks per class per shard, default 32
	// Spread makes every call take the next shard in turn, under the
	// shard's mutex, instead of its P's shard under the pin. It defeats the
	// point of sharding, but it drives a single goroutine through flushes
	// and steals, so sequential tests exercise the cross-shard paths.
	Spread bool
}

var _ spec.Pool = (*Sharded)(nil)

// NewSharded returns an empty pool over dev (ErrInvalidConfig for a bad cfg).
func NewSharded(dev spec.Device, cfg spec.Config, opt ShardedOptions) (*Sharded, error) {
	s := &Sharded{}
	if err := s.init(dev, cfg); err != nil {
		return nil, err
	}
	if opt.Shards <= 0 {
		opt.Shards = runtime.GOMAXPROCS(0)
	}
	if opt.Capacity <= 0 {
		opt.Capacity = 32
	}
	// The lists are allocated up front, Shards × classes × Capacity entries,
	// and counted in int32s.
	if opt.Shards > MaxShards || opt.Capacity > MaxShardCapacity {
		return nil, fmt.Errorf("%w: %d shards of %d blocks a class (at most %d shards of %d)",
			spec.ErrInvalidConfig, opt.Shards, opt.Capacity, MaxShards, MaxShardCapacity)
	}
	s.capacity, s.spread, s.locked = opt.Capacity, opt.Spread, opt.Spread || raceEnabled
	// A shard's counts and lists change on every push and pop of its P:
	// each array is isolated (layout.go), so that no other P's data, and
	// no object the allocator puts next to them, shares their lines.
	s.shards = isolated[shard](opt.Shards)
	for i := range s.shards {
		s.shards[i].n = isolated[int32](len(s.cls.sizes))
		s.shards[i].slots = isolated[*block](len(s.cls.sizes) * opt.Capacity)
	}
	if bugs.On(PerfLockedWhenParallel) && lockedWhenParallel() {
		s.shards, s.locked, s.spread = s.shards[:1], true, true
	}
	s.central = make([]central, len(s.cls.sizes))
	s.index = make([]classIndex, len(s.cls.sizes))
	s.onAdd = func(b *block) {
		if b.class >= 0 {
			s.index[b.class].add(b)
		}
	}
	return s, nil
}

// enter returns the caller's shard, exclusive to the caller until exit; nil
// (and nothing to exit) when the caller's P has no shard.
func (s *Sharded) enter() *shard {
	if s.locked {
		var i int
		if s.spread {
			i = int(s.rr.Add(1))
		} else {
			i = procPin()
			procUnpin()
		}
		sh := &s.shards[i%len(s.shards)]
		sh.mu.Lock()
		return sh
	}
	if i := procPin(); i < len(s.shards) {
		return &s.shards[i]
	}
	procUnpin()
	return nil
}

func (s *Sharded) exit(sh *shard) {
	if s.locked {
		sh.mu.Unlock()
	} else {
		procUnpin()
	}
}

// Alloc implements spec.Pool.
func (s *Sharded) Alloc(n int64) (spec.Addr, error) {
	// The fast path: a class request on a P with a shard, not locked mode.
	// The pool's flags come first and the class last, each its own test:
	// one condition joining them made the compiler set a flag from the
	// three and test it again.
	if !s.locked && !s.closed.Load() {
		if class := s.cls.small(n); class >= 0 {
			// The P id is never negative: compared unsigned, the one test
			// is also the bounds check of shards[i].
			if i := procPin(); uint(i) < uint(len(s.shards)) {
				sh := &s.shards[i]
				b := sh.pop(class, s.capacity, n, bugs.On(BugClaimByStore))
				if b != nil {
					sh.hits++
					procUnpin()
					return s.freeze(b), nil
				}
			}
			procUnpin()
			return s.allocMiss(n, class)
		}
	}
	size, class, done, err := s.check(n)
	if done {
		return 0, err
	}
	if class < 0 {
		return s.allocLarge(n, size, s.trimLocked)
	}
	if sh := s.enter(); sh != nil {
		b := sh.pop(class, s.capacity, n, bugs.On(BugClaimByStore))
		if b != nil {
			sh.hits++
		}
		s.exit(sh)
		if b != nil {
			return s.freeze(b), nil
		}
	}
	return s.allocMiss(n, class)
}

// Free implements spec.Pool.
func (s *Sharded) Free(p spec.Addr) error {
	// Two exits rather than one lookup result that may be nil for three
	// reasons: with the nil set on one branch and tested after the merge,
	// the compiler set a flag from p and closed and tested it again.
	if p == 0 || s.closed.Load() {
		return s.freeMissed(p) // null or closed (core.freeMissed)
	}
	b := s.table.get(p)
	if b == nil {
		return s.freeMissed(p) // unknown (core.freeMissed)
	}
	if !b.free() {
		return s.freeFailed(p)
	}
	if b.class < 0 {
		return nil
	}
	if !s.locked {
		if i := procPin(); uint(i) < uint(len(s.shards)) { // as in Alloc
			if s.shards[i].push(b, s.capacity) {
				procUnpin()
				return nil
			}
			s.freeFull(&s.shards[i], b)
			return nil
		}
		procUnpin()
	} else if sh := s.enter(); sh != nil {
		if sh.push(b, s.capacity) {
			s.exit(sh)
			return nil
		}
		s.freeFull(sh, b)
		return nil
	}
	s.toCentral(b.class, []*block{b})
	return nil
}

// SetPinned implements spec.Pool.
func (s *Sharded) SetPinned(on bool) error {
	if s.closed.Load() {
		return spec.ErrClosed
	}
	s.pinned.Store(on)
	return nil
}

// Trim implements spec.Pool.
func (s *Sharded) Trim() (int64, error) {
	if err := s.lockOpen(); err != nil {
		return 0, err
	}
	defer s.slow.Unlock()
	return s.trimLocked()
}

// trimLocked claims every free, non-frozen class block for release (its
// cache entries go stale and are dropped when popped) and releases it, then
// the large blocks; it also sweeps stale entries out of the central lists.
// Called with slow held.
func (s *Sharded) trimLocked() (int64, error) {
	release, result := s.releaser(false)
	var drop []*block
	s.table.all(func(b *block) {
		if b.class >= 0 && claimRelease(b, 0) {
			drop = append(drop, b)
		}
	})
	for _, b := range drop {
		release(b)
	}
	if len(drop) > 0 {
		for i := range s.index {
			s.index[i].keep(func(b *block) bool { return b.use.Load() != useReleased })
		}
	}
	for i := range s.central {
		c := &s.central[i]
		c.mu.Lock()
		kept := c.free[:0]
		for _, b := range c.free {
			if b.use.Load() == 0 {
				kept = append(kept, b)
			}
		}
		clear(c.free[len(kept):])
		c.free = kept
		c.mu.Unlock()
	}
	s.trimLarge(release)
	return result()
}

// Stats implements spec.Pool.
func (s *Sharded) Stats() spec.Stats {
	if s.closed.Load() {
		return spec.Stats{}
	}
	var hits int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock() // guards hits in locked mode; unused otherwise
		hits += sh.hits
		sh.mu.Unlock()
	}
	for i := range s.central {
		c := &s.central[i]
		c.mu.Lock()
		hits += c.hits
		c.mu.Unlock()
	}
	return s.stats(hits)
}

// Blocks implements spec.Pool.
func (s *Sharded) Blocks() []spec.Block {
	if s.lockOpen() != nil {
		return nil
	}
	defer s.slow.Unlock()
	return s.blocks(s.cachedLocked())
}

// cachedLocked marks every free block cached: a free class block is claimable
// through a cache entry or the table, a free large block is in the large
// list. Called with slow held.
func (s *Sharded) cachedLocked() map[*block]int {
	cached := map[*block]int{}
	s.table.all(func(b *block) {
		if b.class >= 0 && b.use.Load() == 0 {
			cached[b] = 1
		}
	})
	s.countLarge(cached)
	return cached
}

// Close implements spec.Pool.
func (s *Sharded) Close() ([]spec.Block, error) {
	if err := s.lockOpen(); err != nil {
		return nil, err
	}
	defer s.slow.Unlock()
	return s.closeLocked()
}
