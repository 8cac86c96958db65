package fuzz

import (
	"testing"

	gofuzz "github.com/google/gofuzz"
	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/props/refcounttest"
)

// rawRegistryOp is the fuzzer's view of one op: small integers that index into
// the shared pointer pool, so that decoded ops collide on the same pointers.
type rawRegistryOp struct {
	Kind    uint8
	P       uint8
	Size    uint8
	Alloc   uint8
	Aliases []uint8
}

var registrySizes = []int64{0x10, 0x40, 0x80, 0, -1, 0x41}

func decodeRegistryOps(data []byte) []spec.Op {
	var raw []rawRegistryOp
	gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(0, 4).Fuzz(&raw)
	pool := refcounttest.PointerPool()
	ops := make([]spec.Op, 0, len(raw))
	for _, r := range raw {
		op := spec.Op{
			Kind:  spec.OpKind(r.Kind % uint8(spec.OpClose+1)),
			P:     pool[int(r.P)%len(pool)],
			Bytes: registrySizes[int(r.Size)%len(registrySizes)],
			Alloc: spec.Kind(r.Alloc % 5),
		}
		if op.Kind == spec.OpClose && r.Alloc%8 != 0 {
			op.Kind = spec.OpUnregister // Close ends the interesting part: keep it rare
		}
		for _, a := range r.Aliases {
			if a%2 == 0 {
				op.Aliases = append(op.Aliases, op.P+spec.Addr(a%4)*0x10) // inside, often
			} else {
				op.Aliases = append(op.Aliases, pool[int(a)%len(pool)])
			}
		}
		ops = append(ops, op)
	}
	return ops
}

var registryImpls = []struct {
	name string
	make refcounttest.RegistryFactory
}{
	{"Sharded", func(f spec.Freer) spec.Registry { return impl.NewSharded(f) }},
	{"LockFree", func(f spec.Freer) spec.Registry { return impl.NewLockFree(f) }},
}

// FuzzRegistry runs a decoded op sequence against the model and each
// registry implementation, comparing after every op.
func FuzzRegistry(f *testing.F) {
	f.Add([]byte("register then release twice"))
	f.Add([]byte{1, 4, 2, 0, 3, 4, 4, 4, 4, 3, 4, 3, 4, 3, 4, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := decodeRegistryOps(data)
		for _, im := range registryImpls {
			d := refcounttest.NewRegistryDiff(im.make)
			for _, op := range ops {
				if err := d.Apply(op); err != nil {
					t.Fatalf("impl=%s: %v", im.name, err)
				}
			}
		}
	})
}
