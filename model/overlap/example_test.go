package overlap_test

import (
	"fmt"

	"github.com/memverify/memverify/model/overlap"
)

// Two column slices of a 4×16 float32 matrix interleave without sharing a
// byte, although their bounding boxes meet.
func ExampleOverlap() {
	x, _ := overlap.Dense(0, 4, 4, 16)
	every7, _ := overlap.Slice(x, 1, 0, 16, 7)   // x[:, ::7]
	from3by3, _ := overlap.Slice(x, 1, 3, 16, 3) // x[:, 3::3]
	from7by7, _ := overlap.Slice(x, 1, 7, 16, 7) // x[:, 7::7]
	a, _ := overlap.Overlap(every7, from3by3)
	b, _ := overlap.Overlap(every7, from7by7)
	fmt.Println(every7, a)
	fmt.Println(from7by7, b)
	// Output:
	// {off=0 elem=4 shape=[4 3] strides=[64 28]} No
	// {off=28 elem=4 shape=[4 2] strides=[64 28]} Yes
}
