package catalog

import (
	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/props"
	"pgregory.net/rapid"
)

// The overlap suites. The model is the reference of MatchesModel and
// NeverMisses, so those run against the checkers only; the properties that
// need no model (symmetry, empty views, invariances, validation) run against
// the model too, which checks the model and its transforms. BBox is
// conservative: it runs the properties a conservative filter has, not
// MatchesModel. SeedGCD is not here: it is not exact and is measured by
// props.OverlapAccuracy instead. Prepared and Bounded are the paths a
// dependency tracker takes (views measured once, then compared), each
// adapted to a checker.
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
	add := func(prop string, run func(rapid.TB, spec.Checker), cs ...checker) {
		for _, c := range cs {
			Add(Suite{Domain: "overlap", Property: prop, Impl: c.name,
				Run: func(t rapid.TB) { run(t, c.check) }})
		}
	}
	add("MatchesModel", props.CheckOverlapMatchesModel, exact, prepared, bounded)
	add("NeverMisses", props.CheckOverlapNeverMisses, bbox, exact, prepared, bounded)
	add("Symmetric", props.CheckOverlapSymmetric, model, bbox, exact, prepared, bounded)
	add("EmptyAndSelf", props.CheckOverlapEmptyAndSelf, model, bbox, exact, prepared, bounded)
	add("TranslateInvariant", props.CheckOverlapTranslate, model, bbox, exact, prepared, bounded)
	add("FlipInvariant", props.CheckOverlapFlip, model, bbox, exact, prepared, bounded)
	add("PermuteInvariant", props.CheckOverlapPermute, model, bbox, exact, prepared, bounded)
	add("ReshapeInvariant", props.CheckOverlapReshape, model, bbox, exact, prepared, bounded)
	add("ScaleInvariant", props.CheckOverlapScale, model, bbox, exact, prepared, bounded)
	add("RejectsInvalid", props.CheckOverlapRejectsInvalid, model, bbox, exact, prepared, bounded)
	Add(Suite{Domain: "overlap", Property: "TooHardOnlyAboveCap", Impl: "Exact",
		Run: func(t rapid.TB) {
			props.CheckOverlapCap(t, func(a, b spec.View, maxWork int) (spec.Verdict, int, error) {
				v, st, err := impl.Solver{MaxWork: maxWork}.Solve(a, b)
				return v, st.Nodes, err
			})
		}})
}
