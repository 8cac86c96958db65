package bank

import (
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/sched"
)

// records maps the addresses of live buffers to their records: an
// open-addressing hash table with linear probing, written by one writer at a
// time and read by any number of readers without a lock.
//
// Writers (Store, Delete, All) must be serialised by the caller (Concurrent
// holds its mutex). Load may run concurrently with them and with other loads;
// it takes no lock, writes nothing and ends within one pass over the slots,
// so it is wait-free. It is linearizable because a slot only ever goes from
// empty to a record to a tombstone (and a tombstone back to a record), never
// back to empty: a probe for a live address cannot stop short of it. A table
// that fills (records plus tombstones above 3/4) is rebuilt into a new one
// and published atomically; a reader still probing the old one sees a state
// the index had during its call, which is all linearizability asks.
type records struct {
	table      sched.Pointer[recordTable]
	live, dead int // records and tombstones in the current table; writer only
}

// recordTable is one generation of the index: 2^k slots.
type recordTable struct {
	slots []sched.Pointer[record]
	shift uint // 64 - k: Fibonacci hashing takes the top k bits
}

// tombstone marks a slot whose record was deleted: probes go past it.
var tombstone = &record{}

func newRecordTable(k uint) *recordTable {
	return &recordTable{slots: make([]sched.Pointer[record], 1<<k), shift: 64 - k}
}

// home is the first slot probed for a: Fibonacci hashing spreads aligned
// addresses, whose low bits are all zero, over the table.
func (t *recordTable) home(a spec.Addr) uint64 { return (uint64(a) * 0x9e3779b97f4a7c15) >> t.shift }

// Load returns the record of the buffer at a.
func (rs *records) Load(a spec.Addr) (*record, bool) {
	t := rs.table.Load()
	if t == nil {
		return nil, false
	}
	mask := uint64(len(t.slots) - 1)
	i := t.home(a)
	for range t.slots {
		r := t.slots[i].Load()
		if r == nil {
			return nil, false
		}
		if r != tombstone && r.buf.Addr == a {
			return r, true
		}
		i = (i + 1) & mask
	}
	return nil, false
}

// Store adds r, or replaces the record of the same address. Writer only.
func (rs *records) Store(r *record) {
	t := rs.table.Load()
	if t == nil || 4*(rs.live+rs.dead+1) > 3*len(t.slots) {
		t = rs.rebuild(t)
	}
	mask := uint64(len(t.slots) - 1)
	free := -1 // the first tombstone on the probe sequence
	for i := t.home(r.buf.Addr); ; i = (i + 1) & mask {
		cur := t.slots[i].Load()
		switch {
		case cur == nil:
			if free >= 0 {
				i = uint64(free)
				rs.dead--
			}
			t.slots[i].Store(r)
			rs.live++
			return
		case cur == tombstone:
			if free < 0 {
				free = int(i)
			}
		case cur.buf.Addr == r.buf.Addr:
			t.slots[i].Store(r)
			return
		}
	}
}

// Delete removes the record of the buffer at a, if any. Writer only.
func (rs *records) Delete(a spec.Addr) {
	t := rs.table.Load()
	if t == nil {
		return
	}
	mask := uint64(len(t.slots) - 1)
	i := t.home(a)
	for range t.slots {
		r := t.slots[i].Load()
		if r == nil {
			return
		}
		if r != tombstone && r.buf.Addr == a {
			t.slots[i].Store(tombstone)
			rs.live--
			rs.dead++
			return
		}
		i = (i + 1) & mask
	}
}

// All calls f for every record, in table order. Writer only.
func (rs *records) All(f func(*record)) {
	if t := rs.table.Load(); t != nil {
		for i := range t.slots {
			if r := t.slots[i].Load(); r != nil && r != tombstone {
				f(r)
			}
		}
	}
}

// rebuild copies the records of t into a table at most half full after one
// more insertion, drops the tombstones, and publishes it.
func (rs *records) rebuild(t *recordTable) *recordTable {
	k := max(4, uint(bits.Len(uint(2*(rs.live+1)))))
	nt := newRecordTable(k)
	if bugs.On(BugRebuildPublishEarly) {
		rs.table.Store(nt) // published before it is filled: a reader meanwhile finds nothing
	}
	mask := uint64(len(nt.slots) - 1)
	if t != nil {
		for j := range t.slots {
			r := t.slots[j].Load()
			if r == nil || r == tombstone {
				continue
			}
			i := nt.home(r.buf.Addr)
			for nt.slots[i].Load() != nil {
				i = (i + 1) & mask
			}
			nt.slots[i].Store(r)
		}
	}
	rs.dead = 0
	rs.table.Store(nt)
	return nt
}
