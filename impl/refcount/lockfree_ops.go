package refcount

import (
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// outcome tells a lock-free operation's driver loop what to do next.
type outcome uint8

const (
	done       outcome = iota // the operation took effect (or failed for good)
	retry                     // the table or a record is frozen: wait for the rebuild, then retry
	needResize                // no acceptable free slot: rebuild, then retry
)

// Register records an owned pointer with one reference.
func (lf *LockFree) Register(p spec.Addr, bytes int64, kind spec.Kind) error {
	t := lf.tab.Load()
	if t.closed {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	if err := checkRange(p, bytes, kind); err != nil {
		return err
	}
	for {
		o, err := lf.register(t, p, bytes, kind)
		switch o {
		case done:
			return err
		case retry:
			lf.waitRebuild()
		case needResize:
			lf.grow(t, 1)
		}
		if t = lf.tab.Load(); t.closed {
			return spec.ErrClosed
		}
	}
}

func (lf *LockFree) register(t *table, p spec.Addr, bytes int64, kind spec.Kind) (outcome, error) {
	sl, s, o := claim(t, p)
	if o != done || sl == nil {
		if o == done {
			return done, alreadyRegistered(p)
		}
		return o, nil
	}
	// The slot is ours (state s: empty or pending): fill it, then publish.
	sl.bytes.Store(bytes)
	if !sl.state.CompareAndSwap(s, mkState(stLive, kind, gen(s), 1)) {
		return retry, nil // only a rebuild touches a claimed slot: it froze it
	}
	return done, nil
}

// claim finds p's slot in t and takes ownership of it for a new registration
// of p: a never-used slot at the end of p's probe chain (key 0 → p), or p's own
// dead slot (dead → pending, next generation). It returns the slot and the
// state the claimant now owns; a nil slot with outcome done means p is already
// registered. It waits (sched.Yield) while another goroutine owns p's slot.
func claim(t *table, p spec.Addr) (*slot, uint64, outcome) {
	i := t.home(p)
	for d := 0; d < len(t.slots); d, i = d+1, (i+1)&t.mask {
		sl := &t.slots[i]
		k := spec.Addr(sl.key.Load())
		if k == 0 {
			if d > t.limit {
				return nil, 0, needResize
			}
			if sl.key.CompareAndSwap(0, uint64(p)) {
				return sl, 0, done // a fresh claim owns the empty state
			}
			k = spec.Addr(sl.key.Load())
		}
		if k != p {
			if bugs.On(BugTombstoneReuse) {
				// Reuse another key's tombstone on the way, without looking for
				// p further along the chain.
				if s := sl.state.Load(); status(s) == stDead && !frozen(s) {
					ps := mkState(stPending, 0, nextGen(s), 0)
					if sl.state.CompareAndSwap(s, ps) {
						sl.key.Store(uint64(p))
						return sl, ps, done
					}
				}
			}
			continue
		}
		for {
			s := sl.state.Load()
			if frozen(s) {
				return nil, 0, retry
			}
			switch status(s) {
			case stLive:
				return nil, 0, done
			case stHolder:
				v, o := sl.rec.Load().load()
				if o != done {
					return nil, 0, o
				}
				if v.phase == phPending { // a RegisterBuffer is listing p
					sched.Yield()
					continue
				}
				if v.phase == phLive && v.share(p) > 0 && !bugs.On(BugStaleHolderReuse) {
					return nil, 0, done
				}
			case stEmpty, stPending: // another Register of p is publishing
				sched.Yield()
				continue
			}
			// Dead, or a holder of a buffer in which p no longer holds: revive,
			// in the next generation, so that a CAS prepared against the
			// state of the registration that ended fails.
			g := nextGen(s)
			if bugs.On(BugReviveSameGen) {
				g = gen(s)
			}
			ps := mkState(stPending, 0, g, 0)
			if sl.state.CompareAndSwap(s, ps) {
				return sl, ps, done
			}
		}
	}
	return nil, 0, needResize
}

// Retain adds a reference held by p.
func (lf *LockFree) Retain(p spec.Addr) error { return lf.update(p, +1) }

// Unregister drops one reference held by p; the last reference of the
// registration frees it, before Unregister returns.
func (lf *LockFree) Unregister(p spec.Addr) error { return lf.update(p, -1) }

// update is Retain (d = +1) and Unregister (d = -1).
func (lf *LockFree) update(p spec.Addr, d int64) error {
	t := lf.tab.Load()
	if t.closed {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	for {
		o, err := lf.updateIn(t, p, d)
		if o == done {
			return err
		}
		lf.waitRebuild()
		if t = lf.tab.Load(); t.closed {
			return spec.ErrClosed
		}
	}
}

func (lf *LockFree) updateIn(t *table, p spec.Addr, d int64) (outcome, error) {
	sl := t.find(p)
	if sl == nil {
		if lf.tab.Load() != t { // the chain was read in a table already replaced
			return retry, nil
		}
		return done, notRegistered(p)
	}
	for {
		s := sl.state.Load()
		if frozen(s) {
			return retry, nil
		}
		switch status(s) {
		case stLive:
			n := count(s) + d
			if n > int64(countMask) {
				return done, fmt.Errorf("%w: %#x holds %d references, the most this table counts", spec.ErrInvalidSize, uint64(p), count(s))
			}
			if n > 0 {
				if sl.state.CompareAndSwap(s, s+uint64(d)) { // d = ±1 changes only the count bits
					return done, nil
				}
				continue
			}
			bytes := sl.bytes.Load() // the generation in s proves it belongs to this registration
			if sl.state.CompareAndSwap(s, mkState(stDead, 0, gen(s), 0)) {
				lf.freer.Free(p, bytes, kindOf(s))
				return done, nil
			}
		case stHolder:
			return lf.updateHolder(sl, s, p, d)
		default:
			return done, notRegistered(p) // dead, or a registration not yet published
		}
	}
}

// updateHolder changes p's share of the buffer its slot (in state s) belongs
// to: one CAS of the buffer's counts, which frees when the total reaches zero.
func (lf *LockFree) updateHolder(sl *slot, s uint64, p spec.Addr, d int64) (outcome, error) {
	rec := sl.rec.Load()
	last, left, held, o := rec.update(p, d)
	switch {
	case o != done:
		return o, nil
	case !held:
		return done, notRegistered(p)
	}
	if last {
		lf.freer.Free(rec.real, rec.bytes, rec.kind)
	}
	if left == 0 || bugs.On(BugTombstoneOnDecref) && d < 0 {
		// p no longer holds: mark its slot dead so lookups stop there.
		// Failure is harmless: the slot was revived or frozen meanwhile,
		// and a holder slot whose pointer holds no share reads as dead.
		sl.state.CompareAndSwap(s, mkState(stDead, 0, gen(s), 0))
	}
	return done, nil
}

// IsRegistered reports whether p holds a reference.
func (lf *LockFree) IsRegistered(p spec.Addr) bool {
	_, ok := lf.lookup(p)
	return ok
}

// Refs returns the whole count of the registration p belongs to, 0 if none.
func (lf *LockFree) Refs(p spec.Addr) int64 {
	n, _ := lf.lookup(p)
	return n
}

// lookup answers Refs and IsRegistered from one consistent read: an unfrozen
// state word, or an unfrozen buffer state.
func (lf *LockFree) lookup(p spec.Addr) (int64, bool) {
	for {
		t := lf.tab.Load()
		if t.closed {
			return 0, false
		}
		n, ok, o := lookupIn(t, p)
		if o == done && (n > 0 || lf.tab.Load() == t) {
			return n, ok
		}
		if o == retry {
			lf.waitRebuild()
		}
	}
}

func lookupIn(t *table, p spec.Addr) (int64, bool, outcome) {
	sl := t.find(p)
	if sl == nil {
		return 0, false, done
	}
	s := sl.state.Load()
	if frozen(s) {
		return 0, false, retry
	}
	switch status(s) {
	case stLive:
		return count(s), true, done
	case stHolder:
		rec := sl.rec.Load()
		v, o := rec.load()
		if o != done {
			return 0, false, o
		}
		if v.phase != phLive || v.share(p) == 0 {
			return 0, false, done
		}
		if bugs.On(BugRefsTwoLoads) {
			v, _ = rec.load()
			return v.total, true, done
		}
		return v.total, true, done
	}
	return 0, false, done
}
