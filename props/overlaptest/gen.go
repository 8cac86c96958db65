package overlaptest

import (
	"fmt"
	"math"

	spec "github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// ViewPair is two views of one storage, and the family of the generator that
// made them (for reports).
type ViewPair struct {
	A, B   spec.View
	Family string
}

// String prints the pair as the query it is.
func (p ViewPair) String() string { return spec.Op{A: p.A, B: p.B}.String() }

// The families of OverlapPairs. Each aims at a different way of getting
// overlap wrong.
const (
	FamilyRandom     = "random"    // independent strided views, any stride sign, size-1 and empty dims
	FamilySliced     = "sliced"    // slices, reversals, transposes and byte reinterpretations of one dense tensor
	FamilyAdjacent   = "adjacent"  // a view and a copy shifted by about an element or to touch its end
	FamilyIncommens  = "incommens" // strides near one another (p, p±1, 2p+1): gcd and bounds both matter
	FamilyHuge       = "huge"      // strides of 2^33..2^44 and addresses up to 2^63-1
	FamilyBroadcast  = "broadcast" // stride-0 dims and strides below the element
	FamilyHighRank   = "highrank"  // rank 5 to 8, dims of 2 or 3: up to 17 terms in the equation
	FamilyShifted    = "shifted"   // one layout at two offsets (tiles, a slicing pattern repeated), strides' signs and size-1 strides varied
	maxGenTouchBytes = 1 << 13     // keeps each view cheap for the brute-force model
)

// OverlapPairs generates valid pairs of views of one storage, small enough
// for the brute-force model, from the families above. About half the pairs
// overlap by construction: b is placed so that one of its elements starts on
// a chosen byte of a. A pair may be moved, as a whole, next to the top of the
// address space. Fuzz seeds and the accuracy corpus draw from it too.
func OverlapPairs() *rapid.Generator[ViewPair] {
	return rapid.Custom(func(t *rapid.T) ViewPair {
		fam := rapid.SampledFrom([]string{FamilyRandom, FamilyRandom, FamilySliced, FamilySliced,
			FamilyAdjacent, FamilyIncommens, FamilyIncommens, FamilyHuge, FamilyHuge, FamilyBroadcast,
			FamilyHighRank, FamilyShifted}).Draw(t, "family")
		var p ViewPair
		switch fam {
		case FamilyRandom:
			p = drawRandomPair(t, 40)
		case FamilySliced:
			p = drawSlicedPair(t)
		case FamilyAdjacent:
			p = drawAdjacentPair(t)
		case FamilyIncommens:
			p = drawIncommensPair(t)
		case FamilyHuge:
			p = drawHugePair(t)
		case FamilyBroadcast:
			p = drawBroadcastPair(t)
		case FamilyHighRank:
			p = drawHighRankPair(t)
		case FamilyShifted:
			p = drawShiftedPair(t)
		}
		p.Family = fam
		if fam != FamilyHuge && rapid.IntRange(0, 9).Draw(t, "toTop") == 0 {
			p = moveToTop(t, p)
		}
		return p
	})
}

// SmallViews generates one valid random view of at most rank 4 (empty now and
// then), small enough for the model.
func SmallViews() *rapid.Generator[spec.View] {
	return rapid.Custom(func(t *rapid.T) spec.View {
		return drawStrided(t, "v", 4, 5, 40, genElems, 48)
	})
}

// drawStrided draws a view with the given limits, its lowest byte at a random
// address in [0, room].
func drawStrided(t *rapid.T, label string, maxRank, maxDim int, maxStride int64, elems []int64, room int64) spec.View {
	rank := rapid.IntRange(0, maxRank).Draw(t, label+".rank")
	v := spec.View{ElemSize: rapid.SampledFrom(elems).Draw(t, label+".elem"),
		Shape: make([]int64, rank), Strides: make([]int64, rank)}
	for d := range rank {
		v.Shape[d] = int64(rapid.IntRange(1, maxDim).Draw(t, label+".n"))
		v.Strides[d] = rapid.Int64Range(-maxStride, maxStride).Draw(t, label+".s")
	}
	if rank > 0 && rapid.IntRange(0, 15).Draw(t, label+".empty") == 0 {
		v.Shape[rapid.IntRange(0, rank-1).Draw(t, label+".emptyDim")] = 0
	}
	return place(v, rapid.Int64Range(0, room).Draw(t, label+".at"))
}

// place sets v's offset so that its lowest byte is at lo.
func place(v spec.View, lo int64) spec.View {
	v.Offset = lo
	for d, n := range v.Shape {
		if n > 1 && v.Strides[d] < 0 {
			v.Offset -= (n - 1) * v.Strides[d]
		}
	}
	return v
}

// drawRandomPair draws two independent random views, half the time aimed at
// one another.
func drawRandomPair(t *rapid.T, maxStride int64) ViewPair {
	a := drawStrided(t, "a", 4, 5, maxStride, genElems, 48)
	b := drawStrided(t, "b", 4, 5, maxStride, genElems, 48)
	return aim(t, ViewPair{A: a, B: b})
}

// aim, half the time, moves b so that one of its elements starts on a byte of
// a (both then shifted up if b would start below 0).
func aim(t *rapid.T, p ViewPair) ViewPair {
	if !rapid.Bool().Draw(t, "aim") {
		return p
	}
	return aimAlways(t, p)
}

// aimAlways moves b so that one of its elements starts on a byte of a.
func aimAlways(t *rapid.T, p ViewPair) ViewPair {
	if p.A.Empty() || p.B.Empty() {
		return p
	}
	target := elemAddr(t, "aimA", p.A) + rapid.Int64Range(0, p.A.ElemSize-1).Draw(t, "aimByte")
	rel := elemAddr(t, "aimB", p.B) - p.B.Offset
	p.B.Offset = target - rel
	lo := lowest(p.B)
	if lo < 0 {
		p.A.Offset -= lo
		p.B.Offset -= lo
	}
	if p.B.Offset < 0 { // only size-1 dims can put the offset below the lowest byte: never
		p.B.Offset = 0
	}
	return p
}

// elemAddr draws an element of a non-empty view and returns its start.
func elemAddr(t *rapid.T, label string, v spec.View) int64 {
	addr := v.Offset
	for d, n := range v.Shape {
		addr += rapid.Int64Range(0, n-1).Draw(t, label) * v.Strides[d]
	}
	return addr
}

// lowest returns the lowest byte of a non-empty view, without validating.
func lowest(v spec.View) int64 {
	lo := v.Offset
	for d, n := range v.Shape {
		if n > 1 && v.Strides[d] < 0 {
			lo += (n - 1) * v.Strides[d]
		}
	}
	return lo
}

// drawSlicedPair draws a dense tensor and two slicings of it (steps of any
// sign, then a transpose), sometimes reading one as bytes (int8 over f32).
func drawSlicedPair(t *rapid.T) ViewPair {
	rank := rapid.IntRange(1, 3).Draw(t, "base.rank")
	shape := make([]int64, rank)
	for d := range shape {
		shape[d] = int64(rapid.IntRange(1, 8).Draw(t, "base.n"))
	}
	elem := rapid.SampledFrom([]int64{1, 2, 4, 8}).Draw(t, "base.elem")
	base, err := spec.Dense(rapid.Int64Range(0, 16).Draw(t, "base.off"), elem, shape...)
	if err != nil {
		t.Fatalf("dense base: %v", err)
	}
	return ViewPair{A: drawSlicing(t, "a", base), B: drawSlicing(t, "b", base)}
}

func drawSlicing(t *rapid.T, label string, v spec.View) spec.View {
	for d, n := range v.Shape {
		step := rapid.SampledFrom([]int64{1, 1, 1, 2, 3, 7, -1, -2}).Draw(t, label+".step")
		var start, stop int64
		if step > 0 {
			start = rapid.Int64Range(0, n).Draw(t, label+".start")
			stop = rapid.Int64Range(start, n).Draw(t, label+".stop")
			if start == stop && rapid.IntRange(0, 3).Draw(t, label+".keep") > 0 {
				start, stop = 0, n // keep empty slices rare
			}
		} else {
			start = rapid.Int64Range(0, n-1).Draw(t, label+".start")
			stop = rapid.Int64Range(-1, start-1).Draw(t, label+".stop")
		}
		s, err := spec.Slice(v, d, start, stop, step)
		if err != nil {
			t.Fatalf("slice: %v", err)
		}
		v = s
	}
	perm := rapid.Permutation(identity(len(v.Shape))).Draw(t, label+".perm")
	v, err := spec.Transpose(v, perm...)
	if err != nil {
		t.Fatalf("transpose: %v", err)
	}
	if v.ElemSize > 1 && len(v.Shape) < spec.MaxRank && rapid.IntRange(0, 3).Draw(t, label+".bytes") == 0 {
		v = asBytes(v)
	}
	return v
}

// asBytes reads a view's elements as bytes: one more dim of ElemSize bytes.
func asBytes(v spec.View) spec.View {
	return spec.View{Offset: v.Offset, ElemSize: 1,
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
	one := func(label string) spec.View {
		rank := rapid.IntRange(1, 3).Draw(t, label+".rank")
		v := spec.View{ElemSize: rapid.SampledFrom(genElems[:5]).Draw(t, label+".elem"),
			Shape: make([]int64, rank), Strides: make([]int64, rank)}
		for d := range rank {
			v.Shape[d] = rapid.Int64Range(2, 5).Draw(t, label+".n")
			s := rapid.SampledFrom([]int64{p, p + 1, p - 1, 2*p + 1, 3*p - 1, p * p}).Draw(t, label+".s")
			if rapid.IntRange(0, 3).Draw(t, label+".neg") == 0 {
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
	one := func(label string) spec.View {
		rank := rapid.IntRange(1, 2).Draw(t, label+".rank")
		v := spec.View{ElemSize: rapid.SampledFrom([]int64{1, 1, 1, 1, 2, 8}).Draw(t, label+".elem"),
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
	if rapid.Bool().Draw(t, "hugeTop") {
		p = moveToTop(t, p)
	} else {
		shift := rapid.Int64Range(0, 1<<61).Draw(t, "hugeShift")
		p.A.Offset += shift
		p.B.Offset += shift
	}
	return p
}

// drawBroadcastPair draws views with stride-0 dims and strides below the
// element size (sliding windows).
func drawBroadcastPair(t *rapid.T) ViewPair {
	one := func(label string) spec.View {
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

// moveToTop shifts both views up so that the higher of them ends within a few
// bytes of 2^63-1 (exactly at it a third of the time).
func moveToTop(t *rapid.T, p ViewPair) ViewPair {
	top := max(p.A.Offset, p.B.Offset) // an empty view has only its offset
	for _, v := range []spec.View{p.A, p.B} {
		if _, hi, ok := v.Bounds(); ok {
			top = max(top, hi)
		}
	}
	shift := math.MaxInt64 - top - rapid.SampledFrom([]int64{0, 0, 1, 7}).Draw(t, "belowTop")
	p.A.Offset += shift
	p.B.Offset += shift
	return p
}

// mustValid fails t when a generated view is invalid or too big: generators
// must produce what they promise.
func mustValid(t rapid.TB, p ViewPair) {
	for _, v := range []spec.View{p.A, p.B} {
		if err := v.Validate(); err != nil {
			t.Fatalf("generator made an invalid view (%s family): %v", p.Family, err)
		}
		if n, ok := v.Numel(); !ok || n*v.ElemSize > maxGenTouchBytes {
			t.Fatalf("generator made a view too big for the model (%s family): %v", p.Family, v)
		}
	}
}

// describe prints a pair for failure messages.
func describe(p ViewPair) string { return fmt.Sprintf("%s [%s]", p, p.Family) }

// genElems are the element sizes of generated views. One-byte elements are
// frequent: with both element sizes 1 the byte term drops out of the
// equation and the gcd residues alone decide.
var genElems = []int64{1, 1, 1, 2, 4, 3, 8}

// drawHighRankPair draws views of rank 5 to 8 with dims of 2 or 3.
func drawHighRankPair(t *rapid.T) ViewPair {
	one := func(label string) spec.View {
		rank := rapid.IntRange(5, spec.MaxRank).Draw(t, label+".rank")
		v := spec.View{ElemSize: rapid.SampledFrom(genElems[:5]).Draw(t, label+".elem"),
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

// mix64 is the splitmix64 finaliser: it spreads a drawn number over 64 bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// FamilyUniform names the pairs of UniformPairs.
const FamilyUniform = "uniform"

// UniformPairs generates independent random views with no aiming: rank 1 to
// 3, extents up to 12, strides up to ±400 bytes, element sizes 1 to 8, lowest
// bytes anywhere in the first 2 KiB. It is the plain random workload on which
// the seed's rule is usually measured; OverlapAccuracyByFamily reports it.
func UniformPairs() *rapid.Generator[ViewPair] {
	return rapid.Custom(func(t *rapid.T) ViewPair {
		one := func(label string) spec.View {
			rank := rapid.IntRange(1, 3).Draw(t, label+".rank")
			v := spec.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 4, 8}).Draw(t, label+".elem"),
				Shape: make([]int64, rank), Strides: make([]int64, rank)}
			for d := range rank {
				v.Shape[d] = 1 + int64(mix64(rapid.Uint64().Draw(t, label+".n"))%12)
				v.Strides[d] = int64(mix64(rapid.Uint64().Draw(t, label+".s"))%801) - 400
			}
			return place(v, int64(mix64(rapid.Uint64().Draw(t, label+".at"))%2048))
		}
		return ViewPair{A: one("a"), B: one("b"), Family: FamilyUniform}
	})
}

// drawShiftedPair draws a view and a copy of its layout at another place: a
// slicing of a dense tensor (a tile, a strided slice, a transpose: nested
// layouts) or a small random strided view, then b's lowest byte moved by a
// difference its own elements can make, Σ k·|s| + t with |k| < n and
// |t| < elem, give or take a byte, or by any small distance. Some of b's
// strides change sign and some size-1 strides change, which keeps the bytes
// it touches relative to its lowest byte.
func drawShiftedPair(t *rapid.T) ViewPair {
	var a spec.View
	if rapid.Bool().Draw(t, "shift.sliced") {
		a = drawSlicedPair(t).A
	} else {
		a = drawStrided(t, "shift", 4, 5, 40, genElems, 48)
	}
	if a.Empty() {
		return ViewPair{A: a, B: a}
	}
	b := spec.View{ElemSize: a.ElemSize, Shape: append([]int64{}, a.Shape...), Strides: append([]int64{}, a.Strides...)}
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
		case n == 1 && rapid.IntRange(0, 3).Draw(t, "shift.size1") == 0:
			b.Strides[d] = rapid.Int64Range(-1000, 1000).Draw(t, "shift.size1Stride")
		case rapid.IntRange(0, 3).Draw(t, "shift.flip") == 0:
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
