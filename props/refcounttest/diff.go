package refcounttest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"sync"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/refcount"
)

// RegistryFactory builds the registry under test over the given Freer. The
// properties call it once per generated case, so each case starts empty.
type RegistryFactory func(spec.Freer) spec.Registry

// RegistryDiff runs ops against the model and an implementation in lock step
// and reports the first disagreement. CheckStateMachine and the fuzz targets
// share it.
type RegistryDiff struct {
	model, impl       spec.Registry
	modelLog, implLog *freeLog
	toModel           map[spec.BufferID]spec.BufferID
	tr                trace.Trace
	// extra lists the registered pointers outside the pointer pool (the
	// state machine's wide and packed buffers put most of their aliases
	// there, and its colliding keys are all there), so that they are
	// compared and drawn like pool pointers while the model holds them.
	extra []spec.Addr
}

// NewRegistryDiff returns a diff of a fresh model against factory's registry.
func NewRegistryDiff(factory RegistryFactory) *RegistryDiff {
	d := &RegistryDiff{modelLog: &freeLog{}, implLog: &freeLog{}, toModel: map[spec.BufferID]spec.BufferID{}}
	d.model, d.impl = spec.New(d.modelLog), factory(d.implLog)
	return d
}

func (d *RegistryDiff) fail(format string, args ...any) error {
	return fmt.Errorf("%s", trace.Failure(fmt.Sprintf(format, args...), &d.tr, ""))
}

// Apply applies op to both registries, then compares what they returned, what
// they freed, and everything observable afterwards: Stats, the leak report
// (Live, in order) and IsRegistered and Refs of every pointer in play. The
// error carries the op trace, whose last step is op.
func (d *RegistryDiff) Apply(op spec.Op) error {
	return d.applyRun([]spec.Op{op})
}

// applyRun applies ops in turn as Apply does, but compares the whole state
// only after the last: each op's result, its frees and the count of the
// pointer it names are compared as it returns. Runs of hundreds of ops on one
// registration pass through states alike, and comparing each whole would
// make them too dear to draw; the count alone stops a run at the first op
// that miscounts, so that a failure's trace ends there.
func (d *RegistryDiff) applyRun(ops []spec.Op) error {
	for _, op := range ops {
		if err := d.applyOne(op); err != nil {
			return err
		}
	}
	if err := d.compareState(); err != nil {
		return err
	}
	// A holder the model dropped was compared once more just now; from here
	// on the leak report (Live) would show it if the implementation kept it.
	d.extra = slices.DeleteFunc(d.extra, func(p spec.Addr) bool { return !d.model.IsRegistered(p) })
	return nil
}

// applyOne applies op to both registries and compares what it returned and
// freed, and the pointer it names.
func (d *RegistryDiff) applyOne(op spec.Op) error {
	want := op.Apply(d.model)
	got := op.Apply(d.impl)
	d.tr.Add(op, got)
	if got.Err != want.Err || got.Value != want.Value {
		return d.fail("%v returned %v, the model %v", op, got, want)
	}
	switch {
	case op.Kind == spec.OpRegisterBuffer:
		if err := d.mapBuffer(op, want.ID, got.ID); err != nil {
			return err
		}
		if want.ID != 0 {
			d.addExtra(append([]spec.Addr{op.P}, op.Aliases...))
		}
	case op.Kind == spec.OpRegister && want.Err == "" && op.P != 0:
		d.addExtra([]spec.Addr{op.P})
	}
	// Frees compare in order, Close's too: it frees in the leak report's
	// order, which the contract fixes.
	wantFrees, gotFrees := d.modelLog.take(), d.implLog.take()
	if !slices.Equal(wantFrees, gotFrees) {
		if sameElements(wantFrees, gotFrees, freeKey) {
			return d.fail("%v freed in the wrong order: %v, the model %v", op, gotFrees, wantFrees)
		}
		return d.fail("%v freed %v, the model freed %v", op, gotFrees, wantFrees)
	}
	if op.P != 0 {
		return d.comparePointer(op.P)
	}
	return nil
}

// addExtra adds the pointers outside the pool to extra.
func (d *RegistryDiff) addExtra(ps []spec.Addr) {
	pool := PointerPool()
	for _, a := range ps {
		if !slices.Contains(pool, a) && !slices.Contains(d.extra, a) {
			d.extra = append(d.extra, a)
		}
	}
}

// pointers lists the pointers in play: the pool, then extra.
func (d *RegistryDiff) pointers() []spec.Addr {
	return append(PointerPool(), d.extra...)
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

// registered lists the pointers in play that the model has registered.
func (d *RegistryDiff) registered() []spec.Addr {
	var out []spec.Addr
	for _, p := range d.pointers() {
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
		if sameElements(want, got, regKey) {
			return d.fail("Live() lists the registrations in the wrong order: %s, the model %s (buffer IDs the model's)", liveOrder(got, true), liveOrder(want, true))
		}
		return d.fail("Live() = %+v, the model %+v", got, want)
	}
	for _, p := range d.pointers() {
		if err := d.comparePointer(p); err != nil {
			return err
		}
	}
	return nil
}

// comparePointer compares IsRegistered and Refs of p.
func (d *RegistryDiff) comparePointer(p spec.Addr) error {
	if w, g := d.model.IsRegistered(p), d.impl.IsRegistered(p); w != g {
		return d.fail("IsRegistered(%#x) = %v, the model %v", uint64(p), g, w)
	}
	if w, g := d.model.Refs(p), d.impl.Refs(p); w != g {
		return d.fail("Refs(%#x) = %d, the model %d", uint64(p), g, w)
	}
	return nil
}

// freeCall is one call a registry made to its Freer.
type freeCall struct {
	P     spec.Addr
	Bytes int64
	Kind  spec.Kind
}

func (c freeCall) String() string {
	return fmt.Sprintf("Free(%#x, %d, %v)", uint64(c.P), c.Bytes, c.Kind)
}

// freeLog is a Freer that records its calls. It is safe for concurrent use.
type freeLog struct {
	mu    sync.Mutex
	calls []freeCall
}

func (l *freeLog) Free(p spec.Addr, bytes int64, kind spec.Kind) {
	l.mu.Lock()
	l.calls = append(l.calls, freeCall{p, bytes, kind})
	l.mu.Unlock()
}

// take returns the calls recorded since the last take.
func (l *freeLog) take() []freeCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// liveView is Live() with buffer IDs replaced by the model's IDs (toModel nil:
// they are the model's already), so that model and implementation compare
// directly. It keeps the order: the contract fixes it (by real pointer; at
// one real pointer, buffers newest first, then an owned pointer registered
// anew there), and Close frees in it.
func liveView(live []spec.Registration, toModel map[spec.BufferID]spec.BufferID) []spec.Registration {
	out := make([]spec.Registration, len(live))
	for i, r := range live {
		r.Holders = slices.Clone(r.Holders)
		if r.Buffer != 0 && toModel != nil {
			if id, ok := toModel[r.Buffer]; ok {
				r.Buffer = id
			} else {
				r.Buffer = spec.BufferID(math.MaxUint64) // an ID the implementation never returned
			}
		}
		out[i] = r
	}
	return out
}

// stripIDs blanks buffer IDs, which are the implementation's choice, and
// keeps the order, which is not: by real pointer, and at one real pointer
// buffers newest first, then an owned pointer. Disjoint ranges keep
// registrations of different goroutines apart, and the buffers that share a
// real pointer (the first one's real pointer was released, then registered
// again as another buffer's) are one goroutine's, registered in its program
// order, so the order of a range's registrations does not depend on how the
// goroutines interleaved.
func stripIDs(live []spec.Registration) []spec.Registration {
	out := liveView(live, nil)
	for i := range out {
		if out[i].Buffer != 0 {
			out[i].Buffer = 1
		}
	}
	return out
}

// sameElements reports whether a and b hold the same elements, counted with
// multiplicity, in whatever order: a failure message then says that only the
// order differs.
func sameElements[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	n := map[string]int{}
	for _, x := range a {
		n[key(x)]++
	}
	for _, x := range b {
		if n[key(x)]--; n[key(x)] < 0 {
			return false
		}
	}
	return true
}

// regKey identifies a registration in a leak report, for sameElements.
func regKey(r spec.Registration) string { return fmt.Sprintf("%+v", r) }

// freeKey identifies a Freer call, for sameElements.
func freeKey(c freeCall) string { return c.String() }

// liveOrder is a leak report's order in brief: where each registration is and
// whether it is a buffer (with its ID, if ids) or an owned pointer.
func liveOrder(live []spec.Registration, ids bool) string {
	s := "["
	for i, r := range live {
		if i > 0 {
			s += " "
		}
		switch {
		case r.Buffer == 0:
			s += fmt.Sprintf("owned@%#x", uint64(r.Real))
		case ids:
			s += fmt.Sprintf("buffer%d@%#x", r.Buffer, uint64(r.Real))
		default:
			s += fmt.Sprintf("buffer@%#x", uint64(r.Real))
		}
	}
	return s + "]"
}

// sortFrees puts frees in a canonical order, for frees made by concurrent
// calls, whose order across goroutines is any (Close's own frees have an
// order, which the properties check as it is). Two registrations can share a
// real pointer and a size (a buffer whose real pointer was released and then
// registered again), so the kind breaks the tie.
func sortFrees(c []freeCall) []freeCall {
	c = slices.Clone(c)
	sort.Slice(c, func(i, j int) bool {
		if c[i].P != c[j].P {
			return c[i].P < c[j].P
		}
		if c[i].Bytes != c[j].Bytes {
			return c[i].Bytes < c[j].Bytes
		}
		return c[i].Kind < c[j].Kind
	})
	return c
}

// formatOps numbers ops one a line, as an op trace does, for the properties
// that list ops without their results.
func formatOps(ops []spec.Op) string {
	s := ""
	for i, op := range ops {
		s += fmt.Sprintf("%4d  %v\n", i+1, op)
	}
	return s
}
