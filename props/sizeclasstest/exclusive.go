package sizeclasstest

import (
	"fmt"
	"strings"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckExclusive is a targeted race on the class caches: goroutines
// allocate two blocks of a hot class, claim each in a shared ownership
// table, free them and repeat. A block handed to a second holder while the
// first still holds it (a lost update or ABA in a lock-free stack) fails the
// property, as does any error or a broken invariant afterwards.
func CheckExclusive(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		goroutines := rapid.IntRange(3, 4).Draw(rt, "goroutines")
		rounds := rapid.IntRange(20, 100).Draw(rt, "rounds")
		size := rapid.SampledFrom([]int64{1024, 4096}).Draw(rt, "size")
		_, dev, pool := newSmallPool(rt, factory)
		var owners sync.Map
		var problems problemLog
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range goroutines {
			wg.Go(func() {
				<-start
				for range rounds {
					if !allocTwiceAndFree(pool, size, g, &owners, &problems) {
						return
					}
				}
			})
		}
		close(start)
		wg.Wait()
		if len(problems.lines) > 0 {
			rt.Fatalf("%d goroutines × %d rounds of Alloc(%d) ×2, Free ×2:\n%s", goroutines, rounds, size, strings.Join(problems.lines, "\n"))
		}
		if err := checkPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
			rt.Fatalf("after the race: %v", err)
		}
		if st := pool.Stats(); st.InUse != 0 {
			rt.Fatalf("every block was freed, yet Stats.InUse = %d", st.InUse)
		}
	})
}

// allocTwiceAndFree is one round of goroutine g in CheckExclusive: two
// Allocs of size, each claimed in owners, then two Frees. It reports what
// went wrong to problems and returns false if the goroutine should stop.
func allocTwiceAndFree(pool spec.Pool, size int64, g int, owners *sync.Map, problems *problemLog) bool {
	var held [2]spec.Addr
	for i := range held {
		a, err := pool.Alloc(size)
		if err != nil {
			problems.add("goroutine %d: Alloc(%d): %v", g, size, err)
			return false
		}
		if prev, taken := owners.LoadOrStore(a, g); taken {
			problems.add("block %v handed to goroutine %d while goroutine %d holds it", a, g, prev)
			return false
		}
		held[i] = a
	}
	for _, a := range held {
		owners.Delete(a)
		if err := pool.Free(a); err != nil {
			problems.add("goroutine %d: Free(%v): %v", g, a, err)
			return false
		}
	}
	return true
}

// problemLog collects what goroutines saw go wrong; it is safe for
// concurrent use.
type problemLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *problemLog) add(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}
