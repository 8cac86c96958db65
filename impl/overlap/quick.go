package overlap

import (
	spec "github.com/memverify/memverify/model/overlap"
)

// quickScan is the raw-view fast path of measure: validation, bounds and the
// in-order test fused into one branch-light pass over the dims, for the
// views nearly every caller has. It returns the lowest byte, the extent
// (cover: the view touches bytes within [lo, lo+cover)), and flags,
// negative when the view is not quickScan's business (then lo and cover
// mean nothing), with quickOrdered set when the dims, innermost first, show
// that the view touches every byte of its bounds.
//
// One guard, tested once after the loop, makes the pass safe without any
// per-term overflow check: when the element size and every extent and
// |stride| are below 2^28 and the rank is at most 8, each span (n−1)·|s| is
// below 2^56 and any sum of them, the element size included, below 2^60, so
// no product or sum in the loop can wrap. Everything else — an empty view
// (a zero extent makes n−1 negative, which fails the guard), an invalid
// one, huge strides (a size-1 dim's included: it means nothing, but only
// the careful pass ignores it), offsets of 2^62 and above — is left to the
// careful measure, which decides and builds the errors; quickScan never
// builds one.
//
// The values of a dim are combined arithmetically rather than by branches,
// so that the loop costs the same for every layout:
//
//	m    = |stride|
//	gaps < 0 when some |stride| exceeds the bytes the inner dims cover
//	down = the span of the negative strides, below the offset
//
// It is not inlined (the compiler would not, and it keeps its callers'
// frames small); it takes the view by pointer, which a caller holding the
// view in memory pays nothing for.
//
//go:noinline
func quickScan(v *spec.View) (lo, cover, flags int64) {
	off, elem, shape, strides := v.Offset, v.ElemSize, v.Shape, v.Strides
	r := len(shape)
	if r > spec.MaxRank || len(strides) != r {
		return 0, 0, -1
	}
	strides = strides[:r]
	var down, gaps int64
	guard := elem - 1 // negative for an element size below 1
	cover = elem      // bytes [lo, lo+cover) are touched by the dims so far, when in order
	for d := r - 1; d >= 0; d-- {
		n, s := shape[d], strides[d]
		sign := s >> 63
		m := (s ^ sign) - sign // |MinInt64| stays negative and fails the guard
		e := (n - 1) * m
		guard |= (n - 1) | m // n = 0 (empty) or n < 0 (invalid) fails it too
		gaps |= cover - m
		cover += e
		down += e & sign
	}
	if uint64(guard) >= quickLimit || uint64(off) >= quickOffsetLimit || down > off {
		return 0, 0, -1
	}
	// With n ≥ 1 everywhere, cover is the whole extent: the bytes run from
	// off−down ≥ 0 to off−down+cover−1 < 2^62 + 2^60.
	return off - down, cover, ^gaps >> 63 & quickOrdered
}

// quickOrdered is the flag of quickScan for a view in order.
const quickOrdered = 1

// quickLimit is quickScan's guard: element sizes, extents and |strides|
// below it are measured without overflow checks.
const quickLimit = 1 << 28

// quickOffsetLimit bounds the offsets quickScan takes: with an extent below
// 2^60 (the guard), a view at an offset below 2^62 ends below 2^63 — no
// end-of-range test is needed. Views higher up take the careful pass.
const quickOffsetLimit = 1 << 62

// denseSpan is the dense path's pass over one view (see Exact): quickScan's
// pass, simplified for views whose strides are all non-negative, where the
// offset is the lowest byte. It returns the extent, cover (such a view
// touches bytes within [offset, offset+cover)), and a guard below quickLimit
// exactly when every stride is non-negative, every extent at least 1, all of
// them and the element size below quickLimit, and the dims, innermost first,
// in order — each stride at most the bytes the dims inside it cover, so that
// the view touches every byte of its bounds. The caller checks the rank (at
// most spec.MaxRank, so quickScan's no-overflow argument holds) and that
// strides is as long as shape; cover means nothing when the guard fails.
//
// The dims are combined without branches, as in quickScan: a gap makes
// cover−stride negative; the differences are gathered in gaps and their
// sign folded into the guard once, after the loop. It is small enough to be
// inlined into Exact.
func denseSpan(elem int64, shape, strides []int64) (cover, guard int64) {
	var gaps int64
	cover, guard = elem, elem-1
	for d := len(shape) - 1; d >= 0; d-- {
		n, s := shape[d]-1, strides[d]
		// A size-0 dim (n = −1) or a negative stride fails the guard. Two
		// ORs rather than one of n|s: n and s live on, and n|s would need
		// a copy of one of them.
		guard |= n
		guard |= s
		gaps |= cover - s
		cover += n * s
	}
	return cover, guard | gaps>>63
}

// denseSpan2 is denseSpan unrolled for rank 2, given the shape (n0, n1) and
// the strides (s0, s1); a view of rank 1 is one of rank 2 with n0 = 1 and
// s0 = 0. For the layouts dense views have most, vectors and matrices, it
// saves a third or more of the loop's instructions: the counter, its test and
// jump, and the register copies the loop-carried values force. The inner
// extent is computed before the differences that test the order, so that
// most values die in their last use and need no copy.
func denseSpan2(elem, n0, s0, n1, s1 int64) (cover, guard int64) {
	n0, n1 = n0-1, n1-1
	guard = (elem - 1) | n1 | s1 | n0 | s0
	inner := elem + n1*s1 // the bytes the inner dim covers
	cover = inner + n0*s0
	gaps := (elem - s1) | (inner - s0)
	return cover, guard | gaps>>63
}
