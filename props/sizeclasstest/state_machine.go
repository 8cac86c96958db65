package sizeclasstest

import (
	"slices"

	"github.com/memverify/memverify/internal/draw"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckStateMachine is the sequential differential property of a Pool:
// rapid draws a configuration (three small classes, the seed's default ones,
// or about one time in six any valid shape: classes that are not powers of
// two, none at all, alignments from 1 byte up, see drawPoolEnv) and a device
// capacity, then sequences of Alloc (class boundaries, large, null, negative
// and overflowing sizes), Free (live, freed, interior and junk addresses),
// SetPinned, Trim, Stats and an occasional Close, with device mallocs and
// frees made to fail now and then. Each call goes to the model and to
// factory's pool; PoolDiff compares them and checks the pool's invariants
// after every call. A mismatch fails t with the shrunk op trace.
func CheckStateMachine(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		env := drawPoolEnv(rt)
		d, err := NewPoolDiff(factory, env.cfg, env.capacity)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		m := &poolMachine{cfg: env.cfg, diff: d}
		rt.Repeat(m.actions())
	})
}

// poolMachine is the state of one CheckStateMachine run: the diff, and the
// addresses handed out so far (live: not freed since), which the Free
// actions aim at.
type poolMachine struct {
	cfg        spec.Config
	diff       *PoolDiff
	live, seen []spec.Addr
}

// step applies op through the diff and fails t with the trace if the two
// sides disagree.
func (m *poolMachine) step(t *rapid.T, op spec.Op) {
	got, err := m.diff.Step(op)
	if err != nil {
		t.Fatalf("%s", m.diff.failure(err))
	}
	switch {
	case op.Kind == spec.OpAlloc && got.Addr != 0:
		m.live = append(m.live, got.Addr)
		m.seen = append(m.seen, got.Addr)
	case op.Kind == spec.OpFree:
		m.live = slices.DeleteFunc(m.live, func(q spec.Addr) bool { return q == op.P })
	}
}

// actions are the calls rapid draws from. A burst of one size fills a
// class's cache, and a burst of frees empties the live list faster; a burst
// of one is a plain call, so a shrunk burst is no longer than it must be.
func (m *poolMachine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"Alloc": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpAlloc, N: drawRequest(t, m.cfg), Fault: drawFault(t, spec.MallocFails)})
		},
		"AllocBurst": func(t *rapid.T) {
			n := drawRequest(t, m.cfg)
			for range rapid.IntRange(1, 6).Draw(t, "burst") {
				m.step(t, spec.Op{Kind: spec.OpAlloc, N: n})
			}
		},
		"FreeBurst": func(t *rapid.T) {
			for range rapid.IntRange(1, 6).Draw(t, "burst") {
				if len(m.live) == 0 {
					return
				}
				m.step(t, spec.Op{Kind: spec.OpFree, P: rapid.SampledFrom(m.live).Draw(t, "p")})
			}
		},
		"Free": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpFree, P: drawFreeTarget(t, m.live, m.seen)})
		},
		"SetPinned": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpSetPinned, On: rapid.Bool().Draw(t, "on")})
		},
		"Trim": func(t *rapid.T) {
			m.step(t, spec.Op{Kind: spec.OpTrim, Fault: drawFault(t, spec.FreeFails)})
		},
		"Stats": func(t *rapid.T) { m.step(t, spec.Op{Kind: spec.OpStats}) },
		"Close": func(t *rapid.T) {
			if !draw.Rarely(t, 7, "close") {
				t.Skip("Close is drawn rarely: it ends the interesting part")
			}
			m.step(t, spec.Op{Kind: spec.OpClose, Fault: drawFault(t, spec.FreeFails)})
		},
	}
}
