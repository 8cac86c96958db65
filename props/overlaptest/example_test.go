package overlaptest_test

import (
	"flag"
	"fmt"

	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/overlaptest"
	"pgregory.net/rapid"
)

// A checker is checked by pointing a property at it; under go test, pass the
// test's *testing.T instead of running the property through props.Run.
func Example() {
	res := props.Run("model", func(t rapid.TB) {
		overlaptest.CheckMatchesModel(t, overlap.Overlap)
	})
	fmt.Println(res.Outcome)
	// Output: pass
}

// A checker that compares element starts only, as if every element were one
// byte, misses overlaps that begin inside an element. CheckMatchesModel
// fails it, and its output shows the shrunk pair.
func Example_elementSizeIgnored() {
	flag.Set("rapid.nofailfile", "true") // the failure is planted: keep no fail file
	defer flag.Set("rapid.nofailfile", "false")
	startsOnly := func(a, b overlap.View) (overlap.Verdict, error) {
		if a.Validate() == nil && b.Validate() == nil {
			a.ElemSize, b.ElemSize = 1, 1
		}
		return overlap.Overlap(a, b)
	}
	res := props.Run("starts only", func(t rapid.TB) {
		overlaptest.CheckMatchesModel(t, startsOnly)
	})
	fmt.Println(res.Outcome)
	// Output: FAIL
}
