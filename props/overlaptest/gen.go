package overlaptest

import (
	"math"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// ViewPair is two views of one storage, and the family of the generator that
// made them.
type ViewPair struct {
	A, B overlap.View
	// Family names the way the pair was drawn (see Pairs): "random",
	// "sliced", "adjacent", "incommens", "huge", "broadcast", "highrank",
	// "shifted", or "uniform" for UniformPairs. Reports break results down
	// by it.
	Family string
}

// String prints the pair as the query it is.
func (p ViewPair) String() string { return overlap.Op{A: p.A, B: p.B}.String() }

// The families of Pairs. Each aims at a different way of getting overlap
// wrong.
const (
	familyRandom     = "random"    // independent strided views, any stride sign, size-1 and empty dims
	familySliced     = "sliced"    // slices, reversals, transposes and byte reinterpretations of one dense tensor
	familyAdjacent   = "adjacent"  // a view and a copy shifted by about an element or to touch its end
	familyIncommens  = "incommens" // strides near one another (p, p±1, 2p+1): gcd and bounds both matter
	familyHuge       = "huge"      // strides of 2^33..2^44 and addresses up to 2^63-1
	familyBroadcast  = "broadcast" // stride-0 dims and strides below the element
	familyHighRank   = "highrank"  // rank 5 to 8, dims of 2 or 3: up to 17 terms in the equation
	familyShifted    = "shifted"   // one layout at two offsets (tiles, a slicing pattern repeated), strides' signs and size-1 strides varied
	familyUniform    = "uniform"   // UniformPairs
	maxGenTouchBytes = 1 << 13     // keeps each view cheap for the brute-force model
)

// Pairs generates valid pairs of views of one storage, small enough for the
// brute-force model, from eight families, each aimed at a way of getting
// overlap wrong (the package doc lists them; ViewPair.Family names them).
// About half the pairs overlap by construction: b is placed so that one of
// its elements starts on a chosen byte of a. About one pair in six is
// moved, as a whole, next to the top of the address space. The random
// family comes first, and every rare variation shrinks off, so a
// counterexample shrinks toward two plain strided views near address 0, or
// the smallest pair of the family it was found in. The report's accuracy
// corpus draws from it too.
func Pairs() *rapid.Generator[ViewPair] {
	return rapid.Custom(func(t *rapid.T) ViewPair {
		fam := rapid.SampledFrom([]string{familyRandom, familyRandom, familySliced, familySliced,
			familyAdjacent, familyIncommens, familyIncommens, familyHuge, familyHuge, familyBroadcast,
			familyHighRank, familyShifted}).Draw(t, "family")
		var p ViewPair
		switch fam {
		case familyRandom:
			p = drawRandomPair(t, 40)
		case familySliced:
			p = drawSlicedPair(t)
		case familyAdjacent:
			p = drawAdjacentPair(t)
		case familyIncommens:
			p = drawIncommensPair(t)
		case familyHuge:
			p = drawHugePair(t)
		case familyBroadcast:
			p = drawBroadcastPair(t)
		case familyHighRank:
			p = drawHighRankPair(t)
		case familyShifted:
			p = drawShiftedPair(t)
		}
		p.Family = fam
		if fam == familyHuge {
			return p // placed by its family, at the top half the time
		}
		// Both draws are made either way, so that shrinking can drop the
		// move without changing the draws of a property that follow.
		top, below := draw.Rarely(t, 6, "toTop"), drawBelowTop(t)
		if top {
			p = moveToTop(p, below)
		}
		return p
	})
}

// UniformPairs generates independent random views with no aiming: rank 1 to
// 3, extents up to 12, strides up to ±400 bytes, element sizes 1 to 8, lowest
// bytes anywhere in the first 2 KiB. It is the plain random workload on which
// the seed's rule is usually measured; its Family is "uniform".
func UniformPairs() *rapid.Generator[ViewPair] {
	return rapid.Custom(func(t *rapid.T) ViewPair {
		one := func(label string) overlap.View {
			rank := rapid.IntRange(1, 3).Draw(t, label+".rank")
			v := overlap.View{ElemSize: rapid.SampledFrom([]int64{1, 2, 4, 8}).Draw(t, label+".elem"),
				Shape: make([]int64, rank), Strides: make([]int64, rank)}
			for d := range rank {
				v.Shape[d] = 1 + int64(mix64(rapid.Uint64().Draw(t, label+".n"))%12)
				v.Strides[d] = int64(mix64(rapid.Uint64().Draw(t, label+".s"))%801) - 400
			}
			return place(v, int64(mix64(rapid.Uint64().Draw(t, label+".at"))%2048))
		}
		return ViewPair{A: one("a"), B: one("b"), Family: familyUniform}
	})
}

// smallViews generates one valid random view of at most rank 4 (empty now
// and then), small enough for the model.
func smallViews() *rapid.Generator[overlap.View] {
	return rapid.Custom(func(t *rapid.T) overlap.View {
		return drawStrided(t, "v", 4, 5, 40, genElems, 48)
	})
}

// genElems are the element sizes of generated views. One-byte elements are
// frequent: with both element sizes 1 the byte term drops out of the
// equation and the gcd residues alone decide.
var genElems = []int64{1, 1, 1, 2, 4, 3, 8}

// drawStrided draws a view with the given limits, its lowest byte at a random
// address in [0, room]. About one view in seven is made empty by a zero
// dim. Whether it is empty is drawn before the dims, so that shrinking the
// rank keeps it.
func drawStrided(t *rapid.T, label string, maxRank, maxDim int, maxStride int64, elems []int64, room int64) overlap.View {
	rank := rapid.IntRange(0, maxRank).Draw(t, label+".rank")
	v := overlap.View{ElemSize: rapid.SampledFrom(elems).Draw(t, label+".elem"),
		Shape: make([]int64, rank), Strides: make([]int64, rank)}
	empty := draw.Rarely(t, 7, label+".empty")
	for d := range rank {
		v.Shape[d] = int64(rapid.IntRange(1, maxDim).Draw(t, label+".n"))
		v.Strides[d] = rapid.Int64Range(-maxStride, maxStride).Draw(t, label+".s")
	}
	if rank > 0 && empty {
		v.Shape[rapid.IntRange(0, rank-1).Draw(t, label+".emptyDim")] = 0
	}
	return place(v, rapid.Int64Range(0, room).Draw(t, label+".at"))
}

// place sets v's offset so that its lowest byte is at lo.
func place(v overlap.View, lo int64) overlap.View {
	v.Offset = lo
	for d, n := range v.Shape {
		if n > 1 && v.Strides[d] < 0 {
			v.Offset -= (n - 1) * v.Strides[d]
		}
	}
	return v
}

// lowest returns the lowest byte of a non-empty view, without validating.
func lowest(v overlap.View) int64 {
	lo := v.Offset
	for d, n := range v.Shape {
		if n > 1 && v.Strides[d] < 0 {
			lo += (n - 1) * v.Strides[d]
		}
	}
	return lo
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
func elemAddr(t *rapid.T, label string, v overlap.View) int64 {
	addr := v.Offset
	for d, n := range v.Shape {
		addr += rapid.Int64Range(0, n-1).Draw(t, label) * v.Strides[d]
	}
	return addr
}

// moveToTop shifts both views up so that the highest byte either touches
// lies below bytes under 2^63-1.
func moveToTop(p ViewPair, below int64) ViewPair {
	top := max(p.A.Offset, p.B.Offset) // an empty view has only its offset
	for _, v := range []overlap.View{p.A, p.B} {
		if _, hi, ok := v.Bounds(); ok {
			top = max(top, hi)
		}
	}
	shift := math.MaxInt64 - top - below
	p.A.Offset += shift
	p.B.Offset += shift
	return p
}

// drawBelowTop draws how far below 2^63-1 moveToTop puts the highest byte:
// exactly at it half the time.
func drawBelowTop(t *rapid.T) int64 {
	return rapid.SampledFrom([]int64{0, 0, 1, 7}).Draw(t, "belowTop")
}

// mustValid fails t when a generated view is invalid or too big: generators
// must produce what they promise.
func mustValid(t rapid.TB, p ViewPair) {
	for _, v := range []overlap.View{p.A, p.B} {
		if err := v.Validate(); err != nil {
			t.Fatalf("generator made an invalid view (%s family): %v", p.Family, err)
		}
		if n, ok := v.Numel(); !ok || n*v.ElemSize > maxGenTouchBytes {
			t.Fatalf("generator made a view too big for the model (%s family): %v", p.Family, v)
		}
	}
}

// mix64 is the splitmix64 finaliser: it spreads a drawn number over 64 bits.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
