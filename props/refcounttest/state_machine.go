package refcounttest

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
// error, the Freer calls it made (in order, Close's too), Stats, the leak
// report (Live, in order) and IsRegistered and Refs of every pointer in play.
// A mismatch fails t with the shrunk op trace.
func CheckRegistry(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	checkRegistry(t, factory, nil)
}

// CheckRegistryColliding returns CheckRegistry with one more kind of op, over
// keys: pointers, ascending, that the implementation's hash sends to one place
// (one probe chain, one shard), which the caller builds from a hash props does
// not know. They are registered in runs, some released again, or listed as
// one buffer's holders, so that the place overflows as it does under an
// address pattern or an adversary, a state random pointers never reach.
func CheckRegistryColliding(keys []spec.Addr) func(rapid.TB, RegistryFactory) {
	keys = slices.Clone(keys)
	return func(t rapid.TB, factory RegistryFactory) {
		t.Helper()
		checkRegistry(t, factory, keys)
	}
}

func checkRegistry(t rapid.TB, factory RegistryFactory, keys []spec.Addr) {
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
		// applyRun applies ops, each compared by its result and frees, and
		// the whole state once after the last: runs of hundreds of ops on
		// one registration pass through states alike, and comparing each
		// would make them too dear to draw.
		applyRun := func(t *rapid.T, ops []spec.Op) {
			if err := d.ApplyRun(ops); err != nil {
				t.Fatalf("%v", err)
			}
		}
		actions := map[string]func(*rapid.T){
			"Register": func(t *rapid.T) {
				apply(t, spec.Op{Kind: spec.OpRegister, P: p(t), Bytes: drawSize(t), Alloc: drawKind(t)})
			},
			"RegisterBuffer": func(t *rapid.T) {
				real := p(t)
				apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: drawSize(t), Alloc: drawKind(t), Aliases: drawAliases(t, real)})
			},
			// One time in sixteen a burst of 64 to 160 Retains of one
			// pointer, some of them released again: counts far past the
			// few that single ops build (a holder of a packed buffer of 8
			// to 10 holders overflows its field on the way).
			"Retain": func(t *rapid.T) {
				q := p(t)
				if rapid.IntRange(0, 15).Draw(t, "burst") != 0 {
					apply(t, spec.Op{Kind: spec.OpRetain, P: q})
					return
				}
				n := rapid.IntRange(64, 160).Draw(t, "retains")
				ops := make([]spec.Op, n, n+n/2)
				for i := range ops {
					ops[i] = spec.Op{Kind: spec.OpRetain, P: q}
				}
				for range rapid.IntRange(0, n/2).Draw(t, "releases") {
					ops = append(ops, spec.Op{Kind: spec.OpUnregister, P: q})
				}
				applyRun(t, ops)
			},
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
			// A buffer of many holders, which drawAliases (four at most) never
			// makes: LockFree keeps the counts of a buffer of more than 10
			// holders copy on write, and those of more than 32 in a radix
			// tree of 16-way nodes, with a second level of inner nodes past
			// 256. real+0x10·i stays inside 0x400 bytes for i below 64;
			// past 63 aliases, and where a draw says so, an alias repeats (a
			// pointer listed twice holds two shares). Aliases at pool pointers
			// that are registered already make the registration fail whole.
			// One time in sixteen the buffer has 257 to 300 holders, 8 bytes
			// apart from real+0x400 on (no pool pointer among them).
			"WideBuffer": func(t *rapid.T) {
				real := rapid.SampledFrom(refBases).Draw(t, "real")
				bytes := int64(0x400)
				var aliases []spec.Addr
				if rapid.IntRange(0, 15).Draw(t, "deep") == 0 {
					bytes = 0x1000
					aliases = make([]spec.Addr, rapid.IntRange(256, 299).Draw(t, "naliases"))
					for i := range aliases {
						aliases[i] = real + 0x400 + 8*spec.Addr(i)
					}
					for range rapid.IntRange(0, 3).Draw(t, "repeats") { // listed twice, and still 257 holders or more
						aliases = append(aliases, rapid.SampledFrom(aliases).Draw(t, "repeat"))
					}
				} else {
					aliases = make([]spec.Addr, rapid.IntRange(10, 70).Draw(t, "naliases"))
					for i := range aliases {
						aliases[i] = real + 0x10*spec.Addr(1+i%63)
						if i > 0 && rapid.IntRange(0, 7).Draw(t, "repeat") == 0 {
							aliases[i] = aliases[i-1]
						}
					}
				}
				apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: bytes, Alloc: spec.Kind(rapid.IntRange(0, 3).Draw(t, "kind")), Aliases: aliases})
				// Single releases seldom drop every reference of so many
				// holders: sometimes drop them all, newest listing first, to
				// the free, and compare the state after the last.
				if rapid.IntRange(0, 3).Draw(t, "drop-all") == 0 {
					ops := make([]spec.Op, 0, len(aliases)+1)
					for i := len(aliases) - 1; i >= 0; i-- {
						ops = append(ops, spec.Op{Kind: spec.OpUnregister, P: aliases[i]})
					}
					applyRun(t, append(ops, spec.Op{Kind: spec.OpUnregister, P: real}))
				}
			},
			// A buffer of n ≤ 10 holders one of whose counts outgrows its
			// field: LockFree packs such a buffer's counts into one word, 60/n
			// bits each, and the Retain that would overflow a field moves the
			// buffer to copy on write, once; a holder listed that many times
			// starts it so. n stays at 8 or more, so that 2^(60/n) references
			// (128 at most) get there; fewer holders would take thousands. The
			// retains run only if the holder is registered after the
			// registration, which may have failed on a pool pointer (then they
			// retain what holds it); the state is compared after the last.
			"PackedFull": func(t *rapid.T) {
				n := rapid.IntRange(8, 10).Draw(t, "holders")
				real := rapid.SampledFrom(refBases).Draw(t, "real")
				aliases := make([]spec.Addr, n-1)
				for i := range aliases {
					aliases[i] = real + 0x10*spec.Addr(i+1)
				}
				q := real + 0x10*spec.Addr(rapid.IntRange(0, n-1).Draw(t, "holder"))
				listed := rapid.IntRange(0, 3).Draw(t, "listed") == 0
				if listed {
					for range 1 << (60 / n) {
						aliases = append(aliases, q)
					}
				}
				apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: 0x100, Alloc: spec.ArrayNew, Aliases: aliases})
				if listed || !d.model.IsRegistered(q) {
					return
				}
				ops := make([]spec.Op, 1<<(60/n))
				for i := range ops {
					ops[i] = spec.Op{Kind: spec.OpRetain, P: q}
				}
				applyRun(t, ops)
			},
			// A buffer whose real pointer let go of its share (an alias keeps
			// the buffer) and its address registered anew, as an owned
			// pointer or as another buffer: registrations then share a real
			// pointer, and the leak report and Close's frees must order them
			// as the contract says (buffers newest first, then the owned
			// pointer). Random ops reach it seldom, so with no such buffer
			// live this makes one first.
			"Reregister": func(t *rapid.T) {
				var reals []spec.Addr
				for _, r := range d.model.Live() {
					if r.Buffer != 0 && !slices.Contains(r.Holders, r.Real) {
						reals = append(reals, r.Real)
					}
				}
				if len(reals) == 0 {
					real := rapid.SampledFrom(refBases).Draw(t, "real")
					apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: 0x40, Alloc: spec.ArrayNew, Aliases: []spec.Addr{real + 0x10}})
					apply(t, spec.Op{Kind: spec.OpUnregister, P: real})
					reals = append(reals, real)
				}
				real := rapid.SampledFrom(reals).Draw(t, "real")
				if rapid.Bool().Draw(t, "as-buffer") {
					apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: drawSize(t), Alloc: drawKind(t), Aliases: drawAliases(t, real)})
				} else {
					apply(t, spec.Op{Kind: spec.OpRegister, P: real, Bytes: drawSize(t), Alloc: drawKind(t)})
				}
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
		}
		if len(keys) > 0 {
			// A run of keys that collide in the hash: each registered as an
			// owned pointer, or registered and then every other one
			// released (dead keys left along the chain), or listed as the
			// holders of one buffer that spans them. The runs of earlier
			// Collide ops stay, so chains of live and dead keys build up
			// over a sequence, and a buffer of several holders meets them.
			actions["Collide"] = func(t *rapid.T) {
				n := rapid.IntRange(2, len(keys)).Draw(t, "ncolliding")
				from := rapid.IntRange(0, len(keys)-n).Draw(t, "from")
				run := keys[from : from+n]
				var ops []spec.Op
				switch as := rapid.IntRange(0, 2).Draw(t, "as"); as {
				case 0, 1:
					for _, q := range run {
						ops = append(ops, spec.Op{Kind: spec.OpRegister, P: q, Bytes: 0x10, Alloc: spec.ScalarNew})
					}
					for i := 0; as == 1 && i < len(run); i += 2 {
						ops = append(ops, spec.Op{Kind: spec.OpUnregister, P: run[i]})
					}
				default:
					bytes := int64(run[n-1]-run[0]) + 0x10
					ops = append(ops, spec.Op{Kind: spec.OpRegisterBuffer, P: run[0], Bytes: bytes, Alloc: spec.ArrayNew, Aliases: slices.Clone(run[1:])})
				}
				applyRun(t, ops)
			}
		}
		rt.Repeat(actions)
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
	// extra lists the registered pointers outside the pointer pool (the
	// state machine's wide and packed buffers put most of their aliases
	// there, and its colliding keys are all there), so that they are
	// compared and drawn like pool pointers while the model holds them.
	extra []spec.Addr
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
	return d.ApplyRun([]spec.Op{op})
}

// ApplyRun applies ops in turn as Apply does, but compares everything
// observable only after the last: each op's result and frees are compared
// as it returns.
func (d *RegistryDiff) ApplyRun(ops []spec.Op) error {
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
// freed.
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
	wantFrees, gotFrees := d.modelLog.Take(), d.implLog.Take()
	if !slices.Equal(wantFrees, gotFrees) {
		if sameElements(wantFrees, gotFrees, freeKey) {
			return d.fail("%v freed in the wrong order: %v, the model %v", op, gotFrees, wantFrees)
		}
		return d.fail("%v freed %v, the model freed %v", op, gotFrees, wantFrees)
	}
	return nil
}

// addExtra adds the pointers outside the pool to extra.
func (d *RegistryDiff) addExtra(ps []spec.Addr) {
	pool := refPointerPool()
	for _, a := range ps {
		if !slices.Contains(pool, a) && !slices.Contains(d.extra, a) {
			d.extra = append(d.extra, a)
		}
	}
}

// pointers lists the pointers in play: the pool, then extra.
func (d *RegistryDiff) pointers() []spec.Addr {
	return append(refPointerPool(), d.extra...)
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
		if w, g := d.model.IsRegistered(p), d.impl.IsRegistered(p); w != g {
			return d.fail("IsRegistered(%#x) = %v, the model %v", uint64(p), g, w)
		}
		if w, g := d.model.Refs(p), d.impl.Refs(p); w != g {
			return d.fail("Refs(%#x) = %d, the model %d", uint64(p), g, w)
		}
	}
	return nil
}
