package overlap

import (
	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

var (
	_ spec.Checker = Exact
	_ spec.Checker = Solver{}.Overlap
)

// DefaultMaxWork is the work cap of Exact, in search nodes. Real layouts
// (tiles, halves, interleaves, transposes) take a handful of nodes, random
// strided views of rank ≤ 5 at most a couple of hundred; a node costs about
// 5 ns, so a call that reaches the cap (sparse rank-4 views with strides near
// 1050 and heavily overlapping extents can) gives up after about 0.4 ms.
const DefaultMaxWork = 1 << 16

// Exact answers whether a and b share a byte, exactly, with the default work
// cap: No and Yes are always right; TooHard means the search needed more than
// DefaultMaxWork nodes, and a dependency tracker must treat it as Yes.
func Exact(a, b spec.View) (spec.Verdict, error) {
	ba, err := measure(&a)
	if err != nil {
		return spec.No, errFirst(err)
	}
	bb, err := measure(&b)
	if err != nil {
		return spec.No, errSecond(err)
	}
	if ba.ordered && bb.ordered && !ba.empty && !bb.empty {
		// Both gap-free: the bounds decide (solve's fast path, without
		// the call and the stats).
		if boxesMeet(ba, bb) {
			return spec.Yes, nil
		}
		return spec.No, nil
	}
	v, _ := decide(&a, &b, ba, bb, DefaultMaxWork)
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

// The stages of Solve, cheapest first.
const (
	PathInvalid  Path = iota // a view failed validation
	PathEmpty                // an empty view overlaps nothing
	PathDisjoint             // the byte bounds do not meet
	PathGapFree              // both views touch every byte of their bounds, which meet
	PathSearch               // the bounded Diophantine search decided (or gave up)
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
	if maxWork <= 0 {
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
	if ba.ordered && bb.ordered && !ba.empty && !bb.empty && boxesMeet(ba, bb) {
		return spec.Yes, Stats{Path: PathGapFree}, nil
	}
	v, st := decide(a, b, ba, bb, maxWork)
	return v, st, nil
}

// decide answers for two measured views: the fast paths, then the search.
func decide(a, b *spec.View, ba, bb box, maxWork int) (spec.Verdict, Stats) {
	if (ba.empty || bb.empty) && !bugs.On(BugEmptyPhantom) {
		return spec.No, Stats{Path: PathEmpty}
	}
	if !boxesMeet(ba, bb) {
		return spec.No, Stats{Path: PathDisjoint}
	}
	if ba.gapFree(a) && (bugs.On(BugDenseOneSide) || bb.gapFree(b)) {
		return spec.Yes, Stats{Path: PathGapFree}
	}
	if bugs.On(BugSeedGCD) {
		return seedRule(a, b), Stats{Path: PathSearch}
	}
	return search(a, b, ba, bb, maxWork)
}

// search builds and solves the equation; it is kept out of solve so that the
// fast paths do not pay for the problem's tables on their stack.
func search(a, b *spec.View, ba, bb box, maxWork int) (spec.Verdict, Stats) {
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
