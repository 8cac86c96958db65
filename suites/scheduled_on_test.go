//go:build sched

package suites

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	refimpl "github.com/memverify/memverify/impl/refcount"
	scimpl "github.com/memverify/memverify/impl/sizeclass"
	refspec "github.com/memverify/memverify/model/refcount"
	scspec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// withRapidFlags runs fn with rapid's seed and checks set, and puts them
// back after.
func withRapidFlags(seed, checks int, fn func()) {
	for name, v := range map[string]int{"rapid.seed": seed, "rapid.checks": checks} {
		f := flag.Lookup(name)
		prev := f.Value.String()
		f.Value.Set(fmt.Sprint(v))
		defer f.Value.Set(prev)
	}
	fn()
}

// TestScheduledDeterminism runs every scheduled suite's check twice from one
// seed and compares the schedules of the two runs step by step: the
// scheduler draws every choice from rapid, and the implementations pick
// nothing by themselves (no map order, no real P), so one seed is one
// sequence of schedules, which is what makes a failure replay.
func TestScheduledDeterminism(t *testing.T) {
	for _, s := range All() {
		check, ok := scheduledChecks[s.Name()]
		if !ok {
			continue
		}
		t.Run(s.Domain+"/"+s.Property+"/impl="+s.Impl, func(t *testing.T) {
			var runs [2][]sched.Schedule
			for i := range runs {
				opts := scheduledOptions(s.Domain, s.Property, s.Impl)
				opts.Record = func(sc sched.Schedule) { runs[i] = append(runs[i], sc) }
				var res props.Result
				withRapidFlags(7, 30, func() { res = props.Run(s.Name(), func(tb rapid.TB) { check(tb, opts) }) })
				if res.Outcome == props.Failed {
					t.Fatalf("the unmutated suite failed:\n%s", res.Output)
				}
			}
			if len(runs[0]) != len(runs[1]) || len(runs[0]) == 0 {
				t.Fatalf("%d schedules, then %d", len(runs[0]), len(runs[1]))
			}
			for i := range runs[0] {
				if at := runs[0][i].Divergence(runs[1][i]); at >= 0 {
					t.Fatalf("run %d: the schedules part at step %d:\n%s\n%s", i+1, at, runs[0][i].Timeline(), runs[1][i].Timeline())
				}
			}
		})
	}
}

// TestScheduledExplore runs small scenarios of each concurrent
// implementation under every schedule with at most two preemptions
// (sched.Explore): two goroutines, a call or two each, checked for the
// domain's exactly-once facts. They are cheap exhaustive regression tests,
// and Explore fails a scenario whose choices differ between two runs of one
// schedule (a pick by map order, or by the real P).
func TestScheduledExplore(t *testing.T) {
	registries := map[string]func(refspec.Freer) refspec.Registry{
		"Sharded":  func(f refspec.Freer) refspec.Registry { return refimpl.NewShardedN(f, 4) },
		"LockFree": func(f refspec.Freer) refspec.Registry { return refimpl.NewLockFreeN(f, 8) },
	}
	for _, name := range []string{"Sharded", "LockFree"} {
		t.Run("refcount/Scheduled/impl="+name, func(t *testing.T) {
			e := sched.Explore(t, sched.Options{}, func(s *sched.Scheduler) { lastReleases(s, registries[name]) })
			t.Logf("%+v", e)
		})
	}
	pools := map[string]func(scspec.Device, scspec.Config) (scspec.Pool, error){
		"Mutex": func(d scspec.Device, c scspec.Config) (scspec.Pool, error) { return scimpl.NewMutex(d, c) },
		"Sharded": func(d scspec.Device, c scspec.Config) (scspec.Pool, error) {
			return scimpl.NewSharded(d, c, scimpl.ShardedOptions{Shards: 1, Capacity: 2})
		},
		"LockFree": func(d scspec.Device, c scspec.Config) (scspec.Pool, error) { return scimpl.NewLockFree(d, c) },
	}
	for _, name := range []string{"Mutex", "Sharded", "LockFree"} {
		t.Run("sizeclass/Scheduled/impl="+name, func(t *testing.T) {
			e := sched.Explore(t, sched.Options{}, func(s *sched.Scheduler) { allocFreePairs(s, pools[name]) })
			t.Logf("%+v", e)
		})
	}
}

// lastReleases registers a buffer with one alias and releases its two
// holders from two goroutines: exactly one free, with the buffer's size.
func lastReleases(s *sched.Scheduler, registry func(refspec.Freer) refspec.Registry) {
	var frees []string
	r := registry(refspec.FreerFunc(func(p refspec.Addr, bytes int64, _ refspec.Kind) {
		frees = append(frees, fmt.Sprintf("%#x/%d", uint64(p), bytes)) // the goroutines run one at a time
	}))
	if _, err := r.RegisterBuffer(0x2000, 0x100, []refspec.Addr{0x2030}, refspec.AlignedAlloc); err != nil {
		s.Fatalf("RegisterBuffer: %v", err)
	}
	for i, p := range []refspec.Addr{0x2000, 0x2030} {
		s.Go(fmt.Sprintf("G%d", i+1), func() {
			s.Call(fmt.Sprintf("Unregister(%#x)", uint64(p)))
			s.Return(fmt.Sprint(r.Unregister(p)))
		})
	}
	s.Wait()
	if !slices.Equal(frees, []string{"0x2000/256"}) {
		s.Fatalf("the last releases freed %v, want exactly [0x2000/256]", frees)
	}
}

// allocFreePairs has two goroutines each allocate a block of a pool warmed
// up with one cached block, and free it: no block is held by both at once,
// every call succeeds, and the device sees no misuse.
func allocFreePairs(s *sched.Scheduler, pool func(scspec.Device, scspec.Config) (scspec.Pool, error)) {
	dev := scspec.NewSimDevice(1 << 40)
	p, err := pool(dev, scspec.Config{Alignment: 256, Classes: []int64{1024}})
	if err != nil {
		s.Fatalf("pool: %v", err)
	}
	a, _ := p.Alloc(1024)
	if err := p.Free(a); err != nil {
		s.Fatalf("warm-up Free: %v", err)
	}
	held := map[scspec.Addr]string{} // the goroutines run one at a time
	for i := range 2 {
		g := fmt.Sprintf("G%d", i+1)
		s.Go(g, func() {
			s.Call("Alloc(1024)")
			b, err := p.Alloc(1024)
			s.Return(fmt.Sprint(b, err))
			if other, ok := held[b]; ok || err != nil {
				s.Fatalf("Alloc gave %s %v (%v), which %s holds", g, b, err, other)
			}
			held[b] = g
			sched.Point("use the block") // the other goroutine may run meanwhile
			delete(held, b)
			s.Call(fmt.Sprintf("Free(%v)", b))
			err = p.Free(b)
			s.Return(fmt.Sprint(err))
			if err != nil {
				s.Fatalf("Free(%v): %v", b, err)
			}
		})
	}
	s.Wait()
	if v := dev.Violations(); len(v) > 0 {
		s.Fatalf("device misuse: %s", strings.Join(v, "; "))
	}
}
