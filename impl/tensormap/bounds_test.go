package tensormap

import (
	"math"
	"testing"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// TestBoundsAgreesWithValidate checks the hot-path bounds against the overlap
// model's Bounds on views drawn around every edge: huge and negative
// strides, offsets near 2^63, empty and negative extents, bad ranks.
func TestBoundsAgreesWithValidate(t *testing.T) {
	edge := rapid.OneOf(
		rapid.Int64Range(-10, 10),
		rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1, 1 << 62, -(1 << 62), 1 << 32, 1 << 31}),
		rapid.Int64(),
	)
	rapid.Check(t, func(t *rapid.T) {
		rank := rapid.IntRange(0, overlap.MaxRank+1).Draw(t, "rank")
		strides := rank
		if rapid.IntRange(0, 19).Draw(t, "mismatch") == 0 {
			strides++
		}
		v := overlap.View{Offset: edge.Draw(t, "off"), ElemSize: edge.Draw(t, "elem"),
			Shape: make([]int64, rank), Strides: make([]int64, strides)}
		for d := range v.Shape {
			v.Shape[d] = edge.Draw(t, "n")
		}
		for d := range v.Strides {
			v.Strides[d] = edge.Draw(t, "s")
		}
		lo, hi, ok := bounds(&v)
		wlo, whi, wok := v.Bounds()
		if ok != wok || (ok && (lo != wlo || hi != whi)) {
			t.Fatalf("bounds(%v) = %d, %d, %v; Bounds = %d, %d, %v", v, lo, hi, ok, wlo, whi, wok)
		}
	})
}
