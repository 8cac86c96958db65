package tensormaptest

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
	"github.com/memverify/memverify/props"
	"pgregory.net/rapid"
)

// plantedMap are bugs a user makes in a map, each planted in a thin wrapper
// around the model. Each shows in two calls (three for lenOff).
var plantedMap = []struct {
	name string
	wrap func(tensormap.Map) tensormap.Map
}{
	{"Retire retires its own task", func(m tensormap.Map) tensormap.Map { return retireOwn{m} }},
	{"LookupAll truncates silently", func(m tensormap.Map) tensormap.Map { return silentLimit{m} }},
	{"Lookup returns the oldest", func(m tensormap.Map) tensormap.Map { return oldestFirst{m} }},
	{"one storage for all", func(m tensormap.Map) tensormap.Map { return oneStorage{m} }},
	{"Len off once 3 entries", func(m tensormap.Map) tensormap.Map { return lenOff{m} }},
}

// maxShrunkSteps bounds a shrunk trace of these bugs. Most shrink to the
// calls the bug needs, and nearly all to one more; but a large run's tiled
// write of up to 12 tiles stays whole when the failure sits on its last
// tile, so the bound leaves room for one. Over a hundred runs of each bug
// the lengths hardly moved when the draws changed (a mean of 2.2 to 2.4
// steps before, 2.1 to 2.3 after, for bugs that need 2): rapid drops needless
// calls well. What changed is what the calls are. Before, with the rare
// branches at rapid's minimum, 11 to 21 traces in a hundred kept a call
// that failed (a null storage, an out-of-order task) which the bug does
// not need, and tasks jumped by 3; after, at most 6 in a hundred, and tasks
// step by 0 or 1. The test logs both figures.
const maxShrunkSteps = 14

// retireOwn retires the threshold task as well (t+1 for t).
type retireOwn struct{ tensormap.Map }

func (m retireOwn) Retire(t tensormap.Task) error { return m.Map.Retire(t + 1) }

// silentLimit drops the producers past the limit and reports no error.
type silentLimit struct{ tensormap.Map }

func (m silentLimit) LookupAll(s tensormap.Storage, v overlap.View, limit int) ([]tensormap.Task, error) {
	tasks, err := m.Map.LookupAll(s, v, limit)
	if errors.Is(err, tensormap.ErrLimit) {
		err = nil
	}
	return tasks, err
}

// oldestFirst answers Lookup with the oldest live producer.
type oldestFirst struct{ tensormap.Map }

func (m oldestFirst) Lookup(s tensormap.Storage, v overlap.View) (tensormap.Task, bool, error) {
	tasks, err := m.Map.LookupAll(s, v, tensormap.MaxCapacity)
	if err != nil || len(tasks) == 0 {
		return 0, false, err
	}
	return tasks[len(tasks)-1], true, nil
}

// oneStorage files every storage under one: views of different storages
// meet.
type oneStorage struct{ tensormap.Map }

func one(s tensormap.Storage) tensormap.Storage {
	if s == 0 {
		return 0
	}
	return 0x1000
}

func (m oneStorage) Insert(s tensormap.Storage, v overlap.View, t tensormap.Task) error {
	return m.Map.Insert(one(s), v, t)
}

func (m oneStorage) Lookup(s tensormap.Storage, v overlap.View) (tensormap.Task, bool, error) {
	return m.Map.Lookup(one(s), v)
}

func (m oneStorage) LookupAll(s tensormap.Storage, v overlap.View, limit int) ([]tensormap.Task, error) {
	return m.Map.LookupAll(one(s), v, limit)
}

// lenOff counts one entry too many once it holds three.
type lenOff struct{ tensormap.Map }

func (m lenOff) Len() int {
	n := m.Map.Len()
	if n >= 3 {
		return n + 1
	}
	return n
}

// TestShrinksToShortTrace runs each planted bug through the state machine
// and checks that the shrunk trace is about as short as the bug allows. It
// is a white-box test for one reason: the planted maps' default solver is
// the element oracle of large runs, which an exact map has in its own
// solver; the model's brute force would list every byte of a large view.
func TestShrinksToShortTrace(t *testing.T) {
	flag.Set("rapid.nofailfile", "true") // the failures are planted: keep no fail file
	defer flag.Set("rapid.nofailfile", "false")
	for _, bug := range plantedMap {
		factory := func(cfg tensormap.Config) (tensormap.Map, error) {
			if cfg.Solver == nil {
				// The map's own exact solver: the model's brute force
				// would list every byte of a large run's views.
				cfg.Solver = elementOracle
			}
			m, err := tensormap.New(cfg)
			if err != nil {
				return nil, err
			}
			return bug.wrap(m), nil
		}
		res := props.Run(bug.name, func(t rapid.TB) { CheckStateMachine(t, factory) })
		if res.Outcome != props.Failed {
			t.Errorf("%s: not caught (%v)", bug.name, res.Outcome)
			continue
		}
		n, failed := trace.StepsIn(res.Output), failedSteps(res.Output)
		t.Logf("%-30s %d steps, %d failed before the last (%v)", bug.name, n, failed, res.Duration.Round(time.Millisecond))
		if res.Duration >= shrinkTime() {
			// rapid stopped shrinking at its deadline: on a machine this
			// loaded the trace says nothing about the draws.
			t.Logf("%s: shrinking ran out of time; bound not checked", bug.name)
			continue
		}
		if n == 0 || n > maxShrunkSteps {
			t.Errorf("%s: shrunk to %d steps, want 1 to %d:\n%s", bug.name, n, maxShrunkSteps, res.Output)
		}
	}
}

// failedSteps counts the steps of the last failure listing in out, but its
// last, whose result is an error: calls none of these bugs needs.
func failedSteps(out string) int {
	i := strings.LastIndex(out, "op trace (last step failed):\n")
	if i < 0 {
		return 0
	}
	var errs []bool
	for _, line := range strings.Split(out[i:], "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			break
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			break // the listing has ended
		}
		errs = append(errs, strings.Contains(line, "-> Err"))
	}
	n := 0
	for _, e := range errs[:max(0, len(errs)-1)] {
		if e {
			n++
		}
	}
	return n
}

// shrinkTime is rapid's shrinking deadline (-rapid.shrinktime).
func shrinkTime() time.Duration {
	if f := flag.Lookup("rapid.shrinktime"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil {
			return d
		}
	}
	return 30 * time.Second
}
