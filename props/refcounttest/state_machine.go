package refcounttest

import (
	"slices"

	"github.com/memverify/memverify/internal/draw"
	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// CheckStateMachine is the sequential differential property: rapid generates
// sequences of Registry calls (valid and invalid, with scopes and an
// occasional Close), applies each to the reference model and to the registry
// built by factory, and after every call compares the result and error, the
// Freer calls it made (in order, Close's too), Stats, the leak report (Live,
// in order) and IsRegistered and Refs of every pointer in play. A mismatch
// fails t with the shrunk op trace.
//
// colliding, if given, adds one more kind of op over those pointers, which
// must be ascending and which the caller knows its hash sends to one place
// (one probe chain, one shard): they are registered in runs, some released
// again, or listed as one buffer's holders, so that the place overflows as
// it does under an address pattern or an adversary, a state random pointers
// never reach.
func CheckStateMachine(t rapid.TB, factory RegistryFactory, colliding ...spec.Addr) {
	t.Helper()
	colliding = slices.Clone(colliding)
	rapid.Check(t, func(rt *rapid.T) {
		m := &machine{d: NewRegistryDiff(factory), colliding: colliding}
		rt.Repeat(m.actions())
	})
}

// machine draws the state machine's ops and applies them through a diff.
type machine struct {
	d         *RegistryDiff
	colliding []spec.Addr
}

// actions is the state machine's menu: the single calls, named for the
// method they call, and the compound steps, which apply several calls at
// once (see each).
func (m *machine) actions() map[string]func(*rapid.T) {
	one := func(kind spec.OpKind) func(*rapid.T) {
		return func(t *rapid.T) { m.apply(t, spec.Op{Kind: kind, P: m.pointer(t)}) }
	}
	actions := map[string]func(*rapid.T){
		"Register": func(t *rapid.T) {
			m.apply(t, spec.Op{Kind: spec.OpRegister, P: m.pointer(t), Bytes: drawSize(t), Alloc: drawKind(t)})
		},
		"RegisterBuffer": func(t *rapid.T) {
			real := m.pointer(t)
			m.apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: drawSize(t), Alloc: drawKind(t), Aliases: drawAliases(t, real)})
		},
		"Retain":       m.retain,
		"Unregister":   one(spec.OpUnregister),
		"Unregister2":  one(spec.OpUnregister), // releases twice as likely
		"IsRegistered": one(spec.OpIsRegistered),
		"Refs":         one(spec.OpRefs),
		"RefsOrClose":  m.refsOrClose,
		"Enter":        func(t *rapid.T) { m.apply(t, spec.Op{Kind: spec.OpEnter}) },
		"Track":        one(spec.OpTrack),
		"Promote":      one(spec.OpPromote),
		"Exit":         func(t *rapid.T) { m.apply(t, spec.Op{Kind: spec.OpExit}) },
		"ScopedCall":   m.scopedCall,
		"WideBuffer":   m.wideBuffer,
		"PackedFull":   m.packedFull,
		"Reregister":   m.reregister,
	}
	if len(m.colliding) > 0 {
		actions["Collide"] = m.collide
	}
	return actions
}

// pointer draws the pointer of an op. Most ops target a pointer that is
// registered right now, so that sequences reach deep states (shared buffers
// half released, scopes holding live references); the rest draw from the
// whole pool, null and unknown pointers included.
func (m *machine) pointer(t *rapid.T) spec.Addr {
	if live := m.d.registered(); len(live) > 0 && rapid.IntRange(0, 9).Draw(t, "pick-live") < 7 {
		return rapid.SampledFrom(live).Draw(t, "p")
	}
	return drawPointer(t, "p")
}

// apply applies ops one by one, comparing everything after each.
func (m *machine) apply(t *rapid.T, ops ...spec.Op) {
	for _, op := range ops {
		if err := m.d.Apply(op); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// applyRun applies ops comparing the whole state only after the last (see
// RegistryDiff.applyRun).
func (m *machine) applyRun(t *rapid.T, ops []spec.Op) {
	if err := m.d.applyRun(ops); err != nil {
		t.Fatalf("%v", err)
	}
}

// retain applies one Retain, or a burst of them (see drawRetains) if the
// pointer is registered: on any other every call fails alike.
func (m *machine) retain(t *rapid.T) {
	q := m.pointer(t)
	m.applyRun(t, drawRetains(t, q, m.d.model.IsRegistered(q)))
}

// refsOrClose is a Refs, or about one time in eight a Close. Close ends
// everything interesting, so it stands in for a rare query rather than being
// an action of its own (a skipped action would cut rapid's sequences short).
func (m *machine) refsOrClose(t *rapid.T) {
	if draw.Rarely(t, 8, "close") {
		m.apply(t, spec.Op{Kind: spec.OpClose})
		return
	}
	m.apply(t, spec.Op{Kind: spec.OpRefs, P: m.pointer(t)})
}

// scopedCall is a function's life in the TensorLogic runtime: enter a scope,
// make values and hand them to it, maybe promote one to the caller, exit. It
// makes Exit release several references often.
func (m *machine) scopedCall(t *rapid.T) {
	m.apply(t, spec.Op{Kind: spec.OpEnter})
	for i, n := 0, rapid.IntRange(1, 3).Draw(t, "values"); i < n; i++ {
		q := drawPointer(t, "value")
		m.apply(t,
			spec.Op{Kind: spec.OpRegister, P: q, Bytes: 0x10, Alloc: spec.ScalarNew},
			spec.Op{Kind: spec.OpTrack, P: q})
	}
	if rapid.Bool().Draw(t, "promote") {
		m.apply(t, spec.Op{Kind: spec.OpPromote, P: m.pointer(t)})
	}
	m.apply(t, spec.Op{Kind: spec.OpExit})
}

// wideBuffer registers a buffer of many holders (see drawWideAliases).
// Aliases at pool pointers that are registered already make the registration
// fail whole. Single releases seldom drop every reference of so many holders:
// one time in four it drops them all, newest listing first, to the free, and
// compares the state after the last.
func (m *machine) wideBuffer(t *rapid.T) {
	real := rapid.SampledFrom(refBases).Draw(t, "real")
	aliases, bytes := drawWideAliases(t, real)
	m.apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: bytes, Alloc: spec.Kind(rapid.IntRange(0, 3).Draw(t, "kind")), Aliases: aliases})
	if draw.Rarely(t, 4, "drop-all") {
		ops := make([]spec.Op, 0, len(aliases)+1)
		for i := len(aliases) - 1; i >= 0; i-- {
			ops = append(ops, spec.Op{Kind: spec.OpUnregister, P: aliases[i]})
		}
		m.applyRun(t, append(ops, spec.Op{Kind: spec.OpUnregister, P: real}))
	}
}

// packedFull makes a buffer of n ≤ 10 holders one of whose counts outgrows
// its field: LockFree packs such a buffer's counts into one word, 60/n bits
// each, and the Retain that would overflow a field moves the buffer to copy
// on write, once. n stays at 8 or more, so that 2^(60/n) references (128 at
// most) get there; fewer holders would take thousands. About seven times in
// eight the field is filled: by a holder listed that many times (about one
// time in four), or else by that many Retains of the holder, which run only
// if it is registered after the registration (it may have failed on a pool
// pointer; then they retain what holds it), and the state is compared after
// the last. It shrinks to the buffer alone, one call.
func (m *machine) packedFull(t *rapid.T) {
	n := rapid.IntRange(8, 10).Draw(t, "holders")
	real := rapid.SampledFrom(refBases).Draw(t, "real")
	aliases := make([]spec.Addr, n-1)
	for i := range aliases {
		aliases[i] = real + 0x10*spec.Addr(i+1)
	}
	q := real + 0x10*spec.Addr(rapid.IntRange(0, n-1).Draw(t, "holder"))
	fill := usually(t, 16, "fill")
	listed := fill && draw.Rarely(t, 4, "listed")
	if listed {
		for range 1 << (60 / n) {
			aliases = append(aliases, q)
		}
	}
	m.apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: 0x100, Alloc: spec.ArrayNew, Aliases: aliases})
	if !fill || listed || !m.d.model.IsRegistered(q) {
		return
	}
	ops := make([]spec.Op, 1<<(60/n))
	for i := range ops {
		ops[i] = spec.Op{Kind: spec.OpRetain, P: q}
	}
	m.applyRun(t, ops)
}

// reregister registers anew the address of a buffer whose real pointer let
// go of its share (an alias keeps the buffer), as an owned pointer or as
// another buffer: registrations then share a real pointer, and the leak
// report and Close's frees must order them as the contract says (buffers
// newest first, then the owned pointer). Random ops reach it seldom, so with
// no such buffer live this makes one first.
func (m *machine) reregister(t *rapid.T) {
	var reals []spec.Addr
	for _, r := range m.d.model.Live() {
		if r.Buffer != 0 && !slices.Contains(r.Holders, r.Real) {
			reals = append(reals, r.Real)
		}
	}
	if len(reals) == 0 {
		real := rapid.SampledFrom(refBases).Draw(t, "real")
		m.apply(t,
			spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: 0x40, Alloc: spec.ArrayNew, Aliases: []spec.Addr{real + 0x10}},
			spec.Op{Kind: spec.OpUnregister, P: real})
		reals = append(reals, real)
	}
	real := rapid.SampledFrom(reals).Draw(t, "real")
	if rapid.Bool().Draw(t, "as-buffer") {
		m.apply(t, spec.Op{Kind: spec.OpRegisterBuffer, P: real, Bytes: drawSize(t), Alloc: drawKind(t), Aliases: drawAliases(t, real)})
	} else {
		m.apply(t, spec.Op{Kind: spec.OpRegister, P: real, Bytes: drawSize(t), Alloc: drawKind(t)})
	}
}

// collide applies a run of colliding pointers: each registered as an owned
// pointer, or registered and then every other one released (dead keys left
// along the chain), or listed as the holders of one buffer that spans them.
// The runs of earlier collide actions stay, so chains of live and dead keys
// build up over a sequence, and a buffer of several holders meets them.
func (m *machine) collide(t *rapid.T) {
	keys := m.colliding
	n := rapid.IntRange(min(2, len(keys)), len(keys)).Draw(t, "ncolliding")
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
	m.applyRun(t, ops)
}
