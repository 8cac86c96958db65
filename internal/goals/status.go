package goals

import "fmt"

// Status is how a goal fared on a run. It is a typed value, not a string,
// so that no comparison with a misspelt literal compiles; it reads and
// writes as its text ("met", "not met", ...), so the JSON report stays
// readable.
type Status int

const (
	// NotMeasured: the run measured no case of the goal. It is the zero
	// value, so a verdict that nothing judged never reads as met.
	NotMeasured Status = iota
	// PartlyMeasured: something the goal names is missing from the run,
	// and every case measured is met.
	PartlyMeasured
	// NotMet: a measured case misses its bound.
	NotMet
	// Met: everything the goal names was measured and met.
	Met
)

var statusText = [...]string{
	NotMeasured:    "not measured",
	PartlyMeasured: "partly measured",
	NotMet:         "not met",
	Met:            "met",
}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusText) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusText[s]
}

// MarshalText writes the status as its text; a value outside the four is an
// error, never a number in the report.
func (s Status) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(statusText) {
		return nil, fmt.Errorf("goals: no status %d", int(s))
	}
	return []byte(statusText[s]), nil
}

// UnmarshalText reads a status written by MarshalText.
func (s *Status) UnmarshalText(b []byte) error {
	for i, t := range statusText {
		if string(b) == t {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("goals: unknown status %q", b)
}

// Unjudged reports whether the run left the goal neither met nor missed:
// not measured, or partly measured with every measured case met. A gate can
// call such a goal neither.
func (s Status) Unjudged() bool { return s == NotMeasured || s == PartlyMeasured }
