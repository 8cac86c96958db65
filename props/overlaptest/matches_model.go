package overlaptest

import (
	"fmt"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckOverlap runs every overlap property that an exact checker must have
// against c: it equals the model, is symmetric, overlaps nothing with an
// empty view, is unchanged by translation, flips, permutations, reshapes
// and scaling, and refuses exactly the invalid views. A user points it at
// their own checker:
//
//	func TestMine(t *testing.T) { props.CheckOverlap(t, mine.Overlap) }
func CheckOverlap(t rapid.TB, c spec.Checker) {
	CheckOverlapMatchesModel(t, c)
	CheckOverlapSymmetric(t, c)
	CheckOverlapEmptyAndSelf(t, c)
	CheckOverlapTranslate(t, c)
	CheckOverlapFlip(t, c)
	CheckOverlapPermute(t, c)
	CheckOverlapReshape(t, c)
	CheckOverlapScale(t, c)
	CheckOverlapRejectsInvalid(t, c)
}

// CheckOverlapMatchesModel: on generated pairs c answers exactly as the
// brute-force model, errors included. TooHard is a mismatch: the pairs are
// small enough for any sensible work cap.
func CheckOverlapMatchesModel(t rapid.TB, c spec.Checker) {
	rapid.Check(t, func(rt *rapid.T) {
		p := OverlapPairs().Draw(rt, "pair")
		mustValid(rt, p)
		op := spec.Op{A: p.A, B: p.B}
		want, got := op.Apply(spec.Overlap), op.Apply(c)
		if got != want {
			fail(rt, fmt.Sprintf("answer %v, the model says %v (%s family)", got, want, p.Family), qc(c, op, got))
		}
	})
}

// CheckOverlapNeverMisses: c never answers No where the model answers Yes,
// and fails exactly where the model fails. This is all a conservative
// filter (BBox) promises.
func CheckOverlapNeverMisses(t rapid.TB, c spec.Checker) {
	rapid.Check(t, func(rt *rapid.T) {
		p := OverlapPairs().Draw(rt, "pair")
		mustValid(rt, p)
		op := spec.Op{A: p.A, B: p.B}
		want, got := op.Apply(spec.Overlap), op.Apply(c)
		if got.Err != want.Err || (want.Verdict == spec.Yes && got.Verdict == spec.No) {
			fail(rt, fmt.Sprintf("answer %v, the model says %v: a missed overlap is a lost dependency", got, want), qc(c, op, got))
		}
	})
}

// CheckOverlapSymmetric: c(a, b) = c(b, a).
func CheckOverlapSymmetric(t rapid.TB, c spec.Checker) {
	rapid.Check(t, func(rt *rapid.T) {
		p := OverlapPairs().Draw(rt, "pair")
		ab, ba := spec.Op{A: p.A, B: p.B}, spec.Op{A: p.B, B: p.A}
		r1, r2 := ab.Apply(c), ba.Apply(c)
		if r1 != r2 {
			fail(rt, "not symmetric", qc(c, ab, r1), qc(c, ba, r2))
		}
	})
}

// CheckOverlapEmptyAndSelf: an empty view overlaps nothing, itself and views
// on its offset included; a non-empty view overlaps itself.
func CheckOverlapEmptyAndSelf(t rapid.TB, c spec.Checker) {
	rapid.Check(t, func(rt *rapid.T) {
		v := SmallViews().Draw(rt, "v")
		e := SmallViews().Draw(rt, "e")
		if len(e.Shape) == 0 {
			e.Shape, e.Strides = []int64{0}, []int64{rapid.Int64Range(-8, 8).Draw(rt, "e.s")}
		}
		e.Shape = append([]int64{}, e.Shape...)
		e.Shape[rapid.IntRange(0, len(e.Shape)-1).Draw(rt, "e.zero")] = 0
		if !v.Empty() {
			// Put the empty view's offset on a byte of v, where a phantom
			// element would show.
			e.Offset = elemAddr(rt, "e.on", v) + rapid.Int64Range(0, v.ElemSize-1).Draw(rt, "e.byte")
		}
		var tr trace.Trace
		for _, op := range []spec.Op{{A: e, B: v}, {A: v, B: e}, {A: e, B: e}} {
			r := op.Apply(c)
			tr.Add(op, r)
			if r != (spec.Result{Verdict: spec.No}) {
				rt.Fatalf("%s", trace.Failure(explained("an empty view must overlap nothing", qc(c, op, r)), &tr, ""))
			}
		}
		if !v.Empty() {
			op := spec.Op{A: v, B: v}
			r := op.Apply(c)
			tr.Add(op, r)
			if r != (spec.Result{Verdict: spec.Yes}) {
				rt.Fatalf("%s", trace.Failure(explained("a non-empty view must overlap itself", qc(c, op, r)), &tr, ""))
			}
		}
	})
}

// CheckOverlapRejectsInvalid: c refuses with ErrInvalidView exactly the pairs
// in which the model's Validate refuses a view, on views at the edges of the
// valid range (extents that wrap 2^64, addresses at 2^63-1, rank 9, ...).
func CheckOverlapRejectsInvalid(t rapid.TB, c spec.Checker) {
	rapid.Check(t, func(rt *rapid.T) {
		a := EdgeViews().Draw(rt, "a")
		b := EdgeViews().Draw(rt, "b")
		if rapid.Bool().Draw(rt, "oneSmall") {
			b = SmallViews().Draw(rt, "small")
		}
		op := spec.Op{A: a, B: b}
		got := op.Apply(c)
		wantInvalid := a.Validate() != nil || b.Validate() != nil
		if (got.Err == "ErrInvalidView") != wantInvalid || got.Err == "other" {
			fail(rt, fmt.Sprintf("answer %v; the model finds the pair invalid: %v (%v / %v)",
				got, wantInvalid, a.Validate(), b.Validate()), qc(c, op, got))
		}
	})
}

// q is one step of a failure trace.
type step struct {
	op  spec.Op
	r   spec.Result
	why string // the text of an error that matches no sentinel
}

func q(op spec.Op, r spec.Result) step { return step{op: op, r: r} }

// qc is q for a query c answered. A Result keeps only the name of the
// sentinel an error matches, so an error that matches none is asked for
// again to show what it says.
func qc(c spec.Checker, op spec.Op, r spec.Result) step {
	s := q(op, r)
	if r.Err == "other" {
		if _, err := c(op.A, op.B); err != nil {
			s.why = err.Error()
		}
	}
	return s
}

// explained is what, followed by what the error of s says when it matches
// no sentinel.
func explained(what string, s step) string {
	if s.why == "" {
		return what
	}
	return what + fmt.Sprintf("\n%v failed with an error that matches no sentinel: %s", s.op, s.why)
}

// fail ends the check with the queries that show the failure.
func fail(rt *rapid.T, what string, steps ...step) {
	var tr trace.Trace
	for _, s := range steps {
		tr.Add(s.op, s.r)
		what = explained(what, s)
	}
	rt.Fatalf("%s", trace.Failure(what, &tr, ""))
}
