package refcounttest_test

import (
	"errors"
	"flag"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/refcounttest"
	"pgregory.net/rapid"
)

// The planted bugs below are the kind a user makes in a thin layer over a
// correct registry: each wraps the model and gets one thing wrong. Each is
// found by a Check function, and its counterexample must shrink to about the
// few calls that show it: a generator whose rare branch (a burst of Retains,
// a buffer of hundreds of holders, a Close) is switched on by shrinking would
// drag that branch into every shrunk trace.

// retainsTwice (example_test.go) counts a Retain twice once the
// registration's count passes 2.

// buffersUncounted forgets the buffer counter in Stats.
type buffersUncounted struct{ *spec.Locked }

func (r buffersUncounted) Stats() spec.Stats {
	st := r.Locked.Stats()
	st.Buffers = 0
	return st
}

// unknownReleaseOK answers an Unregister of a pointer it does not hold with nil.
type unknownReleaseOK struct{ *spec.Locked }

func (r unknownReleaseOK) Unregister(p spec.Addr) error {
	if err := r.Locked.Unregister(p); !errors.Is(err, spec.ErrNotRegistered) {
		return err
	}
	return nil
}

// closeFreesBackward makes Close's frees in reverse: the same frees, in an
// order the contract forbids (the leak report's).
type closeFreesBackward struct {
	*spec.Locked
	f       spec.Freer
	mu      sync.Mutex
	held    []func()
	closing bool
}

func newCloseFreesBackward(f spec.Freer) spec.Registry {
	r := &closeFreesBackward{f: f}
	r.Locked = spec.NewLocked(spec.FreerFunc(func(p spec.Addr, bytes int64, kind spec.Kind) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closing {
			r.held = append(r.held, func() { f.Free(p, bytes, kind) })
			return
		}
		f.Free(p, bytes, kind)
	}))
	return r
}

func (r *closeFreesBackward) Close() ([]spec.Registration, error) {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	leaked, err := r.Locked.Close()
	r.mu.Lock()
	held := r.held
	r.closing, r.held = false, nil
	r.mu.Unlock()
	for i := len(held) - 1; i >= 0; i-- {
		held[i]()
	}
	return leaked, err
}

func locked[R spec.Registry](wrap func(*spec.Locked) R) refcounttest.RegistryFactory {
	return func(f spec.Freer) spec.Registry { return wrap(spec.NewLocked(f)) }
}

// listedOps counts the ops in the last op listing of a parallel property's
// failure, which lists each goroutine's ops in turn, numbered from 1.
func listedOps(out string) int {
	i := strings.LastIndex(out, "ops:\n")
	if i < 0 {
		return 0
	}
	return len(regexp.MustCompile(`(?m)^ *\d+  \S`).FindAllString(out[i:], -1))
}

// shrinkCases are the planted bugs, each with the property that reports it,
// how a shrunk counterexample's length is measured (the steps of the op
// trace; for the parallel property, the ops its failure lists), the fewest
// steps that show the bug, and the bound the shrunk counterexample must
// meet, a little above the longest seen over 160 seeds (4, 1, 3, 5 and 7
// steps). A rare branch that shrinks on instead of off shows at once: a burst
// of Retains alone is 64 steps or more.
var shrinkCases = []struct {
	name      string
	check     func(rapid.TB)
	steps     func(string) int
	fewest    int
	mostSteps int
}{
	{"Retain counted twice past 2", func(t rapid.TB) {
		refcounttest.CheckStateMachine(t, locked(func(l *spec.Locked) retainsTwice { return retainsTwice{l} }))
	}, trace.StepsIn, 2, 6},
	{"buffers uncounted in Stats", func(t rapid.TB) {
		refcounttest.CheckStateMachine(t, locked(func(l *spec.Locked) buffersUncounted { return buffersUncounted{l} }))
	}, trace.StepsIn, 1, 2},
	{"unknown release accepted", func(t rapid.TB) {
		refcounttest.CheckStateMachine(t, locked(func(l *spec.Locked) unknownReleaseOK { return unknownReleaseOK{l} }))
	}, trace.StepsIn, 1, 5},
	{"Close frees backward", func(t rapid.TB) {
		refcounttest.CheckStateMachine(t, newCloseFreesBackward)
	}, trace.StepsIn, 3, 8},
	{"Retain counted twice past 2, in parallel", func(t rapid.TB) {
		refcounttest.CheckDisjointParallel(t, locked(func(l *spec.Locked) retainsTwice { return retainsTwice{l} }))
	}, listedOps, 3, 12},
}

func TestCounterexamplesShrink(t *testing.T) {
	flag.Set("rapid.nofailfile", "true") // the failures are planted: keep no fail files
	defer flag.Set("rapid.nofailfile", "false")
	for _, c := range shrinkCases {
		res := props.Run(c.name, c.check)
		if res.Outcome != props.Failed {
			t.Errorf("%s: %v, want FAIL\n%s", c.name, res.Outcome, res.Output)
			continue
		}
		n := c.steps(res.Output)
		t.Logf("%s: %d steps (fewest %d) in %v", c.name, n, c.fewest, res.Duration)
		if n < c.fewest || n > c.mostSteps {
			t.Errorf("%s: the shrunk counterexample has %d steps, want %d to %d\n%s", c.name, n, c.fewest, c.mostSteps, res.Output)
		}
	}
}
