package overlap

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

var (
	_ spec.Checker = Exact
	_ spec.Checker = Solver{}.Overlap
)

// DefaultMaxWork is the work cap of Exact, in search nodes (doc.go says
// how they are counted). Real layouts (tiles, halves, interleaves,
// transposes) take a handful of nodes, two 1-D views one whatever their
// extents, random strided views of rank ≤ 4 a few (the corpus of
// bench/overlapcases: median 4, p99 about 50, at most about 750); a node
// costs 5 to 10 ns, so a call that reaches the cap (sparse 3-D views of
// 16³ elements with incommensurate strides come near it) gives up after
// about half a millisecond.
const DefaultMaxWork = 1 << 16

// Exact answers whether a and b share a byte, exactly, with the default work
// cap: No and Yes are always right; TooHard means the search needed more than
// DefaultMaxWork nodes, and a dependency tracker must treat it as Yes.
//
// Exact itself is the dense path: for two views whose strides are all
// non-negative and whose dims are in order (contiguous row-major tensors and
// blocks of their rows), the offsets and extents decide; everything else
// goes to exactQuick. The passes over the views are inlined here rather than
// called: both views arrive by value (the first in registers, stored once
// to its spill slot on entry, the second on the stack), and their fields
// are read where they are, with no further call and no copy. Ranks 1 and 2
// — vectors, matrices and blocks of them — take an unrolled pass, other
// ranks the loop. The choice of pass is written out for each view: as a
// function of its own it would not be inlined, and the call costs the dense
// pair 16 more instructions (169 to 185, callgrind).
func Exact(a, b spec.View) (spec.Verdict, error) {
	if bugs.Enabled { // the seams live on the careful path
		return exactCareful(a, b)
	}
	var coverA, coverB, guard int64
	switch r := len(a.Shape); {
	case r == 2 && len(a.Strides) == 2:
		coverA, guard = denseSpan2(a.ElemSize, a.Shape[0], a.Strides[0], a.Shape[1], a.Strides[1])
	case r == 1 && len(a.Strides) == 1:
		coverA, guard = denseSpan2(a.ElemSize, 1, 0, a.Shape[0], a.Strides[0])
	case r <= spec.MaxRank && len(a.Strides) == r:
		coverA, guard = denseSpan(a.ElemSize, a.Shape, a.Strides[:r])
	default:
		guard = -1
	}
	if uint64(guard) < quickLimit { // strided views leave here, before b's pass
		switch r := len(b.Shape); {
		case r == 2 && len(b.Strides) == 2:
			coverB, guard = denseSpan2(b.ElemSize, b.Shape[0], b.Strides[0], b.Shape[1], b.Strides[1])
		case r == 1 && len(b.Strides) == 1:
			coverB, guard = denseSpan2(b.ElemSize, 1, 0, b.Shape[0], b.Strides[0])
		case r <= spec.MaxRank && len(b.Strides) == r:
			coverB, guard = denseSpan(b.ElemSize, b.Shape, b.Strides[:r])
		default:
			guard = -1
		}
		// The offsets are the lowest bytes; below quickOffsetLimit
		// (negative ones fail the test too), with extents below 2^60, the
		// sums cannot wrap.
		offA, offB := a.Offset, b.Offset
		if uint64(guard) < quickLimit && uint64(offA|offB) < quickOffsetLimit {
			if offA < offB+coverB && offB < offA+coverA {
				return spec.Yes, nil // both gap-free and their bounds meet
			}
			return spec.No, nil
		}
	}
	// Passing the addresses on leaves both views where they are: neither is
	// copied again.
	return exactQuick(&a, &b)
}

// exactQuick is Exact past the dense path: exactLines for two views of rank
// 1, exactMatrices for other pairs of rank at most 2; for others, quickScan
// on each view, then the bounds, the gap-free fast path, the shifted-copy
// path and the search; the careful path for views that are not
// quickScan's.
//
//go:noinline
func exactQuick(a, b *spec.View) (spec.Verdict, error) {
	switch ra, rb := len(a.Shape), len(b.Shape); {
	case ra == 1 && rb == 1:
		if v, ok := exactLines(a, b); ok {
			return v, nil
		}
	case uint(ra-1) < 2 && uint(rb-1) < 2:
		if v, ok := exactMatrices(a, b); ok {
			return v, nil
		}
	}
	loA, coverA, flagsA := quickScan(a)
	loB, coverB, flagsB := quickScan(b)
	if flagsA|flagsB < 0 {
		return exactCareful(*a, *b)
	}
	ba := box{lo: loA, hi: loA + coverA - 1, ordered: flagsA != 0}
	bb := box{lo: loB, hi: loB + coverB - 1, ordered: flagsB != 0}
	if ba.ordered && bb.ordered && boxesMeet(&ba, &bb) {
		return spec.Yes, nil // both gap-free and their bounds meet
	}
	v, _ := decide(a, b, &ba, &bb, DefaultMaxWork)
	return v, nil
}

// exactCareful is Exact for any views, invalid ones included: the careful
// measure, then the fast paths and the search.
//
//go:noinline
func exactCareful(a, b spec.View) (spec.Verdict, error) {
	ba, err := measure(&a)
	if err != nil {
		return spec.No, errFirst(err)
	}
	bb, err := measure(&b)
	if err != nil {
		return spec.No, errSecond(err)
	}
	if bugs.On(PerfRemeasure) {
		remeasure(&a)
	}
	if ba.ordered && bb.ordered && !ba.empty && !bb.empty {
		// Both gap-free: the bounds decide (solve's fast path, without
		// the call and the stats).
		if boxesMeet(&ba, &bb) {
			return spec.Yes, nil
		}
		return spec.No, nil
	}
	v, _ := decide(&a, &b, &ba, &bb, DefaultMaxWork)
	return v, nil
}

// Solver is the exact checker with a configurable work cap. The zero value
// uses DefaultMaxWork. A Solver is a value: safe for concurrent use.
type Solver struct {
	// MaxWork caps the search nodes of one call; 0 means DefaultMaxWork.
	// Above the cap the answer is TooHard, never a guess.
	MaxWork int
}

// Path says which stage of Solve decided.
type Path uint8

// The stages of Solve. After validation they are tried in this order:
// empty, disjoint, shared end, shifted copy, gap-free, search — except that
// two 1-D views go from the shared end straight to the search's closed form
// (one node), which decides them sooner than the other tests.
const (
	PathInvalid   Path = iota // a view failed validation
	PathEmpty                 // an empty view overlaps nothing
	PathDisjoint              // the byte bounds do not meet
	PathGapFree               // one view touches every byte of its bounds, and those hold an end of the other
	PathSearch                // the bounded Diophantine search decided (or gave up)
	PathShifted               // the views differ only in their offsets, and the mixed-radix descent decided
	PathSharedEnd             // the views have the same lowest or the same highest byte
)

// Stats describes how one Solve call decided.
type Stats struct {
	Path  Path
	Nodes int // search nodes visited (PathSearch only)
}

// Overlap is Solve without the stats.
func (s Solver) Overlap(a, b spec.View) (spec.Verdict, error) {
	v, _, err := s.Solve(a, b)
	return v, err
}

// Solve decides whether a and b share a byte: validation, empty views, the
// bounding boxes, the gap-free fast path, then the exact search (see doc.go).
// The search is deterministic, so a cap at or above the Nodes an uncapped
// call reports gives the same answer, and a cap below it gives TooHard.
func (s Solver) Solve(a, b spec.View) (spec.Verdict, Stats, error) {
	maxWork := s.MaxWork
	if maxWork < 0 || (maxWork == 0 && !bugs.On(BugZeroMaxWork)) {
		maxWork = DefaultMaxWork
	}
	return solve(&a, &b, maxWork)
}

func solve(a, b *spec.View, maxWork int) (spec.Verdict, Stats, error) {
	ba, err := measure(a)
	if err != nil {
		return spec.No, Stats{Path: PathInvalid}, errFirst(err)
	}
	bb, err := measure(b)
	if err != nil {
		return spec.No, Stats{Path: PathInvalid}, errSecond(err)
	}
	// The dense fast path, before any further call.
	if ba.ordered && bb.ordered && !ba.empty && !bb.empty && boxesMeet(&ba, &bb) {
		return spec.Yes, Stats{Path: PathGapFree}, nil
	}
	v, st := decide(a, b, &ba, &bb, maxWork)
	return v, st, nil
}

// decide answers for two measured views: the fast paths, then the search.
func decide(a, b *spec.View, ba, bb *box, maxWork int) (spec.Verdict, Stats) {
	if (ba.empty || bb.empty) && !bugs.On(BugEmptyPhantom) {
		return spec.No, Stats{Path: PathEmpty}
	}
	if !boxesMeet(ba, bb) {
		return spec.No, Stats{Path: PathDisjoint}
	}
	if ba.lo == bb.lo || ba.hi == bb.hi {
		// A view touches its lowest and its highest byte: two views that
		// share either share a byte (identical views included).
		return spec.Yes, Stats{Path: PathSharedEnd}
	}
	if len(a.Shape)+len(b.Shape) <= smallTerms {
		// Two 1-D views (or one with a single element): the closed form
		// decides at once, exactly, in one node; the shifted-copy and
		// gap-free tests below would only cost it their passes.
		if v, st, ok := searchSmall(a, b, ba, bb, maxWork, smallTerms); ok {
			return v, st
		}
	}
	if sameShape(a, b) {
		// One layout at two places (gap-free ones included). The descent
		// takes at most 2^(rank+1) steps; the work cap, which bounds the
		// search, plays no part (Nodes stays 0).
		if found, ok := shifted(a, ba.lo, bb.lo); ok {
			return verdict(found), Stats{Path: PathShifted}
		}
	}
	// A gap-free view touches every byte of its bounds, and the other view
	// touches its own lowest and highest byte: either one within the
	// gap-free view's bounds is a common byte. (Two gap-free views whose
	// bounds meet always have one; so does a tile read by the whole tensor.)
	if (bb.holds(ba.lo) || bb.holds(ba.hi)) && bb.gapFree(b) {
		return spec.Yes, Stats{Path: PathGapFree}
	}
	if (bugs.On(BugDenseOneSide) || ba.holds(bb.lo) || ba.holds(bb.hi)) && ba.gapFree(a) {
		return spec.Yes, Stats{Path: PathGapFree}
	}
	if bugs.On(BugSeedGCD) {
		return seedRule(a, b), Stats{Path: PathSearch}
	}
	return search(a, b, ba, bb, maxWork)
}

// search builds and solves the equation — on the stack for three terms or
// fewer (searchSmall), in a problem for more, whose tables would cost the
// small ones more than their search (a kilobyte to clear, a pass to fill);
// it is kept out of solve so that the fast paths do not pay for the
// problem's tables on their stack.
func search(a, b *spec.View, ba, bb *box, maxWork int) (spec.Verdict, Stats) {
	if len(a.Shape)+len(b.Shape) <= threeDims {
		if v, st, ok := searchSmall(a, b, ba, bb, maxWork, 3); ok {
			return v, st
		}
	}
	return searchProblem(a, b, ba, bb, maxWork)
}

// searchProblem is search in a problem, for equations of any size.
func searchProblem(a, b *spec.View, ba, bb *box, maxWork int) (spec.Verdict, Stats) {
	var p problem
	if !p.build(a, b, ba, bb) {
		return spec.No, Stats{Path: PathSearch}
	}
	found := p.solve(maxWork)
	st := Stats{Path: PathSearch, Nodes: p.nodes}
	switch {
	case found:
		return spec.Yes, st
	case p.tooHard:
		return spec.TooHard, st
	}
	return spec.No, st
}

// verdict is Yes when found, No otherwise.
func verdict(found bool) spec.Verdict {
	if found {
		return spec.Yes
	}
	return spec.No
}
