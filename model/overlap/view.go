package overlap

import (
	"errors"
	"fmt"
)

// MaxRank is the largest rank a View may have.
const MaxRank = 8

// Sentinel errors. Implementations return these, wrapped with detail.
var (
	// ErrInvalidView: element size below 1, a negative extent, rank above
	// MaxRank, shape and strides of different lengths, or an address outside
	// [0, 2^63).
	ErrInvalidView = errors.New("overlap: invalid view")
	// ErrTooLarge: the brute-force model refuses views that touch more bytes
	// than its cap.
	ErrTooLarge = errors.New("overlap: view too large for the brute-force model")
	// ErrLayoutMismatch: a view handed to a test planned for one layout
	// (element size, extents and |strides|) has another, so the plan's
	// answer would be meaningless.
	ErrLayoutMismatch = errors.New("overlap: view does not have the planned layout")
)

// View is a strided view of one storage, every quantity in bytes from the
// storage base. Element i (a multi-index) touches the half-open byte range
// [Offset + Σ i[d]·Strides[d], that + ElemSize).
type View struct {
	Offset   int64
	ElemSize int64
	Shape    []int64
	Strides  []int64
}

// Verdict answers "do two views touch a common byte?".
type Verdict int

const (
	No Verdict = iota
	Yes
	// TooHard: the solver gave up within its work cap. Callers that track
	// dependencies must treat it as Yes.
	TooHard
)

func (v Verdict) String() string {
	switch v {
	case No:
		return "No"
	case Yes:
		return "Yes"
	case TooHard:
		return "TooHard"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// String prints the view as Go-like text, e.g. {off=8 elem=4 shape=[3 4] strides=[16 4]}.
func (v View) String() string {
	return fmt.Sprintf("{off=%d elem=%d shape=%v strides=%v}", v.Offset, v.ElemSize, v.Shape, v.Strides)
}
