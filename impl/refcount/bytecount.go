package refcount

import (
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
)

// byteCount is a sum of registration sizes, exact however large: a 128-bit
// two's-complement integer. Sizes are int64 and registrations may overlap, so
// live sizes can sum past math.MaxInt64 (Stats then saturates), and a
// Sharded shard's share of the sum can be negative (a buffer is counted in one
// shard and uncounted in another). Adding and subtracting the same sizes in
// any order therefore leaves it exact, where an int64 would wrap. Each change
// is an add or subtract with carry: two instructions where an int64 takes one.
type byteCount struct {
	lo uint64
	hi int64
}

// add adds n >= 0.
func (c *byteCount) add(n int64) {
	var carry uint64
	c.lo, carry = bits.Add64(c.lo, uint64(n), 0)
	if bugs.On(BugBytesWrap) {
		carry = 0 // a 64-bit sum
	}
	c.hi += int64(carry)
}

// sub subtracts n >= 0.
func (c *byteCount) sub(n int64) {
	var borrow uint64
	c.lo, borrow = bits.Sub64(c.lo, uint64(n), 0)
	c.hi -= int64(borrow)
}

// plus returns c + d.
func (c byteCount) plus(d byteCount) byteCount {
	lo, carry := bits.Add64(c.lo, d.lo, 0)
	if bugs.On(BugBytesWrap) {
		carry = 0
	}
	return byteCount{lo: lo, hi: c.hi + d.hi + int64(carry)}
}

// saturated is c clamped to the int64 range: the contract's Stats.Bytes.
func (c byteCount) saturated() int64 {
	switch {
	case c.hi > 0 || c.hi == 0 && c.lo > math.MaxInt64:
		return math.MaxInt64
	case c.hi < -1 || c.hi == -1 && c.lo <= math.MaxInt64:
		return math.MinInt64
	}
	return int64(c.lo)
}
