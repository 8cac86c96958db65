package sched_test

import (
	"sync"
	"testing"

	"github.com/memverify/memverify/sched"
)

// Outside a scheduled run — any goroutine in a normal build, and goroutines
// a scheduler does not run in a build with the tag — the locks are real locks.
func TestLocksExcludeOrdinaryGoroutines(t *testing.T) {
	var (
		mu     sched.Mutex
		rw     sched.RWMutex
		wg     sync.WaitGroup
		n, m   int
		readOK = true
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				mu.Lock()
				n++
				mu.Unlock()
				rw.Lock()
				m++
				rw.Unlock()
				rw.RLock()
				if m < 0 {
					readOK = false
				}
				rw.RUnlock()
				sched.Point("ignored")
			}
		}()
	}
	wg.Wait()
	if n != 4000 || m != 4000 || !readOK {
		t.Fatalf("n = %d, m = %d, want 4000 each", n, m)
	}
	if !mu.TryLock() || mu.TryLock() {
		t.Fatal("TryLock: want true on a free lock, then false")
	}
	mu.Unlock()
	if !rw.TryRLock() || !rw.TryRLock() || rw.TryLock() {
		t.Fatal("TryRLock twice then TryLock: want true, true, false")
	}
	rw.RUnlock()
	rw.RUnlock()
	var l sync.Locker = rw.RLocker()
	l.Lock()
	l.Unlock()
}

func TestGoRunsOrdinaryGoroutines(t *testing.T) {
	done := make(chan struct{})
	sched.Go("worker", func() { sched.Yield(); close(done) })
	<-done
}

func TestTimelineHasAColumnPerGoroutine(t *testing.T) {
	s := sched.Schedule{
		Strategy:   "by hand",
		Goroutines: []string{"main", "A", "B"},
		Steps: []sched.Step{
			{G: 0, Kind: sched.KindSpawn, What: "A"},
			{G: 0, Kind: sched.KindSpawn, What: "B"},
			{G: 1, Kind: sched.KindCall, What: "Inc()"},
			{G: 1, Kind: sched.KindPoint, What: "load n"},
			{G: 1, Kind: sched.KindPoint, What: "store n"},
			{G: 2, Kind: sched.KindYield, Preempted: true},
			{G: 2, Kind: sched.KindYield},
			{G: 2, Kind: sched.KindYield},
			{G: 1, Kind: sched.KindReturn, What: "ok"},
			{G: 0, Kind: sched.KindFail, What: "lost update"},
		},
		Decisions:   3,
		Preemptions: 1,
	}
	want := `interleaving (by hand, 3 goroutines, 10 steps, 3 decisions, 1 preemptions; '>' marks a preemption):
  step main             | A          | B
    1  go A             |            |
    2  go B             |            |
    3                   | call Inc() |
    4                   | load n     |
    5                   | store n    |
    6>                  |            | yield ×3
    9                   | → ok       |
   10  FAIL lost update |            |
`
	if got := s.Timeline(); got != want {
		t.Fatalf("timeline:\n%s\nwant:\n%s", got, want)
	}
}

func TestDivergenceFindsTheFirstDifferentStep(t *testing.T) {
	a := sched.Schedule{Goroutines: []string{"main", "A"}, Steps: []sched.Step{{G: 0, Kind: sched.KindSpawn, What: "A"}, {G: 1, Kind: sched.KindPoint, What: "x"}}}
	b := a
	if d := a.Divergence(b); d != -1 {
		t.Fatalf("a schedule diverges from itself at %d", d)
	}
	b.Steps = []sched.Step{a.Steps[0], {G: 0, Kind: sched.KindPoint, What: "x"}}
	if d := a.Divergence(b); d != 1 {
		t.Fatalf("divergence at %d, want 1", d)
	}
	b.Steps = a.Steps[:1]
	if d := a.Divergence(b); d != 1 {
		t.Fatalf("a prefix diverges at %d, want 1", d)
	}
}

func TestAtomicsKeepTheirMeaning(t *testing.T) {
	var (
		b   sched.Bool
		i32 sched.Int32
		i64 sched.Int64
		u32 sched.Uint32
		u64 sched.Uint64
		up  sched.Uintptr
		p   sched.Pointer[int]
	)
	one := 1
	ok := !b.Swap(true) && b.Load() && b.CompareAndSwap(true, false) && !b.Load()
	ok = ok && i32.Add(3) == 3 && i32.Or(4) == 3 && i32.And(6) == 7 && i32.Load() == 6 && i32.Swap(1) == 6
	ok = ok && i64.Add(-2) == -2 && i64.CompareAndSwap(-2, 5) && i64.Load() == 5
	u32.Store(7)
	ok = ok && u32.Load() == 7 && u64.Add(9) == 9 && up.Add(2) == 2
	ok = ok && p.Load() == nil && p.CompareAndSwap(nil, &one) && *p.Swap(nil) == 1
	if !ok {
		t.Fatal("an atomic operation gave a wrong result")
	}
}
