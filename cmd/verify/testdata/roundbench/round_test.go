// Package roundbench holds two cheap benchmarks for
// TestBenchRoundsInterleaves: the rounds must collect one sample of each per
// round, in turn.
package roundbench

import "testing"

var sink int

func BenchmarkSum(b *testing.B) {
	for i := range b.N {
		sink += i
	}
}

func BenchmarkProduct(b *testing.B) {
	for i := range b.N {
		sink *= i | 1
	}
}
