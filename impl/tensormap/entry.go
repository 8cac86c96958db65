package tensormap

import (
	"math"

	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// none marks the end of a chain and the head's missing predecessor.
const none = -1

// unlinked is the prev of an entry that is in no bucket chain.
const unlinked = -2

// inlineRank is the largest rank whose shape and strides live in the entry
// itself; views of higher rank keep theirs in the Ring's wide array.
const inlineRank = 4

// A pool slot is split three ways by who reads it.
//
// node (32 bytes, two per cache line) is what a chain walk reads: storage,
// task, bounds, and the link to the next entry. The walk of a lookup touches
// only nodes, which for 128 Ki slots are 4 MiB — a quarter of what the
// whole slots take, so far more of them stay in the caches — and most
// candidates are decided there: a storage or bounds mismatch rejects one,
// and a shared lowest or highest byte accepts one (a non-empty view touches
// both), which settles the same view written and read without reading more.
//
// link (8 bytes) holds the back link and the per-task chain, which only
// Insert, Retire and unlinking read.
//
// entry holds the view itself, read only when the solver must decide.
type node struct {
	storage spec.Storage
	task    spec.Task
	lo      int64  // the view's lowest byte (non-empty views only)
	ext     uint32 // hi − lo, or extBig when it does not fit (then entry.hi)
	next    int32  // older neighbour in the bucket chain, none at the tail
}

// extBig marks a node whose extent does not fit in 32 bits.
const extBig = math.MaxUint32

type link struct {
	prev     int32 // newer neighbour, none at the head, unlinked if in no chain
	nextTask int32 // older entry of the same task, none at the end
}

type entry struct {
	hi        int64 // the view's highest byte
	off, elem int64 // the view's offset and element size
	rank      int64
	shape     [inlineRank]int64 // rank ≤ inlineRank: the dims; else unused
	strides   [inlineRank]int64
}

// wide holds the shape and strides of a view of rank above inlineRank.
type wide struct {
	shape   [overlap.MaxRank]int64
	strides [overlap.MaxRank]int64
}

// hi returns the highest byte of the view in slot i.
func (r *Ring) hi(i int32) int64 {
	if n := &r.nodes[i]; n.ext != extBig {
		return n.lo + int64(n.ext)
	}
	return r.pool[i].hi
}

// setView records a validated, non-empty view's bounds and the view itself
// in slot i (an empty view's bounds are never read).
func (r *Ring) setView(i int32, v *overlap.View, lo, hi int64) {
	n, e := &r.nodes[i], &r.pool[i]
	n.lo, n.ext = lo, extBig
	if ext := uint64(hi - lo); ext < extBig {
		n.ext = uint32(ext)
	}
	e.hi, e.off, e.elem, e.rank = hi, v.Offset, v.ElemSize, int64(len(v.Shape))
	if len(v.Shape) <= inlineRank {
		strides := v.Strides[:len(v.Shape)]
		for k, d := range v.Shape { // a loop: copy's memmove call costs more for a few dims
			e.shape[k&(inlineRank-1)], e.strides[k&(inlineRank-1)] = d, strides[k]
		}
		return
	}
	if r.wide == nil { // views of rank above 4 are rare: the array comes on first use
		r.wide = make([]wide, len(r.pool))
	}
	w := &r.wide[i]
	copy(w.shape[:], v.Shape)
	copy(w.strides[:], v.Strides)
}

// view returns the view recorded in slot i. Its slices point into the pool
// (or the wide array), which is already on the heap, so building it
// allocates nothing.
func (r *Ring) view(i int32) overlap.View {
	e := &r.pool[i]
	if e.rank <= inlineRank {
		return overlap.View{Offset: e.off, ElemSize: e.elem, Shape: e.shape[:e.rank], Strides: e.strides[:e.rank]}
	}
	w := &r.wide[i]
	return overlap.View{Offset: e.off, ElemSize: e.elem, Shape: w.shape[:e.rank], Strides: w.strides[:e.rank]}
}
