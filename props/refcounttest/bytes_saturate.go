package refcounttest

import (
	"math"

	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// CheckBytesSaturate runs one fixed sequence of overlapping registrations of
// up to math.MaxInt64 bytes each (owned pointers and a buffer, three of them
// at once, so the live sizes sum past 2^64) against the registry built by
// factory, and checks Stats().Bytes after every step against the contract:
// math.MaxInt64 while the live sizes sum past it, exact otherwise. Sizes are
// int64 and registrations may overlap, so a registry that sums them in an
// int64 wraps to a small or negative figure. The generated op sequences of
// the other properties draw small sizes and never get there.
func CheckBytesSaturate(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	r := factory(&freeLog{})
	const huge = math.MaxInt64
	steps := []struct {
		op   spec.Op
		want int64
	}{
		{spec.Op{Kind: spec.OpRegister, P: 0x1000, Bytes: huge, Alloc: spec.ArrayNew}, huge},
		{spec.Op{Kind: spec.OpRegister, P: 0x2000, Bytes: huge, Alloc: spec.ArrayNew}, huge},
		{spec.Op{Kind: spec.OpRegisterBuffer, P: 0x3000, Bytes: huge, Aliases: []spec.Addr{0x3010}, Alloc: spec.Custom}, huge},
		{spec.Op{Kind: spec.OpRegister, P: 0x10, Bytes: 5, Alloc: spec.ScalarNew}, huge},
		{spec.Op{Kind: spec.OpUnregister, P: 0x1000}, huge},
		{spec.Op{Kind: spec.OpUnregister, P: 0x3000}, huge}, // 0x3010 still holds the buffer
		{spec.Op{Kind: spec.OpUnregister, P: 0x3010}, huge}, // MaxInt64 + 5 live
		{spec.Op{Kind: spec.OpUnregister, P: 0x2000}, 5},
		{spec.Op{Kind: spec.OpRegister, P: 0x4000, Bytes: huge - 5, Alloc: spec.ArrayNew}, huge},
		{spec.Op{Kind: spec.OpRegister, P: 0x20, Bytes: 1, Alloc: spec.ScalarNew}, huge},
		{spec.Op{Kind: spec.OpUnregister, P: 0x20}, huge},
		{spec.Op{Kind: spec.OpUnregister, P: 0x10}, huge - 5},
		{spec.Op{Kind: spec.OpUnregister, P: 0x4000}, 0},
	}
	var done []spec.Op
	for _, s := range steps {
		done = append(done, s.op)
		if res := s.op.Apply(r); res.Err != "" {
			t.Fatalf("%v returned %v\nops:\n%s", s.op, res, formatOps(done))
		}
		if got := r.Stats().Bytes; got != s.want {
			t.Fatalf("Stats().Bytes = %d, want %d\nops:\n%s", got, s.want, formatOps(done))
		}
	}
}
