package bank

import (
	"math"
	"math/bits"
)

// index is one of the free list's trees, kept at 32 bits a key and value
// when the range allows it, else at 64, with bytes at its boundary.
//
// Every key and value the list stores is an address in its range or a size
// made of allocation units, so it is stored as a count of units: (x-base)
// >> shift, base being the range's start for addresses and 0 for sizes, and
// 1<<shift the largest power of two dividing the alignment (offsets and
// sizes are multiples of the alignment, so the count is exact). A range of
// fewer than 2^32-1 units, which is every real bank, fits 32 bits: an
// entry is 8 bytes, half the 64-bit one, and so is the whole tree. The
// largest count, ^K(0), is never stored; the trees read it as "no bound".
//
// The methods are the btree's, in bytes. The conversion costs a shift and
// an add; each call picks the width with one branch that always goes the
// same way.
type index struct {
	wide   bool          // 64-bit: the range has 2^32-1 units or more
	narrow btree[uint32] // in use unless wide
	full   btree[uint64] // in use if wide
	kbase  uint64        // taken from keys before the shift: the range's start for addresses, else 0
	vbase  uint64        // the same for values
	shift  uint          // a unit is 1<<shift bytes
	lim    uint64        // ^K(0): above every stored count
}

// init sets ix up for a tree over a range of size bytes with the given
// alignment: keys and values relative to kbase and vbase, nodes of width
// entries (0: fan at 32 bits, wideFan at 64). wide forces 64 bits (tests
// run both widths on small ranges).
func (ix *index) init(size, align, kbase, vbase uint64, width int32, ties, wide bool) {
	ix.shift = uint(bits.TrailingZeros64(align))
	ix.kbase, ix.vbase = kbase, vbase
	ix.wide = wide || size>>ix.shift >= math.MaxUint32
	if width == 0 { // the default: the widest node whose searches read two lines
		width = fan
		if ix.wide {
			width = wideFan
		}
	}
	if ix.wide {
		ix.lim = math.MaxUint64
		ix.full.init(width, ties)
	} else {
		ix.lim = math.MaxUint32
		ix.narrow.init(width, ties)
	}
}

// enc is the count of the exact byte value x above base. (The shifts here
// are masked with 63, which they never exceed, so that the compiler drops
// its check for shifts of 64 or more.)
func (ix *index) enc(x, base uint64) uint64 { return (x - base) >> (ix.shift & 63) }

// dec is the byte value of the count u above base.
func (ix *index) dec(u, base uint64) uint64 { return base + u<<(ix.shift&63) }

// up is the least count whose byte value is at least x, at most lim (which
// no entry reaches: "none"); MaxUint64 stays the tree's "no bound".
func (ix *index) up(x, base uint64) uint64 {
	if x <= base {
		return 0
	}
	if x == math.MaxUint64 {
		return ix.lim
	}
	d := x - base
	u := d >> (ix.shift & 63)
	if d&(1<<(ix.shift&63)-1) != 0 {
		u++
	}
	return min(u, ix.lim)
}

// down is the greatest count whose byte value is at most x (x ≥ base),
// at most lim.
func (ix *index) down(x, base uint64) uint64 { return min((x-base)>>(ix.shift&63), ix.lim) }

func (ix *index) reset() {
	if ix.wide {
		ix.full.reset()
	} else {
		ix.narrow.reset()
	}
}

// width is the node capacity in use.
func (ix *index) width() int32 {
	if ix.wide {
		return ix.full.max
	}
	return ix.narrow.max
}

// height is the number of levels; c's leaf is at height-1.
func (ix *index) height() int {
	if ix.wide {
		return ix.full.height
	}
	return ix.narrow.height
}

// seekLE points c at the last entry ≤ (k, v), as btree.seekLE; k is any
// address (below the base there is no entry), v exact or MaxUint64 (in a
// tree with ties, k must be exact).
func (ix *index) seekLE(c *cursor, k, v uint64) bool {
	if k < ix.kbase {
		return false
	}
	ku, vu := ix.down(k, ix.kbase), uint64(0)
	if v >= ix.vbase {
		vu = ix.down(v, ix.vbase)
	}
	if ix.wide {
		return ix.full.seekLE(c, ku, vu)
	}
	return ix.narrow.seekLE(c, uint32(ku), uint32(vu))
}

func (ix *index) next(c *cursor) bool {
	if ix.wide {
		return ix.full.next(c)
	}
	return ix.narrow.next(c)
}

func (ix *index) prev(c *cursor) bool {
	if ix.wide {
		return ix.full.prev(c)
	}
	return ix.narrow.prev(c)
}

func (ix *index) first(c *cursor) bool {
	if ix.wide {
		return ix.full.first(c)
	}
	return ix.narrow.first(c)
}

// at is the entry c points at.
func (ix *index) at(c *cursor) (k, v uint64) {
	if ix.wide {
		k, v = ix.full.at(c)
	} else {
		k, v = widen(ix.narrow.at(c))
	}
	return ix.dec(k, ix.kbase), ix.dec(v, ix.vbase)
}

// span is the entry c points at and the key of the entry after it (ok
// false at the end): at and btree.nextKey in one call, the list's most frequent.
func (ix *index) span(c *cursor) (k, v, next uint64, ok bool) {
	if ix.wide {
		k, v = ix.full.at(c)
		next, ok = ix.full.nextKey(c)
	} else {
		k32, v32 := ix.narrow.at(c)
		n32, ok32 := ix.narrow.nextKey(c)
		k, v, next, ok = uint64(k32), uint64(v32), uint64(n32), ok32
	}
	return ix.dec(k, ix.kbase), ix.dec(v, ix.vbase), ix.dec(next, ix.kbase), ok
}

// prevValue is the value of the entry before c's in the same leaf (c is not
// at the leaf's first slot).
func (ix *index) prevValue(c *cursor) uint64 {
	var u uint64
	if l := ix.height() - 1; ix.wide {
		u = ix.full.nodes[c.node[l]].v[c.pos[l]-1]
	} else {
		u = uint64(ix.narrow.nodes[c.node[l]].v[c.pos[l]-1])
	}
	return ix.dec(u, ix.vbase)
}

// top is the largest value (the base when empty).
func (ix *index) top() uint64 {
	if ix.wide {
		return ix.dec(ix.full.top(), ix.vbase)
	}
	return ix.dec(uint64(ix.narrow.top()), ix.vbase)
}

func (ix *index) set(c *cursor, k, v uint64) {
	ku, vu := ix.enc(k, ix.kbase), ix.enc(v, ix.vbase)
	if ix.wide {
		ix.full.set(c, ku, vu)
	} else {
		ix.narrow.set(c, uint32(ku), uint32(vu))
	}
}

func (ix *index) split(c *cursor, k1, v1, k2, v2 uint64) {
	k1u, v1u := ix.enc(k1, ix.kbase), ix.enc(v1, ix.vbase)
	k2u, v2u := ix.enc(k2, ix.kbase), ix.enc(v2, ix.vbase)
	if ix.wide {
		ix.full.split(c, k1u, v1u, k2u, v2u)
	} else {
		ix.narrow.split(c, uint32(k1u), uint32(v1u), uint32(k2u), uint32(v2u))
	}
}

func (ix *index) absorb(c *cursor, cnt int32, v uint64) {
	vu := ix.enc(v, ix.vbase)
	if ix.wide {
		ix.full.absorb(c, cnt, vu)
	} else {
		ix.narrow.absorb(c, cnt, uint32(vu))
	}
}

func (ix *index) deleteAt(c *cursor) {
	if ix.wide {
		ix.full.deleteAt(c)
	} else {
		ix.narrow.deleteAt(c)
	}
}

func (ix *index) insert(k, v uint64) {
	ku, vu := ix.enc(k, ix.kbase), ix.enc(v, ix.vbase)
	if ix.wide {
		ix.full.insert(ku, vu)
	} else {
		ix.narrow.insert(uint32(ku), uint32(vu))
	}
}

func (ix *index) delete(k, v uint64) {
	ku, vu := ix.enc(k, ix.kbase), ix.enc(v, ix.vbase)
	if ix.wide {
		ix.full.delete(ku, vu)
	} else {
		ix.narrow.delete(uint32(ku), uint32(vu))
	}
}

// firstFit points c at the first entry with k ≥ lo and v ≥ n.
func (ix *index) firstFit(c *cursor, lo, n uint64) bool {
	lu, nu := ix.up(lo, ix.kbase), ix.up(n, ix.vbase)
	if ix.wide {
		return ix.full.firstFit(c, lu, nu)
	}
	return ix.narrow.firstFit(c, uint32(lu), uint32(nu))
}

// lastFit points c at the last entry with lo ≤ k < hi and v ≥ n;
// hi = MaxUint64 is no bound.
func (ix *index) lastFit(c *cursor, lo, hi, n uint64) bool {
	lu, hu, nu := ix.up(lo, ix.kbase), ix.up(hi, ix.kbase), ix.up(n, ix.vbase)
	if ix.wide {
		return ix.full.lastFit(c, lu, hu, nu)
	}
	return ix.narrow.lastFit(c, uint32(lu), uint32(hu), uint32(nu))
}

// smallest points c at the first entry with k ≥ n and v ≥ lo.
func (ix *index) smallest(c *cursor, n, lo uint64) bool {
	nu, lu := ix.up(n, ix.kbase), ix.up(lo, ix.vbase)
	if ix.wide {
		return ix.full.smallest(c, nu, lu)
	}
	return ix.narrow.smallest(c, uint32(nu), uint32(lu))
}

// build replaces the tree by the entries (ks[i], vs[i]), in ascending
// order, as btree.build.
func (ix *index) build(ks, vs []uint64, fill int32) {
	if ix.wide {
		build(&ix.full, ix, ks, vs, fill)
	} else {
		build(&ix.narrow, ix, ks, vs, fill)
	}
}

// build fills t from entries in bytes, converted to counts.
func build[K key](t *btree[K], ix *index, ks, vs []uint64, fill int32) {
	ku, vu := make([]K, len(ks)), make([]K, len(vs))
	for i := range ks {
		ku[i], vu[i] = K(ix.enc(ks[i], ix.kbase)), K(ix.enc(vs[i], ix.vbase))
	}
	t.build(ku, vu, fill)
}

func widen(k, v uint32) (uint64, uint64) { return uint64(k), uint64(v) }
