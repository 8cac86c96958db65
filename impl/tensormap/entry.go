package tensormap

import (
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// none marks the end of a chain and an entry that is in no bucket.
const none = -1

// entry is the hot part of one pool slot: what a chain walk reads. It is 64
// bytes, one cache line, so stepping over an entry of another storage, or one
// whose bounds miss the query, costs one line; the shape and strides live in
// a parallel array (dims) that is read only when the bounds intersect.
type entry struct {
	storage  spec.Storage
	task     spec.Task
	lo, hi   int64 // inclusive byte bounds of the view (non-empty views only)
	next     int32 // older neighbour in the bucket chain, none at the tail
	prev     int32 // newer neighbour in the bucket chain, none at the head
	nextTask int32 // older entry of the same task, none at the end
	bucket   int32 // the bucket whose chain holds the entry, none if unlinked
	off      int64 // the view's offset and element size, kept hot so that
	elem     int64 // most non-identical views are told apart without dims
}

// dims is the cold part of a pool slot: the view's shape and strides, copied
// into fixed arrays so that the caller may reuse its slices.
type dims struct {
	rank    int64
	shape   [overlap.MaxRank]int64
	strides [overlap.MaxRank]int64
}

// setView records a validated view in slot i.
func (r *Ring) setView(i int32, v *overlap.View) {
	e, d := &r.pool[i], &r.dims[i]
	e.off, e.elem, d.rank = v.Offset, v.ElemSize, int64(len(v.Shape))
	for k, n := range v.Shape { // a loop: copy's memmove call costs more for a few dims
		d.shape[k&(overlap.MaxRank-1)], d.strides[k&(overlap.MaxRank-1)] = n, v.Strides[k]
	}
}

// view returns the view recorded in slot i. Its slices point into the dims
// array, which is already on the heap, so building it allocates nothing.
func (r *Ring) view(i int32) overlap.View {
	e, d := &r.pool[i], &r.dims[i]
	return overlap.View{Offset: e.off, ElemSize: e.elem, Shape: d.shape[:d.rank], Strides: d.strides[:d.rank]}
}

// same reports whether slot i records exactly v.
func (r *Ring) same(i int32, v *overlap.View) bool {
	e, d := &r.pool[i], &r.dims[i]
	if e.off != v.Offset || e.elem != v.ElemSize || int(d.rank) != len(v.Shape) {
		return false
	}
	for k := range v.Shape {
		if d.shape[k] != v.Shape[k] || d.strides[k] != v.Strides[k] {
			return false
		}
	}
	return true
}
