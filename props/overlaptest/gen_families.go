package overlaptest

import (
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// The families of Pairs, one drawing function each. Every rare variation
// (an empty slice, a byte view, a negative or flipped stride, a junk stride
// on a size-1 dim) is drawn with draw.Rarely, so that shrinking switches it
// off unless the failure needs it. rapid draws the ends of a range more
// often than its middle; the odds of each variation are set to what they
// were when it sat at the minimum, so the reach of the families is
// unchanged.

// drawSlicedPair draws a dense tensor and two slicings of it (steps of any
// sign, then a transpose), sometimes reading one as bytes (int8 over f32).
func drawSlicedPair(t *rapid.T) ViewPair {
	rank := rapid.IntRange(1, 3).Draw(t, "base.rank")
	shape := make([]int64, rank)
	for d := range shape {
		shape[d] = int64(rapid.IntRange(1, 8).Draw(t, "base.n"))
	}
	elem := rapid.SampledFrom([]int64{1, 2, 4, 8}).Draw(t, "base.elem")
	base, err := overlap.Dense(rapid.Int64Range(0, 16).Draw(t, "base.off"), elem, shape...)
	if err != nil {
		t.Fatalf("dense base: %v", err)
	}
	return ViewPair{A: drawSlicing(t, "a", base), B: drawSlicing(t, "b", base)}
}

func drawSlicing(t *rapid.T, label string, v overlap.View) overlap.View {
	for d, n := range v.Shape {
		step := rapid.SampledFrom([]int64{1, 1, 1, 2, 3, 7, -1, -2}).Draw(t, label+".step")
		var start, stop int64
		if step > 0 {
			start = rapid.Int64Range(0, n).Draw(t, label+".start")
			stop = rapid.Int64Range(start, n).Draw(t, label+".stop")
			if start == stop && !draw.Rarely(t, 4, label+".keepEmpty") {
				start, stop = 0, n // keep empty slices rare, and shrink them away
			}
		} else {
			start = rapid.Int64Range(0, n-1).Draw(t, label+".start")
			stop = rapid.Int64Range(-1, start-1).Draw(t, label+".stop")
		}
		s, err := overlap.Slice(v, d, start, stop, step)
		if err != nil {
			t.Fatalf("slice: %v", err)
		}
		v = s
	}
	perm := rapid.Permutation(identity(len(v.Shape))).Draw(t, label+".perm")
	v, err := overlap.Transpose(v, perm...)
	if err != nil {
		t.Fatalf("transpose: %v", err)
	}
	if v.ElemSize > 1 && len(v.Shape) < overlap.MaxRank && draw.Rarely(t, 4, label+".bytes") {
		v = asBytes(v)
	}
	return v
}

// asBytes reads a view's elements as bytes: one more dim of ElemSize bytes.
func asBytes(v overlap.View) overlap.View {
	return overlap.View{Offset: v.Offset, ElemSize: 1,
		Shape:   append(append([]int64{}, v.Shape...), v.ElemSize),
		Strides: append(append([]int64{}, v.Strides...), 1)}
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// drawAdjacentPair draws a view and a copy of it moved by less than an element
// or so that the two bounds touch or share a byte or two.
func drawAdjacentPair(t *rapid.T) ViewPair {
	a := drawStrided(t, "a", 3, 4, 24, []int64{1, 2, 4, 8}, 48)
	b := a
	b.Shape, b.Strides = append([]int64{}, a.Shape...), append([]int64{}, a.Strides...)
	if a.Empty() {
		return ViewPair{A: a, B: b}
	}
	lo, hi, _ := a.Bounds()
	if rapid.Bool().Draw(t, "shiftSmall") {
		b.Offset += rapid.Int64Range(-a.ElemSize, a.ElemSize).Draw(t, "shift")
	} else {
		b.Offset += hi - lo + 1 - rapid.Int64Range(0, 2).Draw(t, "shared")
	}
	if d := lowest(b); d < 0 {
		a.Offset -= d
		b.Offset -= d
	}
	return ViewPair{A: a, B: b}
}

// drawIncommensPair draws views whose strides are near multiples of one p.
func drawIncommensPair(t *rapid.T) ViewPair {
	p := rapid.Int64Range(3, 40).Draw(t, "p")
	one := func(label string) overlap.View {
		rank := rapid.IntRange(1, 3).Draw(t, label+".rank")
		v := overlap.View{ElemSize: rapid.SampledFrom(genElems[:5]).Draw(t, label+".elem"),
			Shape: make([]int64, rank), Strides: make([]int64, rank)}
		for d := range rank {
			v.Shape[d] = rapid.Int64Range(2, 5).Draw(t, label+".n")
			s := rapid.SampledFrom([]int64{p, p + 1, p - 1, 2*p + 1, 3*p - 1, p * p}).Draw(t, label+".s")
			if draw.Rarely(t, 4, label+".neg") {
				s = -s
			}
			v.Strides[d] = s
		}
		return place(v, rapid.Int64Range(0, 3*p).Draw(t, label+".at"))
	}
	return aim(t, ViewPair{A: one("a"), B: one("b")})
}

// drawHugePair draws sparse views with strides of 2^33..2^44, mostly of 1-byte
// elements (so the gcd residues, not the element term, decide), placed
// anywhere up to the top of the address space.
func drawHugePair(t *rapid.T) ViewPair {
	one := func(label string) overlap.View {
		rank := rapid.IntRange(1, 2).Draw(t, label+".rank")
		v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 1, 1, 1, 2, 8}).Draw(t, label+".elem"),
			Shape: make([]int64, rank), Strides: make([]int64, rank)}
		for d := range rank {
			v.Shape[d] = rapid.Int64Range(2, 3).Draw(t, label+".n")
			// Hashed, so that the strides are spread over the whole range
			// instead of bunching at its low end as drawn integers do.
			s := 1<<33 + int64(mix64(rapid.Uint64().Draw(t, label+".s"))%(1<<44-1<<33))
			if rapid.Bool().Draw(t, label+".neg") {
				s = -s
			}
			v.Strides[d] = s
		}
		return place(v, rapid.Int64Range(0, 1<<46).Draw(t, label+".at"))
	}
	// Aimed three times in four: the residues matter most when there is a
	// solution to find.
	p := ViewPair{A: one("a"), B: one("b")}
	if rapid.IntRange(0, 3).Draw(t, "hugeAim") > 0 {
		p = aimAlways(t, p)
	}
	// Half the pairs go to the top of the address space, the rest anywhere
	// below 2^61. Both moves are drawn whichever is taken, so that shrinking
	// can drop the move to the top without changing the other draws.
	top := rapid.Bool().Draw(t, "hugeTop")
	below := drawBelowTop(t)
	shift := rapid.Int64Range(0, 1<<61).Draw(t, "hugeShift")
	if top {
		return moveToTop(p, below)
	}
	p.A.Offset += shift
	p.B.Offset += shift
	return p
}

// drawBroadcastPair draws views with stride-0 dims and strides below the
// element size (sliding windows).
func drawBroadcastPair(t *rapid.T) ViewPair {
	one := func(label string) overlap.View {
		v := drawStrided(t, label, 3, 5, 6, []int64{2, 4, 8}, 32)
		lo := lowest(v)
		for d := range v.Shape {
			if rapid.IntRange(0, 2).Draw(t, label+".zero") == 0 {
				v.Strides[d] = 0
			}
		}
		return place(v, lo)
	}
	return aim(t, ViewPair{A: one("a"), B: one("b")})
}

// drawHighRankPair draws views of rank 5 to 8 with dims of 2 or 3.
func drawHighRankPair(t *rapid.T) ViewPair {
	one := func(label string) overlap.View {
		rank := rapid.IntRange(5, overlap.MaxRank).Draw(t, label+".rank")
		v := overlap.View{ElemSize: rapid.SampledFrom(genElems[:5]).Draw(t, label+".elem"),
			Shape: make([]int64, rank), Strides: make([]int64, rank)}
		threes := 0
		for d := range rank {
			v.Shape[d] = rapid.SampledFrom([]int64{2, 2, 2, 3}).Draw(t, label+".n")
			if v.Shape[d] == 3 {
				if threes++; threes > 3 { // keeps 3^3·2^5·8 bytes under the budget
					v.Shape[d] = 2
				}
			}
			v.Strides[d] = rapid.Int64Range(-300, 300).Draw(t, label+".s")
		}
		return place(v, rapid.Int64Range(0, 64).Draw(t, label+".at"))
	}
	return aim(t, ViewPair{A: one("a"), B: one("b")})
}

// drawShiftedPair draws a view and a copy of its layout at another place: a
// slicing of a dense tensor (a tile, a strided slice, a transpose: nested
// layouts) or a small random strided view, then b's lowest byte moved by a
// difference its own elements can make, Σ k·|s| + t with |k| < n and
// |t| < elem, give or take a byte, or by any small distance. Some of b's
// strides change sign and some size-1 strides change, which keeps the bytes
// it touches relative to its lowest byte.
func drawShiftedPair(t *rapid.T) ViewPair {
	var a overlap.View
	if rapid.Bool().Draw(t, "shift.sliced") {
		a = drawSlicedPair(t).A
	} else {
		a = drawStrided(t, "shift", 4, 5, 40, genElems, 48)
	}
	if a.Empty() {
		return ViewPair{A: a, B: a}
	}
	b := overlap.View{ElemSize: a.ElemSize, Shape: append([]int64{}, a.Shape...), Strides: append([]int64{}, a.Strides...)}
	var delta int64
	if rapid.IntRange(0, 3).Draw(t, "shift.kind") > 0 {
		for d, n := range a.Shape {
			s := a.Strides[d]
			delta += rapid.Int64Range(-(n-1), n-1).Draw(t, "shift.k") * max(s, -s)
		}
		delta += rapid.Int64Range(-(a.ElemSize-1), a.ElemSize-1).Draw(t, "shift.t")
		delta += rapid.SampledFrom([]int64{0, 0, 0, 1, -1}).Draw(t, "shift.off")
	} else {
		delta = rapid.Int64Range(-64, 64).Draw(t, "shift.any")
	}
	for d, n := range b.Shape {
		switch {
		case n == 1 && draw.Rarely(t, 4, "shift.size1"):
			b.Strides[d] = rapid.Int64Range(-1000, 1000).Draw(t, "shift.size1Stride")
		case draw.Rarely(t, 4, "shift.flip"):
			b.Strides[d] = -b.Strides[d]
		}
	}
	loA := lowest(a)
	b = place(b, loA+delta)
	if lo := min(loA, loA+delta); lo < 0 {
		a.Offset -= lo
		b.Offset -= lo
	}
	return ViewPair{A: a, B: b}
}
