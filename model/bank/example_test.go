package bank_test

import (
	"fmt"

	spec "github.com/memverify/memverify/model/bank"
)

// First fit bottom-up takes the lowest feasible address, top-down the
// highest; the limit moves the lowest feasible address up; a free coalesces
// on both sides.
func ExampleModel() {
	l, _ := spec.NewModel(spec.Config{Offset: 0x1000, Size: 0x1000, Alignment: 0x100})
	a, _ := l.Allocate(0x80, spec.BottomUp, 0) // rounded up to 0x100
	b, _ := l.Allocate(0x100, spec.TopDown, 0)
	c, _ := l.Allocate(0x100, spec.BottomUp, 0x1450) // at the first aligned address ≥ the limit
	fmt.Printf("%#x %#x %#x\n", uint64(a), uint64(b), uint64(c))
	_ = l.Free(c)
	fmt.Println(l.Blocks())
	fmt.Println(l.Free(c))
	// Output:
	// 0x1000 0x1f00 0x1500
	// [[0x1000, 0x1100) allocated [0x1100, 0x1f00) free [0x1f00, 0x2000) allocated]
	// bank: unknown address: 0x1500
}

// Page i of an interleaved buffer lives in bank i mod N, at the buffer's
// bank-local address plus the bank's offset plus (i div N) aligned pages.
func ExampleBanksModel() {
	b, _ := spec.NewBanksModel(spec.BanksConfig{
		Offsets: []spec.Addr{0x10000, 0x20000, 0x30000},
		List:    spec.Config{Size: 0x1000, Alignment: 0x20},
	})
	addr, _ := b.AllocateBuffer(7*0x30, 0x30, spec.BottomUp) // 7 pages over 3 banks: 3 rows of 0x40
	for i := range int64(7) {
		bank, abs, _ := b.PageAddress(addr, i)
		fmt.Printf("page %d: bank %d at %#x\n", i, bank, uint64(abs))
	}
	fmt.Println(b.Stats().Allocated)
	// Output:
	// page 0: bank 0 at 0x10000
	// page 1: bank 1 at 0x20000
	// page 2: bank 2 at 0x30000
	// page 3: bank 0 at 0x10040
	// page 4: bank 1 at 0x20040
	// page 5: bank 2 at 0x30040
	// page 6: bank 0 at 0x10080
	// 192
}
