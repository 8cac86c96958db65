package refcount

import (
	"math/bits"

	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// LockFree is a registry over one open-addressing hash table (linear probing,
// power-of-two capacity) whose slots are atomic words: Register, Retain,
// Unregister, IsRegistered and Refs take no lock.
//
// # Slots
//
// A slot holds a key (the pointer), a state word and, beside it, the owned
// pointer's size or the buffer record a holder belongs to. The state word packs
// a status (empty, pending, live owned pointer, buffer holder, dead), the kind,
// a generation and an owned pointer's count, so an owned pointer's whole
// lifecycle is compare-and-swap on one word: Retain and Unregister are one CAS,
// and the CAS that takes the count from 1 to dead is the only one that frees.
//
// A key, once written into a slot, stays there until the table is rebuilt; a
// dead slot is revived only by its own key (a Register of the same pointer).
// An insert therefore scans the probe chain for its key up to the first
// never-used slot and claims that one, so a key can never be in a table twice.
// (Reusing another key's tombstone without finishing the scan is SCL-Core's
// duplicate-key bug, seeded as BugTombstoneReuse.) Tombstones are purged when
// the table is rebuilt. Reviving a dead slot bumps its generation, so a
// goroutine that read the old state cannot act on the new registration (ABA):
// the generation has 22 bits, so this would take 4 million revivals of one
// slot between a goroutine's load and its CAS.
//
// # Buffers
//
// A buffer's counts (every holder's share, hence the whole count) live in its
// record and change in one atomic step: packed into one word for buffers of
// up to 10 holders (a CAS, no allocation), else as an immutable state replaced
// by CAS (copy on write: a change allocates O(log n) words for n holders); see
// record. So a holder's share and the buffer's count move together, and of
// two holders dropping the last references at the same instant exactly one
// CAS reaches zero and frees. Owned pointers allocate nothing; a buffer
// allocates its record and its holder list.
//
// # Progress
//
// Between rebuilds, operations on different pointers never wait for each
// other: each retries only when another goroutine's CAS on the same word
// succeeded, so the table is lock-free. Two exceptions are blocking, and
// documented as such: a Register that finds its own pointer being inserted by
// another goroutine (key claimed, state not yet published: a few instructions)
// or held by a RegisterBuffer still in progress waits for it, yielding the
// processor (sched.Yield, runtime.Gosched in a normal build); and an
// operation that meets a frozen slot or record waits for the rebuild that
// froze it to finish.
//
// # Capacity, resize and the slow path
//
// The table starts at 16 slots (NewLockFreeN chooses, up to 2^24). A Register
// or RegisterBuffer that would claim a fresh slot farther from its home than
// the table's probe limit (18 + 2·log2(capacity) at first, at most the
// capacity), or finds no free
// slot at all, rebuilds the table: live entries only (tombstones go), into a
// table sized for its live keys and the keys the operation is inserting (load
// at most 1/4, so a buffer with more holders than the table has slots gets a
// table that holds them) and, up to 65536 slots, for the dead keys too, since
// freed addresses tend to be registered again. The rebuild for one key
// sets the probe limit to one more than twice the longest run of live keys,
// if that is above the default, so the key finds a slot and dead keys that
// collide in the hash (churn of new addresses) do not raise it
// (singleKeyLimit). A
// long probe run met by a RegisterBuffer of several holders, whose
// inserts can join runs, in a table less than half used doubles it once;
// in a table already twice the size its keys need, the keys collide in the
// hash itself, so the rebuild keeps the capacity and doubles the probe
// limit instead: colliding addresses cost probe length, not memory
// (compactedCap has the rules). The table never
// shrinks below its initial capacity; it shrinks towards its live size when a
// rebuild finds it mostly tombstones, not live keys. A rebuild takes the
// slow-path mutex, freezes every slot and record of the old table (a frozen
// word fails every CAS), copies, publishes the new table and unfreezes the
// records; operations that met a frozen word wait on the mutex and retry on
// the new table. A rebuild is O(capacity) and stops every writer while it
// runs: resizing is blocking, not lock-free. An owned pointer counts at most
// 2^36−1 references (Retain beyond answers ErrInvalidSize); a buffer's count
// is an int64.
//
// # Linearization points
//
// Owned pointers: the CAS on the slot's state word (Register's publishing CAS,
// Retain's and Unregister's CAS), or, for a query, the load of an unfrozen
// state word. Buffer holders: the CAS on the record's state; a query loads the
// slot's state, then the record's state, and is linearized at the second load.
// An answer "not registered" read from a chain that ended in a never-used slot
// counts only if the table was still current afterwards; otherwise the query
// retries on the new table.
//
// Stats, Live and Close take the slow-path mutex; RegisterBuffer takes it
// shared (RegisterBuffers run in parallel, but not during a rebuild); the scope
// methods take their own. RegisterBuffer claims its holders' slots in address
// order for a pending record, then makes the buffer live with one store, so it
// appears all at once without stopping lock-free operations; a Register or
// RegisterBuffer that meets a pending holder waits for it, and the address
// order rules out a cycle of RegisterBuffers waiting for each other. Stats and Live freeze the table and
// rebuild it slot for slot (tombstones kept) to read a consistent snapshot:
// O(capacity), meant for leak reports, not hot loops. Close freezes the table
// for good.
type LockFree struct {
	tab     sched.Pointer[table]
	mu      sched.RWMutex // the slow path: rebuilds, Stats, Live, Close hold it; RegisterBuffer shares it
	freer   spec.Freer
	nextID  sched.Uint64
	initCap int
	scopes  scopes
}

var _ spec.Registry = (*LockFree)(nil)

// DefaultCapacity is the initial table capacity of NewLockFree.
const DefaultCapacity = 16

// NewLockFree returns an empty lock-free registry that releases memory through
// f (nil: memory is never released, only forgotten).
func NewLockFree(f spec.Freer) *LockFree { return NewLockFreeN(f, DefaultCapacity) }

// maxInitialCapacity bounds NewLockFreeN: 2^24 slots of 32 bytes, 512 MiB,
// room for four million keys before the first rebuild. The table grows on
// demand, so a larger start only costs memory, and past the machine's memory
// the allocation would be a fatal error, not one a caller could handle.
const maxInitialCapacity = 1 << 24

// NewLockFreeN returns an empty lock-free registry whose table starts with
// capacity slots, rounded up to a power of two and clamped to [8, 2^24], and
// never shrinks below it.
func NewLockFreeN(f spec.Freer, capacity int) *LockFree {
	capacity = max(8, min(capacity, maxInitialCapacity))
	capacity = 1 << bits.Len(uint(capacity-1))
	if f == nil {
		f = spec.FreerFunc(func(spec.Addr, int64, spec.Kind) {})
	}
	lf := &LockFree{freer: f, initCap: capacity}
	lf.tab.Store(newTable(capacity))
	return lf
}

// table is one generation of the hash table. A table that a rebuild replaced is
// frozen for good; closed is the table Close leaves behind.
type table struct {
	slots  []slot
	mask   uint64
	limit  int // the farthest probe distance at which a claim takes a fresh slot; see compactedCap
	closed bool
}

// newTable returns an empty table of capacity slots with the default probe
// limit.
func newTable(capacity int) *table {
	return &table{slots: make([]slot, capacity), mask: uint64(capacity - 1), limit: probeLimit(capacity)}
}

// probeLimit is the default limit of a table of capacity slots (a power of
// two): a probe run longer than 18 + 2·log2(capacity) is rare among random
// keys at a load of a quarter, and a sign of keys that collide in the hash
// (see compactedCap).
func probeLimit(capacity int) int {
	return min(capacity, 16+2*bits.Len(uint(capacity)))
}

// slot is one table entry. key is 0 until claimed, then fixed. bytes is an
// owned pointer's size and rec a holder's buffer record; both are written only
// by the goroutine that owns the slot's empty or pending state, before it
// publishes the state with a CAS.
type slot struct {
	key   sched.Uint64
	state sched.Uint64
	bytes sched.Int64
	rec   sched.Pointer[record]
}

// The state word: frozen(1) status(3) kind(2) generation(22) count(36).
const (
	frozenBit   = uint64(1) << 63
	statusShift = 60
	kindShift   = 58
	genShift    = 36
	genMask     = uint64(1)<<22 - 1
	countMask   = uint64(1)<<36 - 1
)

// Slot statuses. An empty state under a nonzero key is a fresh claim in
// progress; pending is a dead slot being revived. Both belong to the goroutine
// that made them, and mean "not registered" to everyone else.
const (
	stEmpty uint64 = iota
	stPending
	stLive   // an owned pointer; count in the state
	stHolder // a buffer holder; counts in the record
	stDead
)

func status(s uint64) uint64    { return s >> statusShift & 7 }
func gen(s uint64) uint64       { return s >> genShift & genMask }
func count(s uint64) int64      { return int64(s & countMask) }
func kindOf(s uint64) spec.Kind { return spec.Kind(s >> kindShift & 3) }
func frozen(s uint64) bool      { return s&frozenBit != 0 }
func nextGen(s uint64) uint64   { return (gen(s) + 1) & genMask }
func mkState(st uint64, k spec.Kind, g uint64, n int64) uint64 {
	return st<<statusShift | uint64(k)<<kindShift | g<<genShift | uint64(n)&countMask
}

// home is the first slot of p's probe chain.
func (t *table) home(p spec.Addr) uint64 { return mix(p) & t.mask }

// find returns the slot holding key p, or nil if the chain ends without it.
func (t *table) find(p spec.Addr) *slot {
	i := t.home(p)
	for range t.slots {
		sl := &t.slots[i]
		switch spec.Addr(sl.key.Load()) {
		case p:
			return sl
		case 0:
			return nil
		}
		i = (i + 1) & t.mask
	}
	return nil
}

// waitRebuild blocks until the rebuild in progress (which froze something this
// goroutine met) has published its table.
func (lf *LockFree) waitRebuild() {
	lf.mu.RLock()
	lf.mu.RUnlock() //nolint:staticcheck // an empty critical section: waiting is the point
}
