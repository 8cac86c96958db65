package overlaptest

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// The five invariance properties transform a generated pair in a way that
// keeps the set of bytes each view touches (or maps it one-to-one) and check
// that c's answer does not change. They need no model, so they hold a checker
// to its own word: an exact checker, a conservative one and the model alike.

// CheckTranslateInvariant checks that moving both views by the same distance
// (to the bottom or the very top of the address space included) does not
// change c's answer.
func CheckTranslateInvariant(t rapid.TB, c overlap.Checker) {
	t.Helper()
	checkInvariant(t, c, "translate both", func(rt *rapid.T, p ViewPair) (ViewPair, bool) {
		bottom, top := min(p.A.Offset, p.B.Offset), max(p.A.Offset, p.B.Offset)
		for _, v := range []overlap.View{p.A, p.B} {
			if lo, hi, ok := v.Bounds(); ok {
				bottom, top = min(bottom, lo), max(top, hi)
			}
		}
		down, up := -bottom, math.MaxInt64-top
		var d int64
		// A short move first, so that a counterexample shrinks to one.
		switch rapid.IntRange(0, 3).Draw(rt, "kind") {
		case 0:
			d = rapid.Int64Range(max(down, -64), min(up, 64)).Draw(rt, "d")
		case 1:
			d = rapid.Int64Range(down, up).Draw(rt, "d")
		case 2:
			d = down
		default:
			d = up
		}
		p.A.Offset += d
		p.B.Offset += d
		return p, true
	})
}

// CheckFlipInvariant checks that reversing dims of either view
// (Slice(v, d, n-1, -1, -1), which touches the same bytes) does not change
// c's answer.
func CheckFlipInvariant(t rapid.TB, c overlap.Checker) {
	t.Helper()
	checkInvariant(t, c, "flip a dim", func(rt *rapid.T, p ViewPair) (ViewPair, bool) {
		changed := false
		for i, v := range []*overlap.View{&p.A, &p.B} {
			for d, n := range v.Shape {
				if !rapid.Bool().Draw(rt, fmt.Sprintf("flip%d", i)) {
					continue
				}
				f, err := overlap.Slice(*v, d, n-1, -1, -1)
				if err != nil {
					rt.Fatalf("flip of %v: %v", *v, err)
				}
				*v, changed = f, true
			}
		}
		return p, changed
	})
}

// CheckPermuteInvariant checks that permuting the dims of either view does
// not change c's answer.
func CheckPermuteInvariant(t rapid.TB, c overlap.Checker) {
	t.Helper()
	checkInvariant(t, c, "permute dims", func(rt *rapid.T, p ViewPair) (ViewPair, bool) {
		for i, v := range []*overlap.View{&p.A, &p.B} {
			perm := rapid.Permutation(identity(len(v.Shape))).Draw(rt, fmt.Sprintf("perm%d", i))
			tv, err := overlap.Transpose(*v, perm...)
			if err != nil {
				rt.Fatalf("transpose of %v: %v", *v, err)
			}
			*v = tv
		}
		return p, true
	})
}

// CheckReshapeInvariant checks that splitting a dim, merging two contiguous
// dims, or inserting a size-1 dim with an arbitrary stride does not change
// c's answer.
func CheckReshapeInvariant(t rapid.TB, c overlap.Checker) {
	t.Helper()
	checkInvariant(t, c, "split, merge or insert dims", func(rt *rapid.T, p ViewPair) (ViewPair, bool) {
		changed := false
		for i, v := range []*overlap.View{&p.A, &p.B} {
			for range rapid.IntRange(0, 3).Draw(rt, fmt.Sprintf("edits%d", i)) {
				if r, ok := reshapeOnce(rt, *v); ok {
					*v, changed = r, true
				}
			}
		}
		return p, changed
	})
}

// reshapeOnce applies one random split, merge or size-1 insertion to v.
func reshapeOnce(rt *rapid.T, v overlap.View) (overlap.View, bool) {
	rank := len(v.Shape)
	shape := append([]int64{}, v.Shape...)
	switch rapid.IntRange(0, 2).Draw(rt, "edit") {
	case 0: // split dim d into (f, n/f)
		if rank == 0 || rank == overlap.MaxRank {
			return v, false
		}
		d := rapid.IntRange(0, rank-1).Draw(rt, "splitDim")
		n := shape[d]
		var fs []int64
		for f := int64(1); f <= n; f++ {
			if n%f == 0 {
				fs = append(fs, f)
			}
		}
		if len(fs) == 0 {
			return v, false
		}
		f := rapid.SampledFrom(fs).Draw(rt, "factor")
		shape = append(shape[:d], append([]int64{f, n / f}, shape[d+1:]...)...)
	case 1: // merge d and d+1
		if rank < 2 {
			return v, false
		}
		d := rapid.IntRange(0, rank-2).Draw(rt, "mergeDim")
		shape = append(shape[:d], append([]int64{shape[d] * shape[d+1]}, shape[d+2:]...)...)
	default: // insert a size-1 dim, then give it a stride that means nothing
		if rank == overlap.MaxRank {
			return v, false
		}
		d := rapid.IntRange(0, rank).Draw(rt, "insertAt")
		shape = append(shape[:d], append([]int64{1}, shape[d:]...)...)
		r, err := overlap.Reshape(v, shape...)
		if err != nil {
			rt.Fatalf("insert a size-1 dim into %v: %v", v, err)
		}
		r.Strides[d] = rapid.SampledFrom([]int64{0, 1, -1, 3, -7, 1 << 40, math.MinInt64, math.MaxInt64}).Draw(rt, "junkStride")
		return r, true
	}
	r, err := overlap.Reshape(v, shape...)
	return r, err == nil
}

// CheckScaleInvariant checks that multiplying every byte quantity (offsets,
// element sizes, strides) by the same k does not change c's answer: it maps
// each byte x to the k bytes from k·x, so two views share a byte exactly
// when their scaled images do.
func CheckScaleInvariant(t rapid.TB, c overlap.Checker) {
	t.Helper()
	checkInvariant(t, c, "scale every byte quantity", func(rt *rapid.T, p ViewPair) (ViewPair, bool) {
		top := max(p.A.Offset, p.B.Offset)
		for _, v := range []overlap.View{p.A, p.B} {
			if _, hi, ok := v.Bounds(); ok {
				top = max(top, hi)
			}
		}
		limit := math.MaxInt64 / uint64(top+1) // k·(top+1) - 1 must stay below 2^63
		var ks []int64
		for _, k := range []int64{2, 3, 8, 1<<31 - 1, 1 << 31, 1<<32 + 3, 1 << 40} {
			if uint64(k) <= limit {
				ks = append(ks, k)
			}
		}
		if len(ks) == 0 {
			return p, false
		}
		k := rapid.SampledFrom(ks).Draw(rt, "k")
		for _, v := range []*overlap.View{&p.A, &p.B} {
			s, ok := scaleView(*v, k)
			if !ok {
				return p, false
			}
			*v = s
		}
		return p, true
	})
}

// scaleView multiplies v's byte quantities by k; ok is false when a stride of
// a size-1 dim (which means nothing and may be huge) would overflow.
func scaleView(v overlap.View, k int64) (overlap.View, bool) {
	out := overlap.View{Offset: v.Offset * k, ElemSize: v.ElemSize * k,
		Shape: append([]int64{}, v.Shape...), Strides: make([]int64, len(v.Strides))}
	for d, s := range v.Strides {
		hi, lo := bits.Mul64(uint64(max(s, -s)), uint64(k))
		if hi != 0 || lo > math.MaxInt64 {
			return v, false
		}
		out.Strides[d] = s * k
	}
	return out, true
}

// checkInvariant draws a pair, transforms it, and checks that c answers the
// same for both. A size refusal or TooHard is not an answer and is skipped.
func checkInvariant(t rapid.TB, c overlap.Checker, what string, transform func(*rapid.T, ViewPair) (ViewPair, bool)) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		p := Pairs().Draw(rt, "pair")
		p2, ok := transform(rt, p)
		if !ok {
			return
		}
		for _, v := range []overlap.View{p2.A, p2.B} {
			if err := v.Validate(); err != nil {
				rt.Fatalf("the %q transform made an invalid view: %v", what, err)
			}
		}
		op1, op2 := overlap.Op{A: p.A, B: p.B}, overlap.Op{A: p2.A, B: p2.B}
		r1, r2 := op1.Apply(c), op2.Apply(c)
		if noAnswer(r1) || noAnswer(r2) {
			return
		}
		if r1 != r2 {
			fail(rt, "answer changed by: "+what, qc(c, op1, r1), qc(c, op2, r2))
		}
	})
}

func noAnswer(r overlap.Result) bool { return r.Err == "ErrTooLarge" || r.Verdict == overlap.TooHard }
