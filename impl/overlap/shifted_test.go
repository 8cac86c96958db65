package overlap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// randomLayout draws a small view: rank 0 to 4, extents 1 to 4, strides of
// ±0..24 (nested or not), element sizes 1 to 4, its lowest byte at 0.
func randomLayout(r *rand.Rand) spec.View {
	rank := r.IntN(5)
	x := spec.View{ElemSize: 1 + int64(r.IntN(4)), Shape: make([]int64, rank), Strides: make([]int64, rank)}
	for d := range rank {
		x.Shape[d] = 1 + int64(r.IntN(4))
		x.Strides[d] = int64(r.IntN(49) - 24)
		if x.Shape[d] > 1 && x.Strides[d] < 0 {
			x.Offset -= (x.Shape[d] - 1) * x.Strides[d]
		}
	}
	return x
}

// TestShiftedAgainstModel holds every path of Exact (and of the tracker's
// Bounds + ExactBounded) to the model on copies of one layout at two
// places: the pairs the shifted-copy descent decides when the layout is
// nested and leaves to the search when it is not. b's strides change sign
// and its size-1 strides change at random: neither changes what it touches
// relative to its lowest byte.
func TestShiftedAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for i := range 20000 {
		a := randomLayout(r)
		b := spec.View{ElemSize: a.ElemSize, Shape: a.Shape, Strides: append([]int64{}, a.Strides...)}
		for d, n := range b.Shape {
			switch {
			case n == 1 && r.IntN(2) == 0:
				b.Strides[d] = int64(r.IntN(2001) - 1000)
			case r.IntN(3) == 0:
				b.Strides[d] = -b.Strides[d]
			}
		}
		loA, _, _ := a.Bounds()
		delta := int64(r.IntN(121)) // b's lowest byte: 0..120 above a's
		b.Offset = loA + delta
		for d, n := range b.Shape {
			if n > 1 && b.Strides[d] < 0 {
				b.Offset -= (n - 1) * b.Strides[d]
			}
		}
		for _, p := range [][2]spec.View{{a, b}, {b, a}} {
			want, err := spec.Overlap(p[0], p[1])
			if err != nil {
				t.Fatal(err)
			}
			if got, err := impl.Exact(p[0], p[1]); err != nil || got != want {
				t.Fatalf("pair %d: Exact(%v, %v) = %v, %v; the model says %v", i, p[0], p[1], got, err, want)
			}
			if got, err := impl.BoundedChecker(p[0], p[1]); err != nil || got != want {
				t.Fatalf("pair %d: Bounds+ExactBounded(%v, %v) = %v, %v; the model says %v", i, p[0], p[1], got, err, want)
			}
			plan, err := impl.PlanShift(&p[0])
			if err != nil {
				t.Fatal(err)
			}
			sa, _ := impl.Measure(&p[0])
			sb, _ := impl.Measure(&p[1])
			xa, erra := plan.Place(sa)
			xb, errb := plan.Place(sb)
			if erra != nil || errb != nil {
				t.Fatalf("pair %d: one layout placed: %v, %v", i, erra, errb)
			}
			for _, y := range []impl.Placed{xb, xa.At(sb.Lo)} { // placed, or moved there
				if found, ok, err := plan.Overlap(xa, y); err != nil || (ok && found != (want == spec.Yes)) {
					t.Fatalf("pair %d: PlanShift(%v).Overlap = %v, %v, %v; the model says %v", i, p[0], found, ok, err, want)
				}
			}
		}
	}
}

// TestShiftPlanRefusesOtherLayouts: a plan places only views of its layout
// (any order of the dims, any signs of the strides) and decides only views
// it placed; for others, and for the zero plan, it returns
// ErrLayoutMismatch and no answer.
func TestShiftPlanRefusesOtherLayouts(t *testing.T) {
	base := v(0, 4, []int64{4, 8}, []int64{64, 4})
	plan, err := impl.PlanShift(&base)
	if err != nil {
		t.Fatal(err)
	}
	span := func(x spec.View) impl.Span {
		s, err := impl.Measure(&x)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	at0, err := plan.Place(span(base))
	if err != nil {
		t.Fatal(err)
	}
	same := []spec.View{
		v(32, 4, []int64{4, 8}, []int64{64, 4}),
		v(32+3*64, 4, []int64{4, 8}, []int64{-64, 4}),   // rows reversed
		v(32, 4, []int64{8, 4}, []int64{4, 64}),         // transposed
		v(32, 4, []int64{4, 1, 8}, []int64{64, 999, 4}), // a size-1 dim
	}
	for _, x := range same {
		px, err := plan.Place(span(x))
		if err != nil || px.Lo() != 32 {
			t.Errorf("%v has the planned layout: %v at %d", x, err, px.Lo())
		}
		if _, ok, err := plan.Overlap(at0, px); err != nil || !ok {
			t.Errorf("%v against %v: %v, %v", base, x, ok, err)
		}
	}
	other := []spec.View{
		v(32, 2, []int64{4, 8}, []int64{64, 4}),          // element size
		v(32, 4, []int64{4, 7}, []int64{64, 4}),          // extent
		v(32, 4, []int64{4, 8}, []int64{68, 4}),          // stride
		v(32, 4, []int64{4, 8, 2}, []int64{64, 4, 1024}), // one more dim
		v(32, 4, []int64{8}, []int64{4}),                 // one dim fewer
	}
	for _, x := range other {
		if _, err := plan.Place(span(x)); !errors.Is(err, spec.ErrLayoutMismatch) {
			t.Errorf("%v placed by the plan of %v: %v; want ErrLayoutMismatch", x, base, err)
		}
		// Placed by a plan of its own, it is refused by this one.
		own, err := impl.PlanShift(&x)
		if err != nil {
			t.Fatal(err)
		}
		px, err := own.Place(span(x))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range [][2]impl.Placed{{at0, px}, {px, at0}, {at0, {}}} {
			if found, ok, err := plan.Overlap(p[0], p[1]); !errors.Is(err, spec.ErrLayoutMismatch) || found || ok {
				t.Errorf("%v against %v: %v, %v, %v; want ErrLayoutMismatch", base, x, found, ok, err)
			}
		}
	}
	var zero impl.ShiftPlan
	if _, err := zero.Place(span(base)); !errors.Is(err, spec.ErrLayoutMismatch) {
		t.Errorf("the zero plan places: %v, want ErrLayoutMismatch", err)
	}
	if _, _, err := zero.Overlap(impl.Placed{}, impl.Placed{}); !errors.Is(err, spec.ErrLayoutMismatch) {
		t.Errorf("the zero plan decides: %v, want ErrLayoutMismatch", err)
	}
	if _, err := impl.PlanShift(&spec.View{Offset: -1, ElemSize: 4}); !errors.Is(err, spec.ErrInvalidView) {
		t.Errorf("PlanShift of an invalid view: %v", err)
	}
	if _, err := plan.Place(impl.Span{}); !errors.Is(err, spec.ErrInvalidView) {
		t.Errorf("a span without a view: %v", err)
	}
	if _, _, err := plan.Overlap(at0, at0.At(-1)); !errors.Is(err, spec.ErrInvalidView) {
		t.Errorf("a lowest byte below 0: %v", err)
	}
}

// TestShiftedPath checks that tiles of one matrix take the shifted-copy
// path, and that a layout that is not nested does not.
func TestShiftedPath(t *testing.T) {
	row := int64(64 * 4) // a 64×64 float32 matrix
	tile := func(r, c int64) spec.View { return v(r*32*row+c*32*4, 4, []int64{32, 32}, []int64{row, 4}) }
	for _, c := range []struct {
		name string
		a, b spec.View
		want spec.Verdict
		path impl.Path
	}{
		{"side by side", tile(0, 0), tile(0, 1), spec.No, impl.PathShifted},
		{"diagonal neighbours: bounds apart", tile(0, 1), tile(1, 0), spec.No, impl.PathDisjoint},
		{"the right tile one column left", tile(0, 1), v(31*4, 4, []int64{32, 32}, []int64{row, 4}), spec.Yes, impl.PathShifted},
		{"half a row down", tile(0, 0), v(16*row, 4, []int64{32, 32}, []int64{row, -4}), spec.Yes, impl.PathShifted},
		{"sliding windows: not nested", v(0, 4, []int64{8, 4}, []int64{4, 4}), v(40, 4, []int64{8, 4}, []int64{4, 4}), spec.Yes, impl.PathGapFree},
	} {
		for _, p := range [][2]spec.View{{c.a, c.b}, {c.b, c.a}} {
			got, st, err := impl.Solver{}.Solve(p[0], p[1])
			want, werr := spec.Overlap(p[0], p[1])
			if err != nil || werr != nil || got != c.want || want != c.want || st.Path != c.path {
				t.Errorf("%s: Solve = %v, %+v, %v; the model %v, %v; want %v by path %d", c.name, got, st, err, want, werr, c.want, c.path)
			}
		}
	}
}

// TestBoundsAgreesWithModel checks Bounds, the measuring half that a tracker
// keeps, against the model's Bounds and Validate on views around every
// edge: the fast pass and the careful one must agree with the model on
// which views are valid, empty, and where they lie.
func TestBoundsAgreesWithModel(t *testing.T) {
	edge := rapid.OneOf(
		rapid.Int64Range(-10, 10),
		rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1,
			1 << 62, -(1 << 62), 1 << 32, 1 << 31, 1<<28 - 1, 1 << 28, -(1 << 28)}),
		rapid.Int64(),
	)
	rapid.Check(t, func(t *rapid.T) {
		rank := rapid.IntRange(0, spec.MaxRank+1).Draw(t, "rank")
		strides := rank
		if rapid.IntRange(0, 19).Draw(t, "mismatch") == 0 {
			strides++
		}
		x := spec.View{Offset: edge.Draw(t, "off"), ElemSize: edge.Draw(t, "elem"),
			Shape: make([]int64, rank), Strides: make([]int64, strides)}
		for d := range x.Shape {
			x.Shape[d] = edge.Draw(t, "n")
		}
		for d := range x.Strides {
			x.Strides[d] = edge.Draw(t, "s")
		}
		lo, hi, ok, err := impl.Bounds(&x)
		wlo, whi, wok := x.Bounds()
		werr := x.Validate()
		if ok != wok || (ok && (lo != wlo || hi != whi)) || (err == nil) != (werr == nil) ||
			(err != nil && !errors.Is(err, spec.ErrInvalidView)) {
			t.Fatalf("Bounds(%v) = %d, %d, %v, %v; the model: %d, %d, %v, %v", x, lo, hi, ok, err, wlo, whi, wok, werr)
		}
	})
}
