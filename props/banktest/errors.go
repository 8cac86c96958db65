package banktest

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// errCase is one bad call and the sentinel it must return.
type errCase struct {
	name string
	call func() error
	want error
}

// refuse runs c and checks it returns c.want and leaves the observable state
// (taken by snap before and after) unchanged.
func refuse(t rapid.TB, c errCase, snap func() any) {
	t.Helper()
	before := snap()
	err := c.call()
	if !errors.Is(err, c.want) {
		t.Errorf("%s: got %v, want %v", c.name, err, c.want)
	}
	if after := snap(); !reflect.DeepEqual(before, after) {
		t.Errorf("%s failed but changed the state:\n before %v\n after  %v", c.name, before, after)
	}
}

// CheckFreeListErrors checks that every kind of bad input to factory's free
// list returns its sentinel error and changes nothing: invalid sizes
// (including one whose alignment overflows), requests that fit nowhere
// (larger than the range, a limit past the end or too close to 2^64 to be
// aligned, every place avoided), directions that are neither BottomUp nor
// TopDown, unaligned or outside addresses, ranges not free, inverted avoided
// ranges, unknown, interior and repeated frees, and states of another
// configuration or with invalid layouts. It also checks that invalid
// configurations are refused with ErrInvalidConfig.
func CheckFreeListErrors(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	checkFreeListConfigs(t, factory)
	cfg := bank.Config{Offset: 0x1000, Size: 0x400, Alignment: 0x20, MinAllocation: 0x40}
	l, err := factory(cfg)
	if err != nil {
		t.Fatalf("factory(%+v): %v", cfg, err)
	}
	// Layout: [0x1000, 0x1040) live, [0x1040, 0x1080) free, [0x1080, 0x10e0) live, rest (0x320) free.
	a, _ := l.Allocate(1, bank.BottomUp, 0)
	b, _ := l.Allocate(0x41, bank.BottomUp, 0x1080)
	if a != 0x1000 || b != 0x1080 {
		t.Fatalf("setup: Allocate gave %#x and %#x, want 0x1000 and 0x1080", uint64(a), uint64(b))
	}
	snap := func() any { return fmt.Sprint(l.Blocks(), l.Stats(), l.State()) }
	for _, c := range freeListErrCases(l) {
		refuse(t, c, snap)
	}
	if err := l.Free(a); err != nil {
		t.Fatalf("Free(%#x): %v", uint64(a), err)
	}
	refuse(t, errCase{"Free(freed twice)", func() error { return l.Free(a) }, bank.ErrUnknownAddress}, snap)
}

// checkFreeListConfigs checks that factory refuses invalid configurations
// with ErrInvalidConfig.
func checkFreeListConfigs(t rapid.TB, factory FreeListFactory) {
	t.Helper()
	for _, bad := range []bank.Config{
		{Size: 64, Alignment: 0},
		{Size: 0, Alignment: 8},
		{Size: 60, Alignment: 8},
		{Offset: 4, Size: 64, Alignment: 8},
		{Offset: math.MaxUint64 - 63, Size: 128, Alignment: 1},
		{Size: 64, Alignment: 8, MinAllocation: -1},
		{Size: 64, Alignment: 8, MinAllocation: math.MaxInt64}, // no request could be aligned
		{Size: 64, Alignment: 8, Policy: 7},
	} {
		if l, err := factory(bad); !errors.Is(err, bank.ErrInvalidConfig) {
			t.Errorf("factory(%+v) = %v, %v; want ErrInvalidConfig", bad, l, err)
		}
	}
}

// freeListErrCases are the bad calls on l, laid out as CheckFreeListErrors
// sets it up: [0x1000, 0x1040) live, [0x1040, 0x1080) free, [0x1080, 0x10e0)
// live, the rest free; alignment 0x20, minimum 0x40.
func freeListErrCases(l bank.FreeList) []errCase {
	alloc := func(size int64, dir bank.Direction, limit bank.Addr) func() error {
		return func() error { _, err := l.Allocate(size, dir, limit); return err }
	}
	avoid := func(size int64, rs ...bank.Range) func() error {
		return func() error { _, err := l.AllocateAvoiding(size, bank.TopDown, rs, 0); return err }
	}
	avoidDir := func(dir bank.Direction) func() error {
		return func() error { _, err := l.AllocateAvoiding(1, dir, nil, 0); return err }
	}
	at := func(addr bank.Addr, size int64) func() error { return func() error { return l.AllocateAt(addr, size) } }
	free := func(addr bank.Addr) func() error { return func() error { return l.Free(addr) } }
	restore := func(mut func(*bank.State)) func() error {
		return func() error {
			s := l.State()
			mut(&s)
			return l.Restore(s)
		}
	}
	return []errCase{
		{"Allocate(0)", alloc(0, bank.BottomUp, 0), bank.ErrInvalidSize},
		{"Allocate(-1)", alloc(-1, bank.TopDown, 0), bank.ErrInvalidSize},
		{"Allocate(MaxInt64) (alignment overflows)", alloc(math.MaxInt64, bank.BottomUp, 0), bank.ErrInvalidSize},
		{"Allocate(larger than the range)", alloc(0x401, bank.BottomUp, 0), bank.ErrOutOfMemory},
		{"Allocate(larger than any free block)", alloc(0x340, bank.TopDown, 0), bank.ErrOutOfMemory},
		{"Allocate(limit at the end)", alloc(1, bank.BottomUp, 0x1400), bank.ErrOutOfMemory},
		{"Allocate(limit near 2^64)", alloc(1, bank.TopDown, math.MaxUint64-3), bank.ErrOutOfMemory},
		{"Allocate(direction 2)", alloc(1, 2, 0), bank.ErrInvalidDirection},
		{"Allocate(direction 255, size 0)", alloc(0, 255, 0), bank.ErrInvalidDirection},
		{"AllocateAvoiding(direction 2)", avoidDir(2), bank.ErrInvalidDirection},
		{"AllocateAt(unaligned)", at(0x1050, 1), bank.ErrInvalidAddress},
		{"AllocateAt(below the range)", at(0xfe0, 1), bank.ErrInvalidAddress},
		{"AllocateAt(at the end)", at(0x1400, 1), bank.ErrInvalidAddress},
		{"AllocateAt(running past the end)", at(0x13e0, 0x40), bank.ErrInvalidAddress},
		{"AllocateAt(0)", at(0x1040, 0), bank.ErrInvalidSize},
		{"AllocateAt(a live block)", at(0x1000, 1), bank.ErrNotFree},
		{"AllocateAt(a free range running into a live block)", at(0x1060, 0x40), bank.ErrNotFree},
		{"AllocateAvoiding(inverted range)", avoid(1, bank.Range{Start: 0x1200, End: 0x1100}), bank.ErrInvalidAddress},
		{"AllocateAvoiding(every free place)", avoid(1, bank.Range{Start: 0x1040, End: 0x1080}, bank.Range{Start: 0x10f0, End: 0x1400}), bank.ErrOutOfMemory},
		{"AllocateAvoiding(0)", avoid(0), bank.ErrInvalidSize},
		{"Free(unknown)", free(0x2000), bank.ErrUnknownAddress},
		{"Free(0)", free(0), bank.ErrUnknownAddress},
		{"Free(interior)", free(0x1020), bank.ErrUnknownAddress},
		{"Free(a free block)", free(0x1040), bank.ErrUnknownAddress},
		{"Restore(other size)", restore(func(s *bank.State) { s.Size += 0x20 }), bank.ErrIncompatibleState},
		{"Restore(other offset)", restore(func(s *bank.State) { s.Offset += 0x20 }), bank.ErrIncompatibleState},
		{"Restore(other alignment)", restore(func(s *bank.State) { s.Alignment = 0x40 }), bank.ErrIncompatibleState},
		{"Restore(other minimum)", restore(func(s *bank.State) { s.MinAllocation = 0x20 }), bank.ErrIncompatibleState},
		{"Restore(overlapping regions)", restore(func(s *bank.State) {
			s.Allocations = append(s.Allocations, bank.Region{Addr: 0x1020, Size: 0x40})
		}), bank.ErrIncompatibleState},
		{"Restore(region past the end)", restore(func(s *bank.State) {
			s.Allocations = append(s.Allocations, bank.Region{Addr: 0x1400, Size: 0x40})
		}), bank.ErrIncompatibleState},
		{"Restore(region below the minimum)", restore(func(s *bank.State) {
			s.Allocations = append(s.Allocations, bank.Region{Addr: 0x1200, Size: 0x20})
		}), bank.ErrIncompatibleState},
		{"Restore(unaligned region)", restore(func(s *bank.State) {
			s.Allocations = append(s.Allocations, bank.Region{Addr: 0x1210, Size: 0x40})
		}), bank.ErrIncompatibleState},
	}
}

// CheckBanksErrors is CheckFreeListErrors for banks: invalid configurations,
// buffer and page sizes, shard lists, directions, unknown buffers, pages
// outside a buffer, and a buffer that fits nowhere. A buffer of 2^63-1 bytes
// must have the addresses of its first and last pages (its page count must
// not wrap), and the simulator of the banks must refuse accesses outside a
// bank.
func CheckBanksErrors(t rapid.TB, factory BanksFactory) {
	t.Helper()
	list := bank.Config{Size: 0x400, Alignment: 0x20}
	checkBanksConfigs(t, factory, list)
	cfg := bank.BanksConfig{Offsets: []bank.Addr{0, 1 << 20, 2 << 20}, List: list}
	b, err := factory(cfg)
	if err != nil {
		t.Fatalf("factory(%+v): %v", cfg, err)
	}
	buf, err := b.AllocateBuffer(5*0x30, 0x30, bank.BottomUp) // 5 pages of 0x30 → 2 rows of 0x40
	if err != nil {
		t.Fatalf("AllocateBuffer: %v", err)
	}
	snap := func() any { return fmt.Sprint(b.Blocks(), b.Stats(), b.Buffers()) }
	for _, c := range banksErrCases(b, buf) {
		refuse(t, c, snap)
	}
	if err := b.FreeBuffer(buf); err != nil {
		t.Fatalf("FreeBuffer(%#x): %v", uint64(buf), err)
	}
	refuse(t, errCase{"FreeBuffer(freed twice)", func() error { return b.FreeBuffer(buf) }, bank.ErrUnknownAddress}, snap)
	checkHugeBufferPages(t, factory)
	checkMemoryBounds(t, cfg)
}

// checkBanksConfigs checks that factory refuses invalid configurations (over
// the free-list configuration list) with ErrInvalidConfig.
func checkBanksConfigs(t rapid.TB, factory BanksFactory, list bank.Config) {
	t.Helper()
	for _, bad := range []bank.BanksConfig{
		{List: list},
		{Offsets: make([]bank.Addr, bank.MaxBanks+1), List: list},
		{Offsets: []bank.Addr{0}, List: bank.Config{Size: 0x400}},
		{Offsets: []bank.Addr{0, math.MaxUint64 - 0x100}, List: list},
	} {
		if b, err := factory(bad); !errors.Is(err, bank.ErrInvalidConfig) {
			t.Errorf("factory(%d banks, %+v) = %v, %v; want ErrInvalidConfig", len(bad.Offsets), bad.List, b, err)
		}
	}
}

// banksErrCases are the bad calls on b, three banks of 0x400 bytes with
// alignment 0x20 holding one buffer, buf, of five pages of 0x30.
func banksErrCases(b bank.Banks, buf bank.Addr) []errCase {
	alloc := func(size, page int64) func() error {
		return func() error { _, err := b.AllocateBuffer(size, page, bank.TopDown); return err }
	}
	shard := func(banks ...int) func() error {
		return func() error { _, err := b.AllocateSharded(0x40, 0x20, banks, bank.BottomUp); return err }
	}
	page := func(addr bank.Addr, i int64) func() error {
		return func() error { _, _, err := b.PageAddress(addr, i); return err }
	}
	return []errCase{
		{"AllocateBuffer(size 0)", alloc(0, 0x20), bank.ErrInvalidSize},
		{"AllocateBuffer(size -1)", alloc(-1, 0x20), bank.ErrInvalidSize},
		{"AllocateBuffer(page 0)", alloc(0x40, 0), bank.ErrInvalidSize},
		{"AllocateBuffer(page -1)", alloc(0x40, -1), bank.ErrInvalidSize},
		{"AllocateBuffer(rows × stride overflows)", alloc(math.MaxInt64, 1), bank.ErrInvalidSize},
		{"AllocateBuffer(larger than the banks)", alloc(3*0x400, 0x20), bank.ErrOutOfMemory},
		{"AllocateSharded(no banks)", shard(), bank.ErrInvalidBank},
		{"AllocateSharded(repeated bank)", shard(1, 1), bank.ErrInvalidBank},
		{"AllocateSharded(bank 3 of 3)", shard(0, 3), bank.ErrInvalidBank},
		{"AllocateSharded(bank -1)", shard(-1), bank.ErrInvalidBank},
		{"AllocateBuffer(direction 2)", func() error { _, err := b.AllocateBuffer(0x40, 0x20, 2); return err }, bank.ErrInvalidDirection},
		{"AllocateSharded(direction 255)", func() error { _, err := b.AllocateSharded(0x40, 0x20, []int{1}, 255); return err }, bank.ErrInvalidDirection},
		{"FreeBuffer(unknown)", func() error { return b.FreeBuffer(buf + 0x20) }, bank.ErrUnknownAddress},
		{"PageAddress(unknown buffer)", page(buf+0x20, 0), bank.ErrUnknownAddress},
		{"PageAddress(page -1)", page(buf, -1), bank.ErrInvalidAddress},
		{"PageAddress(page 5 of 5)", page(buf, 5), bank.ErrInvalidAddress},
	}
}

// checkMemoryBounds checks that the simulator of cfg's banks refuses
// accesses outside a bank, changing no byte: the isolation properties rely
// on it to catch a page placed outside its bank.
func checkMemoryBounds(t rapid.TB, cfg bank.BanksConfig) {
	t.Helper()
	mem, err := bank.NewMemory(cfg)
	if err != nil {
		t.Fatalf("NewMemory: %v", err)
	}
	data := []byte{1, 2, 3, 4}
	for _, c := range []errCase{
		{"Write(bank 3)", func() error { return mem.Write(3, 0, data) }, bank.ErrInvalidBank},
		{"Write(below bank 1)", func() error { return mem.Write(1, 1<<20-1, data) }, bank.ErrOutOfBounds},
		{"Write(across the end of bank 0)", func() error { return mem.Write(0, 0x3fe, data) }, bank.ErrOutOfBounds},
		{"Read(past the end of bank 2)", func() error { return mem.Read(2, 2<<20+0x400, data[:1]) }, bank.ErrOutOfBounds},
	} {
		refuse(t, c, func() any {
			got := make([]byte, 0x400)
			var all [][]byte
			for inBank := range 3 {
				_ = mem.Read(inBank, cfg.Offsets[inBank], got)
				all = append(all, slices.Clone(got))
			}
			return all
		})
	}
}

// checkHugeBufferPages allocates a buffer of 2^63-1 bytes in pages of 2 over
// two banks of 2^62 bytes: 2^62 pages, 2^61 rows of 2 bytes per bank. Its
// page count must not wrap (ceil(size/pageSize) formed as
// (size+pageSize-1)/pageSize does), so that its first and last pages have
// their addresses and only the page past them is refused.
func checkHugeBufferPages(t rapid.TB, factory BanksFactory) {
	t.Helper()
	cfg := bank.BanksConfig{Offsets: []bank.Addr{0, 1 << 62}, List: bank.Config{Size: 1 << 62, Alignment: 2}}
	b, err := factory(cfg)
	if err != nil {
		t.Fatalf("factory(%+v): %v", cfg, err)
	}
	buf, err := b.AllocateBuffer(math.MaxInt64, 2, bank.BottomUp)
	if err != nil {
		t.Fatalf("AllocateBuffer(2^63-1 bytes in pages of 2) over %+v: %v", cfg, err)
	}
	const last = 1<<62 - 1 // in bank 1, row 2^61-1
	for _, p := range []struct {
		page   int64
		inBank int
		addr   bank.Addr
	}{
		{0, 0, buf},
		{last, 1, buf + 1<<62 + (1<<61-1)*2},
	} {
		inBank, addr, err := b.PageAddress(buf, p.page)
		if err != nil || inBank != p.inBank || addr != p.addr {
			t.Errorf("PageAddress(%#x, %d) of a buffer of 2^63-1 bytes in pages of 2 = %d, %#x, %v; want %d, %#x",
				uint64(buf), p.page, inBank, uint64(addr), err, p.inBank, uint64(p.addr))
		}
	}
	snap := func() any { return fmt.Sprint(b.Blocks(), b.Stats(), b.Buffers()) }
	refuse(t, errCase{"PageAddress(page 2^62 of 2^62)", func() error { _, _, err := b.PageAddress(buf, last+1); return err }, bank.ErrInvalidAddress}, snap)
}
