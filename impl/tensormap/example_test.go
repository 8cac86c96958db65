package tensormap_test

import (
	"fmt"

	impl "github.com/memverify/memverify/impl/tensormap"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// Two tasks write the left and right halves of a 64×64 float32 tensor; a
// third reads its first row, which both halves touch, and a fourth reads a
// column of the right half only.
func Example() {
	m, err := impl.New(spec.Config{Capacity: 1024})
	if err != nil {
		panic(err)
	}
	const tensor spec.Storage = 0x7f00_0000_0000
	half := func(col int64) overlap.View {
		return overlap.View{Offset: col * 32 * 4, ElemSize: 4, Shape: []int64{64, 32}, Strides: []int64{256, 4}}
	}
	_ = m.Insert(tensor, half(0), 1)
	_ = m.Insert(tensor, half(1), 2)

	row := overlap.View{Offset: 0, ElemSize: 4, Shape: []int64{64}, Strides: []int64{4}}
	all, _ := m.LookupAll(tensor, row, 8)
	fmt.Println("row 0 depends on", all)

	column := overlap.View{Offset: 40 * 4, ElemSize: 4, Shape: []int64{64}, Strides: []int64{256}}
	task, _, _ := m.Lookup(tensor, column)
	fmt.Println("column 40 depends on", task)

	_ = m.Retire(2) // task 1 is done
	all, _ = m.LookupAll(tensor, row, 8)
	fmt.Println("after Retire(2):", all)
	// Output:
	// row 0 depends on [2 1]
	// column 40 depends on 2
	// after Retire(2): [2]
}
