package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// The overlap benchmarks put the brute-force model, the bounding box, the
// seed's hybrid GCD rule (a peer: what the seed runtime ships), the exact
// solver, and the exact solver on views prepared once (impl=Prepared: what a
// dependency tracker that prepares each entry at insert pays per lookup) or
// measured once (impl=Bounded: ExactBounded, what impl/tensormap calls) side
// by side on four workloads: dense views (the fast path), random strided
// views of rank 1 to 5, NumPy's documented example, and views over 1 MiB of
// storage.

var overlapCheckers = []struct {
	name  string
	check spec.Checker
}{
	{"Model", spec.Overlap},
	{"BBox", impl.BBox},
	{"SeedGCD", impl.SeedGCD},
	{"Exact", impl.Exact},
}

var overlapSink spec.Verdict

// runOverlap calls check on each pair in turn. It loops over b.N rather
// than b.Loop: inside a b.Loop loop the compiler keeps every call's
// arguments alive and so copies both views twice, once to keep and once to
// pass, which cost the dense pair 11 of its 169 instructions (callgrind).
// The call through a func value cannot be optimised away, and the verdict
// goes to a sink, so b.N measures the same work without the extra copy.
func runOverlap(b *testing.B, check spec.Checker, pairs [][2]spec.View) {
	b.ReportAllocs()
	b.ResetTimer()
	j := 0
	for range b.N {
		p := &pairs[j]
		if j++; j == len(pairs) { // no division in the loop: it would cost more than the dense path
			j = 0
		}
		v, err := check(p[0], p[1])
		if err != nil {
			b.Fatal(err)
		}
		overlapSink = v
	}
}

// runPrepared runs ExactPrepared on views prepared once, outside the loop, as
// a dependency tracker holds them.
func runPrepared(b *testing.B, pairs [][2]spec.View) {
	prep := make([][2]impl.Prepared, len(pairs))
	for i, p := range pairs {
		for k := range 2 {
			var err error
			if prep[i][k], err = impl.Prepare(p[k]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	j := 0
	for b.Loop() {
		p := &prep[j]
		if j++; j == len(prep) {
			j = 0
		}
		overlapSink = impl.ExactPrepared(&p[0], &p[1])
	}
}

// runBounded runs ExactBounded on views measured once, outside the loop, as
// impl/tensormap holds them (without copying them).
func runBounded(b *testing.B, pairs [][2]spec.View) {
	spans := measurePairs(b, pairs)
	b.ReportAllocs()
	j := 0
	for b.Loop() {
		x := &spans[j]
		if j++; j == len(spans) {
			j = 0
		}
		overlapSink, _ = impl.ExactBounded(x[0], x[1])
	}
}

// measurePairs measures both views of every pair (Measure); the spans
// refer to the pairs' views.
func measurePairs(b *testing.B, pairs [][2]spec.View) [][2]impl.Span {
	spans := make([][2]impl.Span, len(pairs))
	for i := range pairs {
		for k := range 2 {
			var err error
			if spans[i][k], err = impl.Measure(&pairs[i][k]); err != nil {
				b.Fatal(err)
			}
		}
	}
	return spans
}

// runAll runs every checker, then the prepared and the bounded paths, on
// pairs.
func runAll(b *testing.B, prefix string, pairs [][2]spec.View) {
	for _, c := range overlapCheckers {
		b.Run(prefix+"impl="+c.name, func(b *testing.B) { runOverlap(b, c.check, pairs) })
	}
	b.Run(prefix+"impl=Prepared", func(b *testing.B) { runPrepared(b, pairs) })
	b.Run(prefix+"impl=Bounded", func(b *testing.B) { runBounded(b, pairs) })
}

func mustDense(off, elem int64, shape ...int64) spec.View {
	v, err := spec.Dense(off, elem, shape...)
	if err != nil {
		panic(err)
	}
	return v
}

// BenchmarkOverlapDense: two dense 64×64 float32 tiles of one buffer that
// share half their rows: both are gap-free, so Exact decides in O(rank).
func BenchmarkOverlapDense(b *testing.B) {
	runAll(b, "", [][2]spec.View{{mustDense(0, 4, 64, 64), mustDense(32*64*4, 4, 64, 64)}})
}

// BenchmarkOverlapDenseRanks: the dense path at other ranks, two gap-free
// float32 views of 4096 elements each that share half of them: a vector
// (rank 1), 16×16×16 blocks (rank 3), 4×4×16×16 batches (rank 4). Exact
// unrolls ranks 1 and 2 (BenchmarkOverlapDense is rank 2); ranks 3 and 4
// take its loop.
func BenchmarkOverlapDenseRanks(b *testing.B) {
	shapes := [][]int64{{4096}, {16, 16, 16}, {4, 4, 16, 16}}
	for _, shape := range shapes {
		a, c := mustDense(0, 4, shape...), mustDense(2048*4, 4, shape...)
		runAll(b, fmt.Sprintf("rank=%d/", len(shape)), [][2]spec.View{{a, c}})
	}
}

// overlapRandomPairs builds n pairs of random strided views of the given
// rank over one storage of a few KiB: extents 1 to 6, strides of ±1 to 64
// elements (any sign, some 0), element sizes 1 to 8; about half overlap.
func overlapRandomPairs(rank, n int, seed uint64) [][2]spec.View {
	r := rand.New(rand.NewPCG(seed, uint64(rank)))
	one := func() spec.View {
		elem := []int64{1, 2, 4, 8}[r.IntN(4)]
		v := spec.View{ElemSize: elem, Shape: make([]int64, rank), Strides: make([]int64, rank)}
		lo := int64(r.IntN(2048))
		v.Offset = lo
		for d := range rank {
			v.Shape[d] = 1 + int64(r.IntN(6))
			v.Strides[d] = int64(r.IntN(129)-64) * elem / int64(1+r.IntN(2))
			if v.Strides[d] < 0 {
				v.Offset -= (v.Shape[d] - 1) * v.Strides[d]
			}
		}
		return v
	}
	pairs := make([][2]spec.View, n)
	for i := range pairs {
		pairs[i] = [2]spec.View{one(), one()}
	}
	return pairs
}

// BenchmarkOverlapRandom: 1024 random pairs per rank, visited round-robin;
// ns/op is the mean over the corpus.
func BenchmarkOverlapRandom(b *testing.B) {
	for rank := 1; rank <= 5; rank++ {
		runAll(b, fmt.Sprintf("rank=%d/", rank), overlapRandomPairs(rank, 1024, 7))
	}
}

// BenchmarkOverlapNumPyExample: NumPy's documented hard case, x[:, ::7]
// against x[:, 3::3], for a 4×16 float32 x (strides 64, 4).
func BenchmarkOverlapNumPyExample(b *testing.B) {
	a := spec.View{Offset: 0, ElemSize: 4, Shape: []int64{4, 3}, Strides: []int64{64, 28}}
	c := spec.View{Offset: 12, ElemSize: 4, Shape: []int64{4, 5}, Strides: []int64{64, 12}}
	runAll(b, "", [][2]spec.View{{a, c}})
}

// BenchmarkOverlapLarge: views whose extents span 1 MiB of a 512×512 float32
// matrix: the column slices x[:, ::7] and x[:, 3::3] (they share every 21st
// column), the even and the odd columns x[:, ::2] and x[:, 1::2] (disjoint,
// interleaved over the whole matrix), and two dense halves sharing a row.
func BenchmarkOverlapLarge(b *testing.B) {
	const n, row = 512, 512 * 4
	cols7 := spec.View{Offset: 0, ElemSize: 4, Shape: []int64{n, (n + 6) / 7}, Strides: []int64{row, 28}}
	cols3 := spec.View{Offset: 12, ElemSize: 4, Shape: []int64{n, (n - 3 + 2) / 3}, Strides: []int64{row, 12}}
	even := spec.View{Offset: 0, ElemSize: 4, Shape: []int64{n, n / 2}, Strides: []int64{row, 8}}
	odd := spec.View{Offset: 4, ElemSize: 4, Shape: []int64{n, n / 2}, Strides: []int64{row, 8}}
	top, bottom := mustDense(0, 4, n/2+1, n), mustDense(n/2*row, 4, n/2, n)
	cases := []struct {
		name string
		a, b spec.View
	}{
		{"strided", cols7, cols3},
		{"interleaved", even, odd},
		{"dense", top, bottom},
	}
	for _, cs := range cases {
		runAll(b, cs.name+"/", [][2]spec.View{{cs.a, cs.b}})
	}
}
