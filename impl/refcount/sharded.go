package refcount

import (
	"math/bits"
	"unsafe"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// DefaultShards is the number of shards NewSharded uses. The seed's typical
// configuration is 16, enough when an operation locks one shard; but a
// buffer registration locks the shards of all its holders at once (about
// seven of 16 for a buffer with eight aliases), so two concurrent ones nearly
// always share a shard, and one waits. In one run of the refcount benchmarks
// with both counts side by side (go run ./cmd/verify bench -bench Refcount,
// two cores), 256 shards against 16 took a buffer's lifetime under
// RunParallel from 967 to 691 ns and a register+unregister pair from 59 to
// 48 ns (62 to 31 under RunParallel); a lookup cost 13.9 ns against 12.6
// (the 256 shard headers, two cache lines each, take 32 KiB, two thirds of
// this core's L1), and a sequential buffer's lifetime the same (818 against
// 810 ns).
const DefaultShards = 256

// maxShards bounds NewShardedN; more shards than this only cost memory.
const maxShards = 1 << 12

// Sharded is the seed's registry: pointers are spread over a power-of-two number
// of shards by a mixing hash, each shard a mutex and an open-addressing table
// from pointer to entry (see readIndex). A shared buffer is one record with an
// atomic count; its holders (the real pointer and every alias) usually live in
// different shards.
//
// Every method is safe for concurrent use and linearizable; see the package
// documentation for the argument. IsRegistered takes no lock and is wait-free,
// save one case: if it meets p as a buffer holder in the middle of dropping
// its last share, it takes p's shard lock and waits for the drop to finish.
// Register, Retain, Unregister and Refs lock one shard; RegisterBuffer locks
// the shards of its holders, in index order; Stats, Live and Close lock every
// shard.
type Sharded struct {
	shards []shard
	mask   uint64
	freer  spec.Freer
	closed sched.Bool   // set under every shard lock; read under one, or alone for early answers
	nextID sched.Uint64 // the last BufferID handed out
	scopes scopes

	racyPointers sched.Int64 // used only by a seeded bug (BugRacyCounter)
}

var _ spec.Registry = (*Sharded)(nil)

// shard is one lock and the entries of the pointers that hash to it, padded to
// two cache lines so that neighbouring shards' locks do not share a line (the
// adjacent-line prefetcher pairs lines).
type shard struct {
	shardData
	_ [128 - unsafe.Sizeof(shardData{})%128]byte
}

type shardData struct {
	mu sched.Mutex
	// index is the shard's table of entries, which IsRegistered probes
	// without the lock; nil means nothing is present. Writers replace or
	// change it only under mu (see readIndex).
	index sched.Pointer[readIndex]
	// This shard's contributions to Stats. A buffer is counted in the shard of
	// its real pointer when registered and uncounted in the shard of whichever
	// holder drops its last reference, so one shard's figure may be negative;
	// the sum over all shards, taken under every lock, is exact.
	pointers, buffers int
	bytes             byteCount
}

// buffer is a shared buffer's record. total is the sum of its holders' shares.
// It changes only while the shard of the holder whose share changes is locked,
// by one atomic add, which is the operation's linearization point; so every
// observer sees a holder's share and the total move together.
type buffer struct {
	id    spec.BufferID
	real  spec.Addr
	bytes int64
	kind  spec.Kind
	total sched.Int64
	// visible is every holder's presence in the read indexes: RegisterBuffer
	// sets it once, after all holders are indexed, while all their shards are
	// locked, so lock-free readers see the whole buffer appear at one instant.
	visible sched.Bool
}

// NewSharded returns an empty registry of DefaultShards shards that releases
// memory through f (nil: memory is never released, only forgotten).
func NewSharded(f spec.Freer) *Sharded { return NewShardedN(f, DefaultShards) }

// NewShardedN returns an empty registry with n shards, rounded up to a power of
// two and clamped to [1, 4096].
func NewShardedN(f spec.Freer, n int) *Sharded {
	n = max(1, min(n, maxShards))
	n = 1 << bits.Len(uint(n-1))
	if f == nil {
		f = spec.FreerFunc(func(spec.Addr, int64, spec.Kind) {})
	}
	return &Sharded{shards: make([]shard, n), mask: uint64(n - 1), freer: f}
}

// Shards is the number of shards.
func (s *Sharded) Shards() int { return len(s.shards) }

// ShardOf is the shard that serves p.
func (s *Sharded) ShardOf(p spec.Addr) int {
	if bugs.On(BugIdentityShardHash) {
		return int(uint64(p) & s.mask) // std::hash<void*> is the identity
	}
	return int(mix(p) & s.mask)
}

func (s *Sharded) shardFor(p spec.Addr) *shard { return &s.shards[s.ShardOf(p)] }

// Register records an owned pointer with one reference.
func (s *Sharded) Register(p spec.Addr, bytes int64, kind spec.Kind) error {
	if s.closed.Load() {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	if err := checkRange(p, bytes, kind); err != nil {
		return err
	}
	sh := s.shardFor(p)
	sh.mu.Lock()
	// A Close may have run since the check above: look again, under the lock
	// that Close takes too.
	if s.closed.Load() && !bugs.On(BugCloseCheckOnce) {
		sh.mu.Unlock()
		return spec.ErrClosed
	}
	if bugs.On(BugStatsOutOfStep) { // counted before the duplicate check
		sh.pointers++
		sh.bytes.add(bytes)
	}
	if sh.get(p) != nil {
		sh.mu.Unlock()
		return alreadyRegistered(p)
	}
	sh.claim(p).own(bytes, kind)
	if !bugs.On(BugStatsOutOfStep) {
		sh.pointers++
		sh.bytes.add(bytes)
	}
	sh.mu.Unlock()
	if bugs.On(BugRacyCounter) {
		v := s.racyPointers.Load()
		s.racyPointers.Store(v + 1)
	}
	return nil
}

// Retain adds a reference held by p.
func (s *Sharded) Retain(p spec.Addr) error {
	if s.closed.Load() && !bugs.On(BugRetainAfterClose) {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	sh := s.shardFor(p)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s.closed.Load() && !bugs.On(BugRetainAfterClose) {
		return spec.ErrClosed
	}
	e := sh.get(p)
	if e == nil {
		return notRegistered(p)
	}
	if rec := e.rec.Load(); rec != nil && e.state.Load()&stateTagMask == stateHolder {
		// p's share keeps the total at 1 or more while the shard is locked, so
		// this cannot revive a freed buffer.
		rec.total.Add(1)
	}
	e.share++
	return nil
}

// Unregister drops one reference held by p; the last reference of the
// registration frees it, before Unregister returns.
func (s *Sharded) Unregister(p spec.Addr) error {
	if s.closed.Load() {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	sh := s.shardFor(p)
	sh.mu.Lock()
	if s.closed.Load() {
		sh.mu.Unlock()
		return spec.ErrClosed
	}
	e, at := sh.getAt(p)
	if e == nil {
		sh.mu.Unlock()
		return notRegistered(p)
	}
	e.share--
	if e.state.Load()&stateTagMask == stateOwned {
		// In line, not in a function of its own: the call alone was 2%
		// of a Register and Unregister pair (callgrind).
		if e.share > 0 {
			sh.mu.Unlock()
			return nil
		}
		e.setState(stateAbsent) // the slot may be reused once unlocked
		bytes, kind := e.bytes, e.kind
		sh.pointers--
		sh.bytes.sub(bytes)
		sh.mu.Unlock()
		if bugs.On(BugRacyCounter) {
			v := s.racyPointers.Load()
			s.racyPointers.Store(v - 1)
		}
		s.freer.Free(p, bytes, kind)
		return nil
	}
	s.dropHolder(sh, e, at)
	return nil
}

// dropHolder ends Unregister of a buffer holder, whose entry e (at slot at
// of sh's index) has just lost a share: one reference leaves the buffer's
// total, and the last one frees the buffer. Called with sh locked; unlocks
// it.
func (s *Sharded) dropHolder(sh *shard, e *indexSlot, at uint64) {
	rec, share := e.rec.Load(), e.share
	// p's last share goes at the add below, but a lock-free reader cannot see
	// the add and the state change as one step: while the state is leaving, a
	// reader that meets p asks under the lock. A total of 1 is p's own share:
	// no other holder is left to observe the count, so p can just go absent.
	leaving := share == 0 && rec.total.Load() > 1
	switch {
	case leaving:
		e.setState(stateLeaving)
	case share == 0:
		e.setState(stateAbsent)
	}
	if bugs.On(BugLateTotal) {
		// The total drops after the shard is unlocked, "to shorten the
		// critical section": p's share and the total no longer move together.
		if leaving {
			e.setState(stateAbsent)
		}
		sh.mu.Unlock()
		if s.dropTotal(rec, share) {
			sh.mu.Lock()
			sh.buffers--
			sh.bytes.sub(rec.bytes)
			sh.mu.Unlock()
			s.freer.Free(rec.real, rec.bytes, rec.kind)
		}
		return
	}
	last := s.dropTotal(rec, share)
	if leaving {
		sh.index.Load().release(at)
	}
	if last {
		sh.buffers--
		sh.bytes.sub(rec.bytes)
	}
	sh.mu.Unlock()
	if last {
		s.freer.Free(rec.real, rec.bytes, rec.kind)
	}
}

// dropTotal drops one reference from rec's total and reports whether it was
// the last: one atomic decrement, so of two holders dropping the last two
// references at the same instant exactly one sees zero. ownShare is the
// dropping pointer's share after the drop (only a seeded bug looks at it).
func (s *Sharded) dropTotal(rec *buffer, ownShare int64) bool {
	switch {
	case bugs.On(BugCheckThenSubtract):
		old := rec.total.Load()
		rec.total.Store(old - 1)
		return old == 1
	case bugs.On(BugDoubleFreeRace):
		rec.total.Add(-1)
		return rec.total.Load() == 0
	case bugs.On(BugAliasOwnCount) && ownShare == 0:
		rec.total.Add(-1)
		return true // the alias frees at its own count, not the buffer's
	}
	return rec.total.Add(-1) == 0
}

// IsRegistered reports whether p holds a reference. It probes the shard's
// table without locking, then checks closed, so an answer of true was true at
// the probe and the registry was still open after it. Only if it meets p as a
// buffer holder in the middle of dropping its last share does it take the
// shard lock, which that drop holds until it is over.
func (s *Sharded) IsRegistered(p spec.Addr) bool {
	sh := s.shardFor(p)
	ix := sh.index.Load()
	if ix == nil {
		return false
	}
	ok, sure := ix.lookup(p)
	if !sure {
		sh.mu.Lock()
		ok = sh.get(p) != nil
		sh.mu.Unlock()
	}
	return ok && !s.closed.Load()
}

// Refs returns the whole count of the registration p belongs to, 0 if none.
func (s *Sharded) Refs(p spec.Addr) int64 {
	sh := s.shardFor(p)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.get(p)
	switch {
	case e == nil || s.closed.Load():
		return 0
	case e.state.Load()&stateTagMask == stateHolder:
		return e.rec.Load().total.Load()
	}
	return e.share
}
