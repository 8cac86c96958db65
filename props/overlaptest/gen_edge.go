package overlaptest

import (
	"math"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// edgeViews generates views at the edges of validity, valid and invalid:
// element sizes below 1 or near 2^63, negative extents, rank 9, shape and
// strides of different lengths, offsets at 0 and 2^63-1, strides of ±2^63,
// and extents (n-1)·s that are exact multiples of 2^64, which wrap to 0 in
// unchecked 64-bit arithmetic. The lists of values start with invalid ones,
// which rapid draws most: shrinking cannot keep an invalid feature the
// failure does not need, since one more makes the pair invalid for another
// reason, and the wrapping kinds, drawn with draw.Rarely, shrink off.
func edgeViews() *rapid.Generator[overlap.View] {
	return rapid.Custom(func(t *rapid.T) overlap.View {
		if draw.Rarely(t, 4, "wrapOnly") {
			return drawWrapOnly(t)
		}
		rank := rapid.IntRange(0, overlap.MaxRank+1).Draw(t, "rank")
		v := overlap.View{
			Offset:   rapid.SampledFrom([]int64{-1, 0, 0, 5, 1 << 40, 1 << 62, math.MaxInt64 - 8, math.MaxInt64}).Draw(t, "off"),
			ElemSize: rapid.SampledFrom([]int64{-1, 0, 1, 1, 4, 9, 1 << 62, math.MaxInt64}).Draw(t, "elem"),
			Shape:    make([]int64, rank),
			Strides:  make([]int64, rank),
		}
		for d := range rank {
			if draw.Rarely(t, 4, "wrap") {
				v.Shape[d], v.Strides[d] = drawWrappingDim(t, 2)
				continue
			}
			v.Shape[d] = rapid.SampledFrom([]int64{-1, 0, 1, 1, 2, 3, 1 << 31, 1<<62 + 1, math.MaxInt64}).Draw(t, "n")
			v.Strides[d] = rapid.SampledFrom([]int64{0, 1, -1, 4, -4, 1 << 33, 1 << 61, -(1 << 61), 1 << 62,
				math.MaxInt64, math.MinInt64}).Draw(t, "s")
		}
		// About one view in four has one stride too many or too few.
		if draw.Rarely(t, 4, "strideLen") {
			if rapid.Bool().Draw(t, "strideMore") {
				v.Strides = append(v.Strides, 1)
			} else if rank > 0 {
				v.Strides = v.Strides[:rank-1]
			}
		}
		return v
	})
}

// drawWrapOnly draws a view that is valid in every respect but its first
// dim's extent, which wraps.
func drawWrapOnly(t *rapid.T) overlap.View {
	n, s := drawWrappingDim(t, 3)
	return overlap.View{Offset: rapid.Int64Range(0, 1<<40).Draw(t, "off"), ElemSize: rapid.Int64Range(1, 4).Draw(t, "elem"),
		Shape: []int64{n, rapid.Int64Range(1, 3).Draw(t, "n")}, Strides: []int64{s, rapid.Int64Range(-4, 4).Draw(t, "s")}}
}

// drawWrappingDim draws a dim of n elements at stride s with (n-1)·s =
// ±2^64 + c·2^k for c ≤ maxC: its extent wraps to a small number in
// unchecked 64-bit arithmetic.
func drawWrappingDim(t *rapid.T, maxC int64) (n, s int64) {
	k := rapid.IntRange(2, 62).Draw(t, "k")
	s = int64(1)<<(64-k) + rapid.Int64Range(0, maxC).Draw(t, "c")
	if rapid.Bool().Draw(t, "neg") {
		s = -s
	}
	return 1<<k + 1, s
}
