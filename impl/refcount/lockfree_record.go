package refcount

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// record is a shared buffer of LockFree. Its counts (each holder's share, and
// so the whole count) change in one atomic step, in one of two forms:
//
//   - packed: every holder listed at registration has a field of width bits
//     in the word cnt (a buffer's holders can only leave it, never join, so
//     the list is fixed). A change is one CAS on cnt and allocates nothing.
//     Up to 10 holders fit, with fields of at least 6 bits.
//   - copy on write: cnt holds only the flag cntCOW and the counts are the
//     immutable state st points to, replaced by CAS. A change allocates the
//     new state, which holds up to 32 shares itself (one allocation), and
//     for more copies one path of its share tree, O(log n) words for n
//     holders (see shareTree). Bigger buffers start so; a packed buffer
//     whose field would overflow upgrades, once: it marks cnt upgrading
//     (which fixes its value), and any goroutine that meets the mark helps
//     finish the upgrade, so no one waits for the upgrader.
type record struct {
	id     spec.BufferID // written before the record goes live, read under the slow-path mutex
	real   spec.Addr
	bytes  int64
	kind   spec.Kind
	listed []share // holders at registration, sorted, with their initial shares
	width  uint    // bits per holder field in cnt; 0 for a copy-on-write record
	cnt    sched.Uint64
	st     sched.Pointer[bufState]
}

// Flags of record.cnt; holder fields take the low cntBits bits.
const (
	cntFrozen    = uint64(1) << 63 // fixed by a rebuild: every CAS fails
	cntPending   = uint64(1) << 62 // RegisterBuffer in progress
	cntUpgrading = uint64(1) << 61 // moving to copy on write; the value is fixed
	cntCOW       = uint64(1) << 60 // the counts are in st
	cntBits      = 60
	minWidth     = 6
)

// newRecord makes a pending record for the holders listed (sorted, each
// pointer once, with its share), packed if they fit.
func newRecord(real spec.Addr, bytes int64, kind spec.Kind, listed []share) *record {
	r := &record{real: real, bytes: bytes, kind: kind, listed: listed}
	if w := uint(cntBits / len(listed)); w >= minWidth {
		r.width = w
		for _, h := range listed {
			if uint64(h.n) > r.fieldMax() {
				r.width = 0
			}
		}
	}
	if r.width > 0 {
		r.cnt.Store(cntPending)
	} else {
		r.cnt.Store(cntCOW)
		r.st.Store(pendingState)
	}
	return r
}

func (r *record) fieldMax() uint64 { return 1<<r.width - 1 }

// index is p's field number, -1 if p was not listed.
func (r *record) index(p spec.Addr) int {
	lo, hi := 0, len(r.listed)
	for lo < hi {
		m := (lo + hi) / 2
		if r.listed[m].p < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(r.listed) && r.listed[lo].p == p {
		return lo
	}
	return -1
}

func (r *record) field(c uint64, i int) int64 {
	return int64(c >> (uint(i) * r.width) & r.fieldMax())
}

// publish makes a pending record live (its holders' initial shares).
func (r *record) publish() {
	if r.width == 0 {
		st := &bufState{phase: phLive, shares: newShareTree(len(r.listed), func(i int) int64 { return r.listed[i].n })}
		for _, h := range r.listed {
			st.total += h.n
		}
		r.st.Store(st)
		return
	}
	var c uint64
	for i, h := range r.listed {
		c |= uint64(h.n) << (uint(i) * r.width)
	}
	r.cnt.Store(c)
}

// abort makes a pending record dead.
func (r *record) abort() {
	if r.width == 0 {
		r.st.Store(abortedState)
		return
	}
	r.cnt.Store(0)
}

// view is one consistent reading of a record's counts.
type view struct {
	phase uint8
	total int64
	rec   *record
	word  uint64    // the packed counts, if st is nil
	st    *bufState // the copy-on-write state
}

// share is p's share, 0 if p was not listed.
func (v view) share(p spec.Addr) int64 {
	if i := v.rec.index(p); i >= 0 {
		return v.shareAt(i)
	}
	return 0
}

// shareAt is the share of the i-th listed holder.
func (v view) shareAt(i int) int64 {
	if v.st != nil {
		return v.st.shares.get(i)
	}
	return v.rec.field(v.word, i)
}

// holders lists the pointers that hold a share, sorted.
func (v view) holders() []spec.Addr {
	var out []spec.Addr
	for i, h := range v.rec.listed {
		if v.shareAt(i) > 0 {
			out = append(out, h.p)
		}
	}
	return out
}

// packedView reads a packed word (flags ignored but pending).
func (r *record) packedView(c uint64) view {
	if c&cntPending != 0 {
		return view{phase: phPending, rec: r}
	}
	v := view{phase: phDead, rec: r, word: c &^ (cntFrozen | cntUpgrading)}
	for i := range r.listed {
		v.total += r.field(v.word, i)
	}
	if v.total > 0 {
		v.phase = phLive
	}
	return v
}

// load reads the record's counts; retry if a rebuild froze them.
func (r *record) load() (view, outcome) {
	for {
		c := r.cnt.Load()
		switch {
		case c&cntUpgrading != 0:
			r.finishUpgrade(c)
			continue
		case c&cntCOW != 0:
			st := r.st.Load()
			if st.frozen {
				return view{}, retry
			}
			return view{phase: st.phase, total: st.total, rec: r, st: st}, done
		case c&cntFrozen != 0:
			return view{}, retry
		}
		return r.packedView(c), done
	}
}

// finishUpgrade completes the move to copy on write that c (marked
// upgrading, so fixed) started. Any goroutine may call it, any number of times.
func (r *record) finishUpgrade(c uint64) {
	v := r.packedView(c)
	st := &bufState{phase: v.phase, total: v.total, shares: newShareTree(len(r.listed), v.shareAt)}
	r.st.CompareAndSwap(nil, st) // every goroutine finishing it builds the same state from the same c
	r.cnt.CompareAndSwap(c, cntCOW)
}

// update adds d to p's share: one CAS. held is false (and nothing changed)
// if p holds no share of a live buffer; last reports that the change took the
// whole count to zero, left is p's share after it.
func (r *record) update(p spec.Addr, d int64) (last bool, left int64, held bool, o outcome) {
	i := r.index(p)
	for {
		c := r.cnt.Load()
		switch {
		case c&cntUpgrading != 0:
			r.finishUpgrade(c)
			continue
		case c&cntCOW != 0:
			return r.updateCOW(i, d)
		case c&cntFrozen != 0:
			return false, 0, false, retry
		}
		if c&cntPending != 0 || i < 0 || r.field(c, i) == 0 {
			return false, 0, false, done
		}
		if d > 0 && uint64(r.field(c, i)) == r.fieldMax() {
			r.cnt.CompareAndSwap(c, c|cntUpgrading) // the field is full: move to copy on write
			continue
		}
		next := c + uint64(1)<<(uint(i)*r.width)
		if d < 0 {
			next = c - uint64(1)<<(uint(i)*r.width)
		}
		if bugs.On(BugStoreNotCAS) {
			r.cnt.Store(next)
		} else if !r.cnt.CompareAndSwap(c, next) {
			continue
		}
		return next == 0, r.field(next, i), true, done // no flags, all fields zero: the last reference
	}
}

// updateCOW is update for a copy-on-write record; i is p's index in listed.
func (r *record) updateCOW(i int, d int64) (last bool, left int64, held bool, o outcome) {
	for {
		st := r.st.Load()
		if st.frozen {
			return false, 0, false, retry
		}
		if st.phase != phLive || i < 0 || st.shares.get(i) == 0 {
			return false, 0, false, done
		}
		next := st.with(i, d)
		if bugs.On(BugStoreNotCAS) {
			r.st.Store(next)
		} else if !r.st.CompareAndSwap(st, next) {
			continue
		}
		return next.total == 0, next.shares.get(i), true, done
	}
}

// freeze fixes the record for a rebuild and returns what it holds.
func (r *record) freeze() view {
	for {
		c := r.cnt.Load()
		switch {
		case c&cntUpgrading != 0:
			r.finishUpgrade(c)
		case c&cntCOW != 0:
			st := r.st.Load()
			if st.frozen {
				return view{phase: st.phase, total: st.total, rec: r, st: st}
			}
			f := *st
			f.frozen = true
			if r.st.CompareAndSwap(st, &f) {
				return view{phase: f.phase, total: f.total, rec: r, st: &f}
			}
		case c&cntFrozen != 0:
			return r.packedView(c)
		default:
			if r.cnt.CompareAndSwap(c, c|cntFrozen) {
				return r.packedView(c)
			}
		}
	}
}

// thaw undoes freeze; only the rebuild that froze the record calls it.
func (r *record) thaw() {
	if c := r.cnt.Load(); c&cntCOW == 0 {
		r.cnt.Store(c &^ cntFrozen)
		return
	}
	u := *r.st.Load()
	u.frozen = false
	r.st.Store(&u)
}

// Buffer phases: pending (RegisterBuffer in progress, holders not yet
// registered), live, dead (freed, or an aborted registration).
const (
	phPending uint8 = iota
	phLive
	phDead
)

// bufState is one immutable state of a buffer: the whole count and each
// listed holder's share (0 once it let go). frozen marks a state a rebuild has
// fixed; every CAS from it fails until the rebuild ends.
type bufState struct {
	phase  uint8
	frozen bool
	total  int64
	shares shareTree // by index in record.listed
}

// with returns a copy of b in which the share of the i-th listed holder (and
// the total) changed by d.
func (b *bufState) with(i int, d int64) *bufState {
	c := &bufState{phase: b.phase, total: b.total + d, shares: b.shares.with(i, b.shares.get(i)+d)}
	if c.total == 0 {
		c.phase = phDead
	}
	return c
}

// The states of a record before and after its life: shared, never changed.
var (
	pendingState = &bufState{phase: phPending}
	abortedState = &bufState{phase: phDead}
)
