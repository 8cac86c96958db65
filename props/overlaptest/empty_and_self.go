package overlaptest

import (
	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckEmptyAndSelf checks that an empty view overlaps nothing, itself and
// views on its offset included, and that a non-empty view overlaps itself.
// The empty view has a zero dim and its offset on a byte of the other view,
// where a phantom element would show.
func CheckEmptyAndSelf(t rapid.TB, c overlap.Checker) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		v := smallViews().Draw(rt, "v")
		e := smallViews().Draw(rt, "e")
		if len(e.Shape) == 0 {
			e.Shape, e.Strides = []int64{0}, []int64{rapid.Int64Range(-8, 8).Draw(rt, "e.s")}
		}
		e.Shape = append([]int64{}, e.Shape...)
		e.Shape[rapid.IntRange(0, len(e.Shape)-1).Draw(rt, "e.zero")] = 0
		if !v.Empty() {
			e.Offset = elemAddr(rt, "e.on", v) + rapid.Int64Range(0, v.ElemSize-1).Draw(rt, "e.byte")
		}
		var tr trace.Trace
		for _, op := range []overlap.Op{{A: e, B: v}, {A: v, B: e}, {A: e, B: e}} {
			r := op.Apply(c)
			tr.Add(op, r)
			if r != (overlap.Result{Verdict: overlap.No}) {
				rt.Fatalf("%s", trace.Failure(explained("an empty view must overlap nothing", qc(c, op, r)), &tr, ""))
			}
		}
		if !v.Empty() {
			op := overlap.Op{A: v, B: v}
			r := op.Apply(c)
			tr.Add(op, r)
			if r != (overlap.Result{Verdict: overlap.Yes}) {
				rt.Fatalf("%s", trace.Failure(explained("a non-empty view must overlap itself", qc(c, op, r)), &tr, ""))
			}
		}
	})
}
