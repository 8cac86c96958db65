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
// It is not inlined (the compiler would not, and it keeps Exact's frame
// small); it takes the view by pointer, which a caller holding the view in
// memory pays nothing for.
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

// quickPair is the dense path of Exact in one call: for two views of one
// rank whose strides are all non-negative (row-major tiles, slices, and the
// like), it runs quickScan's pass over the dims of each, simplified: with no
// negative stride the offset is the lowest byte. It answers quickNo (both in
// order and their bounds apart), quickYes (both in order and their bounds
// meeting), or quickOther when anything else (a negative stride, a size-0
// dim, ranks that differ, a view outside the guard, a view not in order) is
// for quickScan, the shifted-copy path and the search to decide. Here a
// view's order test is folded into the guard (a gap sets its sign bit), so
// the loop keeps two values per view.
func quickPair(a, b *spec.View) int {
	r := len(a.Shape)
	if r > spec.MaxRank || len(a.Strides) != r || len(b.Shape) != r || len(b.Strides) != r {
		return quickOther
	}
	// One loop per view, not one over both: two would keep too many
	// values live for the registers.
	shape, strides := a.Shape, a.Strides[:r]
	coverA := a.ElemSize
	guard := coverA - 1
	for d := r - 1; d >= 0; d-- {
		n, s := shape[d]-1, strides[d]
		// A negative stride or extent fails the guard, and so does a
		// stride beyond what the inner dims cover (a gap).
		guard |= n | s | (coverA-s)>>63
		coverA += n * s
	}
	if uint64(guard) >= quickLimit {
		return quickOther // not for b's loop either: strided views leave here
	}
	shape, strides = b.Shape[:r], b.Strides[:r]
	coverB := b.ElemSize
	guard |= coverB - 1
	for d := r - 1; d >= 0; d-- {
		n, s := shape[d]-1, strides[d]
		guard |= n | s | (coverB-s)>>63
		coverB += n * s
	}
	offA, offB := a.Offset, b.Offset
	switch {
	case uint64(guard) >= quickLimit || uint64(offA|offB) >= quickOffsetLimit: // negative offsets too
		return quickOther
	case offA >= offB+coverB || offB >= offA+coverA:
		return quickNo
	}
	return quickYes
}

// The answers of quickPair.
const (
	quickOther = iota
	quickNo
	quickYes
)
