package refcount

import (
	"math/bits"

	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// readIndex is a shard's table of entries, and its lock-free answer to
// IsRegistered: open addressing (power-of-two capacity, linear probing) over
// the pointers that hold a share in the shard, plus tombstones of some that
// held one. Writers change it only while they hold the shard lock; readers
// never lock. One table serves both: one probe finds both the entry the
// writers need and the word the readers watch, so writers keep no second
// structure in step with it.
//
// A slot is a key, a state word, for a buffer holder the buffer's record (whose
// visible flag decides), and the entry fields only writers touch. The key is 0
// while the slot is empty (0 is never registered: Register ignores null and
// RegisterBuffer refuses it). The state's low bits say whether the key is
// absent (a tombstone: every address but 0 can be registered, so no key value
// is free to mark one), present as an owned pointer, or a holder of the buffer
// whose visible flag decides; its high bits count the state's changes, so no
// two stores to one slot's state write the same value. A pointer has at most
// one slot, and no empty slot lies between a key's first slot and its slot.
//
// Tombstones are recycled so that a shard churning through many distinct
// pointers keeps a table the size of its live set, which stays in cache and
// costs no allocation: a pointer registering again takes its own tombstone back
// (one state store); a new pointer takes the first tombstone on its probe
// sequence (key store, then state store); a sweep empties the tombstones that
// end a probe run (the slot after them is empty, so no key's sequence crosses
// them). A key or record is written only while the slot's state is absent or
// leaving (below), before the state store that makes it present.
//
// A reader loads the state (instant r1), then the key, then (for a present
// state) the state again (r2). If the state it read first is absent, the
// pointer was not present in this slot at r1, whatever key it reads. If it is
// leaving, the reader asks under the lock. If it is present, the key may
// still have been written after r1: the slot's pointer leaves, and a new
// pointer takes its tombstone, before the key load. So the reader loads the
// state again. Unchanged, no key was written between r1 and r2 (a key write
// needs an absent or leaving state first, and no two stores write the same
// value): the key read is the one the state belongs to, and that pointer was
// registered at r1 (for a holder, the record read in between belongs to the
// same holding). Changed, the reader answers false: either the state at r1
// was the pointer's and it left at the change, or it was another pointer's,
// and the pointer, which was then claiming this tombstone, was not
// registered at r1. Either way false held at an instant inside the call.
//
// Linearizability. A state store is the linearization point of the change it
// makes (Register, an owned pointer's last Unregister), except for a buffer:
// RegisterBuffer writes all its holders' slots in the holder state, with the
// buffer's visible flag still false, and then sets the flag once, with every
// holder's shard still locked; that one store makes all the holders present at
// the same instant. A reader loads the state (t1) and later the flag (t2). If
// the flag is true at t2 but was false at t1, it was set at some tv in (t1,
// t2]; the RegisterBuffer that set it held the pointer's shard lock from before
// t1 (it wrote the state) until after tv, so the state was unchanged at tv and
// the pointer was registered at tv. The flag never goes back to false, so if it
// is false at t2 it was false at t1. Either way a true answer was true at an
// instant inside the reader's call.
//
// A holder's last Unregister is linearized at its add to the buffer's total,
// which others observe (Refs of another holder, the free), and no single store
// can move both the total and the holder's state. So the holder's state goes to
// leaving before the add and to absent after it, both under the lock; a reader
// that meets leaving cannot tell which side of the add it is on, and asks under
// the shard lock instead, which waits for the drop to finish. An absent holder
// has been dropped; a holder state has not started its drop. After the add the
// slot is emptied if the next slot is empty (release), still tagged leaving, so
// a reader that read that tag and then a later key asks under the lock too;
// otherwise it becomes an absent tombstone. A drop whose add takes the total
// from 1 to 0 skips leaving: p holds the only share left, so no holder remains
// to observe the count, and p goes absent at once.
//
// A false answer is right too: were p registered throughout the call, its slot
// would keep its key and state, and would lie on p's probe sequence before any
// empty slot, so the reader would reach it and answer true.
//
// Growth. The table never holds more than half its slots in keys, tombstones
// included, so every probe reaches an empty slot and stops. A writer that would
// pass that load first sweeps; if the table is still more than three-eighths
// full it builds a new one, under the shard lock, from the present slots (sized
// for four times as many, so at most a quarter full), and publishes it with one
// atomic pointer store; no one writes the old table again. A reader still
// probing the old table reads it as it was at the publication instant, which
// lies inside its call, so the argument above still holds. Close publishes no
// table (nil: nothing present) after it sets closed, and readers look at closed
// after the probe, so a reader never reports a pointer present after Close.
//
// Progress: a lookup is wait-free. It visits at most as many slots as the table
// has (a pointer registered throughout the call is found before that), and each
// visit is a fixed number of loads. IsRegistered is wait-free except when its
// lookup meets a holder leaving (a release of that very pointer in progress),
// when it blocks on the shard lock for the rest of that release.
type readIndex struct {
	slots []indexSlot
	mask  uint64
	used  int // slots with a key, present or tombstoned; only under the shard lock
}

// indexSlot is what a shard knows of one pointer: its key, its state and, for
// a buffer holder, the buffer's record (see readIndex), then the entry fields,
// read and written only under the shard lock. For an owned pointer share is
// the registration's whole count. For a buffer holder share is the references
// this pointer holds; the buffer's whole count is rec.total. A tombstone keeps
// its last record: it stays reachable until the slot is reused or the table
// rebuilt.
type indexSlot struct {
	key   sched.Uint64
	state sched.Uint64
	rec   sched.Pointer[buffer]
	share int64     // this pointer's references: the whole count if owned
	bytes int64     // owned pointers only
	kind  spec.Kind // owned pointers only
}

// The low bits of a slot's state; the rest count changes.
const (
	stateAbsent  = 0
	stateOwned   = 1
	stateHolder  = 2
	stateLeaving = 3 // a holder dropping its last share; only inside Unregister
	stateTagMask = 3
	stateStep    = 4
)

// indexMinSlots is the size of a new table. A rebuild sizes the table for at
// least four times the present pointers, so recycled tombstones fill it slowly
// and sweeps are rare.
const indexMinSlots = 64

// slotHash picks p's first slot. The shard was chosen by the low bits of
// mix(p), which are the same for every pointer in the shard; the rotation
// brings independent bits down.
func slotHash(p spec.Addr) uint64 { return bits.RotateLeft64(mix(p), 32) }

// lookup reports whether p is present, unless sure is false: p is a holder
// leaving its buffer and the answer must be asked under the shard lock. It
// never blocks and visits each slot at most once.
func (ix *readIndex) lookup(p spec.Addr) (present, sure bool) {
	i := slotHash(p)
	for range ix.slots {
		sl := &ix.slots[i&ix.mask]
		st := sl.state.Load() // before the key: see readIndex
		switch sl.key.Load() {
		case 0:
			return false, true
		case uint64(p):
			return sl.presence(st)
		}
		i++
	}
	return false, true
}

// presence is lookup's answer for slot sl, whose key it read as the
// pointer's after reading its state st.
func (sl *indexSlot) presence(st uint64) (present, sure bool) {
	switch st & stateTagMask {
	case stateOwned:
		return sl.state.Load() == st, true
	case stateHolder:
		rec := sl.rec.Load()
		return sl.state.Load() == st && rec.visible.Load(), true
	case stateLeaving:
		return false, false
	}
	return false, true
}

// find returns p's slot (nil if p has none, present or tombstoned), the first
// tombstone on p's probe sequence (nil if none) and the empty slot that ends
// it. The shard lock is held.
func (ix *readIndex) find(p spec.Addr) (own, tomb, empty *indexSlot) {
	for i := slotHash(p); ; i++ {
		sl := &ix.slots[i&ix.mask]
		switch sl.key.Load() {
		case 0:
			return nil, tomb, sl
		case uint64(p):
			return sl, tomb, nil
		}
		if tomb == nil && !sl.present() {
			tomb = sl
		}
	}
}

// present reports whether the slot's key holds a share (a holder whose
// buffer is not yet visible counts). The shard lock is held, so a leaving
// state is stale, left on a slot emptied by its drop, and does not count.
func (sl *indexSlot) present() bool {
	tag := sl.state.Load() & stateTagMask
	return tag == stateOwned || tag == stateHolder
}

// release ends the leaving state of the holder in slot i once its drop is
// done: the slot becomes empty if the next one is (no key's probe sequence
// crosses it, so no sweep has to empty it later), else a tombstone. An emptied
// slot keeps the leaving tag, so a reader that reads it before a later key is
// written still asks under the lock. The shard lock is held.
func (ix *readIndex) release(i uint64) {
	sl := &ix.slots[i&ix.mask]
	if ix.slots[(i+1)&ix.mask].key.Load() == 0 {
		sl.key.Store(0)
		ix.used--
		return
	}
	sl.setState(stateAbsent)
}

// setState moves sl to tag, counting the change. The shard lock is held.
func (sl *indexSlot) setState(tag uint64) {
	sl.state.Store(sl.state.Load()&^stateTagMask + stateStep | tag)
}

// sweep empties every tombstone that ends a probe run: walking back from each
// empty slot, no key's probe sequence crosses the tombstones met. A reader
// that read such a slot's absent state answers false for it whatever key it
// then reads, so emptying needs no state change. The shard lock is held.
func (ix *readIndex) sweep() {
	for i := range uint64(len(ix.slots)) {
		if ix.slots[i].key.Load() != 0 {
			continue
		}
		for j := (i - 1) & ix.mask; j != i; j = (j - 1) & ix.mask {
			sl := &ix.slots[j]
			if sl.key.Load() == 0 || sl.present() {
				break
			}
			sl.key.Store(0)
			ix.used--
		}
	}
}

// get returns p's slot if p holds a share, else nil. The shard lock is held.
func (sh *shardData) get(p spec.Addr) *indexSlot {
	sl, _ := sh.getAt(p)
	return sl
}

// getAt is get, also returning the slot's position in the current table.
func (sh *shardData) getAt(p spec.Addr) (*indexSlot, uint64) {
	ix := sh.index.Load()
	if ix == nil {
		return nil, 0
	}
	for i := slotHash(p); ; i++ {
		sl := &ix.slots[i&ix.mask]
		switch sl.key.Load() {
		case 0:
			return nil, 0
		case uint64(p):
			if !sl.present() {
				return nil, 0
			}
			return sl, i & ix.mask
		}
	}
}

// claim returns a slot keyed p, still absent, for a p that holds no share:
// p's own tombstone, else the first tombstone on its probe sequence, else an
// empty slot. A table that would pass half load is swept first, and rebuilt
// larger if that does not bring it under three-eighths. The shard lock is
// held; the caller fills the entry and then sets the state.
func (sh *shardData) claim(p spec.Addr) *indexSlot {
	ix := sh.index.Load()
	for attempt := 0; ; attempt++ {
		if ix != nil {
			own, tomb, empty := ix.find(p)
			switch {
			case own != nil:
				return own
			case tomb != nil:
				tomb.key.Store(uint64(p)) // absent until the caller's state store
				return tomb
			case 2*(ix.used+1) <= len(ix.slots):
				ix.used++
				empty.key.Store(uint64(p))
				return empty
			case attempt == 0:
				ix.sweep()
				if 8*(ix.used+1) <= 3*len(ix.slots) {
					continue
				}
			}
		}
		ix = sh.rebuild(ix)
	}
}

// rebuild publishes a new table holding the present pointers of ix (which
// may be nil), sized for four times as many and at least one more. No one
// writes ix after this. The shard lock is held.
func (sh *shardData) rebuild(ix *readIndex) *readIndex {
	live := 0
	if ix != nil {
		for i := range ix.slots {
			if ix.slots[i].present() {
				live++
			}
		}
	}
	n := max(indexMinSlots, 1<<bits.Len(uint(4*(live+1))))
	next := &readIndex{slots: make([]indexSlot, n), mask: uint64(n - 1)}
	if ix != nil {
		for i := range ix.slots {
			old := &ix.slots[i]
			if !old.present() {
				continue
			}
			_, _, sl := next.find(spec.Addr(old.key.Load()))
			next.used++
			sl.key.Store(old.key.Load())
			sl.rec.Store(old.rec.Load())
			sl.share, sl.bytes, sl.kind = old.share, old.bytes, old.kind
			sl.state.Store(old.state.Load() & stateTagMask)
		}
	}
	sh.index.Store(next)
	return next
}

// own fills sl, claimed for p, as an owned pointer with one reference and
// makes it present. The shard lock is held.
func (sl *indexSlot) own(bytes int64, kind spec.Kind) {
	sl.share, sl.bytes, sl.kind = 1, bytes, kind
	if sl.rec.Load() != nil {
		sl.rec.Store(nil) // let a released buffer's record go
	}
	sl.setState(stateOwned)
}

// hold makes sl's key a holder of rec with n references, present as soon as
// rec is visible. The shard lock is held.
func (sl *indexSlot) hold(rec *buffer, n int64) {
	sl.share = n
	if sl.rec.Load() != rec {
		if sl.present() {
			sl.setState(stateAbsent) // re-pointed: readers must notice
		}
		sl.rec.Store(rec)
	}
	if sl.state.Load()&stateTagMask != stateHolder {
		sl.setState(stateHolder)
	}
}
