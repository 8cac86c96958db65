// Package benchpkg holds benchmarks whose instruction counts the gate's
// tests measure: a loop of known work, the same loop with a few percent
// more, one that allocates, and one under RunParallel.
package benchpkg

import (
	"os"
	"testing"
)

var sink uint64

// work is the loop's body: n rounds of a multiply and an add.
//
//go:noinline
func work(x uint64, n int) uint64 {
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// rounds is 100, or 103 when GATE_TEST_SLOWER is set: 3% more work.
var rounds = func() int {
	if os.Getenv("GATE_TEST_SLOWER") != "" {
		return 103
	}
	return 100
}()

func BenchmarkWork(b *testing.B) {
	for _, name := range []string{"small", "large"} {
		b.Run("size="+name, func(b *testing.B) {
			x := uint64(1)
			for range b.N {
				x = work(x, rounds)
			}
			sink = x
		})
	}
}

var keep []*[4]uint64

func BenchmarkAlloc(b *testing.B) {
	slower := os.Getenv("GATE_TEST_SLOWER") != ""
	for i := range b.N {
		p := new([4]uint64)
		if slower {
			keep = append(keep[:0], p, new([4]uint64))
		} else {
			keep = append(keep[:0], p)
		}
		p[0] = uint64(i)
	}
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		x := uint64(1)
		for pb.Next() {
			x = work(x, 10)
		}
		sink = x
	})
}
