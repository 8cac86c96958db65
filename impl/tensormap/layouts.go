package tensormap

import (
	"math/bits"

	implov "github.com/memverify/memverify/impl/overlap"
	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/model/overlap"
)

// layout is a view without its offset: the element size and the dims, and
// the bounds they imply. Views with one layout are translations of each
// other, so their bounds follow from the offset alone (lo = offset − down,
// hi = lo + ext) and a view whose layout the map already holds is not
// measured again.
type layout struct {
	hash    uint64
	elem    int64
	down    int64 // offset − lowest byte: the span of the negative strides
	ext     int64 // highest byte − lowest byte
	refs    int32 // pool slots whose view has this layout
	rank    int32
	shape   [overlap.MaxRank]int64
	strides [overlap.MaxRank]int64
	shift   implov.ShiftPlan // decides two views of this layout at two offsets
	placed  implov.Placed    // a view of this layout, placed by shift: moved to each lowest byte (At)
}

// layouts interns the layouts of the views in the pool: each slot names its
// layout by id, and the dims live once per layout instead of once per
// entry. A runtime splits a few tensor shapes into many tiles, so a pool of
// 128 Ki entries typically holds a handful of layouts, kept hot in the
// caches, while every slot's own data shrinks to a 32-byte node and its
// links.
//
// A layout is counted by the slots that name it (a retired slot keeps its
// reference until its slot is reused) and forgotten when the count falls to
// zero; its id is then reused. The table so holds at most one layout per
// slot, whatever the views: in the worst case, every view of its own
// layout, 376 bytes a slot more (a view copied into each slot, as before,
// took 96 bytes, and 128 more for rank above 4). The index is open
// addressing with linear probing over the hash, at most half full; it
// grows by doubling and deletes by shifting back the entries behind a
// hole, so it never needs tombstones. Growing allocates; a steady state
// with no new layouts does not.
type layouts struct {
	recs  []layout // by id
	free  []int32  // ids with no references, for reuse
	index []int32  // id+1 of the layout at each position, 0 for none
	shift uint     // position = hash >> shift
	n     int      // ids in the index
	// id+1 of the layout find returned last for an Insert and for a
	// lookup, 0 for none: writers and readers may use different layouts.
	lastInsert, lastLookup int32
}

// layoutHash hashes what a layout is made of; rank and len(v.Strides) are
// checked by the caller.
func layoutHash(v *overlap.View) uint64 {
	h := uint64(len(v.Shape))
	if !bugs.On(BugLayoutIgnoresElem) {
		h ^= uint64(v.ElemSize) * 0x9E3779B97F4A7C15
	}
	strides := v.Strides[:len(v.Shape)]
	for k, d := range v.Shape {
		h = (h ^ uint64(d)) * 0xBF58476D1CE4E5B9
		h = (h ^ uint64(strides[k])) * 0x94D049BB133111EB
	}
	return h ^ h>>31
}

// same reports whether layout l is v's, whose rank is at most MaxRank and
// whose strides match its shape.
func (l *layout) same(v *overlap.View) bool {
	if int(l.rank) != len(v.Shape) || (l.elem != v.ElemSize && !bugs.On(BugLayoutIgnoresElem)) {
		return false
	}
	strides := v.Strides[:len(v.Shape)]
	for k, d := range v.Shape {
		if l.shape[k&(overlap.MaxRank-1)] != d || l.strides[k&(overlap.MaxRank-1)] != strides[k] {
			return false
		}
	}
	return true
}

// find returns the id of v's layout and v's bounds, or ok false when the
// table does not hold the layout or v at its offset leaves [0, 2^63): then
// only the careful measure can say what is wrong. The layout found last
// (*last, one for inserts and one for lookups) is tried before hashing:
// views come in runs of one layout (the tiles of a tensor), and a hit costs
// one comparison of the dims.
func (ls *layouts) find(v *overlap.View, last *int32) (id int32, lo, hi int64, ok bool) {
	if len(v.Shape) > overlap.MaxRank || len(v.Strides) != len(v.Shape) {
		return none, 0, 0, false
	}
	if id = *last - 1; id == none || !ls.recs[id].same(v) {
		if id = ls.lookup(v, layoutHash(v)); id == none {
			return none, 0, 0, false
		}
		*last = id + 1
	}
	// lo = offset − down must not fall below 0, nor hi = lo + ext pass
	// 2^63 − 1; both tests are free of overflow.
	l := &ls.recs[id]
	if v.Offset < l.down || v.Offset-l.down > maxAddr-l.ext {
		return none, 0, 0, false
	}
	lo = v.Offset - l.down
	return id, lo, lo + l.ext, true
}

// lookup returns the id of the layout of v, whose hash is h, or none.
func (ls *layouts) lookup(v *overlap.View, h uint64) int32 {
	if ls.n == 0 {
		return none
	}
	mask := uint64(len(ls.index) - 1)
	for p := h >> ls.shift; ; p = (p + 1) & mask {
		e := ls.index[p]
		if e == 0 {
			return none
		}
		if l := &ls.recs[e-1]; l.hash == h && l.same(v) {
			return e - 1
		}
	}
}

// maxAddr is the highest byte a view may touch.
const maxAddr = 1<<63 - 1

// acquire counts one more slot naming layout id.
func (ls *layouts) acquire(id int32) {
	if !bugs.On(BugLayoutUncounted) {
		ls.recs[id].refs++
	}
}

// add interns the layout of v, a valid non-empty view with bounds [lo, hi]
// that find did not find, with one reference, and returns its id.
func (ls *layouts) add(v *overlap.View, lo, hi int64) int32 {
	var id int32
	if n := len(ls.free); n > 0 {
		id, ls.free = ls.free[n-1], ls.free[:n-1]
	} else {
		id = int32(len(ls.recs))
		ls.recs = append(ls.recs, layout{})
	}
	l := &ls.recs[id]
	*l = layout{hash: layoutHash(v), elem: v.ElemSize, down: v.Offset - lo, ext: hi - lo, refs: 1, rank: int32(len(v.Shape))}
	if bugs.On(BugExtent32) {
		l.ext = int64(uint32(l.ext))
	}
	copy(l.shape[:], v.Shape)
	copy(l.strides[:], v.Strides)
	// v was measured: no error. A zero plan or Placed would only defer
	// every pair to ExactBounded.
	l.shift, _ = implov.PlanShift(v)
	l.placed, _ = l.shift.Place(implov.Span{View: v, Lo: lo, Hi: hi})
	if 2*(ls.n+1) > len(ls.index) {
		ls.grow()
	}
	ls.put(id)
	return id
}

// release drops one reference to layout id, forgetting the layout when it
// was the last.
func (ls *layouts) release(id int32) {
	l := &ls.recs[id]
	if l.refs--; l.refs > 0 {
		return
	}
	ls.remove(id)
	ls.free = append(ls.free, id)
	// find must not hand out an id that is free.
	if ls.lastInsert == id+1 {
		ls.lastInsert = 0
	}
	if ls.lastLookup == id+1 {
		ls.lastLookup = 0
	}
}

// put enters id at the first free position from its hash's.
func (ls *layouts) put(id int32) {
	mask := uint64(len(ls.index) - 1)
	p := ls.recs[id].hash >> ls.shift
	for ls.index[p] != 0 {
		p = (p + 1) & mask
	}
	ls.index[p] = id + 1
	ls.n++
}

// grow doubles the index (16 positions at first) and enters every
// interned id again.
func (ls *layouts) grow() {
	size := max(16, 2*len(ls.index))
	old := ls.index
	ls.index = make([]int32, size)
	ls.shift = uint(65 - bits.Len(uint(size))) // 64 − log2(size)
	ls.n = 0
	for _, e := range old {
		if e != 0 {
			ls.put(e - 1)
		}
	}
}

// remove takes id out of the index. Linear probing needs no tombstone:
// each entry behind the hole, up to the next empty position, moves into
// the hole unless its own position lies between the hole and it, and the
// hole moves to where it was.
func (ls *layouts) remove(id int32) {
	mask := uint64(len(ls.index) - 1)
	hole := ls.recs[id].hash >> ls.shift
	for ls.index[hole] != id+1 {
		if ls.index[hole] == 0 {
			return // not indexed: only a seeded bug releases a layout twice
		}
		hole = (hole + 1) & mask
	}
	for p := (hole + 1) & mask; ls.index[p] != 0; p = (p + 1) & mask {
		home := ls.recs[ls.index[p]-1].hash >> ls.shift
		// The entry at p may move back to hole when its home is not in
		// the cyclic range (hole, p]: probing from home then passes hole.
		if (p-home)&mask >= (p-hole)&mask {
			ls.index[hole] = ls.index[p]
			hole = p
		}
	}
	ls.index[hole] = 0
	ls.n--
}

// view returns a view with layout id at offset lo + down. Its slices point
// into the table, which is already on the heap, so building it allocates
// nothing; they are valid until the layout is forgotten.
func (ls *layouts) view(id int32, lo int64) overlap.View {
	l := &ls.recs[id]
	return overlap.View{Offset: lo + l.down, ElemSize: l.elem, Shape: l.shape[:l.rank], Strides: l.strides[:l.rank]}
}
