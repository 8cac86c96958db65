package trace

import (
	"strings"
	"testing"
)

type op string

func (o op) String() string { return string(o) }

func TestTracePrintsNumberedStepsAndRepro(t *testing.T) {
	var tr Trace
	tr.Add(op("Register(0x10, 8, Scalar)"), "ok")
	tr.Add(op("Unregister(0x10)"), "ErrNotRegistered")
	got := Failure("mismatch", &tr, "go test ./suites -run X")
	for _, want := range []string{"mismatch\n", "   1  Register(0x10, 8, Scalar)", "-> ErrNotRegistered", "reproduce: go test ./suites -run X\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("failure text lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "go test ./suites -run X\n") {
		t.Errorf("failure text must end with the repro command:\n%s", got)
	}
	if tr.Len() != 2 {
		t.Errorf("Len = %d, want 2", tr.Len())
	}
}

func TestStepsIn(t *testing.T) {
	var tr Trace
	for i := 0; i < 3; i++ {
		tr.Add(op("Retain(0x10)"), "nil")
	}
	out := "rapid noise\n" + Failure("mismatch", &tr, "go test ./x") + "more noise\n"
	if got := StepsIn(out); got != 3 {
		t.Errorf("StepsIn = %d, want 3 in:\n%s", got, out)
	}
	if got := StepsIn("no listing here"); got != 0 {
		t.Errorf("StepsIn without a listing = %d, want 0", got)
	}
}
