//go:build sched

package sched_test

import (
	"fmt"
	"sync/atomic"

	"github.com/memverify/memverify/sched"
	"pgregory.net/rapid"
)

// Explore finds the lost update of an increment written as a load and a
// store, and prints the interleaving. (In a test, pass the *testing.T; here a
// recorder stands in for it, to show the report.)
func ExampleExplore() {
	o := record("TestCounter", func(t rapid.TB) {
		sched.Explore(t, sched.Options{}, func(s *sched.Scheduler) {
			var n atomic.Int64
			for _, name := range []string{"A", "B"} {
				s.Go(name, func() {
					s.Call("Inc()")
					sched.Point("load n")
					v := n.Load()
					sched.Point("store n")
					n.Store(v + 1)
					s.Return("ok")
				})
			}
			s.Wait()
			if got := n.Load(); got != 2 {
				s.Fatalf("n = %d after two increments", got)
			}
		})
	})
	fmt.Print(o.output)
	// Output:
	// n = 1 after two increments
	// interleaving (exhaustive (preemptions ≤ 2), schedule 2, 3 goroutines, 14 steps, 7 decisions, 1 preemptions; '>' marks a preemption):
	//   step main | A          | B
	//     1  go A |            |
	//     2  go B |            |
	//     3  wait |            |
	//     4       | call Inc() |
	//     5       | load n     |
	//     6       | store n    |
	//     7>      |            | call Inc()
	//     8       |            | load n
	//     9       |            | store n
	//    10       |            | → ok
	//    11       |            | exit
	//    12       | → ok       |
	//    13       | exit       |
	//    14  FAIL |            |
	// reproduce: go test -tags sched ./sched -run '^TestCounter$'
}
