// Package roundbench is a benchmark for TestBenchRoundsInterleaves: one
// cheap benchmark whose samples the rounds must collect, one per round.
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
