package refcount_test

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// A scope call racing with Close is linearized before it (and succeeds) or
// after it (ErrClosed); it never sees the scope stack Close emptied as "no
// scope". The registry has one open scope tracking one pointer, so Exit,
// Track and Promote all succeed before Close.
func TestScopeCallsRacingCloseAnswerNilOrErrClosed(t *testing.T) {
	const p = spec.Addr(0x1000)
	calls := []struct {
		name string
		call func(spec.Registry) error
	}{
		{"Exit", func(r spec.Registry) error { return r.Exit() }},
		{"Track", func(r spec.Registry) error { return r.Track(p) }},
		{"Promote", func(r spec.Registry) error { return r.Promote(p) }},
	}
	// Rounds enough to see the race lost many times over: a Sharded Close locks
	// 256 shards, a window a waiting call meets once in ten to a hundred
	// rounds; LockFree's Close freezes a small table, a window met once in 50
	// to 5,000 rounds, depending on how busy the machine is. The race
	// detector's slower calls widen both windows.
	for name, rounds := range map[string]int{"Sharded": 3_000, "LockFree": 30_000} {
		if raceEnabled {
			rounds /= 5
		}
		mk := factories[name]
		for _, c := range calls {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				for i := range rounds {
					r := mk(nil)
					r.Enter()
					if err := r.Register(p, 16, spec.ArrayNew); err != nil {
						t.Fatal(err)
					}
					if err := r.Track(p); err != nil {
						t.Fatal(err)
					}
					var ready atomic.Int32
					var wg sync.WaitGroup
					wg.Add(1)
					go func() {
						defer wg.Done()
						ready.Add(1)
						for ready.Load() < 2 { // a start barrier: spin until both goroutines run
							runtime.Gosched()
						}
						r.Close()
					}()
					ready.Add(1)
					for ready.Load() < 2 { // the barrier's other side
						runtime.Gosched()
					}
					err := c.call(r)
					wg.Wait()
					if err != nil && !errors.Is(err, spec.ErrClosed) {
						t.Fatalf("round %d: %s racing with Close = %v, want nil or ErrClosed", i, c.name, err)
					}
				}
			})
		}
	}
}
