package refcount_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
)

// freeLog records Freer calls.
type freeLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *freeLog) Free(p spec.Addr, bytes int64, kind spec.Kind) {
	l.mu.Lock()
	l.calls = append(l.calls, fmt.Sprintf("Free(%#x, %d, %v)", uint64(p), bytes, kind))
	l.mu.Unlock()
}

func (l *freeLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.calls
	l.calls = nil
	return c
}

type factory func(spec.Freer) spec.Registry

var factories = map[string]factory{
	"Sharded":      func(f spec.Freer) spec.Registry { return impl.NewSharded(f) },
	"Sharded1":     func(f spec.Freer) spec.Registry { return impl.NewShardedN(f, 1) },
	"LockFree":     func(f spec.Freer) spec.Registry { return impl.NewLockFree(f) },
	"LockFreeCap8": func(f spec.Freer) spec.Registry { return impl.NewLockFreeN(f, 8) },
}

// diffPool is a small address pool: four buffers' worth of pointers, so that
// aliases, re-registrations and collisions are frequent.
func diffPool() []spec.Addr {
	pool := []spec.Addr{0, ^spec.Addr(0) - 0x3f}
	for b := spec.Addr(0x1000); b <= 0x4000; b += 0x1000 {
		for _, o := range []spec.Addr{0, 0x10, 0x20, 0x40} {
			pool = append(pool, b+o)
		}
	}
	return pool
}

func randOp(r *rand.Rand, pool []spec.Addr, closeRate int) spec.Op {
	p := pool[r.IntN(len(pool))]
	sizes := []int64{0x10, 0x40, 0x80, 0x40, 0, -1, 0x41}
	switch n := r.IntN(20); {
	case n < 3:
		return spec.Op{Kind: spec.OpRegister, P: p, Bytes: sizes[r.IntN(len(sizes))], Alloc: spec.Kind(r.IntN(5))}
	case n < 5:
		as := make([]spec.Addr, r.IntN(5))
		for i := range as {
			if r.IntN(3) == 0 {
				as[i] = pool[r.IntN(len(pool))]
			} else {
				as[i] = p + []spec.Addr{0, 0x10, 0x20, 0x40}[r.IntN(4)]
			}
		}
		return spec.Op{Kind: spec.OpRegisterBuffer, P: p, Bytes: sizes[r.IntN(len(sizes))], Alloc: spec.Kind(r.IntN(5)), Aliases: as}
	case n < 7:
		return spec.Op{Kind: spec.OpRetain, P: p}
	case n < 11:
		return spec.Op{Kind: spec.OpUnregister, P: p}
	case n < 12:
		return spec.Op{Kind: spec.OpIsRegistered, P: p}
	case n < 13:
		return spec.Op{Kind: spec.OpRefs, P: p}
	case n < 15:
		return spec.Op{Kind: spec.OpEnter}
	case n < 17:
		return spec.Op{Kind: spec.OpTrack, P: p}
	case n < 18:
		return spec.Op{Kind: spec.OpPromote, P: p}
	case n < 19:
		return spec.Op{Kind: spec.OpExit}
	}
	if r.IntN(closeRate) == 0 {
		return spec.Op{Kind: spec.OpClose}
	}
	return spec.Op{Kind: spec.OpRefs, P: p}
}

// canonical strips buffer IDs (the implementation's choice) to "buffer or
// not", keeping the order, which the contract fixes.
func canonical(live []spec.Registration) []spec.Registration {
	out := make([]spec.Registration, len(live))
	for i, r := range live {
		if r.Buffer != 0 {
			r.Buffer = 1
		}
		out[i] = r
	}
	return out
}

// TestDifferential runs long random op sequences against the model and every
// implementation and compares everything observable after each op.
func TestDifferential(t *testing.T) {
	for name, mk := range factories {
		t.Run(name, func(t *testing.T) {
			seeds := uint64(80)
			if raceEnabled || testing.Short() {
				seeds = 5
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				diffRun(t, mk, seed, 300, randOp)
			}
		})
	}
}

func diffRun(t *testing.T, mk factory, seed uint64, steps int, gen func(*rand.Rand, []spec.Addr, int) spec.Op) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	pool := diffPool()
	ml, il := &freeLog{}, &freeLog{}
	m, x := spec.New(ml), mk(il)
	var trace []string
	sinceClose := -1 // steps since Close; a few calls run against the closed registry
	fail := func(format string, args ...any) {
		t.Fatalf("seed %d: %s\nops:\n%s", seed, fmt.Sprintf(format, args...), formatTrace(trace))
	}
	for range steps {
		op := gen(r, pool, 30)
		want, got := op.Apply(m), op.Apply(x)
		trace = append(trace, fmt.Sprintf("%v -> %v", op, got))
		if want.Err != got.Err || want.Value != got.Value || (want.ID == 0) != (got.ID == 0) {
			fail("%v returned %v, the model %v", op, got, want)
		}
		wf, gf := ml.take(), il.take() // in order, Close's too
		if !slices.Equal(wf, gf) {
			fail("%v freed %v, the model %v", op, gf, wf)
		}
		if ws, gs := m.Stats(), x.Stats(); ws != gs {
			fail("Stats %+v, the model %+v", gs, ws)
		}
		if wl, gl := canonical(m.Live()), canonical(x.Live()); !reflect.DeepEqual(wl, gl) {
			fail("Live %+v, the model %+v", gl, wl)
		}
		for _, p := range pool {
			if m.IsRegistered(p) != x.IsRegistered(p) || m.Refs(p) != x.Refs(p) {
				fail("IsRegistered/Refs(%#x) = %v/%d, the model %v/%d", uint64(p), x.IsRegistered(p), x.Refs(p), m.IsRegistered(p), m.Refs(p))
			}
		}
		if op.Kind == spec.OpClose && sinceClose < 0 {
			sinceClose = 0
		}
		if sinceClose >= 0 {
			if sinceClose++; sinceClose > 5 {
				m, x, sinceClose = spec.New(ml), mk(il), -1
			}
		}
	}
}

func formatTrace(tr []string) string {
	if len(tr) > 40 {
		tr = tr[len(tr)-40:]
	}
	s := ""
	for _, l := range tr {
		s += "  " + l + "\n"
	}
	return s
}

// wideOp favours buffers of many holders (up to 15: beyond what one packed
// word holds) and long runs of Retain, so that LockFree's records take every
// form: packed, upgraded to copy on write when a share outgrows its field,
// and copy on write from the start.
func wideOp(r *rand.Rand, pool []spec.Addr, closeRate int) spec.Op {
	p := pool[2+r.IntN(len(pool)-2)] &^ 0xff
	switch n := r.IntN(10); {
	case n < 2:
		as := make([]spec.Addr, 5+r.IntN(11))
		for i := range as {
			as[i] = p + spec.Addr(8*r.IntN(24))
		}
		return spec.Op{Kind: spec.OpRegisterBuffer, P: p, Bytes: 0x100, Alloc: spec.Custom, Aliases: as}
	case n < 7:
		return spec.Op{Kind: spec.OpRetain, P: p + spec.Addr(8*r.IntN(3))}
	case n < 9:
		return spec.Op{Kind: spec.OpUnregister, P: p + spec.Addr(8*r.IntN(24))}
	}
	return randOp(r, pool, closeRate)
}

func TestDifferentialWideBuffers(t *testing.T) {
	for name, mk := range factories {
		t.Run(name, func(t *testing.T) {
			seeds := uint64(40)
			if raceEnabled || testing.Short() {
				seeds = 2
			}
			for seed := uint64(1); seed <= seeds; seed++ {
				diffRun(t, mk, seed, 400, wideOp)
			}
		})
	}
}
