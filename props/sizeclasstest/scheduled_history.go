package sizeclasstest

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anishathalye/porcupine"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// The contract of a Pool as a porcupine model, for CheckScheduled's
// histories of Alloc, Free, SetPinned, Trim and Close. It follows the
// model's rules (Model) but leaves an implementation the choices the
// contract leaves it: which free block of the class an Alloc takes, and
// whether it takes one at all or asks the device (under concurrency a cached
// block may be on its way back to a cache that the Alloc looked in before).

// applyPoolOp runs op on pool. A Close's answer is its error and the
// addresses of the blocks it reported in use (the dump's other fields are
// the implementation's view of its caches, not the contract's).
func applyPoolOp(pool spec.Pool, op spec.Op) spec.Result {
	if op.Kind != spec.OpClose {
		return op.Apply(pool)
	}
	leaks, err := pool.Close()
	addrs := make([]string, len(leaks))
	for i, b := range leaks {
		addrs[i] = b.Addr.String()
	}
	return spec.Result{Err: spec.ErrName(err), State: "leaks [" + strings.Join(addrs, " ") + "]"}
}

// poolAnswer is a call's answer in a history: the result and, for a Trim
// made under a scheduler, the blocks it gave back to the device (Known).
type poolAnswer struct {
	spec.Result
	Released []spec.Addr
	Known    bool
}

func (a poolAnswer) String() string {
	if a.Known {
		return fmt.Sprintf("%v released %v", a.Result, a.Released)
	}
	return a.Result.String()
}

// trimmed is a call of a CheckScheduled history as porcupine operations,
// its times doubled (call, ret): the call itself and, for a Trim that says
// which blocks it released, one release of each, within the Trim's
// interval. A Trim releases its blocks one at a time, and racing Allocs
// and Frees a block may be on its way into or out of a cache as it passes
// (the contract makes Alloc and Free linearizable, not Trim): each release
// takes effect at its own instant. A Trim alone (exact: the body's, once
// the goroutines have returned) is one step, which must release every free
// block that is not frozen.
func trimmed(client int, op spec.Op, res poolAnswer, call, ret int64) []porcupine.Operation {
	out := []porcupine.Operation{{ClientId: client, Input: op, Output: res, Call: call, Return: ret}}
	if op.Kind != spec.OpTrim || !res.Known || op.On {
		return out
	}
	for _, p := range res.Released {
		out = append(out, porcupine.Operation{ClientId: client, Input: poolRelease{P: p}, Output: res, Call: call, Return: ret})
	}
	return out
}

// poolRelease is a Trim's release of block P.
type poolRelease struct{ P spec.Addr }

func (r poolRelease) String() string { return fmt.Sprintf("(Trim releases %v)", r.P) }

// poolDevice is the simulated device of CheckScheduled, which also tells
// which goroutine of a scheduled run freed each block, so that a Trim's
// answer names the blocks it released.
type poolDevice struct {
	*spec.SimDevice
	mu    sync.Mutex
	freed map[int][]spec.Addr
}

func (d *poolDevice) Free(p spec.Addr) error {
	err := d.SimDevice.Free(p)
	if g, ok := sched.Goroutine(); ok {
		d.mu.Lock()
		d.freed[g] = append(d.freed[g], p)
		d.mu.Unlock()
	}
	return err
}

// take returns the blocks the calling goroutine freed since its last take,
// sorted, and whether it could tell (it runs under a scheduler).
func (d *poolDevice) take() ([]spec.Addr, bool) {
	g, ok := sched.Goroutine()
	if !ok {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.freed[g]
	delete(d.freed, g)
	slices.Sort(out)
	return out, true
}

// poolBlock is what the contract says of one block.
type poolBlock struct {
	size   int64
	class  int // -1 for a large block
	inUse  bool
	frozen bool
}

// poolState is the contract's state: the blocks held from the device, the
// addresses the device got back (never handed out again), pin mode and
// whether the pool is closed. Steps copy it; it is never changed in place.
// A state is lax after a Trim that could not say which blocks it released
// (a run without the scheduler): from then on any answer is allowed, and
// only the device's account judges the run.
type poolState struct {
	cfg    spec.Config
	blocks map[spec.Addr]poolBlock
	gone   map[spec.Addr]bool
	pinned bool
	closed bool
	lax    bool
	k      string // key, once made: a state is not changed after its step
}

// newPoolState is the state of a pool whose dump is blocks, in pin mode if
// pinned.
func newPoolState(cfg spec.Config, blocks []spec.Block, pinned bool) *poolState {
	s := &poolState{cfg: cfg, blocks: map[spec.Addr]poolBlock{}, gone: map[spec.Addr]bool{}, pinned: pinned}
	for _, b := range blocks {
		s.blocks[b.Addr] = poolBlock{size: b.Size, class: b.Class, inUse: b.InUse, frozen: b.Frozen}
	}
	return s
}

func (s *poolState) clone() *poolState {
	c := *s
	c.blocks, c.gone, c.k = maps.Clone(s.blocks), maps.Clone(s.gone), ""
	return &c
}

// key is the state as text, for porcupine's cache of visited states, which
// compares states often: made once.
func (s *poolState) key() string {
	if s.k == "" {
		s.k = s.makeKey()
	}
	return s.k
}

func (s *poolState) makeKey() string {
	b := make([]byte, 0, 16*(len(s.blocks)+len(s.gone))+8)
	for _, f := range []bool{s.pinned, s.closed, s.lax} {
		b = strconv.AppendBool(b, f)
	}
	for _, a := range slices.Sorted(maps.Keys(s.blocks)) {
		k := s.blocks[a]
		b = strconv.AppendUint(append(b, ' '), uint64(a), 16)
		b = append(b, ':', "fi"[bool2int(k.inUse)], "tf"[bool2int(k.frozen)])
	}
	for _, a := range slices.Sorted(maps.Keys(s.gone)) {
		b = strconv.AppendUint(append(b, " -"...), uint64(a), 16)
	}
	return string(b)
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

// poolModel is the porcupine model of a history from state init.
func poolModel(init *poolState) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return init },
		Step: func(state, input, output any) (bool, any) {
			if r, ok := input.(poolRelease); ok {
				return state.(*poolState).release(r.P)
			}
			return poolStep(state.(*poolState), input.(spec.Op), output.(poolAnswer))
		},
		Equal: func(a, b any) bool { return a.(*poolState).key() == b.(*poolState).key() },
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			h.Write([]byte(s.(*poolState).key()))
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) },
		DescribeState:     func(s any) string { return s.(*poolState).key() },
	}
}

// poolStep is one call of the contract from state s: whether the
// implementation's answer got is one the contract allows, and the state
// after it.
func poolStep(s *poolState, op spec.Op, got poolAnswer) (bool, *poolState) {
	switch {
	case s.lax:
		return true, s
	case s.closed:
		return got.Err == "ErrClosed", s
	}
	switch op.Kind {
	case spec.OpAlloc:
		return s.alloc(op.N, got.Result)
	case spec.OpFree:
		return s.free(op.P, got.Result)
	case spec.OpSetPinned:
		if got.Err != "" {
			return false, s
		}
		next := s.clone()
		next.pinned = op.On
		return true, next
	case spec.OpTrim:
		switch {
		case !got.Known:
			next := s.clone()
			next.lax = true
			return got.Err == "", next
		case op.On:
			return s.trimAll(got)
		}
		return got.Err == "", s // its releases are steps of their own (trimmed)
	case spec.OpClose:
		return s.close(got.Result)
	}
	return false, s
}

// alloc: a free block of n's class (a large one of at least n's size), or
// a block new to the pool, never one in use or one the device got back.
func (s *poolState) alloc(n int64, got spec.Result) (bool, *poolState) {
	size, _ := s.cfg.Round(n)
	class := s.cfg.ClassOf(size)
	if class >= 0 {
		size = s.cfg.Classes[class]
	}
	if got.Err != "" || got.Addr == 0 || s.gone[got.Addr] {
		return false, s
	}
	b, known := s.blocks[got.Addr]
	switch {
	case !known:
		b = poolBlock{size: size, class: class}
	case b.inUse || b.class != class || b.size < size:
		return false, s
	}
	b.inUse = true
	b.frozen = b.frozen || s.pinned
	next := s.clone()
	next.blocks[got.Addr] = b
	return true, next
}

func (s *poolState) free(p spec.Addr, got spec.Result) (bool, *poolState) {
	b, known := s.blocks[p]
	switch {
	case p == 0:
		return got.Err == "", s
	case !known:
		return got.Err == "ErrUnknownPointer", s
	case !b.inUse:
		return got.Err == "ErrDoubleFree", s
	case got.Err != "":
		return false, s
	}
	b.inUse = false
	next := s.clone()
	next.blocks[p] = b
	return true, next
}

// trimAll is a Trim that ran alone: it released exactly the free blocks
// that are not frozen, and reports their bytes.
func (s *poolState) trimAll(got poolAnswer) (bool, *poolState) {
	next := s.clone()
	var want []spec.Addr
	var bytes int64
	for a, b := range s.blocks {
		if !b.inUse && !b.frozen {
			want = append(want, a)
			bytes += b.size
			delete(next.blocks, a)
			next.gone[a] = true
		}
	}
	slices.Sort(want)
	return got.Err == "" && got.Bytes == bytes && slices.Equal(got.Released, want), next
}

// release is a Trim's release of block p: only a free block that is not
// frozen may go back to the device, and then it is gone.
func (s *poolState) release(p spec.Addr) (bool, *poolState) {
	if s.lax {
		return true, s
	}
	b, ok := s.blocks[p]
	if !ok || b.inUse || b.frozen {
		return false, s // in use, frozen, unknown or given back before
	}
	next := s.clone()
	delete(next.blocks, p)
	next.gone[p] = true
	return true, next
}

// close reports exactly the blocks in use, and every block goes back.
func (s *poolState) close(got spec.Result) (bool, *poolState) {
	var leaks []string
	for _, a := range slices.Sorted(maps.Keys(s.blocks)) {
		if s.blocks[a].inUse {
			leaks = append(leaks, a.String())
		}
	}
	want := spec.Result{State: "leaks [" + strings.Join(leaks, " ") + "]"}
	next := s.clone()
	next.closed = true
	for a := range s.blocks {
		next.gone[a] = true
	}
	next.blocks = map[spec.Addr]poolBlock{}
	return got == want, next
}
