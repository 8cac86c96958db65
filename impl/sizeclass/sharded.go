package sizeclass

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// Sharded puts small per-shard caches in front of central per-class lists,
// as tcmalloc puts per-CPU caches in front of its transfer caches. A
// goroutine finds "its" shard through a sync.Pool of shard handles: the pool
// keeps one handle per P, so calls from one P keep meeting the same shard and
// its lock is rarely contended. The handles carry no blocks, so the pool
// dropping them at a GC loses nothing. A freed block returns to the shard of
// the Alloc that took it from a cache, so Free needs no handle. A shard
// holds at most Capacity blocks per class; a Free that overflows moves the
// older half to the central list.
//
// A miss in the shard tries the central list, then every other shard, and
// only then the device, so the pool never holds more device memory than the
// model would. Device calls, large blocks, Trim and Close share core's mutex.
// Close must not race other calls.
type Sharded struct {
	core
	shards   []shard
	central  []central
	capacity int
	spread   bool
	handles  sync.Pool // of *shard
	rr       atomic.Uint32
}

// ShardedOptions tunes a Sharded pool; zero fields take the defaults.
type ShardedOptions struct {
	Shards   int // default GOMAXPROCS
	Capacity int // blocks per class per shard, default 32
	// Spread makes every call take the next shard in turn instead of the
	// shard of its P. It defeats the point of sharding, but it drives a
	// single goroutine through flushes and steals, so sequential tests
	// exercise the cross-shard paths.
	Spread bool
}

// shard and central count the blocks taken from them (hits) under their own
// lock, so a hit costs no atomic beyond the lock it already takes.
type shard struct {
	mu    sync.Mutex
	cache [][]*block // per class, LIFO
	hits  int64
	_     [128 - 40]byte // one shard per 128 bytes: no false sharing between Ps
}

type central struct {
	mu   sync.Mutex
	free []*block
	hits int64
	_    [128 - 40]byte
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
	s.capacity, s.spread = opt.Capacity, opt.Spread
	s.shards = make([]shard, opt.Shards)
	for i := range s.shards {
		// The spare capacity keeps this shard's list headers off the cache
		// lines of the previous shard's, allocated just before.
		s.shards[i].cache = make([][]*block, len(s.cls.sizes), len(s.cls.sizes)+6)
	}
	s.central = make([]central, len(s.cls.sizes))
	s.handles.New = func() any {
		return &s.shards[int(s.rr.Add(1))%len(s.shards)]
	}
	return s, nil
}

// Alloc implements spec.Pool.
func (s *Sharded) Alloc(n int64) (spec.Addr, error) {
	size, class, done, err := s.check(n)
	if done {
		return 0, err
	}
	if class < 0 {
		return s.allocLarge(n, size, s.trimLocked)
	}
	sh := s.acquire()
	sh.mu.Lock()
	b := popLast(&sh.cache[class])
	if b != nil {
		sh.hits++
	}
	sh.mu.Unlock()
	s.release(sh)
	if b == nil {
		b = s.takeCached(class)
	}
	if b != nil {
		b.home = sh
		return s.handOut(b, n, false), nil
	}
	s.slow.Lock()
	defer s.slow.Unlock()
	// A block may have been freed since the search: the device is asked only
	// when no cache holds one.
	if b := s.takeCached(class); b != nil {
		b.home = sh
		return s.handOut(b, n, false), nil
	}
	return s.mallocLocked(n, size, class, s.trimLocked)
}

// acquire returns the calling goroutine's shard; release gives it back.
func (s *Sharded) acquire() *shard {
	if s.spread {
		return &s.shards[int(s.rr.Add(1))%len(s.shards)]
	}
	return s.handles.Get().(*shard)
}

func (s *Sharded) release(sh *shard) {
	if !s.spread {
		s.handles.Put(sh)
	}
}

// takeCached takes a block of class from the central list or any shard.
func (s *Sharded) takeCached(class int) *block {
	c := &s.central[class]
	c.mu.Lock()
	b := popLast(&c.free)
	if b != nil {
		c.hits++
	}
	c.mu.Unlock()
	if b != nil || bugs.On(BugMallocBeforeSteal) {
		return b
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		b = popLast(&sh.cache[class])
		if b != nil {
			sh.hits++
		}
		sh.mu.Unlock()
		if b != nil {
			return b
		}
	}
	return nil
}

func popLast(l *[]*block) *block {
	n := len(*l)
	if n == 0 {
		return nil
	}
	b := (*l)[n-1]
	(*l)[n-1] = nil
	*l = (*l)[:n-1]
	return b
}

// Free implements spec.Pool.
func (s *Sharded) Free(p spec.Addr) error {
	b, err := s.lookup(p)
	if b == nil {
		return err
	}
	if !b.free() {
		return errDoubleFree(p)
	}
	if b.class < 0 {
		return nil
	}
	// A block goes back to the shard whose Alloc took it (usually the
	// caller's own), which spares a handle lookup; a block fresh from the
	// device goes to the caller's shard.
	sh := b.home
	if sh == nil || s.spread {
		sh = s.acquire()
		defer s.release(sh)
	}
	sh.mu.Lock()
	l := append(sh.cache[b.class], b)
	if len(l) > s.capacity {
		l = s.flush(b.class, l)
	}
	sh.cache[b.class] = l
	sh.mu.Unlock()
	return nil
}

// flush moves the older half of a full shard list to the central list and
// returns what stays. Called with the shard's lock held.
func (s *Sharded) flush(class int, l []*block) []*block {
	half := len(l) / 2
	c := &s.central[class]
	c.mu.Lock()
	c.free = append(c.free, l[:half]...)
	c.mu.Unlock()
	if bugs.On(BugFlushDuplicates) {
		return l
	}
	n := copy(l, l[half:])
	clear(l[n:])
	return l[:n]
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
	if s.closed.Load() {
		return 0, spec.ErrClosed
	}
	s.slow.Lock()
	defer s.slow.Unlock()
	return s.trimLocked()
}

// trimLocked releases the non-frozen blocks of every central list and shard,
// one lock at a time. Called with slow held.
func (s *Sharded) trimLocked() (int64, error) {
	release, result := s.releaser(false)
	keep := func(mu *sync.Mutex, l *[]*block) {
		mu.Lock()
		var drop []*block
		kept := (*l)[:0]
		for _, b := range *l {
			if b.frozen.Load() {
				kept = append(kept, b)
			} else {
				drop = append(drop, b)
			}
		}
		clear((*l)[len(kept):])
		*l = kept
		mu.Unlock()
		for _, b := range drop {
			release(b)
		}
	}
	for i := range s.central {
		keep(&s.central[i].mu, &s.central[i].free)
	}
	for i := range s.shards {
		for c := range s.shards[i].cache {
			keep(&s.shards[i].mu, &s.shards[i].cache[c])
		}
	}
	s.trimLarge(release)
	return result()
}

// Stats implements spec.Pool.
func (s *Sharded) Stats() spec.Stats {
	st := s.stats()
	if s.closed.Load() {
		return st
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		st.Hits += sh.hits
		sh.mu.Unlock()
	}
	for i := range s.central {
		c := &s.central[i]
		c.mu.Lock()
		st.Hits += c.hits
		c.mu.Unlock()
	}
	return st
}

// Blocks implements spec.Pool.
func (s *Sharded) Blocks() []spec.Block {
	if s.closed.Load() {
		return nil
	}
	s.slow.Lock()
	defer s.slow.Unlock()
	return s.blocks(s.cachedLocked())
}

func (s *Sharded) cachedLocked() map[*block]int {
	cached := map[*block]int{}
	for i := range s.central {
		c := &s.central[i]
		c.mu.Lock()
		for _, b := range c.free {
			cached[b]++
		}
		c.mu.Unlock()
	}
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, l := range sh.cache {
			for _, b := range l {
				cached[b]++
			}
		}
		sh.mu.Unlock()
	}
	s.countLarge(cached)
	return cached
}

// Close implements spec.Pool.
func (s *Sharded) Close() ([]spec.Block, error) {
	if s.closed.Load() {
		return nil, spec.ErrClosed
	}
	s.slow.Lock()
	defer s.slow.Unlock()
	all := s.blocks(s.cachedLocked())
	s.closed.Store(true)
	return closeAll(s.dev, all)
}
