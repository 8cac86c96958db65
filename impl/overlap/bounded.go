package overlap

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

var _ spec.Checker = BoundedChecker

// Bounds validates v exactly as the model does (an error wrapping
// ErrInvalidView) and returns the inclusive byte bounds of a non-empty view;
// nonEmpty is false for an empty one, which overlaps nothing. It is the
// measuring half of Exact, for a dependency tracker that keeps each entry's
// bounds and compares them before anything else.
func Bounds(v *spec.View) (lo, hi int64, nonEmpty bool, err error) {
	if !bugs.Enabled { // the seams live on the careful path
		if lo, cover, flags := quickScan(v); flags >= 0 {
			return lo, lo + cover - 1, true, nil
		}
	}
	b, err := measure(v)
	if err != nil || b.empty {
		return 0, 0, false, err
	}
	return b.lo, b.hi, true, nil
}

// ExactBounded is Exact for two views that Bounds accepted as non-empty,
// given the bounds it returned for each: it skips validation and measuring,
// and starts at the bounds test. It cannot fail; with bounds that are not
// the views' own its answer means nothing. The views are read, not kept.
func ExactBounded(a, b *spec.View, loA, hiA, loB, hiB int64) spec.Verdict {
	if loA > hiB || loB > hiA {
		return spec.No
	}
	if loA == loB || hiA == hiB {
		return spec.Yes // a view touches its lowest and its highest byte
	}
	// decide's shifted-copy step first, without its bookkeeping: it is
	// what a tracker comparing tiles of one tensor meets most.
	if sameShape(a, b) {
		if found, ok := shifted(a, loA, loB); ok {
			if found {
				return spec.Yes
			}
			return spec.No
		}
	}
	v, _ := decide(a, b, box{lo: loA, hi: hiA}, box{lo: loB, hi: hiB}, DefaultMaxWork)
	return v
}

// BoundedChecker adapts Bounds and ExactBounded to a spec.Checker, so that
// the properties hold the tracker's path to the model.
func BoundedChecker(a, b spec.View) (spec.Verdict, error) {
	loA, hiA, okA, err := Bounds(&a)
	if err != nil {
		return spec.No, errFirst(err)
	}
	loB, hiB, okB, err := Bounds(&b)
	if err != nil {
		return spec.No, errSecond(err)
	}
	if !okA || !okB {
		return spec.No, nil
	}
	return ExactBounded(&a, &b, loA, hiA, loB, hiB), nil
}
