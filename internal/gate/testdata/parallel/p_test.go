package parallel

import "testing"

func helper(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
		}
	})
}

func indirect(b *testing.B) { helper(b) }

type runner struct{}

func (runner) run(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
		}
	})
}

var table = []func(*testing.B){indirect}

func BenchmarkDirect(b *testing.B) {
	b.Run("x", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
			}
		})
	})
}

func BenchmarkHelper(b *testing.B) { indirect(b) }

func BenchmarkTable(b *testing.B) {
	for _, f := range table {
		f(b)
	}
}

func BenchmarkMethod(b *testing.B) { runner{}.run(b) }

func BenchmarkSequential(b *testing.B) {
	for range b.N {
	}
}
