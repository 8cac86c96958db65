package tensormaptest

import (
	"slices"

	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
)

// Large runs. Most runs of the state machine keep a map of 1 to 8
// entries and views of a few dozen bytes, which is where the edge cases
// are dense. A chain, a ring or a per-task window of more than 8 entries,
// and views of kilobytes, are reached only by a large run: a capacity of 9
// to 64, tensors written tile by tile (tiling), and views whose elements
// are big or far apart (drawLarge). The model then decides with
// elementOracle, which is exact and costs the elements, not the bytes, of
// the views; the map under test keeps its own exact solver, or, in half of
// the runs, is given the oracle too, so that its custom-solver path meets
// real verdicts and not only the TooHard of CheckTooHardIsDependency.
//
// Every large view has at most 64 elements, and a whole tensor read at
// once at most 128, so that for any pair of drawn views (the widest small
// ones have 256) the product of their element counts keeps an exact
// solver's search within impl/overlap's default work cap: it never gives
// up where the model decides.

// oracleElems caps the elements elementOracle lists per view; a view
// with more goes to the brute force.
const oracleElems = 1 << 12

// elementOracle is an exact overlap.Checker for views of few elements,
// whatever their size in bytes: views whose byte bounds are disjoint share
// nothing; otherwise it lists each view's elements as byte ranges, sorted,
// and sweeps the two lists for a common byte. A view of more than
// oracleElems elements goes to tensormap.BruteForce.
func elementOracle(a, b overlap.View) (overlap.Verdict, error) {
	if err := a.Validate(); err != nil {
		return overlap.No, err
	}
	if err := b.Validate(); err != nil {
		return overlap.No, err
	}
	alo, ahi, aok := a.Bounds() // false for an empty view
	blo, bhi, bok := b.Bounds()
	if !aok || !bok || ahi < blo || bhi < alo {
		return overlap.No, nil
	}
	na, oka := a.Numel()
	nb, okb := b.Numel()
	if !oka || !okb || na > oracleElems || nb > oracleElems {
		return tensormap.BruteForce(a, b)
	}
	ra, rb := elementStarts(a), elementStarts(b)
	// Sorted by start, a range that ends before the other list's current
	// range starts meets none of that list's later ranges either.
	for i, j := 0, 0; i < len(ra) && j < len(rb); {
		switch {
		case ra[i]+a.ElemSize <= rb[j]:
			i++
		case rb[j]+b.ElemSize <= ra[i]:
			j++
		default:
			return overlap.Yes, nil
		}
	}
	return overlap.No, nil
}

// elementStarts returns the first byte of every element of a valid,
// non-empty view, sorted.
func elementStarts(v overlap.View) []int64 {
	out := []int64{v.Offset}
	for d, n := range v.Shape {
		k := len(out)
		for i := int64(1); i < n; i++ {
			for _, s := range out[:k] {
				out = append(out, s+i*v.Strides[d])
			}
		}
	}
	slices.Sort(out)
	return out
}
