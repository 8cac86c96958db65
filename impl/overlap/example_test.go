package overlap_test

import (
	"fmt"

	impl "github.com/memverify/memverify/impl/overlap"
	spec "github.com/memverify/memverify/model/overlap"
)

// The seed's rule and the bounding box against the exact answer, on two
// 8-byte-strided float32 views half an element apart: they share bytes.
func ExampleExact() {
	a := spec.View{Offset: 0, ElemSize: 4, Shape: []int64{4}, Strides: []int64{8}}
	b := spec.View{Offset: 2, ElemSize: 4, Shape: []int64{4}, Strides: []int64{8}}
	exact, _ := impl.Exact(a, b)
	box, _ := impl.BBox(a, b)
	seed, _ := impl.SeedGCD(a, b)
	fmt.Println("Exact:", exact, "BBox:", box, "SeedGCD:", seed)
	// Output: Exact: Yes BBox: Yes SeedGCD: No
}

// A dependency tracker prepares each view once and compares prepared views.
func ExampleExactPrepared() {
	x, _ := spec.Dense(0, 4, 64, 64)
	top, _ := spec.Slice(x, 0, 0, 33, 1)
	bottom, _ := spec.Slice(x, 0, 32, 64, 1)
	pt, _ := impl.Prepare(top)
	pb, _ := impl.Prepare(bottom)
	fmt.Println(impl.ExactPrepared(&pt, &pb))
	// Output: Yes
}
