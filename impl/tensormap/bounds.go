package tensormap

import (
	"math"
	"math/bits"

	"github.com/memverify/memverify/model/overlap"
)

// bounds returns the inclusive byte bounds of v when v is valid and
// non-empty, checking the same conditions as overlap.View.Validate but
// without building error values; it is the hot path of every call. Anything
// else (an empty view, an invalid one) returns ok = false, and the caller
// asks overlap.View.Validate for the verdict and its error.
func bounds(v *overlap.View) (lo, hi int64, ok bool) {
	if len(v.Shape) > overlap.MaxRank || len(v.Shape) != len(v.Strides) || v.ElemSize < 1 || v.Offset < 0 {
		return 0, 0, false
	}
	lo, hi = v.Offset, v.Offset
	for d, n := range v.Shape {
		if n < 1 {
			return 0, 0, false // empty or negative: not the fast path's business
		}
		if n == 1 {
			continue // a size-1 dim's stride means nothing
		}
		s := v.Strides[d]
		mag := uint64(s)
		if s < 0 {
			mag = -mag
		}
		carry, span := bits.Mul64(uint64(n-1), mag)
		if carry != 0 || span > math.MaxInt64 {
			return 0, 0, false
		}
		if s < 0 {
			if lo -= int64(span); lo < 0 {
				return 0, 0, false
			}
		} else if hi > math.MaxInt64-int64(span) {
			return 0, 0, false
		} else {
			hi += int64(span)
		}
	}
	if hi > math.MaxInt64-(v.ElemSize-1) {
		return 0, 0, false
	}
	return lo, hi + v.ElemSize - 1, true
}

// measure validates v and returns its bounds; nonEmpty is false for an empty
// view, which overlaps nothing.
func measure(v *overlap.View) (lo, hi int64, nonEmpty bool, err error) {
	if lo, hi, ok := bounds(v); ok {
		return lo, hi, true, nil
	}
	if lo, hi, ok := v.Bounds(); ok { // not expected: bounds is exact
		return lo, hi, true, nil
	}
	return 0, 0, false, v.Validate()
}
