package tensormaptest

import (
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
	"pgregory.net/rapid"
)

// TensorMapFactory builds the map under test with the given contract-level
// configuration (its Capacity, and its Solver when not nil).
type TensorMapFactory func(spec.Config) (spec.Map, error)

// The storages generated ops draw from: few enough that views of one storage
// meet often, and enough that small bucket arrays see collisions between
// storages. 0 (null) is drawn rarely, to exercise ErrNullStorage.
var tmStorages = []spec.Storage{0x1000, 0x2000, 0x3000, 0x7f00_0000_0000, 1}

// tmDrawStorage draws a storage, rarely the null one.
func tmDrawStorage(t *rapid.T) spec.Storage {
	if rapid.IntRange(0, 39).Draw(t, "nullStorage") == 0 {
		return 0
	}
	return rapid.SampledFrom(tmStorages).Draw(t, "storage")
}

// tmViews remembers the views a run has used, so later ops can reuse them:
// exact repeats (a consumer reading what a producer wrote) are the common
// case of a real runtime, and the cheapest way to make lookups hit. In a
// large run (tensormap_large.go) a third of the new views are large ones.
type tmViews struct {
	seen  []overlap.View
	large bool
}

// draw returns a view: a repeat (sometimes moved by a few bytes: the same
// layout elsewhere), a contiguous tile, a small strided view of rank 0..3
// (with negative, zero and sub-element strides, and empty views), a view of
// rank 5..8, a sparse view spanning more than 2^32 bytes, or, rarely, an
// invalid one. Outside large runs every valid view lies within the first
// ~100 bytes of its storage and touches a few dozen bytes at most, so that
// the brute-force model is cheap and the exact solver never gives up.
func (vs *tmViews) draw(t *rapid.T) overlap.View {
	var v overlap.View
	if vs.large && rapid.IntRange(0, 2).Draw(t, "largeView") == 0 {
		v = tmDrawLarge(t)
		vs.seen = append(vs.seen, v)
		return v
	}
	switch k := rapid.IntRange(0, 19).Draw(t, "viewKind"); {
	case k == 0:
		return tmDrawInvalidView(t)
	case k <= 5 && len(vs.seen) > 0:
		v = rapid.SampledFrom(vs.seen).Draw(t, "repeat")
		if rapid.IntRange(0, 2).Draw(t, "moved") > 0 {
			return v
		}
		// The same layout elsewhere (the next tile, the next slot of a
		// ring buffer): the solver's shifted-copy path.
		moved := overlap.View{Offset: v.Offset + rapid.Int64Range(-12, 12).Draw(t, "shift"), ElemSize: v.ElemSize,
			Shape: v.Shape, Strides: v.Strides}
		if moved.Offset < 0 || moved.Validate() != nil {
			return v
		}
		return moved
	case k == 19:
		v = tmDrawWide(t)
	case k == 17 || k == 18:
		v = vs.drawFar(t)
	case k <= 10:
		elem := rapid.SampledFrom([]int64{1, 2, 4}).Draw(t, "elem")
		n := rapid.Int64Range(1, 8).Draw(t, "len")
		v = overlap.View{Offset: rapid.Int64Range(0, 48).Draw(t, "off"), ElemSize: elem, Shape: []int64{n}, Strides: []int64{elem}}
	default:
		v = tmDrawStrided(t)
	}
	vs.seen = append(vs.seen, v)
	return v
}

// tmDrawStrided draws a small strided view whose bytes all lie at or above 0.
func tmDrawStrided(t *rapid.T) overlap.View {
	rank := rapid.IntRange(0, 3).Draw(t, "rank")
	v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 3, 4}).Draw(t, "elem"),
		Shape: make([]int64, rank), Strides: make([]int64, rank)}
	low := int64(0) // the most negative reach of the strides
	for d := range rank {
		n := rapid.Int64Range(1, 4).Draw(t, "n")
		if rapid.IntRange(0, 19).Draw(t, "emptyDim") == 0 {
			n = 0
		}
		s := rapid.Int64Range(-9, 9).Draw(t, "stride")
		v.Shape[d], v.Strides[d] = n, s
		if n > 1 && s < 0 {
			low += (n - 1) * s
		}
	}
	v.Offset = -low + rapid.Int64Range(0, 32).Draw(t, "off")
	return v
}

// tmDrawWide draws a view of rank 5 to 8 (dims of 1 or 2, small strides of
// either sign), whose shape and strides a map may keep apart from those of
// the common low-rank views.
func tmDrawWide(t *rapid.T) overlap.View {
	rank := rapid.IntRange(5, overlap.MaxRank).Draw(t, "wideRank")
	v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 4}).Draw(t, "wideElem")}
	low := tmDrawDims(t, &v, rank, 2, 6, "wide")
	v.Offset = -low + rapid.Int64Range(0, 24).Draw(t, "wideOff")
	return v
}

// tmDrawDims draws rank dimensions of v, each of 1 to nMax elements and a
// stride of -sMax to sMax bytes (named prefix+"N" and prefix+"Stride"), and
// returns how far below its offset the view then reaches (≤ 0): an offset
// of at least its negation keeps every byte at or above 0.
func tmDrawDims(t *rapid.T, v *overlap.View, rank int, nMax, sMax int64, prefix string) int64 {
	v.Shape, v.Strides = make([]int64, rank), make([]int64, rank)
	low := int64(0)
	for d := range rank {
		n := rapid.Int64Range(1, nMax).Draw(t, prefix+"N")
		s := rapid.Int64Range(-sMax, sMax).Draw(t, prefix+"Stride")
		v.Shape[d], v.Strides[d] = n, s
		if n > 1 && s < 0 {
			low += (n - 1) * s
		}
	}
	return low
}

// drawFar draws a sparse view (tmDrawSparse), or, two times in three when
// one has been drawn before, an element on the highest byte of one: a view more
// than 2^32 bytes above the other's lowest byte that shares a byte with it.
func (vs *tmViews) drawFar(t *rapid.T) overlap.View {
	var far []overlap.View
	for _, v := range vs.seen {
		if lo, hi, ok := v.Bounds(); ok && hi-lo >= 1<<32 {
			far = append(far, v)
		}
	}
	if len(far) == 0 || rapid.IntRange(0, 2).Draw(t, "sparseNew") == 0 {
		return tmDrawSparse(t)
	}
	_, hi, _ := rapid.SampledFrom(far).Draw(t, "farOf").Bounds()
	elem := rapid.Int64Range(1, 4).Draw(t, "farElem")
	return overlap.View{Offset: hi - rapid.Int64Range(0, elem-1).Draw(t, "farByte"), ElemSize: elem}
}

// tmDrawSparse draws a view of two or four elements whose extent passes
// 2^32 bytes (strides of ±(2^32 + 64 and a bit)): a map that keeps extents in 32
// bits must take its long path for it. It touches few bytes, so the model
// stays cheap.
func tmDrawSparse(t *rapid.T) overlap.View {
	rank := rapid.IntRange(1, 2).Draw(t, "sparseRank")
	v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 4}).Draw(t, "sparseElem"),
		Shape: make([]int64, rank), Strides: make([]int64, rank)}
	low := int64(0)
	for d := range rank {
		s := int64(1)<<32 + 64 + rapid.Int64Range(0, 8).Draw(t, "sparseStride")<<d
		if rapid.Bool().Draw(t, "sparseNeg") {
			s = -s
		}
		v.Shape[d], v.Strides[d] = 2, s
		if s < 0 {
			low += s
		}
	}
	// Its lowest byte among the small views', or 2^32 above them, next to
	// the far bytes of another sparse view.
	base := rapid.SampledFrom([]int64{0, 0, 1 << 32}).Draw(t, "sparseBase")
	v.Offset = -low + base + rapid.Int64Range(0, 40).Draw(t, "sparseOff")
	return v
}

// tmDrawInvalidView draws a view the overlap model refuses.
func tmDrawInvalidView(t *rapid.T) overlap.View {
	switch rapid.IntRange(0, 3).Draw(t, "invalidKind") {
	case 0:
		return overlap.View{Offset: 0, ElemSize: 0, Shape: []int64{2}, Strides: []int64{1}}
	case 1:
		return overlap.View{Offset: -4, ElemSize: 1, Shape: []int64{2}, Strides: []int64{1}}
	case 2:
		return overlap.View{Offset: 8, ElemSize: 1, Shape: []int64{-1}, Strides: []int64{1}}
	}
	return overlap.View{Offset: 0, ElemSize: 1, Shape: []int64{2, 2}, Strides: []int64{1}}
}

// tmDrawInsertTask draws the task of an Insert: mostly the last task or a
// little after it, sometimes one that is out of order.
func tmDrawInsertTask(t *rapid.T, last, threshold spec.Task) spec.Task {
	switch k := rapid.IntRange(0, 19).Draw(t, "taskKind"); {
	case k == 0 && last > 0:
		return last - 1 // out of order
	case k == 1 && threshold > 0:
		return threshold - 1 // already retired
	case k <= 3:
		return max(last, threshold) + spec.Task(rapid.IntRange(3, 12).Draw(t, "jump"))
	default:
		return max(last, threshold) + spec.Task(rapid.IntRange(0, 2).Draw(t, "step"))
	}
}

// tmDrawRetire draws a Retire target: mostly a small step, sometimes a jump
// far past the last task, rarely a step backwards.
func tmDrawRetire(t *rapid.T, last, threshold spec.Task) spec.Task {
	switch k := rapid.IntRange(0, 19).Draw(t, "retireKind"); {
	case k == 0 && threshold > 0:
		return threshold - 1
	case k <= 2:
		return last + spec.Task(rapid.IntRange(0, 20).Draw(t, "jump"))
	default:
		return threshold + spec.Task(rapid.IntRange(0, 3).Draw(t, "step"))
	}
}
