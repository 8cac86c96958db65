package tensormaptest

import (
	"slices"

	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
	"pgregory.net/rapid"
)

// Large runs. Most runs of the tensormap machine keep a map of 1 to 8
// entries and views of a few dozen bytes, which is where the edge cases
// are dense. A chain, a ring or a per-task window of more than 8 entries,
// and views of kilobytes, are reached only by a large run: a capacity of 9
// to 64, tensors written tile by tile (tmTiling), and views whose elements
// are big or far apart (tmDrawLarge). The model then decides with
// tmElementOracle, which is exact and costs the elements, not the bytes, of
// the views; the map under test keeps its own exact solver, or, in half of
// the runs, is given the oracle too, so that its custom-solver path meets
// real verdicts and not only the TooHard of CheckTensorMapTooHard.
//
// Every large view has at most 64 elements, and a whole tensor read at
// once at most 128, so that for any pair of drawn views (the widest small
// ones have 256) the product of their element counts keeps an exact
// solver's search within impl/overlap's default work cap: it never gives
// up where the model decides.

// tmOracleElems caps the elements tmElementOracle lists per view; a view
// with more goes to the brute force.
const tmOracleElems = 1 << 12

// tmElementOracle is an exact overlap.Checker for views of few elements,
// whatever their size in bytes: views whose byte bounds are disjoint share
// nothing; otherwise it lists each view's elements as byte ranges, sorted,
// and sweeps the two lists for a common byte. A view of more than
// tmOracleElems elements goes to spec.BruteForce.
func tmElementOracle(a, b overlap.View) (overlap.Verdict, error) {
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
	if !oka || !okb || na > tmOracleElems || nb > tmOracleElems {
		return spec.BruteForce(a, b)
	}
	ra, rb := tmElementStarts(a), tmElementStarts(b)
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

// tmElementStarts returns the first byte of every element of a valid,
// non-empty view, sorted.
func tmElementStarts(v overlap.View) []int64 {
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

// tmDrawLarge draws a view of kilobytes with at most 64 elements: a tile
// of a padded row-major matrix (read in order or transposed), a few big
// elements at a stride that may be below the element size, or a view of
// rank 2 or 3 with strides of thousands of bytes of either sign, whose
// dims interleave (not a nested layout: the exact solver must search).
func tmDrawLarge(t *rapid.T) overlap.View {
	switch rapid.IntRange(0, 3).Draw(t, "largeKind") {
	case 0, 1:
		g := tmDrawTiling(t, true)
		v := g.tile(rapid.Int64Range(0, 7).Draw(t, "largeTile"))
		if rapid.IntRange(0, 3).Draw(t, "transposed") == 0 {
			v.Shape[0], v.Shape[1] = v.Shape[1], v.Shape[0]
			v.Strides[0], v.Strides[1] = v.Strides[1], v.Strides[0]
		}
		return v
	case 2:
		elem := rapid.Int64Range(256, 1<<16).Draw(t, "bigElem")
		n := rapid.Int64Range(1, 4).Draw(t, "bigN")
		s := rapid.Int64Range(-2*elem, 2*elem).Draw(t, "bigStride")
		low := min(0, (n-1)*s)
		return overlap.View{Offset: -low + rapid.Int64Range(0, 4*elem).Draw(t, "bigOff"), ElemSize: elem,
			Shape: []int64{n}, Strides: []int64{s}}
	}
	rank := rapid.IntRange(2, 3).Draw(t, "farRank")
	v := overlap.View{ElemSize: rapid.Int64Range(1, 16).Draw(t, "farElem")}
	low := tmDrawDims(t, &v, rank, 4, 4096, "far")
	v.Offset = -low + rapid.Int64Range(0, 8192).Draw(t, "farOff")
	return v
}

// tmTiling is a matrix of rows of pitch bytes (the row's elements and some
// padding) cut into tiles of rows×cols elements, across tiles side by side;
// tile i is the i-th in row-major order of the tiles.
type tmTiling struct {
	base, pitch, elem  int64
	rows, cols, across int64
}

// tmDrawTiling draws a tiling: tiles of up to 3×3 elements of up to 4
// bytes, or, for large views, of up to 8×8 elements of up to 512 bytes.
func tmDrawTiling(t *rapid.T, large bool) tmTiling {
	elems, dim, across := []int64{1, 2, 4}, int64(3), int64(3)
	if large {
		elems, dim, across = []int64{1, 4, 8, 64, 512}, 8, 4
	}
	g := tmTiling{elem: rapid.SampledFrom(elems).Draw(t, "tileElem"),
		rows: rapid.Int64Range(1, dim).Draw(t, "tileRows"), cols: rapid.Int64Range(1, dim).Draw(t, "tileCols"),
		across: rapid.Int64Range(1, across).Draw(t, "across")}
	g.pitch = g.across*g.cols*g.elem + rapid.SampledFrom([]int64{0, 0, 1, g.elem, 3 * g.elem}).Draw(t, "pad")
	g.base = rapid.Int64Range(0, 4*g.elem).Draw(t, "tileBase")
	return g
}

// tile returns the view of tile i.
func (g tmTiling) tile(i int64) overlap.View {
	row, col := i/g.across, i%g.across
	return overlap.View{Offset: g.base + row*g.rows*g.pitch + col*g.cols*g.elem, ElemSize: g.elem,
		Shape: []int64{g.rows, g.cols}, Strides: []int64{g.pitch, g.elem}}
}

// whole returns the view of the first n tiles' rows read at once (a
// consumer of the whole tensor), and false when it has more than 128
// elements.
func (g tmTiling) whole(n int64) (overlap.View, bool) {
	rows := (n + g.across - 1) / g.across * g.rows
	cols := g.across * g.cols
	if rows*cols > 128 {
		return overlap.View{}, false
	}
	return overlap.View{Offset: g.base, ElemSize: g.elem, Shape: []int64{rows, cols}, Strides: []int64{g.pitch, g.elem}}, true
}
