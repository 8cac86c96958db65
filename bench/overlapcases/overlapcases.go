// Package overlapcases generates the view pairs of the overlap benchmark
// families that expose an exact solver's worst cases, deterministically from
// a seed, so that every runner — the Go benchmarks of bench/, a NumPy peer
// writing the same views out as JSON — measures the same pairs.
//
// A family is a name, the benchmark that visits it, and its pairs. The names
// are stable; a peer keys its results by them:
//
//	near-equal/n=256, near-equal/n=1024, near-equal/n=4096
//	    two 1-D views of n elements whose strides are s and s±δ (δ of one to
//	    three elements, either sign of stride), the second placed within the
//	    first's bounds, sometimes half an element off. A search that
//	    enumerates a stride term pays in proportion to n.
//	sparse-3d/n=8, sparse-3d/n=16
//	    two 3-D views of n×n×n elements with incommensurate strides (distinct
//	    primes near 1049 elements, NumPy's hard case) whose bounds overlap
//	    for the most part: six stride terms of extent n−1.
//	high-rank/rank=5, high-rank/rank=8
//	    views of a tensor of that rank with one long dim (256 elements) and
//	    every other dim of extent 2 (or 3, at rank 5), strided over a larger buffer: many
//	    small terms and one large one per view.
//	corpus
//	    CorpusSize pairs of random strided views of rank 1 to 4, extents 1 to
//	    12 and |strides| up to 400 bytes, placed so that their bounds meet
//	    about two times in three: the distribution of per-pair cost.
//
// Every view is valid, its elements 1, 2, 4 or 8 bytes (NumPy's uint8 to
// uint64), and every byte it touches lies in [0, MaxBytes): a runner can lay
// each family over one buffer of MaxBytes bytes from byte 0.
package overlapcases

import (
	"fmt"
	"math/rand/v2"
	"strings"

	spec "github.com/memverify/memverify/model/overlap"
)

// MaxBytes bounds every view of every family: its highest byte is below it.
const MaxBytes = 1 << 24

// CorpusSize is the number of pairs of the corpus family.
const CorpusSize = 10240

// PairsPerFamily is the number of pairs of every family but the corpus.
const PairsPerFamily = 64

// DefaultSeed is the seed the benchmarks use.
const DefaultSeed = 20

// Family is one family's pairs. Name is the family's stable name
// ("near-equal/n=256"); Bench is the benchmark that visits its pairs, less
// its "Benchmark" prefix and its impl= level ("OverlapNearEqual/n=256").
type Family struct {
	Name  string
	Bench string
	Pairs [][2]spec.View
}

// generator builds one family's pairs from a random source.
type generator struct {
	name, bench string
	pairs       func(r *rand.Rand) [][2]spec.View
}

var generators = []generator{
	{"near-equal/n=256", "OverlapNearEqual/n=256", func(r *rand.Rand) [][2]spec.View { return nearEqual(r, 256) }},
	{"near-equal/n=1024", "OverlapNearEqual/n=1024", func(r *rand.Rand) [][2]spec.View { return nearEqual(r, 1024) }},
	{"near-equal/n=4096", "OverlapNearEqual/n=4096", func(r *rand.Rand) [][2]spec.View { return nearEqual(r, 4096) }},
	{"sparse-3d/n=8", "OverlapSparse3D/n=8", func(r *rand.Rand) [][2]spec.View { return sparse3D(r, 8) }},
	{"sparse-3d/n=16", "OverlapSparse3D/n=16", func(r *rand.Rand) [][2]spec.View { return sparse3D(r, 16) }},
	{"high-rank/rank=5", "OverlapHighRank/rank=5", func(r *rand.Rand) [][2]spec.View { return highRank(r, 5) }},
	{"high-rank/rank=8", "OverlapHighRank/rank=8", func(r *rand.Rand) [][2]spec.View { return highRank(r, 8) }},
	{"corpus", "OverlapCorpus", corpus},
}

// Names lists the families' names, in the order Families returns them.
func Names() []string {
	out := make([]string, len(generators))
	for i, g := range generators {
		out[i] = g.name
	}
	return out
}

// Families returns every family's pairs, generated from seed.
func Families(seed uint64) []Family {
	out := make([]Family, len(generators))
	for i, g := range generators {
		out[i] = g.family(seed)
	}
	return out
}

// Of returns the families the benchmark called bench visits (those whose
// Bench is bench or below it), generated from seed; the others are not
// generated.
func Of(bench string, seed uint64) []Family {
	var out []Family
	for _, g := range generators {
		if g.bench == bench || strings.HasPrefix(g.bench, bench+"/") {
			out = append(out, g.family(seed))
		}
	}
	return out
}

// Get returns the family called name, generated from seed. The pairs of a
// family depend only on its name and the seed.
func Get(name string, seed uint64) (Family, error) {
	for _, g := range generators {
		if g.name == name {
			return g.family(seed), nil
		}
	}
	return Family{}, fmt.Errorf("overlapcases: no family %q (have %v)", name, Names())
}

func (g generator) family(seed uint64) Family {
	// Each family draws from its own stream, keyed by its name, so that
	// adding a family changes no other.
	var key uint64 = 14695981039346656037 // FNV-1a over the name
	for i := 0; i < len(g.name); i++ {
		key = (key ^ uint64(g.name[i])) * 1099511628211
	}
	return Family{Name: g.name, Bench: g.bench, Pairs: g.pairs(rand.New(rand.NewPCG(seed, key)))}
}

// elemSizes are the element sizes the families draw from.
var elemSizes = []int64{1, 2, 4, 8}

// place returns v with the lowest byte at lo: Offset moved past the span of
// its negative strides.
func place(v spec.View, lo int64) spec.View {
	v.Offset = lo
	for d, n := range v.Shape {
		if n > 1 && v.Strides[d] < 0 {
			v.Offset -= (n - 1) * v.Strides[d]
		}
	}
	return v
}

// span is the distance from a view's lowest to its highest byte.
func span(v spec.View) int64 {
	var s int64
	for d, n := range v.Shape {
		if n > 1 {
			s += (n - 1) * max(v.Strides[d], -v.Strides[d])
		}
	}
	return s + v.ElemSize - 1
}

// sign returns −1 about one time in four, else 1.
func sign(r *rand.Rand) int64 {
	if r.IntN(4) == 0 {
		return -1
	}
	return 1
}

// nearEqual: two 1-D views of n elements, strides s and s±δ elements.
func nearEqual(r *rand.Rand, n int64) [][2]spec.View {
	out := make([][2]spec.View, PairsPerFamily)
	for i := range out {
		e := elemSizes[r.IntN(len(elemSizes))]
		k := 16 + r.Int64N(241) // s = k elements: 16 to 256
		d := 1 + r.Int64N(3)
		if r.IntN(2) == 0 {
			d = -d
		}
		a := spec.View{ElemSize: e, Shape: []int64{n}, Strides: []int64{sign(r) * k * e}}
		b := spec.View{ElemSize: e, Shape: []int64{n}, Strides: []int64{sign(r) * (k + d) * e}}
		// b starts within a's first half, on an element boundary or, one
		// time in four, half an element off.
		shift := r.Int64N(n*k/2) * e
		if e > 1 && r.IntN(4) == 0 {
			shift += e / 2
		}
		out[i] = [2]spec.View{place(a, 64), place(b, 64+shift)}
	}
	return out
}

// sparse3DPrimes are primes near 1049: incommensurate strides, in elements.
var sparse3DPrimes = []int64{1031, 1033, 1039, 1049, 1051, 1061, 1063, 1069, 1087, 1091, 1093, 1097}

// sparse3D: two n×n×n views with strides of distinct primes near 1049
// elements, the second's lowest byte within the first half of the first.
func sparse3D(r *rand.Rand, n int64) [][2]spec.View {
	out := make([][2]spec.View, PairsPerFamily)
	for i := range out {
		e := elemSizes[r.IntN(len(elemSizes))]
		perm := r.Perm(len(sparse3DPrimes))
		var vs [2]spec.View
		for k := range vs {
			v := spec.View{ElemSize: e, Shape: []int64{n, n, n}, Strides: make([]int64, 3)}
			for d := range 3 {
				v.Strides[d] = sign(r) * sparse3DPrimes[perm[3*k+d]] * e
			}
			vs[k] = v
		}
		shift := r.Int64N(span(vs[0])/2/e) * e
		if e > 1 && r.IntN(4) == 0 {
			shift += e / 2
		}
		out[i] = [2]spec.View{place(vs[0], 64), place(vs[1], 64+shift)}
	}
	return out
}

// highRank: two views of rank rank, each dim of extent 2 (or 3, at rank 5)
// but one long one (256 elements), strided over a buffer: each outer stride
// is the span of the dims inside it, padded by up to two elements and, one
// time in four, doubled; the long dim's stride is 1 or 2 elements (a column
// block, a step-2 slice). The long dim may sit anywhere, so the layout is
// sometimes a transpose.
func highRank(r *rand.Rand, rank int) [][2]spec.View {
	out := make([][2]spec.View, PairsPerFamily)
	for i := range out {
		e := elemSizes[r.IntN(len(elemSizes))]
		long := r.IntN(rank)
		var vs [2]spec.View
		for k := range vs {
			v := spec.View{ElemSize: e, Shape: make([]int64, rank), Strides: make([]int64, rank)}
			step := e * (1 + r.Int64N(2))
			run := 256 * step // the bytes the dims inside the next one span
			for d := rank - 1; d >= 0; d-- {
				if d == long {
					v.Shape[d], v.Strides[d] = 256, sign(r)*step
					continue
				}
				v.Shape[d] = 2
				if rank <= 5 {
					v.Shape[d] += r.Int64N(2)
				}
				s := run + r.Int64N(3)*e
				if r.IntN(4) == 0 {
					s *= 2
				}
				v.Strides[d] = sign(r) * s
				run = s * v.Shape[d]
			}
			vs[k] = v
		}
		shift := r.Int64N(span(vs[0])/2/e+1) * e
		if e > 1 && r.IntN(4) == 0 {
			shift += e / 2
		}
		out[i] = [2]spec.View{place(vs[0], 64), place(vs[1], 64+shift)}
	}
	return out
}

// corpus: random strided views of rank 1 to 4, extents 1 to 12, |strides|
// up to 400 bytes (some 0), the second's lowest byte drawn so that the
// bounds meet about two times in three.
func corpus(r *rand.Rand) [][2]spec.View {
	one := func() spec.View {
		rank := 1 + r.IntN(4)
		v := spec.View{ElemSize: elemSizes[r.IntN(len(elemSizes))], Shape: make([]int64, rank), Strides: make([]int64, rank)}
		for d := range rank {
			v.Shape[d] = 1 + r.Int64N(12)
			v.Strides[d] = r.Int64N(801) - 400
		}
		return v
	}
	out := make([][2]spec.View, CorpusSize)
	for i := range out {
		a, b := one(), one()
		lo := 64 + r.Int64N(span(a)+span(b)+1) + r.Int64N(span(b)/2+1)
		out[i] = [2]spec.View{place(a, 64+span(b)), place(b, lo)}
	}
	return out
}
