package overlaptest

import (
	"fmt"

	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// A failure prints as a trace of the queries that show it, each with the
// answer c gave: one query for a wrong answer, two for an answer that
// changed when it must not have.

// step is one query of a failure trace.
type step struct {
	op  overlap.Op
	r   overlap.Result
	why string // the text of an error that matches no sentinel
}

// q is a step whose answer is already known to be plain.
func q(op overlap.Op, r overlap.Result) step { return step{op: op, r: r} }

// qc is q for a query c answered. A Result keeps only the name of the
// sentinel an error matches, so an error that matches none is asked for
// again to show what it says.
func qc(c overlap.Checker, op overlap.Op, r overlap.Result) step {
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
