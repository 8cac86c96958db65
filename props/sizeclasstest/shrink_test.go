package sizeclasstest_test

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/sizeclasstest"
	"pgregory.net/rapid"
)

// The defects below are the kind a user makes in a thin layer over a correct
// pool: each wraps the model and gets one thing wrong. The sequential
// properties must report each with a short trace, close to the fewest calls
// that show it, whatever the seed: a rare branch of a generator (a fault, a
// burst, a Close, a drawn configuration) must shrink away unless the defect
// needs it.

// hitsTwice counts a cache hit twice once the count passes 1.
type hitsTwice struct{ *spec.Model }

func (p hitsTwice) Stats() spec.Stats {
	st := p.Model.Stats()
	if st.Hits > 1 {
		st.Hits++
	}
	return st
}

// unknownFreeOK answers a Free of an address it does not hold with nil.
type unknownFreeOK struct{ *spec.Model }

func (p unknownFreeOK) Free(a spec.Addr) error {
	if err := p.Model.Free(a); !errors.Is(err, spec.ErrUnknownPointer) {
		return err
	}
	return nil
}

// trimKeepsReserved forgets to take the bytes Trim returned off Reserved.
type trimKeepsReserved struct {
	*spec.Model
	trimmed *int64
}

func (p trimKeepsReserved) Trim() (int64, error) {
	n, err := p.Model.Trim()
	*p.trimmed += n
	return n, err
}

func (p trimKeepsReserved) Stats() spec.Stats {
	st := p.Model.Stats()
	if st.Classes != nil { // not closed
		st.Reserved += *p.trimmed
	}
	return st
}

// pendingForgotten reports an empty queue whatever it holds.
type pendingForgotten struct{ *spec.DeferredModel }

func (d pendingForgotten) Pending() int { return 0 }

// lastStreamUnsynced never synchronises stream 2: its frees stay pending.
type lastStreamUnsynced struct {
	*spec.StreamModel
	closed *bool
}

func (a lastStreamUnsynced) Synchronize(s spec.Stream) error {
	if s == 2 && !*a.closed {
		return nil
	}
	return a.StreamModel.Synchronize(s)
}

func (a lastStreamUnsynced) Close() ([]spec.StreamBlock, error) {
	*a.closed = true
	return a.StreamModel.Close()
}

func newPool[P spec.Pool](wrap func(*spec.Model) P) sizeclasstest.PoolFactory {
	return func(d spec.Device, c spec.Config) (spec.Pool, error) {
		m, err := spec.NewModel(d, c)
		if err != nil {
			return nil, err
		}
		return wrap(m), nil
	}
}

// shrinkCases are the planted defects, each with the property that reports
// it, the fewest calls that show it, and the most the shrunk trace may have.
// The bounds leave a margin over the longest trace seen in 40 seeds (6, 1,
// 3, 3 and 3 steps).
var shrinkCases = []struct {
	name      string
	check     func(rapid.TB)
	fewest    int
	mostSteps int
}{
	{"hits counted twice past 1", func(t rapid.TB) {
		sizeclasstest.CheckStateMachine(t, newPool(func(m *spec.Model) spec.Pool { return hitsTwice{m} }))
	}, 5, 8},
	{"unknown free accepted", func(t rapid.TB) {
		sizeclasstest.CheckStateMachine(t, newPool(func(m *spec.Model) spec.Pool { return unknownFreeOK{m} }))
	}, 1, 2},
	{"trimmed bytes still reserved", func(t rapid.TB) {
		sizeclasstest.CheckStateMachine(t, newPool(func(m *spec.Model) spec.Pool { return trimKeepsReserved{m, new(int64)} }))
	}, 3, 4},
	{"deferred queue reported empty", func(t rapid.TB) {
		sizeclasstest.CheckDeferredStateMachine(t, func(d spec.Device, o spec.Context) spec.DeferredAllocator {
			return pendingForgotten{spec.NewDeferredModel(d, o)}
		})
	}, 3, 4},
	{"stream 2 never synchronised", func(t rapid.TB) {
		sizeclasstest.CheckStreamOrdered(t, func(d spec.Device, c spec.Config) (spec.StreamAllocator, error) {
			m, err := spec.NewStreamModel(d, c)
			return lastStreamUnsynced{m, new(bool)}, err
		})
	}, 3, 4},
}

// raceDetector is set when the tests are built with -race.
var raceDetector bool

// The failures of this package's tests and examples are planted: they keep
// no fail files (rapid registers its flags before this runs, and go test
// parses the command line after, so -rapid.nofailfile=false still wins).
func init() { flag.Set("rapid.nofailfile", "true") }

// TestCounterexamplesShrink runs each planted defect through its property
// and bounds the shrunk trace: its number of steps, and its device faults,
// which none of these defects needs (a fault the shrinker leaves in is a
// rare branch switched on by shrinking).
func TestCounterexamplesShrink(t *testing.T) {
	if raceDetector {
		t.Skip("shrinking under the race detector can outlast rapid's shrink deadline; nothing here runs concurrently")
	}
	for _, c := range shrinkCases {
		res := props.Run(c.name, c.check)
		if res.Outcome != props.Failed {
			t.Errorf("%s: %v, want FAIL\n%s", c.name, res.Outcome, res.Output)
			continue
		}
		n, faults := trace.StepsIn(res.Output), faultsIn(res.Output)
		t.Logf("%s: %d steps (fewest %d), %d faults, in %v", c.name, n, c.fewest, faults, res.Duration)
		if n < c.fewest || n > c.mostSteps || faults > 0 {
			t.Errorf("%s: the shrunk trace has %d steps and %d device faults, want %d to %d steps and none\n%s",
				c.name, n, faults, c.fewest, c.mostSteps, res.Output)
		}
	}
}

// faultsIn counts the injected device faults in the last op trace of out.
func faultsIn(out string) int {
	i := strings.LastIndex(out, "op trace (last step failed):")
	if i < 0 {
		return 0
	}
	return strings.Count(out[i:], "[device ")
}
