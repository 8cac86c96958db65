package overlap

import (
	"errors"
	"fmt"
)

// Op is one overlap query, as data: properties, fuzz targets and traces share
// it. It prints as Go-like text, e.g.
// Overlap({off=0 elem=4 shape=[4] strides=[8]}, {off=4 elem=4 shape=[4] strides=[8]}).
type Op struct {
	A, B View
}

// String prints the query.
func (o Op) String() string { return fmt.Sprintf("Overlap(%v, %v)", o.A, o.B) }

// Result is the comparable outcome of an Op: the verdict and the name of the
// sentinel error the checker's error matches ("" for none, "other" for an
// error that matches no sentinel). The verdict of a failed query is No.
type Result struct {
	Verdict Verdict
	Err     string
}

// String prints the result as the verdict or the error name.
func (r Result) String() string {
	if r.Err != "" {
		return r.Err
	}
	return r.Verdict.String()
}

// Apply runs the query against c.
func (o Op) Apply(c Checker) Result {
	v, err := c(o.A, o.B)
	if err != nil {
		return Result{Verdict: No, Err: ErrName(err)}
	}
	return Result{Verdict: v}
}

// ErrName reduces err to the name of the sentinel it matches.
func ErrName(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrInvalidView):
		return "ErrInvalidView"
	case errors.Is(err, ErrTooLarge):
		return "ErrTooLarge"
	case errors.Is(err, ErrBadTransform):
		return "ErrBadTransform"
	case errors.Is(err, ErrLayoutMismatch):
		return "ErrLayoutMismatch"
	}
	return "other"
}
