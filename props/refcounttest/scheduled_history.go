package refcounttest

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// The calls of CheckScheduled as data, what each returned (its frees
// included), and the porcupine model that judges a history of them.

// snapshotKind marks a call that is not a spec.Op: Stats.
type snapshotKind uint8

const snapStats snapshotKind = 1

// scheduledOp is one call of a CheckScheduled history: the spec.Op, or,
// when snapshot is set, Stats().
type scheduledOp struct {
	spec.Op
	snapshot snapshotKind
}

func (o scheduledOp) String() string {
	switch o.snapshot {
	case snapStats:
		return "Stats()"
	}
	return o.Op.String()
}

// scheduledResult is what a call returned, comparable with ==: the
// result with the buffer ID left out (IDs are the implementation's choice),
// a snapshot printed without IDs, and the frees the call made, printed in
// order ("?" when they could not be told apart from other goroutines').
type scheduledResult struct {
	Err   string
	Value int64
	State string
	Frees string
}

func (r scheduledResult) String() string {
	s := spec.Result{Err: r.Err, Value: r.Value}.String()
	if r.State != "" {
		s += " " + r.State
	}
	if r.Frees != "" && r.Frees != unattributed {
		s += " frees " + r.Frees
	}
	return s
}

// unattributed is the Frees of a call made where frees cannot be told
// apart by goroutine (a run without the scheduler).
const unattributed = "?"

// apply runs o on r. With frees, it collects the frees r made during the
// call, when they can be told apart by goroutine.
func (o scheduledOp) apply(r spec.Registry, frees *attributedFrees) scheduledResult {
	var res scheduledResult
	switch o.snapshot {
	case snapStats:
		res.State = fmt.Sprintf("%+v", r.Stats())
	case 0:
		if o.Kind == spec.OpClose {
			leaked, err := r.Close()
			res.Err, res.Value, res.State = spec.ErrName(err), int64(len(leaked)), fmt.Sprint(stripIDs(leaked))
			break
		}
		out := o.Op.Apply(r)
		res.Err, res.Value = out.Err, out.Value
	}
	if frees != nil {
		res.Frees = frees.takeCurrent()
	}
	return res
}

// attributedFrees is the Freer of CheckScheduled: it keeps every free, and,
// under a scheduler, which goroutine made it (sched.Goroutine: the body is
// 0, goroutine i is i+1), so that each call's frees are its own.
type attributedFrees struct {
	mu      sync.Mutex
	every   []freeCall
	byG     [][]freeCall
	unknown bool // a free came from a goroutine no scheduler runs
}

func newAttributedFrees(goroutines int) *attributedFrees {
	return &attributedFrees{byG: make([][]freeCall, goroutines+1)}
}

func (f *attributedFrees) Free(p spec.Addr, bytes int64, kind spec.Kind) {
	c := freeCall{p, bytes, kind}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.every = append(f.every, c)
	if g, ok := sched.Goroutine(); ok && g < len(f.byG) {
		f.byG[g] = append(f.byG[g], c)
		return
	}
	f.unknown = true
}

// takeCurrent returns the calling goroutine's frees since its last call,
// printed, or unattributed outside a scheduler.
func (f *attributedFrees) takeCurrent() string {
	g, ok := sched.Goroutine()
	if !ok {
		return unattributed
	}
	return f.take(g)
}

// take returns goroutine g's frees since the last take, printed.
func (f *attributedFrees) take(g int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := fmt.Sprint(f.byG[g])
	f.byG[g] = nil
	if out == "[]" {
		return ""
	}
	return out
}

// all returns every free made so far.
func (f *attributedFrees) all() []freeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.every)
}

// sortedFrees lists the keys of both maps, sorted.
func sortedFrees(a, b map[freeCall]int) []freeCall {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y freeCall) int { return cmp.Compare(x.String(), y.String()) })
	return keys
}

// scheduledState is the model's state after a prefix of a history: the
// calls applied so far, and a digest of the model after them, for
// porcupine's state cache and for the steps' memo.
type scheduledState struct {
	ops    []scheduledOp
	digest string
}

// scheduledStep is what the model does in one step from a state: the
// result it returns (its frees included) and the digest after it.
type scheduledStep struct {
	want   scheduledResult
	digest string
}

// scheduledModel is the porcupine model of a CheckScheduled history, from
// the model after the set-up calls. A step replays the state's calls on a
// fresh model (the model cannot be copied), so steps are memoised by state
// digest and call: porcupine's search takes the same step from the same
// state many times, above all for a history that is not linearizable.
func scheduledModel(setup []scheduledOp, pointers []spec.Addr) porcupine.Model {
	replay := func(ops []scheduledOp) (*spec.Model, *attributedFrees) {
		frees := newAttributedFrees(0)
		m := spec.New(frees)
		for _, op := range setup {
			op.apply(m, nil)
		}
		for _, op := range ops {
			op.apply(m, nil)
		}
		return m, frees
	}
	memo := map[string]scheduledStep{}
	step := func(s *scheduledState, op scheduledOp) scheduledStep {
		key := s.digest + "|" + op.String()
		if st, ok := memo[key]; ok {
			return st
		}
		m, frees := replay(s.ops)
		before := len(frees.all())
		st := scheduledStep{want: op.apply(m, nil)}
		st.want.Frees = printFrees(frees.all()[before:])
		next := append(slices.Clip(s.ops), op)
		st.digest = modelDigest(m, pointers, func() *spec.Model { m, _ := replay(next); return m })
		memo[key] = st
		return st
	}
	return porcupine.Model{
		Init: func() any {
			m, _ := replay(nil)
			return &scheduledState{digest: modelDigest(m, pointers, func() *spec.Model { m, _ := replay(nil); return m })}
		},
		Step: func(state, input, output any) (bool, any) {
			s, op, got := state.(*scheduledState), input.(scheduledOp), output.(scheduledResult)
			st := step(s, op)
			want := st.want
			if got.Frees == unattributed {
				want.Frees = unattributed
			}
			if want != got {
				return false, state
			}
			return true, &scheduledState{ops: append(slices.Clip(s.ops), op), digest: st.digest}
		},
		Equal: func(a, b any) bool { return a.(*scheduledState).digest == b.(*scheduledState).digest },
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			h.Write([]byte(s.(*scheduledState).digest))
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) },
		DescribeState:     func(s any) string { return s.(*scheduledState).digest },
	}
}

// printFrees prints frees as the Frees of a result.
func printFrees(frees []freeCall) string {
	if len(frees) == 0 {
		return ""
	}
	return fmt.Sprint(frees)
}

// modelDigest is everything of the model m that a later call can
// observe, as text: whether it is closed (Register of null is a no-op on an
// open registry), Stats, Live without buffer IDs, and the share each of
// pointers holds, which Live does not show (a holder listed twice holds
// two). A share is counted by releasing the pointer until it is gone, in a
// copy of m that again makes.
func modelDigest(m *spec.Model, pointers []spec.Addr, again func() *spec.Model) string {
	var b strings.Builder
	if m.Register(0, 1, spec.ScalarNew) != nil {
		b.WriteString("closed ")
	}
	fmt.Fprintf(&b, "%+v %v shares", m.Stats(), stripIDs(m.Live()))
	for _, p := range pointers {
		if !m.IsRegistered(p) {
			continue
		}
		c, n := again(), 0
		for ; c.IsRegistered(p) && n < 1<<10; n++ {
			c.Unregister(p)
		}
		fmt.Fprintf(&b, " %#x:%d", uint64(p), n)
	}
	return b.String()
}
