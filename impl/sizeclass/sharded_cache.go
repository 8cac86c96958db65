// Sharded's caches: the per-P shard lists, popped and pushed while pinned,
// the central list behind them, and the miss path that takes a block from
// the central list or steals a free one that another P's cache lists
// (overview at the type, in sharded.go).

package sizeclass

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// shard is one P's cache: per class a LIFO of at most capacity entries,
// class c's being slots[c*capacity:][:n[c]]. Its fields are touched only by
// the goroutine pinned to the P (or under mu in locked mode). Counts and
// slots are kept apart so that a push or pop writes one int32 and at most
// one pointer (no slice header, whose store costs a write barrier check).
type shard struct {
	mu    sched.Mutex
	n     []int32
	slots []*block
	hits  int64
	_     [128 - 64]byte // one shard per 128 bytes: no false sharing between Ps
}

// pop claims the newest block of class that is still free, for a request
// of n bytes; entries whose block was claimed elsewhere or released are
// dropped on the way. byStore is the seeded bug that takes the block with a
// store, as if the list were the only place that could hand it out.
//
// pop and push run on every cached call: they index slots directly and
// reach the count through one pointer, so that each call checks each
// index once (a subslice of the class's entries costs two more checks and
// its arithmetic, and every access to n[class] one more).
func (sh *shard) pop(class, capacity int, n int64, byStore bool) *block {
	count := &sh.n[class]
	base := class * capacity
	for k := int(*count); k > 0; {
		k--
		b := sh.slots[base+k]
		if byStore {
			b.use.Store(n)
		} else if !b.use.CompareAndSwap(0, n) {
			continue
		}
		*count = int32(k)
		return b
	}
	*count = 0
	return nil
}

// push lists b in its class; false if the list is full.
func (sh *shard) push(b *block, capacity int) bool {
	class := b.class
	count := &sh.n[class]
	k := int(*count)
	if k == capacity {
		return false
	}
	sh.slots[class*capacity+k] = b
	*count = int32(k + 1)
	return true
}

// central is a class's list behind the shards, with the hits it served.
type central struct {
	mu   sched.Mutex
	free []*block
	hits int64
	_    [128 - 40]byte
}

// flushMax bounds how many blocks a full shard list moves to the central list
// at once (the older half, at most this many).
const flushMax = 16

// allocMiss serves a class request that the caller's shard could not.
func (s *Sharded) allocMiss(n int64, class int) (spec.Addr, error) {
	if b := s.takeCached(class, n); b != nil {
		return s.freeze(b), nil
	}
	if err := s.lockOpen(); err != nil {
		return 0, err
	}
	defer s.slow.Unlock()
	// A block may have been freed since the search: the device is asked only
	// when no cache holds one.
	if b := s.takeCached(class, n); b != nil {
		return s.freeze(b), nil
	}
	return s.mallocLocked(n, s.cls.sizes[class], class, s.trimLocked)
}

// claimFrom pops l until it claims a block for a request of n bytes, nil if
// l runs out. An entry whose block was claimed elsewhere or released is
// dropped.
func claimFrom(l *[]*block, n int64) *block {
	for {
		k := len(*l)
		if k == 0 {
			return nil
		}
		b := (*l)[k-1]
		(*l)[k-1] = nil
		*l = (*l)[:k-1]
		if b.use.CompareAndSwap(0, n) {
			return b
		}
	}
}

// takeCached claims a block of class from the central list or, failing
// that, any free block of the class (one that sits in another shard's
// cache).
func (s *Sharded) takeCached(class int, n int64) *block {
	c := &s.central[class]
	c.mu.Lock()
	b := claimFrom(&c.free, n)
	if b != nil {
		c.hits++
	}
	c.mu.Unlock()
	if b != nil || bugs.On(BugMallocBeforeSteal) {
		return b
	}
	return s.steal(class, n)
}

// stealHints is how many more free blocks a steal lists in the thief's own
// cache, so that a P short of blocks of a class does not scan for each one.
const stealHints = 8

// steal claims the first free block of class in the class index and lists
// up to stealHints more free ones in the caller's shard. Those stay listed
// where they were too: whoever claims one first gets it, and the other
// entry goes stale.
func (s *Sharded) steal(class int, n int64) *block {
	var got *block
	var hints [stealHints]*block
	k := 0
	for _, b := range s.index[class].load() {
		if b.use.Load() != 0 {
			continue
		}
		if got == nil {
			if b.use.CompareAndSwap(0, n) {
				got = b
			}
			continue
		}
		hints[k] = b
		if k++; k == len(hints) {
			break
		}
	}
	if got == nil {
		return nil
	}
	s.hits.Add(1)
	if k > 0 {
		if sh := s.enter(); sh != nil {
			for _, h := range hints[:k] {
				if !sh.push(h, s.capacity) {
					break
				}
			}
			s.exit(sh)
		}
	}
	return got
}

// freeFull frees b into sh's full list for its class, entered by the
// caller: the older half of the list (at most flushMax blocks) moves to the
// central list, after exit.
func (s *Sharded) freeFull(sh *shard, b *block) {
	var spill [flushMax]*block
	base := b.class * s.capacity
	l := sh.slots[base : base+s.capacity]
	k := copy(spill[:], l[:max(len(l)/2, 1)])
	n := copy(l, l[k:])
	l[n] = b
	sh.n[b.class] = int32(n + 1)
	s.exit(sh)
	s.toCentral(b.class, spill[:k])
}

func (s *Sharded) toCentral(class int, bs []*block) {
	c := &s.central[class]
	c.mu.Lock()
	c.free = append(c.free, bs...)
	c.mu.Unlock()
}
