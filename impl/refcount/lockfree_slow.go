// LockFree's methods that take a mutex: RegisterBuffer (the slow-path mutex
// held shared, so it runs alongside the lock-free operations), Stats and
// Live (read from a frozen snapshot), Close, and the scope calls (behind
// the scopes' own mutex). Overview at the type, in lockfree.go.

package refcount

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
)

// RegisterBuffer records a shared buffer [real, real+bytes): real and every
// listed alias hold one reference per listing. It holds the slow-path mutex
// shared (so no rebuild can start meanwhile) and runs alongside lock-free
// operations and other RegisterBuffers: it claims every holder's slot, in
// address order, for a pending record, then makes the record live with one
// store, its linearization point. Until then the holders read as
// not registered; a conflict found on the way aborts the record and releases
// the slots it claimed.
func (lf *LockFree) RegisterBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) (spec.BufferID, error) {
	if lf.tab.Load().closed {
		return 0, spec.ErrClosed
	}
	if err := checkBuffer(real, bytes, aliases, kind); err != nil {
		return 0, err
	}
	holders := shares(make([]share, 0, holdersRoom(len(aliases))), real, aliases)
	for {
		lf.mu.RLock()
		t := lf.tab.Load()
		if t.closed {
			lf.mu.RUnlock()
			return 0, spec.ErrClosed
		}
		rec := newRecord(real, bytes, kind, holders)
		var cbuf [16]*slot
		claimed := cbuf[:0]
		var conflict spec.Addr
		full := false
		for _, h := range holders {
			sl, s, o := claim(t, h.p)
			if o != done { // needResize (retry cannot happen: rebuilds wait for lf.mu)
				full = true
				break
			}
			if sl == nil {
				conflict = h.p
				break
			}
			sl.rec.Store(rec)
			ns := mkState(stHolder, 0, gen(s), 0)
			sl.state.CompareAndSwap(s, ns) // cannot fail: only a rebuild touches a claimed slot
			claimed = append(claimed, sl)
		}
		if !full && conflict == 0 {
			rec.id = spec.BufferID(lf.nextID.Add(1))
			rec.publish()
			lf.mu.RUnlock()
			return rec.id, nil
		}
		rec.abort()
		for _, sl := range claimed {
			s := sl.state.Load()
			if status(s) == stHolder && sl.rec.Load() == rec {
				sl.state.CompareAndSwap(s, mkState(stDead, 0, gen(s), 0))
			}
		}
		lf.mu.RUnlock()
		if !full {
			return 0, alreadyRegistered(conflict)
		}
		lf.grow(t, len(holders))
	}
}

// Stats counts what a frozen snapshot of the table holds: consistent, but
// O(capacity) and it stops writers while it runs.
func (lf *LockFree) Stats() spec.Stats {
	var st spec.Stats
	var bytes byteCount
	for _, r := range lf.snapshot() {
		if r.Buffer == 0 {
			st.Pointers++
		} else {
			st.Buffers++
		}
		bytes.add(r.Bytes)
	}
	st.Bytes = bytes.saturated()
	return st
}

// Live is the leak report, from a frozen snapshot of the table.
func (lf *LockFree) Live() []spec.Registration {
	if lf.tab.Load().closed {
		return nil
	}
	return lf.snapshot()
}

// snapshot freezes the table, reads it and replaces it with a slot-for-slot
// copy.
func (lf *LockFree) snapshot() []spec.Registration {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	t := lf.tab.Load()
	if t.closed {
		return nil
	}
	return lf.rebuild(t, false, 0).registrations()
}

// Close freezes the table for good, then frees every live registration in
// address order and returns them.
func (lf *LockFree) Close() ([]spec.Registration, error) {
	lf.scopes.mu.Lock()
	defer lf.scopes.mu.Unlock()
	lf.mu.Lock()
	t := lf.tab.Load()
	if t.closed {
		lf.mu.Unlock()
		return nil, spec.ErrClosed
	}
	leaked := freeze(t).registrations()
	lf.tab.Store(&table{closed: true})
	lf.mu.Unlock()
	lf.scopes.close()
	for _, r := range leaked {
		lf.freer.Free(r.Real, r.Bytes, r.Kind)
	}
	return leaked, nil
}

// Enter opens a scope.
func (lf *LockFree) Enter() {
	if !lf.tab.Load().closed {
		lf.scopes.enter()
	}
}

// Track hands one reference p already holds to the innermost scope.
func (lf *LockFree) Track(p spec.Addr) error {
	if lf.tab.Load().closed {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	return lf.scopes.track(p, lf.IsRegistered)
}

// Promote moves one tracked reference of p to the enclosing scope, or back to
// the caller at the outermost scope.
func (lf *LockFree) Promote(p spec.Addr) error {
	if lf.tab.Load().closed {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	return lf.scopes.promote(p)
}

// Exit closes the innermost scope and releases what it still tracks, newest
// first, each release its own Unregister.
func (lf *LockFree) Exit() error {
	if lf.tab.Load().closed {
		return spec.ErrClosed
	}
	return lf.scopes.exit(lf.Unregister, !bugs.On(BugExitOldestFirst))
}
