package tensormap

import (
	"fmt"

	implov "github.com/memverify/memverify/impl/overlap"
	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// query is a validated lookup: its storage, view, byte bounds, and layout
// when the map holds it (none otherwise).
type query struct {
	storage spec.Storage
	view    overlap.View
	lo, hi  int64
	layout  int32
}

// prepare validates a lookup's arguments into q. ok is false for an empty
// view, which overlaps nothing. A view of a layout the map holds is not
// measured: its bounds follow from its offset, and an entry of the same
// layout is its shifted copy.
func (r *Ring) prepare(q *query, storage spec.Storage, view *overlap.View) (ok bool, err error) {
	if storage == 0 {
		return false, spec.ErrNullStorage
	}
	q.storage, q.view = storage, *view
	var found bool
	if q.layout, q.lo, q.hi, found = r.layouts.find(view, &r.layouts.lastLookup); found {
		return true, nil
	}
	q.lo, q.hi, ok, err = measure(view)
	return ok, err
}

// Lookup implements spec.Map. Chains hold entries newest first, so the first
// dependency found is the newest; the first retired entry ends the walk and
// cuts the chain there, since everything behind it is older still.
func (r *Ring) Lookup(storage spec.Storage, view overlap.View) (spec.Task, bool, error) {
	var q query
	if ok, err := r.prepare(&q, storage, &view); !ok {
		return 0, false, err
	}
	b := r.bucketOf(storage, view.Offset)
	prev := int32(none)
	for i, n := r.buckets[b], 0; i != none; n++ {
		nd := &r.nodes[i]
		if !r.live(nd.task) {
			r.truncate(b, prev, i)
			break
		}
		if bugs.Enabled && n > len(r.nodes) {
			break // a seeded bug corrupted the chain into a cycle
		}
		if bugs.On(BugWalkCap) && n == walkCap {
			break
		}
		// depends' cheap filters, inlined: most entries fail them.
		if (nd.storage == q.storage || bugs.On(BugNoStorageCheck)) && nd.lo <= q.hi &&
			q.lo-nd.lo <= r.layouts.recs[nd.layout].ext && r.depends(i, &q) {
			return nd.task, true, nil
		}
		prev, i = i, nd.next
	}
	return 0, false, nil
}

// LookupAll implements spec.Map. Entries of one task sit next to each other
// in a chain (it is sorted by task), so comparing with the last producer
// found removes duplicates.
func (r *Ring) LookupAll(storage spec.Storage, view overlap.View, limit int) ([]spec.Task, error) {
	var q query
	ok, err := r.prepare(&q, storage, &view)
	if err != nil {
		return nil, err
	}
	if limit < 1 {
		return nil, fmt.Errorf("%w: %d", spec.ErrInvalidLimit, limit)
	}
	if !ok {
		return nil, nil
	}
	var out []spec.Task
	b := r.bucketOf(storage, view.Offset)
	prev := int32(none)
	for i, n := r.buckets[b], 0; i != none; n++ {
		nd := &r.nodes[i]
		if !r.live(nd.task) {
			r.truncate(b, prev, i)
			break
		}
		if bugs.Enabled && n > len(r.nodes) {
			break
		}
		if bugs.On(BugWalkCap) && n == walkCap {
			break
		}
		if r.depends(i, &q) && (len(out) == 0 || out[len(out)-1] != nd.task || bugs.On(BugNoDedup)) {
			if len(out) == limit {
				if bugs.On(BugSilentTruncation) {
					return out, nil
				}
				return out, fmt.Errorf("%w: more than %d producers", spec.ErrLimit, limit)
			}
			out = append(out, nd.task)
		}
		prev, i = i, nd.next
	}
	return out, nil
}

// truncate cuts bucket b's chain before entry i, the first retired one, and
// marks every entry from i on as unlinked so that slot reuse leaves the
// chain alone. Each entry is cut at most once, so the walk is amortised O(1).
func (r *Ring) truncate(b, prev, i int32) {
	if prev == none || bugs.On(BugTruncateHead) {
		r.buckets[b] = none
	} else {
		r.nodes[prev].next = none
	}
	for n := 0; i != none; n++ {
		if bugs.Enabled && n > len(r.nodes) {
			break
		}
		nd := &r.nodes[i]
		r.links[i].prev = unlinked
		i, nd.next = nd.next, none
	}
}

// depends reports whether a reader of q depends on entry i: the same
// storage, intersecting bounds, and a common byte. A non-empty view touches
// its lowest and its highest byte, so an entry with the same lowest or
// highest byte as q overlaps it — the same view written and read, the
// commonest dependency, is settled from the node without reading the
// entry. Otherwise the solver decides. TooHard and solver errors count as
// dependencies: a missed dependency is a data race, a spurious one only a
// lost chance to run in parallel.
func (r *Ring) depends(i int32, q *query) bool {
	nd := &r.nodes[i]
	if nd.storage != q.storage && !bugs.On(BugNoStorageCheck) {
		return false
	}
	lo, hi := nd.lo, nd.lo+r.layouts.recs[nd.layout].ext
	if hi < q.lo || q.hi < lo {
		return false
	}
	if bugs.On(BugBBoxOnly) || lo == q.lo || hi == q.hi {
		return true
	}
	var v overlap.Verdict
	if r.solver == nil {
		// Both views were validated and measured (at Insert and in
		// prepare): the solver starts at the bounds.
		if nd.layout == q.layout { // shifted copies: the layout's plan decides
			l := &r.layouts.recs[nd.layout]
			if found, ok, err := l.shift.Overlap(l.placed.At(lo), l.placed.At(q.lo)); ok && err == nil {
				return found
			}
		}
		ev := r.layouts.view(nd.layout, lo)
		var err error
		if v, err = implov.ExactBounded(implov.Span{View: &ev, Lo: lo, Hi: hi}, implov.Span{View: &q.view, Lo: q.lo, Hi: q.hi}); err != nil {
			return true // spans the solver refuses: a dependency, never a lost one
		}
	} else {
		var err error
		if v, err = r.solver(r.layouts.view(nd.layout, lo), q.view); err != nil {
			return !bugs.On(BugSolverErrorNo)
		}
	}
	if v == overlap.TooHard && bugs.On(BugTooHardNo) {
		return false
	}
	return v != overlap.No
}
