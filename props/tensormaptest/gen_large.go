package tensormaptest

import (
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// The views of large runs (see oracle.go): tiles of padded matrices, big
// elements, and wide strides, each of at most 64 elements.

// drawLarge draws a view of kilobytes with at most 64 elements: a tile
// of a padded row-major matrix (read in order or transposed), a few big
// elements at a stride that may be below the element size, or a view of
// rank 2 or 3 with strides of thousands of bytes of either sign, whose
// dims interleave (not a nested layout: the exact solver must search).
func drawLarge(t *rapid.T) overlap.View {
	switch rapid.IntRange(0, 3).Draw(t, "largeKind") {
	case 0, 1:
		g := drawTiling(t, true)
		v := g.tile(rapid.Int64Range(0, 7).Draw(t, "largeTile"))
		if draw.Rarely(t, 4, "transposed") {
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
	low := drawDims(t, &v, rank, 4, 4096, "far")
	v.Offset = -low + rapid.Int64Range(0, 8192).Draw(t, "farOff")
	return v
}

// tiling is a matrix of rows of pitch bytes (the row's elements and some
// padding) cut into tiles of rows×cols elements, across tiles side by side;
// tile i is the i-th in row-major order of the tiles.
type tiling struct {
	base, pitch, elem  int64
	rows, cols, across int64
}

// drawTiling draws a tiling: tiles of up to 3×3 elements of up to 4
// bytes, or, for large views, of up to 8×8 elements of up to 512 bytes.
func drawTiling(t *rapid.T, large bool) tiling {
	elems, dim, across := []int64{1, 2, 4}, int64(3), int64(3)
	if large {
		elems, dim, across = []int64{1, 4, 8, 64, 512}, 8, 4
	}
	g := tiling{elem: rapid.SampledFrom(elems).Draw(t, "tileElem"),
		rows: rapid.Int64Range(1, dim).Draw(t, "tileRows"), cols: rapid.Int64Range(1, dim).Draw(t, "tileCols"),
		across: rapid.Int64Range(1, across).Draw(t, "across")}
	g.pitch = g.across*g.cols*g.elem + rapid.SampledFrom([]int64{0, 0, 1, g.elem, 3 * g.elem}).Draw(t, "pad")
	g.base = rapid.Int64Range(0, 4*g.elem).Draw(t, "tileBase")
	return g
}

// tile returns the view of tile i.
func (g tiling) tile(i int64) overlap.View {
	row, col := i/g.across, i%g.across
	return overlap.View{Offset: g.base + row*g.rows*g.pitch + col*g.cols*g.elem, ElemSize: g.elem,
		Shape: []int64{g.rows, g.cols}, Strides: []int64{g.pitch, g.elem}}
}

// whole returns the view of the first n tiles' rows read at once (a
// consumer of the whole tensor), and false when it has more than 128
// elements.
func (g tiling) whole(n int64) (overlap.View, bool) {
	rows := (n + g.across - 1) / g.across * g.rows
	cols := g.across * g.cols
	if rows*cols > 128 {
		return overlap.View{}, false
	}
	return overlap.View{Offset: g.base, ElemSize: g.elem, Shape: []int64{rows, cols}, Strides: []int64{g.pitch, g.elem}}, true
}
