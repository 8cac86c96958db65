package refcount_test

import (
	"testing"
	"time"

	spec "github.com/memverify/memverify/model/refcount"
)

// A buffer with tens of thousands of holders registers (LockFree's table
// grows for the holders being inserted, not only for those already live),
// counts every holder, releases them one by one in linear time, and frees
// once when the last one lets go.
func TestBufferWithManyAliases(t *testing.T) {
	const real = spec.Addr(0x10_0000)
	// From some 50,000 holders on, a table sized for its live keys alone
	// could not take them. The race detector gets a smaller buffer: its
	// shadow memory for this one runs to most of a gigabyte.
	n := 70_000
	if raceEnabled {
		n = 10_000
	}
	aliases := make([]spec.Addr, n)
	for i := range aliases {
		aliases[i] = real + spec.Addr(16*(i+1))
	}
	for _, name := range []string{"Sharded", "LockFree"} {
		mk := factories[name]
		t.Run(name, func(t *testing.T) {
			var frees []spec.Addr
			r := mk(spec.FreerFunc(func(p spec.Addr, bytes int64, kind spec.Kind) { frees = append(frees, p) }))
			type result struct {
				id  spec.BufferID
				err error
			}
			registered := make(chan result, 1)
			go func() {
				id, err := r.RegisterBuffer(real, int64(16*(n+1)), aliases, spec.ArrayNew)
				registered <- result{id, err}
			}()
			timeout := 5 * time.Second // some 50 ms are enough; a table that cannot grow never returns
			if raceEnabled {
				timeout *= 3
			}
			select {
			case res := <-registered:
				if res.err != nil || res.id == 0 {
					t.Fatalf("RegisterBuffer = %v, %v", res.id, res.err)
				}
			case <-time.After(timeout):
				t.Fatalf("RegisterBuffer of %d aliases has not returned after %v", n, timeout)
			}
			if got := r.Refs(aliases[n-1]); got != int64(n+1) {
				t.Fatalf("Refs = %d, want %d", got, n+1)
			}
			if s := r.Stats(); s != (spec.Stats{Buffers: 1, Bytes: int64(16 * (n + 1))}) {
				t.Fatalf("Stats() = %+v", s)
			}
			for _, a := range aliases {
				if err := r.Unregister(a); err != nil {
					t.Fatalf("Unregister(%#x): %v", uint64(a), err)
				}
			}
			if got := r.Refs(real); got != 1 || len(frees) != 0 {
				t.Fatalf("after the alias releases: Refs %d, %d frees; want 1, none", got, len(frees))
			}
			if err := r.Unregister(real); err != nil {
				t.Fatal(err)
			}
			if len(frees) != 1 || frees[0] != real || r.Stats() != (spec.Stats{}) {
				t.Fatalf("after the last release: frees %v, Stats %+v", frees, r.Stats())
			}
		})
	}
}
