package tensormaptest

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
	"pgregory.net/rapid"
)

// CheckTensorMap is the differential property of the tensormap domain: rapid
// generates sequences of Insert, Lookup, LookupAll and Retire calls (valid
// and invalid: out-of-order tasks, a full pool, small LookupAll limits, null
// storages, invalid and empty views) on a map of a drawn capacity, applies
// each to the reference model and to the map built by factory with its
// default solver, and compares every result and error. After every call it
// compares Len and checks the invariant that no live producer is ever lost:
// for every live entry, Lookup and LookupAll of its own view (with a limit
// that cannot be reached, and with a limit of 1) must agree with the model,
// and must name its task or a newer one. A mismatch fails t with
// the shrunk op trace.
//
// Views are drawn small (see tmViews), so the model's brute force is exact
// and an exact solver never gives up; CheckTensorMapTooHard covers TooHard.
// The exception is one run in ten, a large one (tensormap_large.go): a
// capacity of 9 to 64, tensors written tile by tile, and views of
// kilobytes, which the model decides with an exact oracle that lists
// elements, not bytes.
func CheckTensorMap(t rapid.TB, factory TensorMapFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) { newTMMachine(rt, factory, nil).run(rt) })
}

// tmMachine drives one run: the model, the map under test, and the live
// entries the model holds (to check that none is lost).
type tmMachine struct {
	model, impl spec.Map
	capacity    int
	large       bool // a large run: see newTMMachine
	views       tmViews
	live        []tmEntry // live entries, oldest first, as the model holds them
	last        spec.Task
	threshold   spec.Task
	tr          trace.Trace
}

type tmEntry struct {
	storage spec.Storage
	view    overlap.View
	task    spec.Task
}

// newTMMachine builds the model and the map under test with the same drawn
// capacity and the given solver (nil: each uses its default). One run in
// ten is large: a capacity of 9 to 64 and tiled writes, and, with no solver
// given, large views, which the model decides with tmElementOracle (the
// brute force would list their bytes) and the map under test with its own
// solver or, half the time, with the oracle as its custom solver.
func newTMMachine(rt *rapid.T, factory TensorMapFactory, solver overlap.Checker) *tmMachine {
	m := &tmMachine{}
	modelCfg := spec.Config{Solver: solver}
	if rapid.IntRange(0, 9).Draw(rt, "large") == 9 {
		m.large = true
		m.capacity = rapid.IntRange(9, 64).Draw(rt, "capacity")
		if solver == nil {
			m.views.large = true
			modelCfg.Solver = tmElementOracle
		}
	} else {
		m.capacity = rapid.IntRange(1, 8).Draw(rt, "capacity")
	}
	modelCfg.Capacity = m.capacity
	cfg := spec.Config{Capacity: m.capacity, Solver: solver}
	if m.views.large && rapid.Bool().Draw(rt, "customSolver") {
		cfg.Solver = tmElementOracle
	}
	var err error
	if m.model, err = spec.New(modelCfg); err != nil {
		rt.Fatalf("model: New(%+v): %v", modelCfg, err)
	}
	if m.impl, err = factory(cfg); err != nil {
		rt.Fatalf("New(%+v): %v", cfg, err)
	}
	return m
}

func (m *tmMachine) run(rt *rapid.T) {
	actions := map[string]func(*rapid.T){
		"Insert": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpInsert, Storage: tmDrawStorage(t), View: m.views.draw(t),
				Task: tmDrawInsertTask(t, m.last, m.threshold)})
		},
		"Insert2": func(t *rapid.T) { // inserts twice as likely: pools fill up
			m.step(t, spec.Op{Kind: spec.OpInsert, Storage: tmDrawStorage(t), View: m.views.draw(t),
				Task: tmDrawInsertTask(t, m.last, m.threshold)})
		},
		"Lookup": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpLookup, Storage: tmDrawStorage(t), View: m.views.draw(t)})
		},
		"LookupAll": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpLookupAll, Storage: tmDrawStorage(t), View: m.views.draw(t),
				Limit: rapid.SampledFrom([]int{0, 1, 1, 1, 2, 2, 3, 4}).Draw(t, "limit")})
		},
		"Retire": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpRetire, Task: tmDrawRetire(t, m.last, m.threshold)})
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
func (m *tmMachine) tiles(t *rapid.T) {
	g := tmDrawTiling(t, m.views.large)
	n := rapid.Int64Range(2, 12).Draw(t, "tiles")
	storage := tmDrawStorage(t)
	task := tmDrawInsertTask(t, m.last, m.threshold)
	own := rapid.Bool().Draw(t, "taskPerTile")
	for i := range n {
		v := g.tile(i)
		m.step(t, spec.Op{Kind: spec.OpInsert, Storage: storage, View: v, Task: task})
		m.views.seen = append(m.views.seen, v)
		if own {
			task++
		}
	}
	if v, ok := g.whole(n); ok {
		m.views.seen = append(m.views.seen, v)
	}
}

func (m *tmMachine) fail(t *rapid.T, format string, args ...any) {
	t.Fatalf("%s", trace.Failure(fmt.Sprintf(format, args...), &m.tr, ""))
}

// step applies op to both maps and compares the results.
func (m *tmMachine) step(t *rapid.T, op spec.Op) {
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
	case spec.OpInsert:
		m.live = append(m.live, tmEntry{op.Storage, spec.CloneView(op.View), op.Task})
		m.last = op.Task
	case spec.OpRetire:
		m.threshold = op.Task
		m.live = slices.DeleteFunc(m.live, func(e tmEntry) bool { return e.task < op.Task })
	}
}

// checkState compares Len and checks that every live producer is still
// found, by its own view, by both lookups.
func (m *tmMachine) checkState(t *rapid.T) {
	if w, g := m.model.Len(), m.impl.Len(); w != g {
		m.fail(t, "Len() = %d, the model %d", g, w)
	}
	if len(m.live) != m.model.Len() {
		m.fail(t, "the model holds %d live entries, the property counted %d", m.model.Len(), len(m.live))
	}
	for _, e := range m.live {
		if e.view.Empty() {
			continue // an empty view overlaps nothing, not even itself
		}
		one := spec.Op{Kind: spec.OpLookup, Storage: e.storage, View: e.view}
		gotOne := one.Apply(m.impl)
		if !gotOne.Found || gotOne.Task < e.task || gotOne.Err != "" {
			m.fail(t, "lost producer: live task %d wrote %v of %#x, but %v returned %v",
				e.task, e.view, uint64(e.storage), one, gotOne)
		}
		if wantOne := one.Apply(m.model); gotOne != wantOne {
			m.fail(t, "%v returned %v, the model %v", one, gotOne, wantOne)
		}
		// A limit above the capacity can never be reached.
		all := spec.Op{Kind: spec.OpLookupAll, Storage: e.storage, View: e.view, Limit: m.capacity + 1}
		gotAll := all.Apply(m.impl)
		tasks, err := m.impl.LookupAll(e.storage, e.view, m.capacity+1)
		if err != nil || !slices.Contains(tasks, e.task) {
			m.fail(t, "lost producer: live task %d wrote %v of %#x, but %v returned %v, %v",
				e.task, e.view, uint64(e.storage), all, tasks, err)
		}
		if wantAll := all.Apply(m.model); gotAll != wantAll {
			m.fail(t, "%v returned %v, the model %v", all, gotAll, wantAll)
		}
		// And with a limit of 1, which two producers already exceed.
		one1 := spec.Op{Kind: spec.OpLookupAll, Storage: e.storage, View: e.view, Limit: 1}
		if got, want := one1.Apply(m.impl), one1.Apply(m.model); got != want {
			m.fail(t, "%v returned %v, the model %v", one1, got, want)
		}
	}
}
