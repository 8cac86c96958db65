package overlap_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

func v(off, elem int64, shape, strides []int64) spec.View {
	return spec.View{Offset: off, ElemSize: elem, Shape: shape, Strides: strides}
}

// x is a 4×16 matrix of 4-byte elements: strides 64, 4.
var classics = []struct {
	name       string
	a, b       spec.View
	want, seed spec.Verdict // the truth, and what the seed's rule says
}{
	{"interleaved equal strides", v(0, 4, []int64{4}, []int64{8}), v(4, 4, []int64{4}, []int64{8}), spec.No, spec.No},
	{"equal strides offset by half an element", v(0, 4, []int64{4}, []int64{8}), v(2, 4, []int64{4}, []int64{8}), spec.Yes, spec.No},
	{"f32 against int8 in the gaps", v(0, 4, []int64{3}, []int64{8}), v(4, 1, []int64{4}, []int64{1}), spec.No, spec.Yes},
	{"x[:, ::7] against x[:, 3::3]", v(0, 4, []int64{4, 3}, []int64{64, 28}), v(12, 4, []int64{4, 5}, []int64{64, 12}), spec.No, spec.Yes},
	{"x[:, ::7] against x[:, 7::7]", v(0, 4, []int64{4, 3}, []int64{64, 28}), v(28, 4, []int64{4, 2}, []int64{64, 28}), spec.Yes, spec.Yes},
	{"column tiles", v(0, 4, []int64{4, 8}, []int64{64, 4}), v(32, 4, []int64{4, 8}, []int64{64, 4}), spec.No, spec.Yes},
	{"a view against its reverse", v(0, 4, []int64{8}, []int64{4}), v(28, 4, []int64{8}, []int64{-4}), spec.Yes, spec.Yes},
	{"broadcast rows against the next row", v(0, 4, []int64{3, 4}, []int64{0, 4}), v(16, 4, []int64{2}, []int64{16}), spec.No, spec.No},
	{"gcd divides but the bounds forbid", v(0, 1, []int64{3}, []int64{10}), v(15, 1, []int64{3}, []int64{15}), spec.No, spec.Yes},
	{"empty against itself", v(0, 4, []int64{0}, []int64{4}), v(0, 4, []int64{0}, []int64{4}), spec.No, spec.No},
	{"one byte shared at the top", v(math.MaxInt64-3, 4, nil, nil), v(math.MaxInt64, 1, []int64{1}, []int64{math.MinInt64}), spec.Yes, spec.Yes},
	{"sparse huge strides", v(0, 1, []int64{3}, []int64{5 << 33}), v(9<<33, 1, []int64{4}, []int64{-3 << 33}), spec.Yes, spec.Yes},
}

func TestClassics(t *testing.T) {
	for _, c := range classics {
		for _, p := range [][2]spec.View{{c.a, c.b}, {c.b, c.a}} {
			if got, err := spec.Overlap(p[0], p[1]); err != nil || got != c.want {
				t.Fatalf("%s: the model says %v, %v; the table says %v", c.name, got, err, c.want)
			}
			if got, err := impl.Exact(p[0], p[1]); err != nil || got != c.want {
				t.Errorf("%s: Exact %v, %v; want %v", c.name, got, err, c.want)
			}
			if got, err := impl.BBox(p[0], p[1]); err != nil || (c.want == spec.Yes && got != spec.Yes) {
				t.Errorf("%s: BBox %v, %v misses", c.name, got, err)
			}
			if got, err := impl.SeedGCD(p[0], p[1]); err != nil || got != c.seed {
				t.Errorf("%s: SeedGCD %v, %v; the seed's rule gives %v", c.name, got, err, c.seed)
			}
		}
	}
}

func TestInvalid(t *testing.T) {
	ok := v(0, 4, []int64{4}, []int64{4})
	bad := []spec.View{
		v(0, 0, nil, nil),
		v(-1, 1, nil, nil),
		v(0, 1, []int64{-1}, []int64{1}),
		v(0, 1, []int64{2}, nil),
		v(0, 1, make([]int64, 9), make([]int64, 9)),
		v(0, 1, []int64{1<<62 + 1}, []int64{4}), // (n-1)·s = 2^64: wraps to 0 unchecked
		v(8, 4, []int64{4}, []int64{-4}),
		v(math.MaxInt64, 2, nil, nil),
	}
	checkers := map[string]spec.Checker{"Exact": impl.Exact, "BBox": impl.BBox, "SeedGCD": impl.SeedGCD}
	for _, b := range bad {
		for name, c := range checkers {
			for _, p := range [][2]spec.View{{b, ok}, {ok, b}, {b, v(0, 1, []int64{0}, []int64{1})}} {
				if got, err := c(p[0], p[1]); !errors.Is(err, spec.ErrInvalidView) || got != spec.No {
					t.Errorf("%s%v: %v, %v; want No, ErrInvalidView", name, p, got, err)
				}
			}
		}
	}
}

// TestAgainstModel compares Exact with the model on random pairs drawn
// independently of the property generators.
func TestAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 30000
	if testing.Short() {
		n = 3000
	}
	yes := 0
	for range n {
		a, b := randomView(r), randomView(r)
		want, err := spec.Overlap(a, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := impl.Exact(a, b)
		if err != nil || got != want {
			t.Fatalf("Exact(%v, %v) = %v, %v; the model says %v", a, b, got, err, want)
		}
		if want == spec.Yes {
			yes++
		}
	}
	if yes < n/5 || yes > n*4/5 {
		t.Errorf("%d of %d pairs overlap: the test is lopsided", yes, n)
	}
}

func randomView(r *rand.Rand) spec.View {
	rank := r.IntN(5)
	x := spec.View{ElemSize: int64(1 + r.IntN(4)), Shape: make([]int64, rank), Strides: make([]int64, rank)}
	x.Offset = int64(r.IntN(64))
	for d := range rank {
		x.Shape[d] = int64(1 + r.IntN(4))
		x.Strides[d] = int64(r.IntN(41) - 20)
		if x.Shape[d] > 1 && x.Strides[d] < 0 {
			x.Offset -= (x.Shape[d] - 1) * x.Strides[d]
		}
	}
	return x
}

// sparse is a 3-D view with incommensurate strides near 1049 (NumPy's hard
// case has strides like these): against a single byte it misses, the search
// must rule out every value of the first term.
var sparse = v(0, 1, []int64{400, 400, 400}, []int64{1049, 1051, 1053})

// solvable reports whether 1049·i + 1051·j + 1053·k = t with 0 ≤ i, j, k < 400,
// by enumerating i and j: an independent check of the search.
func solvable(t int64) bool {
	for i := int64(0); i < 400; i++ {
		for j := int64(0); j < 400; j++ {
			rest := t - 1049*i - 1051*j
			if rest >= 0 && rest%1053 == 0 && rest/1053 < 400 {
				return true
			}
		}
	}
	return false
}

func TestWorkCap(t *testing.T) {
	a := sparse
	// A target near the middle of the range, where most (i, j) must be tried.
	var target int64
	for target = 600000; solvable(target); target++ {
	}
	b := v(target, 1, nil, nil)
	got, st, err := impl.Solver{MaxWork: 1 << 6}.Solve(a, b)
	if err != nil || got != spec.TooHard || st.Nodes <= 1<<6 {
		t.Fatalf("capped at 64: %v %+v %v; want TooHard past the cap", got, st, err)
	}
	got, st, err = impl.Solver{MaxWork: 1 << 30}.Solve(a, b)
	if err != nil || got != spec.No {
		t.Fatalf("uncapped: %v %+v %v; want No", got, st, err)
	}
	t.Logf("unsolvable target %d: %d nodes", target, st.Nodes)
	if again, st2, _ := (impl.Solver{MaxWork: st.Nodes}).Solve(a, b); again != spec.No || st2.Nodes != st.Nodes {
		t.Errorf("a cap equal to the work needed: %v %+v", again, st2)
	}
	if again, _, _ := (impl.Solver{MaxWork: st.Nodes - 1}).Solve(a, b); again != spec.TooHard {
		t.Errorf("a cap one below the work needed: %v", again)
	}
	// A solvable target is found.
	got, _, err = impl.Solver{MaxWork: 1 << 30}.Solve(a, v(target+1, 1, nil, nil))
	if want := solvable(target + 1); err != nil || (got == spec.Yes) != want {
		t.Errorf("target %d: %v, %v; solvable: %v", target+1, got, err, want)
	}
}

func TestPaths(t *testing.T) {
	d1, d2 := v(0, 4, []int64{64, 64}, []int64{256, 4}), v(8192, 4, []int64{64, 64}, []int64{256, 4})
	cases := []struct {
		a, b spec.View
		path impl.Path
	}{
		{d1, d2, impl.PathGapFree},
		{d1, v(1<<20, 4, nil, nil), impl.PathDisjoint},
		{d1, v(0, 4, []int64{0}, []int64{4}), impl.PathEmpty},
		{classics[3].a, classics[3].b, impl.PathSearch},
	}
	for _, c := range cases {
		if _, st, _ := (impl.Solver{}).Solve(c.a, c.b); st.Path != c.path {
			t.Errorf("%v, %v: path %v, want %v", c.a, c.b, st.Path, c.path)
		}
	}
}

// TestLarge checks the 1 MiB views of the benchmarks against the model.
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("brute force over 1 MiB")
	}
	const n, row = 512, 512 * 4
	cases := []struct{ a, b spec.View }{
		{v(0, 4, []int64{n, (n + 6) / 7}, []int64{row, 28}), v(12, 4, []int64{n, (n - 1) / 3}, []int64{row, 12})},
		{v(0, 4, []int64{n, n / 2}, []int64{row, 8}), v(4, 4, []int64{n, n / 2}, []int64{row, 8})},
		{v(0, 4, []int64{n, n / 2}, []int64{row, 8}), v(6, 1, []int64{n, n}, []int64{row, 4})},
	}
	for _, c := range cases {
		want, err := spec.Overlap(c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := impl.Exact(c.a, c.b); err != nil || got != want {
			t.Errorf("Exact(%v, %v) = %v, %v; the model says %v", c.a, c.b, got, err, want)
		}
	}
}

// TestRankOnePairsTakeOneNode: two 1-D views, of any extents, strides and
// element sizes, leave at most two terms besides the byte term, which the
// closed form decides in one node; the answer still matches the model
// where the model can list the bytes.
func TestRankOnePairsTakeOneNode(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for i := range 20000 {
		var p [2]spec.View
		for k := range p {
			x := v(r.Int64N(1000), int64(1)<<r.IntN(4), []int64{1 + r.Int64N(4096)}, []int64{r.Int64N(20001) - 10000})
			if x.Strides[0] < 0 {
				x.Offset -= (x.Shape[0] - 1) * x.Strides[0]
			}
			p[k] = x
		}
		got, st, err := impl.Solver{}.Solve(p[0], p[1])
		if err != nil || st.Nodes > 1 {
			t.Fatalf("%v, %v: %v after %d nodes, %v", p[0], p[1], got, st.Nodes, err)
		}
		if i%64 == 0 { // the model lists up to 32 KiB a view
			if want, _ := spec.Overlap(p[0], p[1]); got != want {
				t.Fatalf("%v, %v: %v; the model says %v", p[0], p[1], got, want)
			}
		}
	}
}
