package sizeclasstest

import (
	"errors"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckDoubleFreeRace frees one block from two goroutines at once, many
// times over: exactly one Free must succeed and the other must report
// ErrDoubleFree, and the block must then be cached once.
func CheckDoubleFreeRace(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		size := rapid.SampledFrom([]int64{1, 1024, 4096, 16385}).Draw(rt, "size")
		_, dev, pool := newSmallPool(rt, factory)
		for round := range 20 {
			a, err := pool.Alloc(size)
			if err != nil {
				rt.Fatalf("Alloc(%d): %v", size, err)
			}
			errs := freeTwiceAtOnce(pool, a)
			ok, double := 0, 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, spec.ErrDoubleFree):
					double++
				}
			}
			if ok != 1 || double != 1 {
				rt.Fatalf("round %d: Alloc(%d) = %v, then two racing Frees returned %v and %v; want one success and one ErrDoubleFree", round, size, a, errs[0], errs[1])
			}
			if err := checkPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
				rt.Fatalf("round %d, after two racing Free(%v): %v", round, a, err)
			}
		}
	})
}

// freeTwiceAtOnce frees a from two goroutines released at once and returns
// both answers.
func freeTwiceAtOnce(pool spec.Pool, a spec.Addr) [2]error {
	var errs [2]error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range errs {
		wg.Go(func() {
			<-start
			errs[i] = pool.Free(a)
		})
	}
	close(start)
	wg.Wait()
	return errs
}
