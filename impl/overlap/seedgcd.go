package overlap

import (
	"math/bits"

	spec "github.com/memverify/memverify/model/overlap"
)

var _ spec.Checker = SeedGCD

// SeedGCD is the seed's "hybrid" rule (tensormap-overlap.md §12), kept to be
// measured: bounding boxes first; two C-contiguous views whose boxes meet
// overlap; otherwise the views overlap when the gcd of every stride of both
// divides the distance between their offsets. The gcd step ignores the index
// bounds and the element size, so it is NOT exact in either direction: it
// misses overlaps (a dependency lost) and reports false ones. Do not use it
// to track dependencies. Validation and empty views are handled as in the
// model, and size-1 dims are left out of the gcd, which is the rule's most
// charitable reading.
func SeedGCD(a, b spec.View) (spec.Verdict, error) {
	ba, bb, err := measurePair(&a, &b)
	if err != nil {
		return spec.No, err
	}
	if ba.empty || bb.empty || !boxesMeet(&ba, &bb) {
		return spec.No, nil
	}
	if seedContiguous(&a) && seedContiguous(&b) {
		return spec.Yes, nil
	}
	return seedRule(&a, &b), nil
}

// seedRule is the seed's GCD test, reduced to one dimension: an integer
// solution of Σ i·s_a − Σ j·s_b = off_b − off_a exists when the gcd of the
// strides divides the right-hand side.
func seedRule(a, b *spec.View) spec.Verdict {
	var g uint64
	for _, v := range [2]*spec.View{a, b} {
		for d, n := range v.Shape {
			if n > 1 {
				g = gcd(g, absU(v.Strides[d]))
			}
		}
	}
	delta := absU(b.Offset - a.Offset) // offsets are ≥ 0: no overflow
	if g == 0 {
		if delta == 0 {
			return spec.Yes
		}
		return spec.No
	}
	if delta%g == 0 {
		return spec.Yes
	}
	return spec.No
}

// seedContiguous is the seed's is_contiguous: row-major and dense, size-1 dims
// skipped.
func seedContiguous(v *spec.View) bool {
	want := uint64(v.ElemSize)
	for d := len(v.Shape) - 1; d >= 0; d-- {
		n := v.Shape[d]
		if n == 1 {
			continue
		}
		if v.Strides[d] < 0 || uint64(v.Strides[d]) != want {
			return false
		}
		hi, lo := bits.Mul64(want, uint64(n))
		if hi != 0 {
			return d == 0
		}
		want = lo
	}
	return true
}

// gcd is the binary (Stein) algorithm on magnitudes, which needs no
// division; gcd(0, x) = x.
func gcd(a, b uint64) uint64 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	if a == 1 || b == 1 {
		return 1 // a byte term makes most gcds 1: no loop for them
	}
	shift := bits.TrailingZeros64(a | b)
	a >>= bits.TrailingZeros64(a)
	for b != 0 {
		b >>= bits.TrailingZeros64(b)
		if a > b {
			a, b = b, a
		}
		b -= a
	}
	return a << shift
}
