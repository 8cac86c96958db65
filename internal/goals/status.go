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
	// Met: everything the goal names was measured and met, each case
	// beyond doubt: its 95% confidence interval on the right side of its
	// bound (a count, exact, on the right side).
	Met
	// Inconclusive: everything was measured, nothing missed beyond doubt,
	// and some case's interval holds its bound: the run cannot tell.
	Inconclusive
)

var statusText = [...]string{
	NotMeasured:    "not measured",
	PartlyMeasured: "partly measured",
	NotMet:         "not met",
	Met:            "met",
	Inconclusive:   "inconclusive",
}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusText) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusText[s]
}

// MarshalText writes the status as its text; a value outside the five is an
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

// Unjudged reports whether the run left the goal neither met nor missed
// for want of measurements: not measured, or partly measured with nothing
// measured missed. A gate can call such a goal neither.
func (s Status) Unjudged() bool { return s == NotMeasured || s == PartlyMeasured }

// FailsGate reports whether a gate on the goals fails on s: a goal missed,
// or not measured in full. A goal met passes, and so does an inconclusive
// one: its figures do not show a miss, and a gate that failed on them
// would fail on the weather of the host.
func (s Status) FailsGate() bool { return s == NotMet || s.Unjudged() }
