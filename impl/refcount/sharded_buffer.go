package refcount

import (
	"math/bits"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
)

// RegisterBuffer records a shared buffer [real, real+bytes): real and every
// listed alias hold one reference per listing. It locks the shards of all its
// holders in index order (the order every multi-shard operation uses), so the
// registration appears at once and all or nothing.
func (s *Sharded) RegisterBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) (spec.BufferID, error) {
	if s.closed.Load() {
		return 0, spec.ErrClosed
	}
	if err := checkBuffer(real, bytes, aliases, kind); err != nil {
		return 0, err
	}
	var hbuf [16]share // small lists stay on the stack
	holders := shares(hbuf[:0], real, aliases)
	// Allocated before locking, to keep the critical section short; dropped
	// if the registration fails.
	rec := &buffer{real: real, bytes: bytes, kind: kind}
	var ibuf [16]int
	idx := s.shardsOf(ibuf[:0], holders)
	for _, i := range idx {
		s.shards[i].mu.Lock()
	}
	defer func() {
		for _, i := range idx {
			s.shards[i].mu.Unlock()
		}
	}()
	if s.closed.Load() {
		return 0, spec.ErrClosed
	}
	rec.total.Store(int64(len(aliases) + 1))
	if err := s.checkHolders(rec, holders); err != nil {
		return 0, err
	}
	rec.id = spec.BufferID(s.nextID.Add(1))
	s.holdAll(rec, holders)
	// The linearization point for lock-free readers: every holder appears now.
	rec.visible.Store(true)
	home := s.shardFor(real)
	home.buffers++
	home.bytes.add(bytes)
	return rec.id, nil
}

// shardsOf appends to idx the indexes of the shards the holders live in,
// sorted and without repeats: the order RegisterBuffer locks them in.
func (s *Sharded) shardsOf(idx []int, holders []share) []int {
	if len(s.shards) > 64*len(shardSet{}) {
		for _, h := range holders {
			idx = append(idx, s.ShardOf(h.p))
		}
		slices.Sort(idx)
		return slices.Compact(idx)
	}
	// A set of shard indexes in a few words comes out sorted and without
	// repeats, with no sort.
	var set shardSet
	for _, h := range holders {
		i := s.ShardOf(h.p)
		set[i/64] |= 1 << uint(i%64)
	}
	for w, word := range set {
		for ; word != 0; word &= word - 1 {
			idx = append(idx, w*64+bits.TrailingZeros64(word))
		}
	}
	return idx
}

// checkHolders answers ErrAlreadyRegistered if a holder is registered
// already. Called with the holders' shards locked.
func (s *Sharded) checkHolders(rec *buffer, holders []share) error {
	if bugs.On(BugBufferNotAtomic) {
		// Holders go in one by one, each visible at once; a conflict half way
		// leaves the first ones.
		rec.visible.Store(true)
		for _, h := range holders {
			sh := s.shardFor(h.p)
			if sh.get(h.p) != nil {
				return alreadyRegistered(h.p)
			}
			sh.claim(h.p).hold(rec, h.n)
		}
		return nil
	}
	for _, h := range holders {
		if s.shardFor(h.p).get(h.p) != nil {
			return alreadyRegistered(h.p)
		}
	}
	return nil
}

// holdAll gives every holder its share of rec, after checkHolders found
// none registered. Called with the holders' shards locked.
func (s *Sharded) holdAll(rec *buffer, holders []share) {
	for _, h := range holders {
		n := h.n
		if bugs.On(BugAliasSet) {
			n = 1 // a set of aliases: a repeated listing is counted but not stored
		}
		sh := s.shardFor(h.p)
		var sl *indexSlot
		if bugs.On(BugBufferNotAtomic) {
			sl = sh.get(h.p) // checkHolders made it a holder already
		} else {
			sl = sh.claim(h.p) // checked by checkHolders: p holds no share
		}
		sl.hold(rec, n)
	}
}

// shardSet is a set of shard indexes below 256 (DefaultShards), one bit each.
type shardSet [4]uint64

// lockAll locks every shard in index order.
func (s *Sharded) lockAll() {
	for i := range s.shards {
		s.shards[i].mu.Lock()
	}
}

func (s *Sharded) unlockAll() {
	for i := range s.shards {
		s.shards[i].mu.Unlock()
	}
}

// Stats sums the shards' counters under every shard lock: a consistent
// snapshot, at the cost of taking every lock.
func (s *Sharded) Stats() spec.Stats {
	s.lockAll()
	defer s.unlockAll()
	var st spec.Stats
	if s.closed.Load() {
		return st
	}
	var bytes byteCount
	for i := range s.shards {
		sh := &s.shards[i]
		st.Pointers += sh.pointers
		st.Buffers += sh.buffers
		bytes = bytes.plus(sh.bytes)
	}
	st.Bytes = bytes.saturated()
	if bugs.On(BugRacyCounter) {
		st.Pointers = int(s.racyPointers.Load())
	}
	return st
}

// Live is the leak report, taken under every shard lock.
func (s *Sharded) Live() []spec.Registration {
	s.lockAll()
	defer s.unlockAll()
	if s.closed.Load() {
		return nil
	}
	return s.liveLocked()
}

// liveLocked builds the leak report; every shard is locked.
func (s *Sharded) liveLocked() []spec.Registration {
	out := []spec.Registration{}
	bufs := map[*buffer]int{} // record → index in out
	for i := range s.shards {
		ix := s.shards[i].index.Load()
		if ix == nil {
			continue
		}
		for k := range ix.slots {
			e := &ix.slots[k]
			p := spec.Addr(e.key.Load())
			switch {
			case !e.present():
				continue
			case e.state.Load()&stateTagMask == stateOwned:
				out = append(out, spec.Registration{Real: p, Bytes: e.bytes, Kind: e.kind, Refs: e.share, Holders: []spec.Addr{p}})
				continue
			}
			r := e.rec.Load()
			j, ok := bufs[r]
			if !ok {
				j = len(out)
				bufs[r] = j
				out = append(out, spec.Registration{Real: r.real, Bytes: r.bytes, Kind: r.kind, Refs: r.total.Load(), Buffer: r.id})
			}
			out[j].Holders = append(out[j].Holders, p)
		}
	}
	for i := range out {
		slices.Sort(out[i].Holders)
	}
	sortRegistrations(out)
	return out
}

// Close frees every live registration, in address order, and returns them.
// The frees happen after the shards are unlocked, so a Freer may call back into
// the registry (and get ErrClosed).
func (s *Sharded) Close() ([]spec.Registration, error) {
	s.scopes.mu.Lock()
	defer s.scopes.mu.Unlock()
	s.lockAll()
	if s.closed.Load() {
		s.unlockAll()
		return nil, spec.ErrClosed
	}
	leaked := s.liveLocked()
	s.closed.Store(true)
	for i := range s.shards {
		sh := &s.shards[i]
		sh.index.Store(nil) // after closed: a reader that still finds p sees closed
		sh.pointers, sh.buffers, sh.bytes = 0, 0, byteCount{}
	}
	s.unlockAll()
	s.scopes.close()
	for _, r := range leaked {
		s.freer.Free(r.Real, r.Bytes, r.Kind)
	}
	return leaked, nil
}

// Enter opens a scope.
func (s *Sharded) Enter() {
	if !s.closed.Load() {
		s.scopes.enter()
	}
}

// Track hands one reference p already holds to the innermost scope.
func (s *Sharded) Track(p spec.Addr) error {
	if s.closed.Load() {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	return s.scopes.track(p, s.IsRegistered)
}

// Promote moves one tracked reference of p to the enclosing scope, or back to
// the caller at the outermost scope.
func (s *Sharded) Promote(p spec.Addr) error {
	if s.closed.Load() {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	return s.scopes.promote(p)
}

// Exit closes the innermost scope and releases what it still tracks, newest
// first. Each release is its own Unregister: Exit as a whole is not one atomic
// step, but two Exits never interleave.
func (s *Sharded) Exit() error {
	if s.closed.Load() {
		return spec.ErrClosed
	}
	return s.scopes.exit(s.Unregister, true)
}
