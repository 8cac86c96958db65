package overlap

import (
	spec "github.com/memverify/memverify/model/overlap"
)

// The questions about one view's layout that a dependency tracker asks
// besides overlap: whether a view touches every byte of its bounds
// (GapFree), whether a write through one view covers every byte of another
// (Covers: an older producer entirely overwritten can be pruned), and
// whether a view touches a byte through two elements (InternalOverlap: a
// write through it is not well defined, and its elements cannot be written
// in parallel). The model answers each by its definition (sorting, listing
// bytes); these answer the same in O(rank) without allocating, and
// InternalOverlap, past its fast tests, with the search of Exact.

// GapFree reports whether a valid, non-empty view touches every byte between
// its lowest and its highest, as the model's GapFree: dims of size 1 and of
// stride 0 dropped, the rest sorted by |stride|, each |stride| at most the
// span the smaller ones cover. It answers false for an invalid or empty view.
func GapFree(v spec.View) bool {
	b, err := measure(&v)
	return err == nil && !b.empty && b.gapFree(&v)
}

// Covers reports whether every byte of b is a byte of a, soundly and as the
// model's Covers decides it: true when b is empty, or when a is gap-free and
// b's bounds lie within a's; false means "not shown to be covered". Both
// views are validated first (an error wrapping ErrInvalidView, naming the
// view).
func Covers(a, b spec.View) (bool, error) {
	ba, bb, err := measurePair(&a, &b)
	switch {
	case err != nil:
		return false, err
	case bb.empty:
		return true, nil
	case ba.empty || ba.lo > bb.lo || bb.hi > ba.hi:
		return false, nil // the bounds first: they are known, the gap test is not
	}
	return ba.gapFree(&a), nil
}

// InternalOverlap reports whether v touches some byte through two different
// elements, exactly, with the default work cap (TooHard past it, as for
// Exact); an empty view answers No, an invalid one an error wrapping
// ErrInvalidView. Unlike the model it has no size cap.
//
// Two elements i ≠ j share a byte when Σ k[d]·s[d] = t for k = i − j ≠ 0,
// |k[d]| < n[d], and |t| < ElemSize. A dim of stride 0, a |stride| below the
// element, or two dims of one |stride| give such a k at once (Yes). Sorted
// by |stride|, dims each at least the span of those below (the element
// included) are nested, and no k ≠ 0 can do (No): every tile and slice of a
// row-major tensor. Otherwise let d be the dim of largest |stride| with
// k[d] ≠ 0, k[d] > 0 by symmetry. Shifting every variable to start at 0
// (k[d] = 1 + x, k[j] = x[j] − (n[j]−1) below d, t = (e−1) − z) leaves the
// bounded equation of Exact,
//
//	m[d]·x + Σ_{j below d} m[j]·x[j] + z = (e−1) − m[d] + Σ_{j below d} m[j]·(n[j]−1),
//
// with x ≤ n[d]−2, x[j] ≤ 2(n[j]−1), z ≤ 2(e−1): one search per d, all
// within one work cap.
func InternalOverlap(v spec.View) (spec.Verdict, error) {
	b, err := measure(&v)
	if err != nil || b.empty {
		return spec.No, err
	}
	var dims [spec.MaxRank]shiftDim // n−1 and |stride| of the dims that move, by |stride|
	k := 0
	e := uint64(v.ElemSize)
	for d, n := range v.Shape {
		if n < 2 {
			continue
		}
		m := absU(v.Strides[d])
		if m < e { // a broadcast (m = 0) included
			return spec.Yes, nil
		}
		j := k
		for ; j > 0 && dims[j-1].m > m; j-- {
			dims[j] = dims[j-1]
		}
		dims[j] = shiftDim{n: uint64(n - 1), m: m}
		k++
	}
	span, nested := e, true
	for i := range dims[:k] {
		if i > 0 && dims[i].m == dims[i-1].m {
			return spec.Yes, nil // k = +1 on one, −1 on the other
		}
		nested = nested && dims[i].m >= span
		span += dims[i].n * dims[i].m // within the view's extent: no wrap
	}
	if nested {
		return spec.No, nil
	}
	return internalSearch(dims[:k], e, DefaultMaxWork), nil
}

// internalSearch runs InternalOverlap's searches, one per outermost dim
// with a non-zero index difference, over dims sorted by increasing |stride|.
func internalSearch(dims []shiftDim, e uint64, maxWork int) spec.Verdict {
	tooHard := false
	var below uint64 // Σ m[j]·(n[j]−1) over the dims below d
	for d := range dims {
		x := dims[d]
		if rhs := e - 1 + below; x.n >= 1 && rhs >= x.m && !tooHard {
			var p problem
			p.rhs = rhs - x.m
			for _, y := range dims[:d] {
				p.add(y.m, 2*y.n) // 2(n−1)·m ≤ twice the extent < 2^64
			}
			p.add(x.m, x.n-1)
			p.add(1, 2*(e-1))
			p.finish()
			if p.solve(maxWork) {
				return spec.Yes
			}
			tooHard, maxWork = p.tooHard, maxWork-p.nodes
		}
		below += x.n * x.m
	}
	if tooHard {
		return spec.TooHard
	}
	return spec.No
}
