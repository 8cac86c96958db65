package props

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// CheckRegistry is the sequential differential property of the refcount
// domain: rapid generates sequences of Registry calls (valid and invalid, with
// scopes and an occasional Close), applies each to the reference model and to
// the registry built by factory, and after every call compares the result and
// error, the Freer calls it made, Stats, the leak report (Live) and
// IsRegistered and Refs of every pointer in play. A mismatch fails t with the
// shrunk op trace.
func CheckRegistry(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		d := NewRegistryDiff(factory)
		// Most ops target a pointer that is registered right now, so that
		// sequences reach deep states (shared buffers half released, scopes
		// holding live references); the rest draw from the whole pool, null
		// and unknown pointers included.
		p := func(t *rapid.T) spec.Addr {
			if live := d.registered(); len(live) > 0 && rapid.IntRange(0, 9).Draw(t, "pick-live") < 7 {
				return rapid.SampledFrom(live).Draw(t, "p")
			}
			return drawPointer(t, "p")
		}
		apply := func(t *rapid.T, op spec.Op) {
			if err := d.Apply(op); err != nil {
				t.Fatalf("%v", err)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"Register": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpRegister, P: p(t), Bytes: drawSize(t), Alloc: drawKind(t)})
			},
			"RegisterBuffer": func(t *rapid.T) {
				real := p(t)
				apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: drawSize(t), Alloc: drawKind(t), Aliases: drawAliases(t, real)})
			},
			"Retain":       func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpRetain, P: p(t)}) },
			"Unregister":   func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpUnregister, P: p(t)}) },
			"Unregister2":  func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpUnregister, P: p(t)}) }, // releases twice as likely
			"IsRegistered": func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpIsRegistered, P: p(t)}) },
			"Refs":         func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpRefs, P: p(t)}) },
			"Enter":        func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpEnter}) },
			"Track":        func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpTrack, P: p(t)}) },
			"Promote":      func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpPromote, P: p(t)}) },
			"Exit":         func(t *rapid.T) { apply(t, spec.Op{Kind: spec.OpExit}) },
			// A function's life in the TensorLogic runtime: enter a scope,
			// make values and hand them to it, maybe promote one to the
			// caller, exit. It makes Exit release several references often.
			"ScopedCall": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpEnter})
				for i, n := 0, rapid.IntRange(1, 3).Draw(t, "values"); i < n; i++ {
					q := drawPointer(t, "value")
					apply(t, spec.Op{Kind: spec.OpRegister, P: q, Bytes: 0x10, Alloc: spec.ScalarNew})
					apply(t, spec.Op{Kind: spec.OpTrack, P: q})
				}
				if rapid.Bool().Draw(t, "promote") {
					apply(t, spec.Op{Kind: spec.OpPromote, P: p(t)})
				}
				apply(t, spec.Op{Kind: spec.OpExit})
			},
			// Close ends everything interesting, so it stands in for one
			// query in twenty rather than being an action of its own (a
			// skipped action would cut rapid's sequences short).
			"RefsOrClose": func(t *rapid.T) {
				if rapid.IntRange(0, 19).Draw(t, "close") == 0 {
					apply(t, spec.Op{Kind: spec.OpClose})
					return
				}
				apply(t, spec.Op{Kind: spec.OpRefs, P: p(t)})
			},
		})
	})
}

// RegistryDiff runs ops against the model and an implementation in lock step
// and reports the first disagreement. The state machine and the fuzz targets
// share it.
type RegistryDiff struct {
	model, impl       spec.Registry
	modelLog, implLog *FreeLog
	toModel           map[spec.BufferID]spec.BufferID
	tr                trace.Trace
}

// NewRegistryDiff returns a diff of a fresh model against factory's registry.
func NewRegistryDiff(factory RegistryFactory) *RegistryDiff {
	d := &RegistryDiff{modelLog: &FreeLog{}, implLog: &FreeLog{}, toModel: map[spec.BufferID]spec.BufferID{}}
	d.model, d.impl = spec.New(d.modelLog), factory(d.implLog)
	return d
}

// Trace returns the ops applied so far with the implementation's results.
func (d *RegistryDiff) Trace() *trace.Trace { return &d.tr }

func (d *RegistryDiff) fail(format string, args ...any) error {
	return fmt.Errorf("%s", trace.Failure(fmt.Sprintf(format, args...), &d.tr, ""))
}

// Apply applies op to both registries, then compares what they returned, what
// they freed, and everything observable afterwards. The error carries the op
// trace.
func (d *RegistryDiff) Apply(op spec.Op) error {
	want := op.Apply(d.model)
	got := op.Apply(d.impl)
	d.tr.Add(op, got)
	if got.Err != want.Err || got.Value != want.Value {
		return d.fail("%v returned %v, the model %v", op, got, want)
	}
	if op.Kind == spec.OpRegisterBuffer {
		if err := d.mapBuffer(op, want.ID, got.ID); err != nil {
			return err
		}
	}
	wantFrees, gotFrees := d.modelLog.Take(), d.implLog.Take()
	if op.Kind == spec.OpClose { // Close frees in any order
		wantFrees, gotFrees = sortFrees(wantFrees), sortFrees(gotFrees)
	}
	if !slices.Equal(wantFrees, gotFrees) {
		return d.fail("%v freed %v, the model freed %v", op, gotFrees, wantFrees)
	}
	return d.compareState()
}

// mapBuffer records which implementation ID stands for which model ID: IDs are
// the implementation's choice, but must be nonzero exactly when the call
// succeeded and distinct among live buffers.
func (d *RegistryDiff) mapBuffer(op spec.Op, modelID, implID spec.BufferID) error {
	if (modelID == 0) != (implID == 0) {
		return d.fail("%v returned buffer id %d, the model %d", op, implID, modelID)
	}
	if implID == 0 {
		return nil
	}
	for _, r := range d.impl.Live() {
		if r.Buffer == implID && r.Real != op.P {
			return d.fail("%v returned id %d, which the live buffer at %#x already has", op, implID, uint64(r.Real))
		}
	}
	d.toModel[implID] = modelID // an ID of a freed buffer may come back
	return nil
}

// registered lists the pool pointers the model has registered.
func (d *RegistryDiff) registered() []spec.Addr {
	var out []spec.Addr
	for _, p := range refPointerPool() {
		if d.model.IsRegistered(p) {
			out = append(out, p)
		}
	}
	return out
}

// compareState compares everything observable.
func (d *RegistryDiff) compareState() error {
	if ws, gs := d.model.Stats(), d.impl.Stats(); ws != gs {
		return d.fail("Stats() = %+v, the model %+v", gs, ws)
	}
	want := liveView(d.model.Live(), nil)
	got := liveView(d.impl.Live(), d.toModel)
	if !reflect.DeepEqual(want, got) && len(want)+len(got) > 0 {
		return d.fail("Live() = %+v, the model %+v", got, want)
	}
	for _, p := range refPointerPool() {
		if w, g := d.model.IsRegistered(p), d.impl.IsRegistered(p); w != g {
			return d.fail("IsRegistered(%#x) = %v, the model %v", uint64(p), g, w)
		}
		if w, g := d.model.Refs(p), d.impl.Refs(p); w != g {
			return d.fail("Refs(%#x) = %d, the model %d", uint64(p), g, w)
		}
	}
	return nil
}
