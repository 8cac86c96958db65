package tensormaptest

import (
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
	"pgregory.net/rapid"
)

// The generators. Each draw puts its simplest choice at rapid's minimum and
// its rare branches behind draw.Rarely, so that a shrunk trace is made of
// the first storage, a one-byte view at offset 0 and the same task, and
// keeps a null storage, an invalid view, an empty dim or an out-of-order
// task only where the failure needs it. rapid draws the ends of a range
// more often than its middle; the odds of each branch are set to what they
// were when the rare branches sat at the minimum, so the reach of a run is
// unchanged.

// The storages generated ops draw from: few enough that views of one storage
// meet often, and enough that small bucket arrays see collisions between
// storages. 0 (null) is drawn rarely, to exercise ErrNullStorage.
var storages = []tensormap.Storage{0x1000, 0x2000, 0x3000, 0x7f00_0000_0000, 1}

// drawStorage draws a storage, rarely the null one.
func drawStorage(t *rapid.T) tensormap.Storage {
	if draw.Rarely(t, 9, "nullStorage") {
		return 0
	}
	return rapid.SampledFrom(storages).Draw(t, "storage")
}

// viewPool remembers the views a run has used, so later ops can reuse them:
// exact repeats (a consumer reading what a producer wrote) are the common
// case of a real runtime, and the cheapest way to make lookups hit. In a
// large run (see oracle.go) a third of the new views are large ones.
type viewPool struct {
	seen  []overlap.View
	large bool
}

// draw returns a view: mostly a small strided view of rank 0..3 (with
// negative, zero and sub-element strides, and empty dims), a repeat of an
// earlier view (sometimes moved by a few bytes: the same layout elsewhere)
// or a contiguous run of elements; rarely a view of rank 5..8, a sparse view
// spanning more than 2^32 bytes or an element on the far byte of one; and
// about one time in eight an invalid view. Outside large runs every valid view lies within the first
// ~100 bytes of its storage and touches a few dozen bytes at most, so that
// the brute-force model is cheap and the exact solver never gives up.
func (vs *viewPool) draw(t *rapid.T) overlap.View {
	var v overlap.View
	// Drawn in every run, so that shrinking a large run to a small one
	// leaves the draws that follow in place.
	if large := draw.Rarely(t, 3, "largeView"); vs.large && large {
		v = drawLarge(t)
		vs.seen = append(vs.seen, v)
		return v
	}
	switch {
	case draw.Rarely(t, 8, "invalidView"):
		return drawInvalidView(t)
	case draw.Rarely(t, 15, "wideView"):
		v = drawWide(t)
	case draw.Rarely(t, 13, "farView"):
		v = vs.drawFar(t)
	default:
		// A strided view first: it shrinks to the plainest view of all, one
		// byte at offset 0.
		switch k := rapid.IntRange(0, 3).Draw(t, "viewKind"); {
		case k == 0:
			v = drawStrided(t)
		case k == 3 || len(vs.seen) == 0:
			v = drawContiguous(t)
		default:
			return vs.drawRepeat(t)
		}
	}
	vs.seen = append(vs.seen, v)
	return v
}

// drawRepeat draws a view used before, and, about one time in three, moves
// it by a few bytes: the same layout elsewhere (the next tile, the next slot
// of a ring buffer), the solver's shifted-copy path.
func (vs *viewPool) drawRepeat(t *rapid.T) overlap.View {
	v := rapid.SampledFrom(vs.seen).Draw(t, "repeat")
	if !draw.Rarely(t, 3, "moved") {
		return v
	}
	moved := overlap.View{Offset: v.Offset + rapid.Int64Range(-12, 12).Draw(t, "shift"), ElemSize: v.ElemSize,
		Shape: v.Shape, Strides: v.Strides}
	if moved.Offset < 0 || moved.Validate() != nil {
		return v
	}
	return moved
}

// drawContiguous draws a contiguous view of rank 1: a tensor of 1 to 8
// elements within the first 56 bytes.
func drawContiguous(t *rapid.T) overlap.View {
	elem := rapid.SampledFrom([]int64{1, 2, 4}).Draw(t, "elem")
	n := rapid.Int64Range(1, 8).Draw(t, "len")
	return overlap.View{Offset: rapid.Int64Range(0, 48).Draw(t, "off"), ElemSize: elem, Shape: []int64{n}, Strides: []int64{elem}}
}

// drawStrided draws a small strided view whose bytes all lie at or above 0.
func drawStrided(t *rapid.T) overlap.View {
	rank := rapid.IntRange(0, 3).Draw(t, "rank")
	v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 3, 4}).Draw(t, "elem"),
		Shape: make([]int64, rank), Strides: make([]int64, rank)}
	low := int64(0) // the most negative reach of the strides
	for d := range rank {
		n := rapid.Int64Range(1, 4).Draw(t, "n")
		if draw.Rarely(t, 8, "emptyDim") {
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

// drawWide draws a view of rank 5 to 8 (dims of 1 or 2, small strides of
// either sign), whose shape and strides a map may keep apart from those of
// the common low-rank views.
func drawWide(t *rapid.T) overlap.View {
	rank := rapid.IntRange(5, overlap.MaxRank).Draw(t, "wideRank")
	v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 4}).Draw(t, "wideElem")}
	low := drawDims(t, &v, rank, 2, 6, "wide")
	v.Offset = -low + rapid.Int64Range(0, 24).Draw(t, "wideOff")
	return v
}

// drawDims draws rank dimensions of v, each of 1 to nMax elements and a
// stride of -sMax to sMax bytes (named prefix+"N" and prefix+"Stride"), and
// returns how far below its offset the view then reaches (≤ 0): an offset
// of at least its negation keeps every byte at or above 0.
func drawDims(t *rapid.T, v *overlap.View, rank int, nMax, sMax int64, prefix string) int64 {
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

// drawFar draws a sparse view (drawSparse), or, two times in three when
// one has been drawn before, an element on the highest byte of one: a view more
// than 2^32 bytes above the other's lowest byte that shares a byte with it.
func (vs *viewPool) drawFar(t *rapid.T) overlap.View {
	var far []overlap.View
	for _, v := range vs.seen {
		if lo, hi, ok := v.Bounds(); ok && hi-lo >= 1<<32 {
			far = append(far, v)
		}
	}
	if len(far) == 0 || draw.Rarely(t, 3, "sparseNew") {
		return drawSparse(t)
	}
	_, hi, _ := rapid.SampledFrom(far).Draw(t, "farOf").Bounds()
	elem := rapid.Int64Range(1, 4).Draw(t, "farElem")
	return overlap.View{Offset: hi - rapid.Int64Range(0, elem-1).Draw(t, "farByte"), ElemSize: elem}
}

// drawSparse draws a view of two or four elements whose extent passes
// 2^32 bytes (strides of ±(2^32 + 64 and a bit)): a map that keeps extents in 32
// bits must take its long path for it. It touches few bytes, so the model
// stays cheap.
func drawSparse(t *rapid.T) overlap.View {
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

// drawInvalidView draws a view the overlap model refuses.
func drawInvalidView(t *rapid.T) overlap.View {
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

// drawInsertTask draws the task of an Insert: mostly the last task or a
// little after it (the last task itself is the minimum), sometimes a jump,
// and about one time in four one that is out of order or already retired.
func drawInsertTask(t *rapid.T, last, threshold tensormap.Task) tensormap.Task {
	next := max(last, threshold)
	switch {
	case draw.Rarely(t, 8, "outOfOrder") && last > 0:
		return last - 1
	case draw.Rarely(t, 7, "retired") && threshold > 0:
		return threshold - 1
	case draw.Rarely(t, 5, "jump"):
		return next + tensormap.Task(rapid.IntRange(3, 12).Draw(t, "jumpBy"))
	}
	return next + tensormap.Task(rapid.IntRange(0, 2).Draw(t, "step"))
}

// drawRetire draws a Retire target: mostly a small step (the threshold
// itself, which changes nothing, is the minimum), sometimes a jump far past
// the last task, now and then a step backwards.
func drawRetire(t *rapid.T, last, threshold tensormap.Task) tensormap.Task {
	switch {
	case draw.Rarely(t, 8, "backwards") && threshold > 0:
		return threshold - 1
	case draw.Rarely(t, 4, "jump"):
		return last + tensormap.Task(rapid.IntRange(0, 20).Draw(t, "jumpBy"))
	}
	return threshold + tensormap.Task(rapid.IntRange(0, 3).Draw(t, "step"))
}
