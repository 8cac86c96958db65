package overlap

import "math/bits"

// Checked int64 arithmetic. Every size and address computation of the model
// goes through these, so an overflow becomes an error instead of a wrapped
// value.

// mulChecked returns a·b and false when the product does not fit in int64.
func mulChecked(a, b int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	hi, lo := bits.Mul64(absU(a), absU(b))
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true // -lo wraps to the right bit pattern, including MinInt64
	}
	if lo > 1<<63-1 {
		return 0, false
	}
	return int64(lo), true
}

// addChecked returns a+b and false when the sum does not fit in int64.
func addChecked(a, b int64) (int64, bool) {
	s := a + b
	if (a >= 0) == (b >= 0) && (s >= 0) != (a >= 0) {
		return 0, false
	}
	return s, true
}

// absU returns |a| as an unsigned value; |MinInt64| = 2^63 fits.
func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}
