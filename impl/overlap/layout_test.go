package overlap_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// TestLayoutQueries holds GapFree, Covers and InternalOverlap to the model
// on random views, drawn independently of the property generators; one
// view in four is a window (a stride below the element) or has a dim of
// stride 0, so that internal overlap is common.
func TestLayoutQueries(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	internal := 0
	for range 20000 {
		a, b := randomView(r), randomView(r)
		if r.IntN(3) == 0 {
			b.Offset = a.Offset + int64(r.IntN(8)) // b within a, often
			if b.Validate() != nil {
				continue
			}
		}
		if got, want := impl.GapFree(a), spec.GapFree(a); got != want {
			t.Fatalf("GapFree(%v) = %v; the model says %v", a, got, want)
		}
		got, err := impl.Covers(a, b)
		want, werr := spec.Covers(a, b)
		if got != want || spec.ErrName(err) != spec.ErrName(werr) {
			t.Fatalf("Covers(%v, %v) = %v, %v; the model says %v, %v", a, b, got, err, want, werr)
		}
		iv, err := impl.InternalOverlap(a)
		wv, werr := spec.InternalOverlap(a)
		if iv != wv || spec.ErrName(err) != spec.ErrName(werr) {
			t.Fatalf("InternalOverlap(%v) = %v, %v; the model says %v, %v", a, iv, err, wv, werr)
		}
		if wv == spec.Yes {
			internal++
		}
	}
	if internal < 1000 {
		t.Errorf("only %d views overlap themselves: the test is lopsided", internal)
	}
	bad := v(-1, 4, []int64{2}, []int64{4})
	if _, err := impl.InternalOverlap(bad); !errors.Is(err, spec.ErrInvalidView) {
		t.Errorf("InternalOverlap of an invalid view: %v", err)
	}
	if _, err := impl.Covers(v(0, 1, nil, nil), bad); !errors.Is(err, spec.ErrInvalidView) {
		t.Errorf("Covers with an invalid view: %v", err)
	}
}

// TestInternalOverlapSearch: windows whose strides are not nested, where
// the search decides, against the model.
func TestInternalOverlapSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	yes, searched := 0, 0
	for range 20000 {
		rank := 1 + r.IntN(4)
		x := spec.View{ElemSize: int64(1 + r.IntN(4)), Shape: make([]int64, rank), Strides: make([]int64, rank)}
		for d := range rank {
			x.Shape[d] = int64(1 + r.IntN(5))
			x.Strides[d] = int64(r.IntN(61) - 30)
			if x.Shape[d] > 1 && x.Strides[d] < 0 {
				x.Offset -= (x.Shape[d] - 1) * x.Strides[d]
			}
		}
		got, err := impl.InternalOverlap(x)
		want, werr := spec.InternalOverlap(x)
		if got != want || (err == nil) != (werr == nil) {
			t.Fatalf("InternalOverlap(%v) = %v, %v; the model says %v, %v", x, got, err, want, werr)
		}
		if want == spec.Yes {
			yes++
		}
		if !spec.GapFree(x) {
			searched++
		}
	}
	t.Logf("%d views overlap themselves, %d have gaps", yes, searched)
}
