package overlap

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

// box is what every checker needs to know of one valid view: whether it is
// empty, its inclusive byte bounds, and whether its dims, innermost first,
// already show that it touches every byte between them (ordered). A view
// that is not ordered may still be gap-free: gapFree decides, and is only
// asked when the answer matters.
type box struct {
	lo, hi  int64
	empty   bool
	ordered bool
	settled bool // ordered is the final gap-free answer (a Prepared view)
}

// holds reports whether byte x lies within the box.
func (b *box) holds(x int64) bool { return b.lo <= x && x <= b.hi }

// gapFree reports whether the measured view v touches every byte of its box.
func (b *box) gapFree(v *spec.View) bool {
	return b.ordered || (!b.settled && gapFreeSorted(v, uint64(b.hi-b.lo)+1))
}

// measure validates v exactly as the model does and measures it in one pass
// over the dims, innermost first. Dims of size 1 are skipped (their stride
// means nothing); so are stride-0 dims (a broadcast repeats bytes, it moves
// no bound and opens no gap). An overflow is only an error for a non-empty
// view, so it is noted and judged after the pass.
func measure(v *spec.View) (box, error) {
	shape, strides := v.Shape, v.Strides
	r := len(shape)
	if r > spec.MaxRank || r != len(strides) || v.ElemSize < 1 || v.Offset < 0 {
		return box{}, invalid(v)
	}
	strides = strides[:r]
	if !bugs.Enabled { // the seams live on the careful path
		// The common case: extents below 2^28 and strides below 2^31, so
		// each span is below 2^59 and the sum of eight below 2^62, and
		// plain int64 arithmetic cannot wrap.
		var lo, hi int64 // the spans below and above the offset
		cover := v.ElemSize
		ordered := true
		d := r - 1
		for ; d >= 0; d-- {
			n, s := shape[d], strides[d]
			if n == 1 {
				continue // a size-1 dim's stride, however large, means nothing
			}
			m := max(s, -s) // MinInt64 stays negative and fails the test below
			if uint64(n-1) >= smallExtent || uint64(m) >= smallStride {
				break // empty, negative, or large: the careful path decides
			}
			e := (n - 1) * m
			if s < 0 {
				lo -= e
			} else {
				hi += e
			}
			ordered = ordered && m <= cover
			cover += e
		}
		// ElemSize may be up to 2^63-1: the last byte is tested without
		// forming a sum that could wrap.
		if d < 0 && v.Offset+lo >= 0 && hi <= math.MaxInt64-v.Offset && v.ElemSize-1 <= math.MaxInt64-v.Offset-hi {
			return box{lo: v.Offset + lo, hi: v.Offset + hi + v.ElemSize - 1, ordered: ordered}, nil
		}
	}
	return measureCareful(v, shape, strides)
}

// measureCareful is measure for any view: every product and sum checked.
func measureCareful(v *spec.View, shape, strides []int64) (box, error) {
	r := len(shape)
	// up and down accumulate the positive and negative spans as magnitudes;
	// a carry or a span of 2^63 or more marks the view as overflowing (an
	// error only if it turns out non-empty). The loop is kept nearly
	// branch-free: it is the whole cost of the dense fast path.
	var up, down, ovf uint64
	cover := uint64(v.ElemSize) // bytes [lo, lo+cover) are touched, dims so far in order
	ordered, empty, negative := true, false, false
	settled := false // the gap test has stopped looking (only under a seeded bug)
	for d := r - 1; d >= 0; d-- {
		n, s := shape[d], strides[d]
		if n < 2 {
			negative = negative || n < 0
			empty = empty || n < 1
			if n == 1 && bugs.On(BugSize1Stride) {
				settled = true // "a size-1 dim: the rest of the layout is trivial"
			}
			continue
		}
		mag := absU(s)
		h, span := bits.Mul64(uint64(n-1), mag)
		negMask := uint64(s >> 63) // all ones for a negative stride
		if bugs.On(BugExtentOverflow) {
			ext := (n - 1) * s // wraps, and may change sign
			h, span, negMask = 0, absU(ext), uint64(ext>>63)
		}
		if bugs.On(BugBoxNegStride) {
			negMask = 0
		}
		var c1, c2 uint64
		down, c1 = bits.Add64(down, span&negMask, 0)
		up, c2 = bits.Add64(up, span&^negMask, 0)
		ovf |= h | span>>63 | c1 | c2
		if !settled {
			// A stride-0 dim passes (0 ≤ cover) and adds nothing.
			ordered = ordered && mag <= cover
			cover += span // meaningless once ordered is false, and then unused
		}
	}
	ovf |= (up | down) >> 63
	overflow := ovf != 0
	switch {
	case negative:
		return box{}, invalid(v)
	case empty && bugs.On(BugEmptyPhantom):
		// The dims of size 0 are skipped like those of size 1: a
		// one-element box at the offset.
		return box{lo: v.Offset, hi: v.Offset + v.ElemSize - 1, empty: true, ordered: true}, nil
	case empty:
		return box{empty: true}, nil
	case overflow || down > uint64(v.Offset):
		return box{}, invalid(v)
	}
	// hi = Offset + up + ElemSize - 1 must be at most 2^63-1, tested without
	// forming a sum that could wrap: the last byte may be exactly 2^63-1.
	room := uint64(math.MaxInt64 - v.Offset)
	if bugs.On(BugEndOverflow) {
		if end := v.Offset + int64(up) + v.ElemSize; end < v.Offset { // the exclusive end wraps at the top
			return box{}, invalid(v)
		}
	}
	if up > room || uint64(v.ElemSize-1) > room-up {
		return box{}, invalid(v)
	}
	return box{
		lo:      v.Offset - int64(down),
		hi:      v.Offset + int64(up) + (v.ElemSize - 1),
		ordered: ordered,
	}, nil
}

// Limits of measure's plain path: with extents below 2^28 and strides below
// 2^31 in magnitude, each span is below 2^59 and the sum of eight below 2^62,
// so plain int64 arithmetic cannot wrap.
const (
	smallExtent = 1 << 28
	smallStride = 1 << 31
)

// gapFreeSorted is the gap test for dims not already ordered innermost-first
// by stride: sort them by |stride| and check that each stride is within the
// span the smaller ones cover. Dims that open nothing (size 1, stride 0) sort
// last, and the walk stops at the first of them. A view with fewer byte
// touches (elements × ElemSize) than the size of its box has a gap for sure,
// which settles most strided views without the sort.
func gapFreeSorted(v *spec.View, size uint64) bool {
	type dim struct{ n, mag uint64 }
	r := len(v.Shape)
	touches := uint64(v.ElemSize)
	for d := 0; d < r && touches < size; d++ {
		if n := uint64(v.Shape[d]); n > 1 && v.Strides[d] != 0 {
			hi, lo := bits.Mul64(touches, n)
			if touches = lo; hi != 0 {
				touches = math.MaxUint64
			}
		}
	}
	if touches < size {
		return false // settled before building the dims: most strided views
	}
	var dims [spec.MaxRank]dim
	for d := 0; d < r; d++ {
		dims[d] = dim{uint64(v.Shape[d]), absU(v.Strides[d])}
	}
	trivial := func(x dim) bool { return x.n < 2 || x.mag == 0 }
	less := func(x, y dim) bool {
		if trivial(x) != trivial(y) {
			return !trivial(x)
		}
		return x.mag < y.mag
	}
	for i := 1; i < r; i++ { // insertion sort: at most eight dims
		for j := i; j > 0 && less(dims[j], dims[j-1]); j-- {
			dims[j], dims[j-1] = dims[j-1], dims[j]
		}
	}
	cover := uint64(v.ElemSize)
	for _, x := range dims[:r] {
		if trivial(x) {
			break
		}
		if x.mag > cover {
			return false
		}
		cover += (x.n - 1) * x.mag // within the view's bounds, checked by measure
	}
	return true
}

func invalid(v *spec.View) error {
	// The model's own validation says what is wrong; it agrees with measure
	// on which views are invalid (a property checks that).
	if err := v.Validate(); err != nil {
		return err
	}
	return fmt.Errorf("%w: %v", spec.ErrInvalidView, *v)
}

// absU returns |a| as an unsigned value; |MinInt64| = 2^63 fits.
func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}
