package suites

import (
	"fmt"
	"slices"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/props/overlaptest"
	"pgregory.net/rapid"
)

// The overlap suites. The model is the reference of MatchesModel and
// NeverMisses, so those run against the checkers only; the properties that
// need no model (symmetry, empty views, invariances, validation) run against
// the model too, which checks the model and its transforms. BBox is
// conservative: it runs the properties a conservative filter has, not
// MatchesModel. SeedGCD is not here: it is not exact and is measured by
// the report's overlap accuracy table (cmd/verify) instead. Prepared and Bounded are the paths a
// dependency tracker takes (views measured once, then compared), each
// adapted to a checker. Solver and SolvePrepared are the entry points that
// report how they decided (solverChecker, solvePreparedChecker): the
// adapters hold the stats to the verdict, so the properties see a wrong
// path as a wrong answer.
func init() {
	type checker struct {
		name  string
		check spec.Checker
	}
	model := checker{"Model", spec.Overlap}
	bbox := checker{"BBox", impl.BBox}
	exact := checker{"Exact", impl.Exact}
	prepared := checker{"Prepared", impl.PreparedChecker}
	bounded := checker{"Bounded", impl.BoundedChecker}
	solver := checker{"Solver", solverChecker}
	solvePrepared := checker{"SolvePrepared", solvePreparedChecker}
	add := func(prop string, run func(rapid.TB, spec.Checker), cs ...checker) {
		for _, c := range cs {
			Add(Suite{Domain: "overlap", Property: prop, Impl: c.name,
				Run: func(t rapid.TB) { run(t, c.check) }})
		}
	}
	exacts := []checker{exact, prepared, bounded, solver, solvePrepared}
	all := append([]checker{model, bbox}, exacts...)
	add("MatchesModel", overlaptest.CheckMatchesModel, exacts...)
	add("NeverMisses", overlaptest.CheckNeverMisses, append([]checker{bbox}, exacts...)...)
	add("Symmetric", overlaptest.CheckSymmetric, all...)
	add("EmptyAndSelf", overlaptest.CheckEmptyAndSelf, all...)
	add("TranslateInvariant", overlaptest.CheckTranslateInvariant, all...)
	add("FlipInvariant", overlaptest.CheckFlipInvariant, all...)
	add("PermuteInvariant", overlaptest.CheckPermuteInvariant, all...)
	add("ReshapeInvariant", overlaptest.CheckReshapeInvariant, all...)
	add("ScaleInvariant", overlaptest.CheckScaleInvariant, all...)
	add("RejectsInvalid", overlaptest.CheckRejectsInvalid, all...)
	// The capped search is reached through Solver.Solve; its suite keeps
	// the name Exact, the checker whose search it bounds.
	Add(Suite{Domain: "overlap", Property: "TooHardOnlyAboveCap", Impl: "Exact",
		Run: func(t rapid.TB) {
			overlaptest.CheckTooHardOnlyAboveCap(t, func(a, b spec.View, maxWork int) (spec.Verdict, int, error) {
				v, st, err := impl.Solver{MaxWork: maxWork}.Solve(a, b)
				return v, st.Nodes, err
			})
		}})
	// The questions about one view's layout: each optimised function
	// against the model's, its suite named after the function.
	Add(Suite{Domain: "overlap", Property: "GapFreeMatchesModel", Impl: "GapFree",
		Run: func(t rapid.TB) { overlaptest.CheckGapFreeMatchesModel(t, impl.GapFree) }})
	Add(Suite{Domain: "overlap", Property: "CoversMatchesModel", Impl: "Covers",
		Run: func(t rapid.TB) { overlaptest.CheckCoversMatchesModel(t, impl.Covers) }})
	Add(Suite{Domain: "overlap", Property: "InternalOverlapMatchesModel", Impl: "InternalOverlap",
		Run: func(t rapid.TB) { overlaptest.CheckInternalOverlapMatchesModel(t, impl.InternalOverlap) }})
	Add(Suite{Domain: "overlap", Property: "TooHardOnlyAboveCap", Impl: "SolvePrepared",
		Run: func(t rapid.TB) {
			overlaptest.CheckTooHardOnlyAboveCap(t, func(a, b spec.View, maxWork int) (spec.Verdict, int, error) {
				pa, pb, err := preparePair(a, b)
				if err != nil {
					return spec.No, 0, err
				}
				v, st := impl.Solver{MaxWork: maxWork}.SolvePrepared(&pa, &pb)
				return v, st.Nodes, nil
			})
		}})
}

// solverChecker is Solver's two entry points as one checker: Solve with the
// zero value and Overlap with a negative MaxWork, both of which mean the
// default cap, so they must agree with each other as well as with the model.
// A path that contradicts the verdict or the error (see pathContract) comes
// out as an error that matches no sentinel, which every property refuses.
func solverChecker(a, b spec.View) (spec.Verdict, error) {
	v, st, err := impl.Solver{}.Solve(a, b)
	if bad := pathContract(a, b, v, st, err); bad != nil {
		return spec.No, fmt.Errorf("Solver{}.Solve: %w", bad)
	}
	v2, err2 := impl.Solver{MaxWork: -1}.Overlap(a, b)
	if v2 != v || (err2 == nil) != (err == nil) || spec.ErrName(err2) != spec.ErrName(err) {
		return spec.No, fmt.Errorf("Solver{MaxWork: -1}.Overlap answers %v, %v; Solver{}.Solve %v, %v", v2, err2, v, err)
	}
	return v, err
}

// solvePreparedChecker is Prepare, Prepared.View and Solver.SolvePrepared
// as one checker. The prepared views must read back as the views given,
// and must be copies: the adapter prepares copies of its arguments and
// overwrites them before solving. SolvePrepared runs with MaxWork 0 and -1,
// which must agree; the stats are held to the verdict as for Solve.
func solvePreparedChecker(a, b spec.View) (spec.Verdict, error) {
	pa, pb, err := preparePair(a, b)
	if err != nil {
		return spec.No, err
	}
	v, st := impl.Solver{}.SolvePrepared(&pa, &pb)
	if bad := pathContract(a, b, v, st, nil); bad != nil {
		return spec.No, fmt.Errorf("Solver{}.SolvePrepared: %w", bad)
	}
	if v2, st2 := (impl.Solver{MaxWork: -1}).SolvePrepared(&pa, &pb); v2 != v || st2 != st {
		return spec.No, fmt.Errorf("Solver{MaxWork: -1}.SolvePrepared answers %v %+v; Solver{}.SolvePrepared %v %+v", v2, st2, v, st)
	}
	return v, nil
}

// preparePair prepares a and b as a dependency tracker does, errors named by
// view as the model names them. Each view is prepared from a copy that is
// then overwritten, so that a Prepared sharing its caller's slices shows; and
// each must read back, through View, as the view it was prepared from.
func preparePair(a, b spec.View) (pa, pb impl.Prepared, err error) {
	if pa, err = prepareCopy(a); err != nil {
		return pa, pb, fmt.Errorf("first view: %w", err)
	}
	if pb, err = prepareCopy(b); err != nil {
		return pa, pb, fmt.Errorf("second view: %w", err)
	}
	return pa, pb, nil
}

func prepareCopy(v spec.View) (impl.Prepared, error) {
	c := spec.View{Offset: v.Offset, ElemSize: v.ElemSize, Shape: slices.Clone(v.Shape), Strides: slices.Clone(v.Strides)}
	p, err := impl.Prepare(c)
	if err != nil {
		return p, err
	}
	for i := range c.Shape {
		c.Shape[i] = -1
	}
	for i := range c.Strides {
		c.Strides[i] = 1 << 40
	}
	if got := p.View(); got.Offset != v.Offset || got.ElemSize != v.ElemSize ||
		!slices.Equal(got.Shape, v.Shape) || !slices.Equal(got.Strides, v.Strides) {
		return p, fmt.Errorf("Prepare(%v).View() = %v", v, got)
	}
	return p, nil
}

var pathNames = map[impl.Path]string{
	impl.PathInvalid: "PathInvalid", impl.PathEmpty: "PathEmpty", impl.PathDisjoint: "PathDisjoint",
	impl.PathGapFree: "PathGapFree", impl.PathSearch: "PathSearch", impl.PathShifted: "PathShifted",
	impl.PathSharedEnd: "PathSharedEnd",
}

// pathContract returns an error when the stats of one Solve (or
// SolvePrepared) call contradict its answer or the views, as the Path
// constants describe them: PathInvalid exactly when a view is invalid, with
// the verdict No; after validation an empty view decides first (No), then
// bounds that do not meet (No); a shared lowest or highest byte, and the
// gap-free test, only ever answer Yes; the shifted-copy descent Yes or No;
// only the search counts nodes or answers TooHard. The verdict and the
// error themselves are the properties' to compare with the model.
func pathContract(a, b spec.View, v spec.Verdict, st impl.Stats, err error) error {
	name, known := pathNames[st.Path]
	if !known {
		return fmt.Errorf("unknown path %d", st.Path)
	}
	bad := func(why string) error {
		return fmt.Errorf("%v with %s (%d nodes), error %v: %s", v, name, st.Nodes, err, why)
	}
	if st.Nodes != 0 && st.Path != impl.PathSearch {
		return bad("only the search visits nodes")
	}
	if (err != nil) != (st.Path == impl.PathInvalid) {
		return bad("PathInvalid goes with an error, and only with one")
	}
	if err != nil {
		if v != spec.No {
			return bad("a failed query's verdict is No")
		}
		return nil
	}
	if v == spec.TooHard && st.Path != impl.PathSearch {
		return bad("only the search gives up")
	}
	empty := a.Empty() || b.Empty()
	if empty != (st.Path == impl.PathEmpty) {
		return bad("an empty view decides first, and only an empty view decides there")
	}
	if empty {
		if v != spec.No {
			return bad("an empty view overlaps nothing")
		}
		return nil
	}
	loA, hiA, _ := a.Bounds()
	loB, hiB, _ := b.Bounds()
	meet := loA <= hiB && loB <= hiA
	if meet == (st.Path == impl.PathDisjoint) {
		return bad(fmt.Sprintf("bounds [%d, %d] and [%d, %d] decide exactly when they do not meet", loA, hiA, loB, hiB))
	}
	switch st.Path {
	case impl.PathDisjoint:
		if v != spec.No {
			return bad("disjoint bounds overlap nothing")
		}
	case impl.PathSharedEnd:
		if v != spec.Yes || (loA != loB && hiA != hiB) {
			return bad(fmt.Sprintf("a shared end (bounds [%d, %d] and [%d, %d]) is a shared byte", loA, hiA, loB, hiB))
		}
	case impl.PathGapFree:
		if v != spec.Yes {
			return bad("the gap-free test only finds a common byte")
		}
	case impl.PathShifted:
		if v == spec.TooHard {
			return bad("the shifted-copy descent always decides")
		}
	}
	return nil
}
