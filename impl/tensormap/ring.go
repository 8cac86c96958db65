package tensormap

import (
	"fmt"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// maxWindow bounds the per-task chain heads: 4 MiB of int32 at most.
const maxWindow = 1 << 20

// Ring is the seed's TensorMap: a fixed ring-buffer pool of entries, bucket
// chains hashed by storage alone, per-task chains for cleanup, and lazy
// invalidation by the retire threshold with chain truncation. It is not safe
// for concurrent use.
type Ring struct {
	solver    overlap.Checker // nil: call the exact solver directly (a static call)
	nodes     []node          // the slots, as chain walks read them
	links     []link          // the slots' back links and per-task chains
	layouts   layouts         // the layouts the slots' views have
	head      int32           // the slot the next Insert fills
	used      int32           // slots ever filled, up to len(nodes)
	buckets   []int32         // chain heads, indexed by the storage's hash
	shift     uint            // bucket index = Fibonacci hash >> shift
	taskHead  []int32         // per-task chain heads, indexed by task & wmask
	wmask     spec.Task       // the per-task window, minus one
	threshold spec.Task       // tasks below it are retired
	last      spec.Task       // the last inserted task, valid when inserted
	inserted  bool
}

var _ spec.Map = (*Ring)(nil)

// New returns an empty Ring with cfg.Capacity pool slots, as many buckets as
// the next power of two, and a per-task window of the same size (at most
// 2^20). cfg.Solver nil selects the exact solver of impl/overlap.
func New(cfg spec.Config) (*Ring, error) {
	if cfg.Capacity < 1 || cfg.Capacity > spec.MaxCapacity {
		return nil, fmt.Errorf("%w: capacity %d", spec.ErrInvalidConfig, cfg.Capacity)
	}
	logN := bits.Len(uint(cfg.Capacity - 1)) // 2^logN ≥ Capacity
	window := min(1<<logN, maxWindow)
	r := &Ring{
		solver:   cfg.Solver,
		nodes:    make([]node, cfg.Capacity),
		links:    make([]link, cfg.Capacity),
		buckets:  make([]int32, 1<<logN),
		shift:    uint(64 - logN),
		taskHead: make([]int32, window),
		wmask:    spec.Task(window - 1),
	}
	for i := range r.buckets {
		r.buckets[i] = none
	}
	for i := range r.taskHead {
		r.taskHead[i] = none
	}
	return r, nil
}

// live reports whether entries of task t may still be returned: lazy
// invalidation compares against the threshold instead of deleting.
func (r *Ring) live(t spec.Task) bool {
	if bugs.On(BugRetireOffByOne) {
		return t > r.threshold
	}
	return t >= r.threshold
}

// bucketOf hashes the storage base only: every view of one storage must land
// in one chain, or overlaps between views that start at different offsets
// would never be compared.
func (r *Ring) bucketOf(storage spec.Storage, offset int64) int32 {
	key := uint64(storage)
	if bugs.On(BugHashOffset) {
		key += uint64(offset)
	}
	return int32((key * 0x9E3779B97F4A7C15) >> r.shift)
}

// Insert implements spec.Map. It is O(1): the oldest slot is reused when it
// holds a retired entry; a ring whose oldest entry is live is full of live
// entries (tasks come in order), and the insert is refused.
func (r *Ring) Insert(storage spec.Storage, view overlap.View, task spec.Task) error {
	if storage == 0 {
		return spec.ErrNullStorage
	}
	// A view of a layout the map holds needs no measuring: its bounds
	// follow from its offset. Any other is validated and measured.
	id, lo, hi, found := r.layouts.find(&view, &r.layouts.lastInsert)
	nonEmpty := true
	if !found {
		var err error
		if lo, hi, nonEmpty, err = measure(&view); err != nil {
			return err
		}
	}
	if r.inserted && task < r.last && !bugs.On(BugTrustOrder) {
		return fmt.Errorf("%w: task %d after task %d", spec.ErrOutOfOrder, task, r.last)
	}
	if task < r.threshold && !bugs.On(BugTrustOrder) {
		return fmt.Errorf("%w: task %d is below the retire threshold %d", spec.ErrOutOfOrder, task, r.threshold)
	}
	slot := r.head
	nd, ln := &r.nodes[slot], &r.links[slot]
	reuse := int(r.used) == len(r.nodes)
	if reuse && r.live(nd.task) && !bugs.On(BugEvictLive) {
		return fmt.Errorf("%w: %d live entries", spec.ErrPoolExhausted, len(r.nodes))
	}
	// The view's layout is counted before the reused slot's is released:
	// when they are one layout, releasing first could forget it.
	switch {
	case found:
		r.layouts.acquire(id)
	case nonEmpty:
		id = r.layouts.add(&view, lo, hi)
	default: // an empty view overlaps nothing: no layout, no chain
		id = none
	}
	if reuse {
		if ln.prev != unlinked {
			r.unlink(slot)
		}
		if nd.layout != none {
			r.layouts.release(nd.layout)
		}
	} else {
		r.used++
	}
	// Per-task chain: continue the chain at the head only if the head really
	// is this task's entry. After slot reuse or a window wrap the head may
	// name a slot that now holds another task's entry.
	k := task & r.wmask
	h := r.taskHead[k]
	if h != none && r.nodes[h].task != task && !bugs.On(BugStaleTaskHead) {
		h = none
	}
	nd.storage, nd.task, nd.lo, nd.next, nd.layout = storage, task, lo, none, id
	ln.prev, ln.nextTask = unlinked, h
	r.taskHead[k] = slot
	if nonEmpty {
		b := r.bucketOf(storage, view.Offset)
		first := r.buckets[b]
		nd.next, ln.prev = first, none
		if first != none {
			r.links[first].prev = slot
		}
		r.buckets[b] = slot
	}
	if r.head++; int(r.head) == len(r.nodes) {
		r.head = 0
	}
	r.last, r.inserted = task, true
	return nil
}

// Retire implements spec.Map. The threshold moves at once (lazy
// invalidation); then the per-task chains of the retired tasks are walked to
// unlink their entries from the buckets, so lookups need not step over them.
// Only the last window of retired tasks is cleaned: older ones are left to
// chain truncation and slot reuse, which keeps a long jump O(window).
func (r *Ring) Retire(t spec.Task) error {
	if t < r.threshold && !bugs.On(BugRetireBackwards) {
		return fmt.Errorf("%w: retire %d below the threshold %d", spec.ErrOutOfOrder, t, r.threshold)
	}
	from := r.threshold
	r.threshold = t
	if t-from > r.wmask {
		from = t - r.wmask - 1
	}
	for u := from; u < t; u++ {
		r.cleanup(u)
	}
	return nil
}

// cleanup unlinks every entry of the retired task u from its bucket.
func (r *Ring) cleanup(u spec.Task) {
	k := u & r.wmask
	i := r.taskHead[k]
	for n := 0; i != none; n++ {
		if r.nodes[i].task != u && !bugs.On(BugStaleTaskHead) {
			break // a stale link: the slot now holds another task's entry
		}
		if bugs.Enabled && n > len(r.nodes) {
			break // a seeded bug corrupted the chain into a cycle
		}
		ln := &r.links[i]
		if ln.prev != unlinked {
			r.unlink(i)
		}
		i = ln.nextTask
	}
	if h := r.taskHead[k]; h != none && r.nodes[h].task == u {
		r.taskHead[k] = none
	}
}

// unlink removes entry i from its bucket chain in O(1). The head of a chain
// finds its bucket by hashing its storage again: a node need not spend
// four of its 32 bytes on it.
func (r *Ring) unlink(i int32) {
	nd, ln := &r.nodes[i], &r.links[i]
	if ln.prev != none {
		r.nodes[ln.prev].next = nd.next
	} else {
		r.buckets[r.bucketOf(nd.storage, r.layouts.recs[nd.layout].down+nd.lo)] = nd.next
	}
	if nd.next != none {
		r.links[nd.next].prev = ln.prev
	}
	nd.next, ln.prev = none, unlinked
}

// Len implements spec.Map in O(log n): the ring holds tasks in order, so the
// live entries are its newest suffix.
func (r *Ring) Len() int {
	n := int(r.used)
	start := 0
	if n == len(r.nodes) {
		start = int(r.head)
	}
	lo, hi := 0, n // find the first live entry in ring order
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if r.live(r.nodes[(start+mid)%len(r.nodes)].task) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return n - lo
}
