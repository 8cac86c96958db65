// Package trace records the operations a property applied and prints them as a
// short, numbered, replayable listing.
//
// Every domain's Op type has a String method that prints the call as Go-like
// text (`Register(0x1000, 64, ArrayNew)`); a Trace pairs each op with the
// outcome the implementation under test gave. When a property fails, the trace
// of the shrunk counterexample is the failure message, so a reader sees the
// exact calls that lead to the defect instead of a bitstream.
package trace

import (
	"fmt"
	"strings"
)

// Step is one applied operation and the outcome it produced.
type Step struct {
	Op      string
	Outcome string
}

// Trace is an ordered list of steps. The zero value is ready to use.
type Trace struct {
	steps []Step
}

// Add records op and its outcome.
func (t *Trace) Add(op fmt.Stringer, outcome any) {
	t.steps = append(t.steps, Step{Op: op.String(), Outcome: fmt.Sprint(outcome)})
}

// Len returns the number of recorded steps.
func (t *Trace) Len() int { return len(t.steps) }

// Steps returns the recorded steps (shared; do not modify).
func (t *Trace) Steps() []Step { return t.steps }

// String prints the trace, one numbered step a line.
func (t *Trace) String() string {
	var b strings.Builder
	for i, s := range t.steps {
		fmt.Fprintf(&b, "%4d  %-48s -> %s\n", i+1, s.Op, s.Outcome)
	}
	return b.String()
}

// Failure formats a failure message: what went wrong, the trace that led there
// (its last step is the one that failed), and, last, how to reproduce it.
func Failure(what string, t *Trace, repro string) string {
	var b strings.Builder
	b.WriteString(what)
	b.WriteString("\n" + failureHeader)
	b.WriteString(t.String())
	if repro != "" {
		b.WriteString("reproduce: ")
		b.WriteString(repro)
		b.WriteString("\n")
	}
	return b.String()
}

// failureHeader opens the listing Failure prints.
const failureHeader = "op trace (last step failed):\n"

// StepsIn returns how many steps the last failure listing in out has (0 if
// out holds none): a test reads it from a failed property's output to bound
// the length of a shrunk counterexample.
func StepsIn(out string) int {
	i := strings.LastIndex(out, failureHeader)
	if i < 0 {
		return 0
	}
	n := 0
	for _, line := range strings.Split(out[i+len(failureHeader):], "\n") {
		var step int
		if _, err := fmt.Sscanf(line, "%d ", &step); err != nil || step != n+1 {
			break
		}
		n++
	}
	return n
}
