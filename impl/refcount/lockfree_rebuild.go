// LockFree's rebuilds: freezing a table so that nothing in it changes,
// reading what is live, and publishing a copy, slot for slot (a snapshot)
// or compacted to the live entries with room for the keys an insert is
// waiting to add (growth); and the sizing and probe-limit policy of the
// compacted table (overview at the type, in lockfree.go).

package refcount

import (
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
)

// frozenTable is what a rebuild read from a table it froze: the live owned
// pointers and the (frozen) state of every buffer a holder slot points to.
type frozenTable struct {
	owned []spec.Registration
	recs  map[*record]view
}

// freeze fixes every slot of t, then every buffer record its holder slots
// point to, and reads what is live. After freeze nothing in t changes: every
// CAS on a frozen word fails, and the goroutine that tried it waits on the
// slow-path mutex, which the caller holds.
func freeze(t *table) frozenTable {
	for i := range t.slots {
		sl := &t.slots[i]
		for {
			s := sl.state.Load()
			if frozen(s) || sl.state.CompareAndSwap(s, s|frozenBit) {
				break
			}
		}
	}
	ft := frozenTable{recs: map[*record]view{}}
	for i := range t.slots {
		sl := &t.slots[i]
		s := sl.state.Load()
		switch status(s) {
		case stLive:
			p := spec.Addr(sl.key.Load())
			ft.owned = append(ft.owned, spec.Registration{Real: p, Bytes: sl.bytes.Load(), Kind: kindOf(s), Refs: count(s), Holders: []spec.Addr{p}})
		case stHolder:
			rec := sl.rec.Load()
			if _, ok := ft.recs[rec]; !ok {
				ft.recs[rec] = rec.freeze()
			}
		}
	}
	return ft
}

// thaw makes the records frozen by freeze changeable again; called after the
// new table is published.
func (ft frozenTable) thaw() {
	for rec := range ft.recs {
		rec.thaw()
	}
}

// holderLive reports whether a holder slot for key p still belongs in a table.
func (ft frozenTable) holderLive(p spec.Addr, rec *record) bool {
	if bugs.On(BugResizeDropsAlias) && p != rec.real {
		return false
	}
	v := ft.recs[rec]
	return v.phase == phLive && v.share(p) > 0
}

// registrations lists the live registrations of a frozen table, sorted by
// real pointer.
func (ft frozenTable) registrations() []spec.Registration {
	out := append([]spec.Registration{}, ft.owned...)
	for rec, v := range ft.recs {
		if v.phase != phLive {
			continue
		}
		out = append(out, spec.Registration{Real: rec.real, Bytes: rec.bytes, Kind: rec.kind, Refs: v.total, Buffer: rec.id, Holders: v.holders()})
	}
	sortRegistrations(out)
	return out
}

// rebuild replaces the current table t (the caller holds lf.mu): it freezes t,
// copies it into a new table and publishes that. compact keeps only live
// entries, in a table sized to them and to pending more keys that the caller
// is about to insert; otherwise the copy is slot for slot, with tombstones and
// the same probe limit, and only claims in progress turn into tombstones
// (their goroutines retry on the new table and revive them). It returns what
// it read.
func (lf *LockFree) rebuild(t *table, compact bool, pending int) frozenTable {
	ft := freeze(t)
	var nt *table
	if compact {
		nt = lf.compacted(t, ft, pending)
	} else {
		nt = newTable(len(t.slots))
		nt.limit = t.limit
		for i := range t.slots {
			from, to := &t.slots[i], &nt.slots[i]
			k := from.key.Load()
			if k == 0 {
				continue
			}
			s := from.state.Load() &^ frozenBit
			to.key.Store(k)
			switch status(s) {
			case stEmpty, stPending:
				s = mkState(stDead, 0, nextGen(s), 0)
			case stLive:
				to.bytes.Store(from.bytes.Load())
			case stHolder:
				rec := from.rec.Load()
				to.rec.Store(rec)
				if !ft.holderLive(spec.Addr(k), rec) {
					s = mkState(stDead, 0, gen(s), 0)
				}
			}
			to.state.Store(s)
		}
	}
	lf.tab.Store(nt)
	ft.thaw()
	return ft
}

// compacted builds a table holding only t's live entries, with room for
// pending more. Its size and probe limit: see compactedCap, and for a
// rebuild that makes room for one key, singleKeyLimit.
func (lf *LockFree) compacted(t *table, ft frozenTable, pending int) *table {
	live, used := 0, 0
	for i := range t.slots {
		sl := &t.slots[i]
		if sl.key.Load() == 0 {
			continue
		}
		used++
		s := sl.state.Load()
		if status(s) == stLive || status(s) == stHolder && ft.holderLive(spec.Addr(sl.key.Load()), sl.rec.Load()) {
			live++
		}
	}
	c, limit := compactedCap(lf.initCap, len(t.slots), t.limit, live+pending, used)
	if pending <= 1 {
		c = freshCap(lf.initCap, live+pending, used)
	}
	nt := newTable(c)
	for i := range t.slots {
		from := &t.slots[i]
		k := from.key.Load()
		s := from.state.Load() &^ frozenBit
		switch {
		case k == 0:
			continue
		case status(s) == stLive:
			to := nt.freeSlot(spec.Addr(k))
			if bugs.On(BugRebuildDropsKey) && to == nil {
				continue
			}
			to.bytes.Store(from.bytes.Load())
			to.key.Store(k)
			to.state.Store(s)
		case status(s) == stHolder && ft.holderLive(spec.Addr(k), from.rec.Load()):
			to := nt.freeSlot(spec.Addr(k))
			if bugs.On(BugRebuildDropsKey) && to == nil {
				continue
			}
			to.rec.Store(from.rec.Load())
			to.key.Store(k)
			to.state.Store(s)
		}
	}
	nt.limit = limit
	if pending <= 1 {
		nt.limit = singleKeyLimit(c, nt.longestRun())
	}
	return nt
}

// singleKeyLimit is the probe limit of a table of capacity slots rebuilt to
// make room for one key, whose longest run of keys (all live: a compacted
// table has no tombstones) is run slots: the default, or twice the run if
// that is longer.
//
// The pending key then finds a never-used slot within run slots of its home,
// so its claim succeeds: the rebuild made room whatever filled the old
// table's run. When dead keys filled it (churn of addresses that collide in
// the hash, each registered once and released), they are gone and the limit
// stays at the default; the table, sized afresh, shrinks with them. When
// live keys collide, the limit follows the run they form. Either way a
// claim probes at most twice the longest live run, and the next rebuild
// comes only after that many more keys have joined it. (Raising the limit on
// every rebuild for a long run, as compactedCap does, let churn of dead
// colliding keys raise it to the capacity, and every claim then probed that
// far: over 50 µs an operation after 200,000 such keys, against under 1 µs
// now.)
func singleKeyLimit(capacity, run int) int {
	return max(probeLimit(capacity), min(capacity, 2*run+1))
}

// longestRun is the most consecutive slots of t holding a key (wrapping
// round the end).
func (t *table) longestRun() int {
	best, run := 0, 0
	for lap := 0; lap < 2; lap++ { // a second lap follows a run across the end
		for i := range t.slots {
			if t.slots[i].key.Load() == 0 {
				run = 0
				continue
			}
			run++
			best = max(best, run)
		}
	}
	return min(best, len(t.slots))
}

// freshCap sizes a rebuilt table for need keys (the live ones and those the
// caller is inserting) when used slots of the old one held a key: see
// compactedCap.
func freshCap(initCap, need, used int) int {
	c := max(initCap, 4*(need+1), min(2*used, tombstoneRoom))
	return 1 << bits.Len(uint(c-1))
}

// tombstoneRoom bounds how far a rebuild sizes a table for dead keys.
const tombstoneRoom = 1 << 16

// compactedCap sizes a rebuilt table and sets its probe limit, from the old
// table's capacity and limit, the keys the new table must take (need: the live
// ones plus those the operation that asked for the rebuild is inserting) and
// how many of the old table's slots held a key (used, tombstones included).
//
// Room for the keys: at least 4·(need+1) slots, a load of at most a quarter
// once the pending keys are in. (Sized for the live keys alone, a table could
// never take a buffer with more holders than a quarter of its slots: each
// attempt would fill it, fail, and rebuild it at the same size.) Room for the
// dead ones, up to tombstoneRoom slots (2 MiB): freed addresses come back
// (allocators reuse them) and a dead key's slot is revived in place, so a
// working set of a few thousand recycled addresses settles into a table that
// no longer rebuilds, while churn over ever new addresses costs one
// O(capacity) rebuild per capacity/2 new keys at a bounded size.
//
// A table less than half used was rebuilt because of a long probe run, not
// because it was full. If it is no bigger than its keys need, it doubles: a
// run that long at a load of a quarter is rare among keys that hash at random,
// and rarer at an eighth. If it is bigger already, its keys collide in the
// hash itself: mix is a bijection, so an address pattern (or an adversary) can
// make any number of keys agree in any number of low bits, and doubling
// separates them only once the table reaches a bit in which they differ, with
// memory unbounded by the live count. So such a table keeps its capacity and
// Register may probe twice as far in it. A rebuild of a table less than half
// used thus grows the capacity or the limit, until the limit is the capacity
// and only a full table refuses a claim; a table at least half used is sized
// afresh (its limit too) and has lost its tombstones. Either way a rebuild
// makes room, and the capacity stays within twice what the keys need.
//
// That escalation is for a rebuild that makes room for several keys at once
// (a RegisterBuffer of several holders): inserting them can join runs, so
// the runs of the rebuilt table bound nothing, and the limit grows on runs
// of dead keys as well as live ones (churn of ever new addresses that
// collide in the hash keeps raising it, a cost in time, not memory). A
// rebuild for one key sizes the table afresh and sets the limit from its
// longest run instead (singleKeyLimit).
func compactedCap(initCap, oldCap, oldLimit, need, used int) (capacity, limit int) {
	c := freshCap(initCap, need, used)
	switch {
	case c > oldCap || used >= oldCap/2:
		return c, probeLimit(c)
	case oldCap <= c || oldLimit >= oldCap:
		return 2 * oldCap, probeLimit(2 * oldCap)
	}
	return oldCap, min(oldCap, 2*oldLimit)
}

// freeSlot is the first never-used slot of p's chain in a table not yet
// published (so no one else writes it).
func (t *table) freeSlot(p spec.Addr) *slot {
	i := t.home(p)
	for d := 0; t.slots[i].key.Load() != 0; d++ {
		if bugs.On(BugRebuildDropsKey) && d >= t.limit {
			return nil // a claim would refuse a slot this far from home
		}
		i = (i + 1) & t.mask
	}
	return &t.slots[i]
}

// grow rebuilds t, compacted, with room for pending keys the caller is
// inserting, unless another goroutine already replaced it.
func (lf *LockFree) grow(t *table, pending int) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if lf.tab.Load() == t && !t.closed {
		lf.rebuild(t, true, pending)
	}
}
