package tensormaptest

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/model/tensormap"
	"pgregory.net/rapid"
)

// MapFactory builds the map under test from the contract-level
// configuration the property drew: its Capacity, and its Solver when not
// nil (nil: the map's own default). A factory that refuses a valid
// configuration fails the property.
type MapFactory func(tensormap.Config) (tensormap.Map, error)

// The differential runner: one run applies each generated call to the model
// and to the map under test and compares the results. CheckStateMachine runs
// it with each side's default solver, CheckTooHardIsDependency with a solver
// that gives up.

// machine drives one run: the model, the map under test, and the live
// entries the model holds (to check that none is lost).
type machine struct {
	model, impl tensormap.Map
	capacity    int
	large       bool // a large run: see newMachine
	views       viewPool
	live        []entry // live entries, oldest first, as the model holds them
	last        tensormap.Task
	threshold   tensormap.Task
	tr          trace.Trace
}

// entry is one live entry: what Insert recorded.
type entry struct {
	storage tensormap.Storage
	view    overlap.View
	task    tensormap.Task
}

// newMachine builds the model and the map under test with the same drawn
// capacity and the given solver (nil: each uses its default). One run in
// ten is large: a capacity of 9 to 64 and tiled writes, and, with no solver
// given, large views, which the model decides with elementOracle (the
// brute force would list their bytes) and the map under test with its own
// solver or, half the time, with the oracle as its custom solver.
func newMachine(rt *rapid.T, factory MapFactory, solver overlap.Checker) *machine {
	m := &machine{}
	modelCfg := tensormap.Config{Solver: solver}
	if draw.Rarely(rt, 10, "large") {
		m.large = true
		m.capacity = rapid.IntRange(9, 64).Draw(rt, "capacity")
		if solver == nil {
			m.views.large = true
			modelCfg.Solver = elementOracle
		}
	} else {
		m.capacity = rapid.IntRange(1, 8).Draw(rt, "capacity")
	}
	modelCfg.Capacity = m.capacity
	cfg := tensormap.Config{Capacity: m.capacity, Solver: solver}
	// Drawn in every run, so that shrinking a large run to a small one
	// leaves the draws that follow in place.
	if custom := rapid.Bool().Draw(rt, "customSolver"); m.views.large && custom {
		cfg.Solver = elementOracle
	}
	var err error
	if m.model, err = tensormap.New(modelCfg); err != nil {
		rt.Fatalf("model: New(%+v): %v", modelCfg, err)
	}
	if m.impl, err = factory(cfg); err != nil {
		rt.Fatalf("New(%+v): %v", cfg, err)
	}
	return m
}

// run draws and applies calls until rapid ends the run, checking the state
// after each (see checkState).
func (m *machine) run(rt *rapid.T) {
	actions := map[string]func(*rapid.T){
		"Insert": func(t *rapid.T) {
			m.step(t, tensormap.Op{Kind: tensormap.OpInsert, Storage: drawStorage(t), View: m.views.draw(t),
				Task: drawInsertTask(t, m.last, m.threshold)})
		},
		"Insert2": func(t *rapid.T) { // inserts twice as likely: pools fill up
			m.step(t, tensormap.Op{Kind: tensormap.OpInsert, Storage: drawStorage(t), View: m.views.draw(t),
				Task: drawInsertTask(t, m.last, m.threshold)})
		},
		"Lookup": func(t *rapid.T) {
			m.step(t, tensormap.Op{Kind: tensormap.OpLookup, Storage: drawStorage(t), View: m.views.draw(t)})
		},
		"LookupAll": func(t *rapid.T) {
			m.step(t, tensormap.Op{Kind: tensormap.OpLookupAll, Storage: drawStorage(t), View: m.views.draw(t),
				Limit: rapid.SampledFrom([]int{1, 0, 1, 1, 2, 2, 3, 4}).Draw(t, "limit")})
		},
		"Retire": func(t *rapid.T) {
			m.step(t, tensormap.Op{Kind: tensormap.OpRetire, Task: drawRetire(t, m.last, m.threshold)})
		},
		"": func(t *rapid.T) { m.checkState(t) },
	}
	if m.large {
		actions["Tiles"] = m.tiles
	}
	rt.Repeat(actions)
}

// tiles inserts the first 2 to 12 tiles of a drawn tiling of one storage,
// each by a task of its own or all by one task, as a runtime writes a
// tensor that it split: a run of entries of one layout, whose chain grows
// past 8 entries when the capacity allows. The tiles, and the whole tensor
// when it is small enough, join the views later ops draw from.
func (m *machine) tiles(t *rapid.T) {
	g := drawTiling(t, m.views.large)
	n := rapid.Int64Range(2, 12).Draw(t, "tiles")
	storage := drawStorage(t)
	task := drawInsertTask(t, m.last, m.threshold)
	own := rapid.Bool().Draw(t, "taskPerTile")
	for i := range n {
		v := g.tile(i)
		m.step(t, tensormap.Op{Kind: tensormap.OpInsert, Storage: storage, View: v, Task: task})
		m.views.seen = append(m.views.seen, v)
		if own {
			task++
		}
	}
	if v, ok := g.whole(n); ok {
		m.views.seen = append(m.views.seen, v)
	}
}

// fail ends the run with what went wrong and the calls applied so far: the
// last of them, or the state check after it, failed.
func (m *machine) fail(t *rapid.T, format string, args ...any) {
	t.Fatalf("%s", trace.Failure(fmt.Sprintf(format, args...), &m.tr, ""))
}

// step applies op to both maps and compares the results.
func (m *machine) step(t *rapid.T, op tensormap.Op) {
	want := op.Apply(m.model)
	got := op.Apply(m.impl)
	m.tr.Add(op, got)
	if got != want {
		m.fail(t, "%v returned %v, the model %v", op, got, want)
	}
	if want.Err != "" {
		return
	}
	switch op.Kind {
	case tensormap.OpInsert:
		m.live = append(m.live, entry{op.Storage, tensormap.CloneView(op.View), op.Task})
		m.last = op.Task
	case tensormap.OpRetire:
		m.threshold = op.Task
		m.live = slices.DeleteFunc(m.live, func(e entry) bool { return e.task < op.Task })
	}
}
