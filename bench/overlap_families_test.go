package bench

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/bench/overlapcases"
	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// The worst-case families of bench/overlapcases, every checker side by side
// (runAll): the pairs come from overlapcases.Families, so that a peer
// runner that writes the same families out measures the same pairs. Each
// benchmark visits its family's pairs in turn; ns/op is the mean over the
// family.

// overlapFamily returns the family called name, from the benchmarks' seed.
func overlapFamily(b *testing.B, name string) overlapcases.Family {
	f, err := overlapcases.Get(name, overlapcases.DefaultSeed)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// runFamilies runs every checker on each family the benchmark visits, as
// the sub-benchmark the family's Bench names below the benchmark's own name.
func runFamilies(b *testing.B, bench string) {
	for _, f := range overlapcases.Of(bench, overlapcases.DefaultSeed) {
		runAll(b, strings.TrimPrefix(f.Bench, bench+"/")+"/", f.Pairs)
	}
}

// BenchmarkOverlapNearEqual: two 1-D views of 256, 1024 and 4096 elements
// with strides s and s±δ: a search that enumerates a stride pays in
// proportion to the extent; the closed form of the last two terms does not.
func BenchmarkOverlapNearEqual(b *testing.B) { runFamilies(b, "OverlapNearEqual") }

// BenchmarkOverlapSparse3D: two n×n×n views (n = 8, 16) with incommensurate
// strides whose bounds overlap: six stride terms of extent n−1, four of
// them enumerated.
func BenchmarkOverlapSparse3D(b *testing.B) { runFamilies(b, "OverlapSparse3D") }

// BenchmarkOverlapHighRank: views of rank 5 and 8 with one dim of 256
// elements and the others of 2 or 3.
func BenchmarkOverlapHighRank(b *testing.B) { runFamilies(b, "OverlapHighRank") }

// corpusCaller is one checker on the corpus: prepare builds what it keeps
// per pair (outside any timing) and returns the call of pair i.
type corpusCaller struct {
	name    string
	prepare func(b *testing.B, pairs [][2]spec.View) func(i int) spec.Verdict
}

func checkerCaller(name string, check spec.Checker) corpusCaller {
	return corpusCaller{name, func(b *testing.B, pairs [][2]spec.View) func(int) spec.Verdict {
		return func(i int) spec.Verdict {
			v, err := check(pairs[i][0], pairs[i][1])
			if err != nil {
				b.Fatal(err)
			}
			return v
		}
	}}
}

var corpusCallers = []corpusCaller{
	checkerCaller("Model", spec.Overlap),
	checkerCaller("BBox", impl.BBox),
	checkerCaller("SeedGCD", impl.SeedGCD),
	checkerCaller("Exact", impl.Exact),
	{"Prepared", func(b *testing.B, pairs [][2]spec.View) func(int) spec.Verdict {
		prep := preparePairs(b, pairs)
		return func(i int) spec.Verdict { return impl.ExactPrepared(&prep[i][0], &prep[i][1]) }
	}},
	{"Bounded", func(b *testing.B, pairs [][2]spec.View) func(int) spec.Verdict {
		spans := measurePairs(b, pairs)
		return func(i int) spec.Verdict {
			v, err := impl.ExactBounded(spans[i][0], spans[i][1])
			if err != nil {
				b.Fatal(err)
			}
			return v
		}
	}},
}

// BenchmarkOverlapCorpus: the generated corpus of overlapcases (10,240
// random strided pairs of rank 1 to 4), for the distribution of the cost
// of one pair. ns/op is the mean over the pairs the b.N calls visit in
// turn. p50-ns/pair and p99-ns/pair are the median and the 99th percentile
// over every pair of the corpus of its own cost, measured after the loop,
// timer stopped: each pair is called k times in a row between two clock
// reads (k chosen so that a batch lasts about 2 µs, at most 64, so that
// the clock's own cost, some 20–40 ns, stays a few percent), and the
// least of three such batches, taken in three passes over the corpus, is
// its cost — the work of the pair with the least disturbance from the
// host. Each call is one checker call on one pair, warm in cache.
func BenchmarkOverlapCorpus(b *testing.B) {
	f := overlapFamily(b, "corpus")
	for _, c := range corpusCallers {
		b.Run("impl="+c.name, func(b *testing.B) {
			call := c.prepare(b, f.Pairs)
			b.ReportAllocs()
			b.ResetTimer()
			j := 0
			for range b.N {
				overlapSink = call(j)
				if j++; j == len(f.Pairs) {
					j = 0
				}
			}
			b.StopTimer()
			mean := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			p50, p99 := pairCosts(call, len(f.Pairs), mean)
			b.ReportMetric(p50, "p50-ns/pair")
			b.ReportMetric(p99, "p99-ns/pair")
		})
	}
}

// pairCosts measures the cost of each of n pairs (see BenchmarkOverlapCorpus)
// and returns their median and 99th percentile, in ns.
func pairCosts(call func(int) spec.Verdict, n int, meanNs float64) (p50, p99 float64) {
	k := 64
	if meanNs > 0 {
		k = max(1, min(64, int(2000/meanNs)))
	}
	costs := make([]float64, n)
	for pass := range 3 {
		for i := range n {
			start := time.Now()
			for range k {
				overlapSink = call(i)
			}
			c := float64(time.Since(start).Nanoseconds()) / float64(k)
			if pass == 0 || c < costs[i] {
				costs[i] = c
			}
		}
	}
	slices.Sort(costs)
	return costs[n/2], costs[min(n-1, n*99/100)]
}

// preparePairs prepares both views of every pair, as a tracker holds them.
func preparePairs(b *testing.B, pairs [][2]spec.View) [][2]impl.Prepared {
	prep := make([][2]impl.Prepared, len(pairs))
	for i, p := range pairs {
		for k := range 2 {
			var err error
			if prep[i][k], err = impl.Prepare(p[k]); err != nil {
				b.Fatal(err)
			}
		}
	}
	return prep
}
