package overlap

import "fmt"

// Checker answers whether two views of one storage touch a common byte. The
// model's Overlap is one; so is every implementation in impl/overlap.
// A Checker must be safe for concurrent use and must not retain its arguments.
type Checker func(a, b View) (Verdict, error)

var _ Checker = Overlap

// MaxTouches caps the brute-force model: a view whose elements touch more
// than this many bytes in total (elements × ElemSize, counting a byte once
// per element that touches it) is refused with ErrTooLarge.
const MaxTouches = 1 << 22

// Overlap reports whether a and b touch a common byte, by listing the bytes.
// Both views are validated first (ErrInvalidView); an empty view overlaps
// nothing; views above MaxTouches are refused (ErrTooLarge). It never answers
// TooHard.
func Overlap(a, b View) (Verdict, error) {
	if err := validatePair(a, b); err != nil {
		return No, err
	}
	if a.Empty() || b.Empty() {
		return No, nil
	}
	if err := checkSize(a); err != nil {
		return No, err
	}
	if err := checkSize(b); err != nil {
		return No, err
	}
	seen := make(map[int64]bool)
	eachByte(a, func(addr int64) bool { seen[addr] = true; return true })
	verdict := No
	eachByte(b, func(addr int64) bool {
		if seen[addr] {
			verdict = Yes
			return false
		}
		return true
	})
	return verdict, nil
}

// InternalOverlap reports whether v touches some byte twice, through two
// different elements (a broadcast, a stride smaller than the element, ...).
// Validation and the size cap are as for Overlap; an empty view answers No.
func InternalOverlap(v View) (Verdict, error) {
	if err := v.Validate(); err != nil {
		return No, err
	}
	if v.Empty() {
		return No, nil
	}
	if err := checkSize(v); err != nil {
		return No, err
	}
	seen := make(map[int64]bool)
	verdict := No
	eachByte(v, func(addr int64) bool {
		if seen[addr] {
			verdict = Yes
			return false
		}
		seen[addr] = true
		return true
	})
	return verdict, nil
}

func validatePair(a, b View) error {
	if err := a.Validate(); err != nil {
		return fmt.Errorf("first view: %w", err)
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("second view: %w", err)
	}
	return nil
}

// checkSize refuses a valid view whose byte touches exceed MaxTouches.
func checkSize(v View) error {
	n, ok := v.Numel()
	if ok {
		n, ok = mulChecked(n, v.ElemSize)
	}
	if !ok || n > MaxTouches {
		return fmt.Errorf("%w: %v touches more than %d bytes", ErrTooLarge, v, MaxTouches)
	}
	return nil
}

// eachByte calls f with the address of every byte of every element of a
// valid, non-empty view, in row-major element order, until f returns false.
// Element i starts at Offset + Σ i[d]·Strides[d]; the bounds checked by
// Validate keep every address in [0, 2^63), so the sums cannot overflow.
func eachByte(v View, f func(addr int64) bool) {
	idx := make([]int64, len(v.Shape))
	for {
		start := v.Offset
		for d, i := range idx {
			start += i * v.Strides[d]
		}
		for k := int64(0); k < v.ElemSize; k++ {
			if !f(start + k) {
				return
			}
		}
		// Advance the multi-index like an odometer, last dim fastest.
		d := len(idx) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < v.Shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
