package overlap

import (
	"math/rand/v2"
	"testing"

	spec "github.com/memverify/memverify/model/overlap"
)

// TestMatricesAgree holds exactMatrices to the careful path (measure,
// decide and the search), which shares none of its pass or its gap-free
// test, on pairs of views of rank 1 and 2 — size-1 dims, stride-0 dims,
// strides of 1, negative and repeated strides mixed in — and its gap-free
// test to gapFreeSorted on each view. It counts the views gap-free and
// not, so that a generator that stopped reaching either would show.
func TestMatricesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 29))
	strides := []int64{0, 1, -1, 2, 4, 5, 7, 12, -12, 64, 100, -100}
	ranks := [][2]int{{2, 2}, {1, 2}, {2, 1}}
	var gapFree [2]int
	for range 100000 {
		ra := ranks[r.IntN(len(ranks))]
		a, b := randomView(r, ra[0], 24, strides), randomView(r, ra[1], 24, strides)
		if r.IntN(8) == 0 {
			b = a
			b.Offset += int64(r.IntN(200))
		}
		for _, x := range []*spec.View{&a, &b} {
			var m matrix
			box, err := measure(x)
			if !m.scan(x) || err != nil {
				t.Fatalf("%v: scan or measure refused a valid view (%v)", *x, err)
			}
			want := box.gapFree(x)
			if m.gapFree() != want || m.lo != box.lo || m.hi != box.hi {
				t.Fatalf("%v: matrix %+v gap-free %v; measure %+v gap-free %v", *x, m, m.gapFree(), box, want)
			}
			gapFree[b2n(want)]++
		}
		agreesWithCareful(t, "exactMatrices", exactMatrices, a, b)
	}
	if gapFree[0] < 10000 || gapFree[1] < 10000 {
		t.Errorf("views gap-free / not: %d / %d: the generator misses one kind", gapFree[1], gapFree[0])
	}
}

// TestMatricesTurnAway: exactMatrices leaves to the careful path the views
// quickScan leaves to it, and decides nothing for them.
func TestMatricesTurnAway(t *testing.T) {
	v := func(off, elem int64, shape, strides []int64) spec.View {
		return spec.View{Offset: off, ElemSize: elem, Shape: shape, Strides: strides}
	}
	ok := v(0, 4, []int64{3, 4}, []int64{64, 4})
	for _, bad := range []spec.View{
		v(0, 4, []int64{3, 0}, []int64{64, 4}),              // empty
		v(0, 4, []int64{3, 4}, []int64{64}),                 // strides short
		v(0, 4, []int64{3, 4}, []int64{-64, 4}),             // below byte 0
		v(0, 4, []int64{1, 4}, []int64{1 << 40, 4}),         // a size-1 dim's huge stride
		v(1<<62, 4, []int64{3, 4}, []int64{64, 4}),          // offset at the limit
		v(0, 1<<28, []int64{3, 4}, []int64{1 << 30, 4}),     // element size at the guard
		v(0, 4, []int64{1<<28 + 1, 2}, []int64{4, 1 << 20}), // extent at the guard
	} {
		for _, pair := range [][2]spec.View{{ok, bad}, {bad, ok}} {
			if got, decided := exactMatrices(&pair[0], &pair[1]); decided {
				t.Errorf("exactMatrices(%v, %v) = %v: decided a view quickScan turns away", pair[0], pair[1], got)
			}
		}
	}
}
