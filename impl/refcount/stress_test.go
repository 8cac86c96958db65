package refcount_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
)

// countFreer counts frees per pointer and fails on a free of a pointer it was
// not expecting (tracked by the test through expect).
type countFreer struct {
	mu    sync.Mutex
	frees map[spec.Addr]int
}

func (c *countFreer) Free(p spec.Addr, bytes int64, kind spec.Kind) {
	c.mu.Lock()
	c.frees[p]++
	c.mu.Unlock()
}

// TestStressRebuild runs goroutines that each register, retain, release and
// re-register pointers of their own while another goroutine keeps forcing
// table rebuilds (Stats, Live) and shared buffers come and go, on a table that
// starts tiny so that it also grows under the load. Every result must be the
// one a goroutine working alone would see, and every registration must be
// freed exactly once.
func TestStressRebuild(t *testing.T) {
	for name, mk := range map[string]func(spec.Freer) spec.Registry{
		"LockFree": func(f spec.Freer) spec.Registry { return impl.NewLockFreeN(f, 8) },
		"Sharded":  func(f spec.Freer) spec.Registry { return impl.NewShardedN(f, 4) },
	} {
		t.Run(name, func(t *testing.T) {
			rounds := 2000
			if raceEnabled || testing.Short() {
				rounds = 200
			}
			cf := &countFreer{frees: map[spec.Addr]int{}}
			r := mk(cf)
			const workers = 4
			var stop atomic.Bool
			var snaps atomic.Int64
			var wg, bg sync.WaitGroup
			bg.Add(1)
			go func() { // rebuilds and snapshots
				defer bg.Done()
				for !stop.Load() {
					r.Stats()
					r.Live()
					snaps.Add(1)
				}
			}()
			errs := make(chan error, workers)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- stressWorker(r, spec.Addr(w+1)<<24, rounds)
				}()
			}
			wg.Wait()
			stop.Store(true)
			bg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%d snapshots during the run", snaps.Load())
			if s := r.Stats(); s != (spec.Stats{}) {
				t.Fatalf("Stats() = %+v after every registration was released", s)
			}
			// Per round: a, b, the buffer at buf and an owned registration at buf.
			want := workers * rounds * 4
			total := 0
			for p, n := range cf.frees {
				w := rounds
				if p&0xfff == 0x100 {
					w = 2 * rounds
				}
				if n != w {
					t.Fatalf("%#x freed %d times, want %d", uint64(p), n, w)
				}
				total += n
			}
			if total != want {
				t.Fatalf("%d frees, want %d", total, want)
			}
		})
	}
}

// stressWorker works on pointers in [base, base+0x1000) only.
func stressWorker(r spec.Registry, base spec.Addr, rounds int) error {
	a, b, buf := base+0x10, base+0x20, base+0x100
	check := func(what string, err, want error) error {
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			return fmt.Errorf("%#x: %s: got %v, want %v", uint64(base), what, err, want)
		}
		return nil
	}
	for range rounds {
		steps := []error{
			check("Register(a)", r.Register(a, 16, spec.ArrayNew), nil),
			check("Register(a) again", r.Register(a, 16, spec.ArrayNew), spec.ErrAlreadyRegistered),
			check("Retain(a)", r.Retain(a), nil),
			check("Register(b)", r.Register(b, 32, spec.ScalarNew), nil),
		}
		if _, err := r.RegisterBuffer(buf, 0x40, []spec.Addr{buf + 8, buf + 8, buf + 16}, spec.Custom); err != nil {
			return fmt.Errorf("%#x: RegisterBuffer: %v", uint64(base), err)
		}
		if n := r.Refs(buf + 8); n != 4 {
			return fmt.Errorf("%#x: Refs(buf+8) = %d, want 4", uint64(base), n)
		}
		if n := r.Refs(a); n != 2 {
			return fmt.Errorf("%#x: Refs(a) = %d, want 2", uint64(base), n)
		}
		steps = append(steps,
			check("Unregister(a)", r.Unregister(a), nil),
			check("Unregister(buf+8)", r.Unregister(buf+8), nil),
			check("Unregister(buf)", r.Unregister(buf), nil),
			check("Register(buf) as owned while aliases hold", r.Register(buf, 8, spec.ArrayNew), nil),
			check("Unregister(buf) owned", r.Unregister(buf), nil),
			check("Unregister(buf+16)", r.Unregister(buf+16), nil),
			check("Unregister(a) last", r.Unregister(a), nil),
			check("Unregister(a) again", r.Unregister(a), spec.ErrNotRegistered),
		)
		if r.IsRegistered(a) || !r.IsRegistered(buf+8) {
			return fmt.Errorf("%#x: IsRegistered(a) = %v, IsRegistered(buf+8) = %v", uint64(base), r.IsRegistered(a), r.IsRegistered(buf+8))
		}
		steps = append(steps,
			check("Unregister(buf+8) last", r.Unregister(buf+8), nil),
			check("Unregister(b)", r.Unregister(b), nil),
		)
		for _, err := range steps {
			if err != nil {
				return err
			}
		}
	}
	return nil
}
