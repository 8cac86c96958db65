package tensormaptest_test

import (
	"errors"
	"flag"
	"fmt"

	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/tensormaptest"
	"pgregory.net/rapid"
)

// A map is checked by pointing a property at a factory that builds it; under
// go test, pass the test's *testing.T instead of running the property
// through props.Run. Here the map is the model itself.
func Example() {
	res := props.Run("model", func(t rapid.TB) {
		tensormaptest.CheckStateMachine(t, func(cfg tensormap.Config) (tensormap.Map, error) {
			return tensormap.New(cfg)
		})
	})
	fmt.Println(res.Outcome)
	// Output: pass
}

// truncating is a map whose LookupAll stops at its limit without saying so:
// the producers past the limit are dependencies the runtime never sees.
type truncating struct{ tensormap.Map }

func (m truncating) LookupAll(s tensormap.Storage, v overlap.View, limit int) ([]tensormap.Task, error) {
	tasks, err := m.Map.LookupAll(s, v, limit)
	if errors.Is(err, tensormap.ErrLimit) {
		err = nil
	}
	return tasks, err
}

// A map that drops producers silently fails CheckStateMachine; its output
// holds the shrunk trace, two Inserts of overlapping views.
func Example_silentTruncation() {
	flag.Set("rapid.nofailfile", "true") // the failure is planted: keep no fail file
	defer flag.Set("rapid.nofailfile", "false")
	res := props.Run("truncating", func(t rapid.TB) {
		tensormaptest.CheckStateMachine(t, func(cfg tensormap.Config) (tensormap.Map, error) {
			m, err := tensormap.New(cfg)
			return truncating{m}, err
		})
	})
	fmt.Println(res.Outcome)
	// Output: FAIL
}
