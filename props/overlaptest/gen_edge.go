package overlaptest

import (
	"math"

	spec "github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// EdgeViews generates views at the edges of validity, valid and invalid:
// element sizes below 1 or near 2^63, negative extents, rank 9, shape and
// strides of different lengths, offsets at 0 and 2^63-1, strides of ±2^63,
// and extents (n-1)·s that are exact multiples of 2^64, which wrap to 0 in
// unchecked 64-bit arithmetic.
func EdgeViews() *rapid.Generator[spec.View] {
	return rapid.Custom(func(t *rapid.T) spec.View {
		if rapid.IntRange(0, 3).Draw(t, "wrapOnly") == 0 {
			// Valid in every other respect: only the wrapping extent is wrong.
			k := rapid.IntRange(2, 62).Draw(t, "k")
			s := int64(1)<<(64-k) + rapid.Int64Range(0, 3).Draw(t, "c")
			if rapid.Bool().Draw(t, "neg") {
				s = -s
			}
			return spec.View{Offset: rapid.Int64Range(0, 1<<40).Draw(t, "off"), ElemSize: rapid.Int64Range(1, 4).Draw(t, "elem"),
				Shape: []int64{1<<k + 1, rapid.Int64Range(1, 3).Draw(t, "n")}, Strides: []int64{s, rapid.Int64Range(-4, 4).Draw(t, "s")}}
		}
		rank := rapid.IntRange(0, spec.MaxRank+1).Draw(t, "rank")
		v := spec.View{
			Offset:   rapid.SampledFrom([]int64{-1, 0, 0, 5, 1 << 40, 1 << 62, math.MaxInt64 - 8, math.MaxInt64}).Draw(t, "off"),
			ElemSize: rapid.SampledFrom([]int64{-1, 0, 1, 1, 4, 9, 1 << 62, math.MaxInt64}).Draw(t, "elem"),
			Shape:    make([]int64, rank),
			Strides:  make([]int64, rank),
		}
		for d := range rank {
			if rapid.IntRange(0, 3).Draw(t, "wrap") == 0 {
				// (n-1)·s = ±2^64 + c·2^k: wraps to a small number.
				k := rapid.IntRange(2, 62).Draw(t, "k")
				v.Shape[d] = 1<<k + 1
				s := int64(1)<<(64-k) + rapid.Int64Range(0, 2).Draw(t, "c")
				if rapid.Bool().Draw(t, "neg") {
					s = -s
				}
				v.Strides[d] = s
				continue
			}
			v.Shape[d] = rapid.SampledFrom([]int64{-1, 0, 1, 1, 2, 3, 1 << 31, 1<<62 + 1, math.MaxInt64}).Draw(t, "n")
			v.Strides[d] = rapid.SampledFrom([]int64{0, 1, -1, 4, -4, 1 << 33, 1 << 61, -(1 << 61), 1 << 62,
				math.MaxInt64, math.MinInt64}).Draw(t, "s")
		}
		switch rapid.IntRange(0, 15).Draw(t, "strideLen") {
		case 0:
			v.Strides = append(v.Strides, 1)
		case 1:
			if rank > 0 {
				v.Strides = v.Strides[:rank-1]
			}
		}
		return v
	})
}
