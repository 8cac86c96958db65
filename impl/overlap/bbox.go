package overlap

import (
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

var _ spec.Checker = BBox

// BBox answers Yes when the byte bounds of a and b intersect, No otherwise.
// It is conservative: it never answers No for views that share a byte, and
// answers Yes for many that do not (interleaved columns, strided views with
// gaps). It validates exactly as the model does; an empty view overlaps
// nothing. O(rank), no allocation.
func BBox(a, b spec.View) (spec.Verdict, error) {
	if !bugs.Enabled { // the seams live on the careful path and in boxesMeet
		loA, coverA, flagsA := quickScan(&a)
		loB, coverB, flagsB := quickScan(&b)
		if flagsA|flagsB >= 0 {
			if loA > loB+coverB-1 || loB > loA+coverA-1 {
				return spec.No, nil
			}
			return spec.Yes, nil
		}
	}
	ba, err := measure(&a)
	if err != nil {
		return spec.No, errFirst(err)
	}
	bb, err := measure(&b)
	if err != nil {
		return spec.No, errSecond(err)
	}
	if ba.empty || bb.empty || !boxesMeet(&ba, &bb) {
		return spec.No, nil
	}
	return spec.Yes, nil
}

// measurePair measures both views, naming the one that is invalid.
func measurePair(a, b *spec.View) (box, box, error) {
	ba, err := measure(a)
	if err != nil {
		return box{}, box{}, errFirst(err)
	}
	bb, err := measure(b)
	if err != nil {
		return box{}, box{}, errSecond(err)
	}
	return ba, bb, nil
}

// boxesMeet reports whether two inclusive byte ranges share a byte.
func boxesMeet(x, y *box) bool {
	if bugs.On(BugBoxInt32) {
		return int32(x.lo) <= int32(y.hi) && int32(y.lo) <= int32(x.hi)
	}
	if bugs.On(BugBoxTouching) {
		return x.lo < y.hi && y.lo < x.hi
	}
	return x.lo <= y.hi && y.lo <= x.hi
}

func errFirst(err error) error  { return fmt.Errorf("first view: %w", err) }
func errSecond(err error) error { return fmt.Errorf("second view: %w", err) }
