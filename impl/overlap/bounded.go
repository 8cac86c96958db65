package overlap

import (
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/overlap"
)

var _ spec.Checker = BoundedChecker

// A Span is a view with its inclusive byte bounds: what a dependency
// tracker keeps of each entry, measured once, so that later comparisons
// start at the bounds. Measure fills one; a tracker that derives the bounds
// of a view from those of another of the same layout (lo moves with the
// offset, hi − lo does not) may fill one itself. The fields are named, one
// Span per view, so that the bounds of two views cannot be swapped without
// it showing; an empty view carries Empty and overlaps nothing, so no
// caller need filter it out.
type Span struct {
	View   *spec.View // read, never kept or changed
	Lo, Hi int64      // the lowest and the highest byte the view touches
	Empty  bool       // the view touches no byte: Lo and Hi mean nothing
}

// Measure validates v exactly as the model does (an error wrapping
// ErrInvalidView) and returns its span; v is referred to, not copied.
func Measure(v *spec.View) (Span, error) {
	lo, hi, nonEmpty, err := Bounds(v)
	return Span{View: v, Lo: lo, Hi: hi, Empty: !nonEmpty}, err
}

// Bounds validates v exactly as the model does (an error wrapping
// ErrInvalidView) and returns the inclusive byte bounds of a non-empty view;
// nonEmpty is false for an empty one, which overlaps nothing. It is the
// measuring half of Exact (Measure returns the same as a Span).
func Bounds(v *spec.View) (lo, hi int64, nonEmpty bool, err error) {
	if !bugs.Enabled { // the seams live on the careful path
		if lo, cover, flags := quickScan(v); flags >= 0 {
			return lo, lo + cover - 1, true, nil
		}
	}
	b, err := measure(v)
	if err != nil || b.empty {
		return 0, 0, false, err
	}
	return b.lo, b.hi, true, nil
}

// checkSpan refuses a span that cannot be a measured view's: no view, or
// bounds out of order or below 0. It cannot tell bounds that are not the
// view's own: those are the caller's to get right (Measure does).
func checkSpan(s *Span) error {
	if s.View == nil {
		return fmt.Errorf("%w: a span without a view", spec.ErrInvalidView)
	}
	if !s.Empty && (s.Lo < 0 || s.Hi < s.Lo) {
		return fmt.Errorf("%w: span [%d, %d] of %v", spec.ErrInvalidView, s.Lo, s.Hi, *s.View)
	}
	return nil
}

// ExactBounded is Exact for two measured views: it skips validation and
// measuring, and starts at the bounds test. A span that cannot be a
// measured view's (checkSpan) is an error wrapping ErrInvalidView, named by
// view; an empty span overlaps nothing. With bounds that are not the views'
// own its answer means nothing. The views are read, not kept.
func ExactBounded(a, b Span) (spec.Verdict, error) {
	// One test for the common case: two views, neither empty, bounds in
	// order and not below 0 (Hi − Lo cannot wrap once Lo ≥ 0; with Lo < 0
	// the test fails whatever it gives).
	if a.View == nil || b.View == nil || a.Empty || b.Empty || a.Lo|b.Lo|(a.Hi-a.Lo)|(b.Hi-b.Lo) < 0 {
		return boundedAside(&a, &b)
	}
	if a.Lo > b.Hi || b.Lo > a.Hi {
		return spec.No, nil
	}
	if a.Lo == b.Lo || a.Hi == b.Hi {
		return spec.Yes, nil // a view touches its lowest and its highest byte
	}
	// decide's shifted-copy step first, without its bookkeeping: it is
	// what a tracker comparing tiles of one tensor meets most.
	if sameShape(a.View, b.View) {
		if found, ok := shifted(a.View, a.Lo, b.Lo); ok {
			return verdict(found), nil
		}
	}
	ba, bb := box{lo: a.Lo, hi: a.Hi}, box{lo: b.Lo, hi: b.Hi}
	v, _ := decide(a.View, b.View, &ba, &bb, DefaultMaxWork)
	return v, nil
}

// boundedAside is ExactBounded for the spans its first test turns away: an
// error for a span that cannot be a measured view's, else No (an empty
// view overlaps nothing).
func boundedAside(a, b *Span) (spec.Verdict, error) {
	if err := checkSpan(a); err != nil {
		return spec.No, errFirst(err)
	}
	if err := checkSpan(b); err != nil {
		return spec.No, errSecond(err)
	}
	return spec.No, nil
}

// BoundedChecker adapts Measure and ExactBounded to a spec.Checker, so
// that the properties hold the tracker's path to the model.
func BoundedChecker(a, b spec.View) (spec.Verdict, error) {
	sa, err := Measure(&a)
	if err != nil {
		return spec.No, errFirst(err)
	}
	sb, err := Measure(&b)
	if err != nil {
		return spec.No, errSecond(err)
	}
	return ExactBounded(sa, sb)
}
