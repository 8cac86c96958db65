package fuzz

import (
	"fmt"
	"slices"
	"testing"

	gofuzz "github.com/google/gofuzz"
	impl "github.com/memverify/memverify/impl/tensormap"
	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// rawTensorMapOp is the fuzzer's view of one TensorMap op: small integers
// that map onto a few storages, tasks near the last one, and views of at
// most rank 3 within the first ~100 bytes, so that ops collide and the
// brute-force model stays exact and cheap.
type rawTensorMapOp struct {
	Kind    uint8
	Storage uint8
	Task    uint8
	Limit   uint8
	Off     uint8
	Elem    uint8
	Shape   [3]uint8
	Strides [3]int8
	Rank    uint8
}

type rawTensorMapRun struct {
	Capacity uint8
	Ops      []rawTensorMapOp
}

var tensorMapStorages = []spec.Storage{0x1000, 0x2000, 0x3000, 1, 0}

// decodeTensorMap turns fuzz bytes into a capacity and an op sequence.
// Tasks are relative: an Insert's task is the last task plus 0..2 (or one
// below it, out of order), the last task being that of the latest insert
// with a storage and a valid view; a Retire's is the threshold plus 0..5 (or
// one below it).
func decodeTensorMap(data []byte) (int, []spec.Op) {
	var raw rawTensorMapRun
	gofuzz.NewFromGoFuzz(data).NilChance(0).NumElements(0, 40).Fuzz(&raw)
	var last, threshold spec.Task
	ops := make([]spec.Op, 0, len(raw.Ops))
	for _, r := range raw.Ops {
		op := spec.Op{Storage: tensorMapStorages[int(r.Storage)%len(tensorMapStorages)], View: rawView(r)}
		switch r.Kind % 6 {
		case 0, 1:
			op.Kind = spec.OpInsert
			op.Task = max(last, threshold) + spec.Task(r.Task%3)
			if r.Task >= 250 && last > 0 {
				op.Task = last - 1
			}
			if op.Storage != 0 && op.View.Validate() == nil {
				// Only an insert that can succeed moves the last task on,
				// so that "one below it" stays out of order.
				last = max(last, op.Task)
			}
		case 2:
			op.Kind = spec.OpLookup
		case 3:
			op.Kind, op.Limit = spec.OpLookupAll, int(r.Limit%5)
		case 4:
			op.Kind = spec.OpRetire
			op.Task = threshold + spec.Task(r.Task%6)
			if r.Task >= 250 && threshold > 0 {
				op.Task = threshold - 1
			}
			threshold = max(threshold, op.Task)
		default:
			op.Kind = spec.OpLen
		}
		ops = append(ops, op)
	}
	return 1 + int(raw.Capacity%8), ops
}

// rawView maps the raw fields onto a small view; an element size of 0 and
// negative offsets (invalid views) come up now and then.
func rawView(r rawTensorMapOp) overlap.View {
	rank := int(r.Rank % 4)
	v := overlap.View{Offset: int64(r.Off % 64), ElemSize: int64(r.Elem % 5), Shape: make([]int64, rank), Strides: make([]int64, rank)}
	low := int64(0)
	for d := range rank {
		n, s := int64(r.Shape[d]%5), int64(r.Strides[d]%17)
		v.Shape[d], v.Strides[d] = n, s
		if n > 1 && s < 0 {
			low += (n - 1) * s
		}
	}
	if r.Off < 240 { // else leave the offset unshifted: it may reach below 0
		v.Offset -= low
	}
	return v
}

// FuzzTensorMap runs a decoded op sequence against the model and the Ring,
// comparing every result and, after every op, Len and the lookups of every
// live entry's own view (no live producer may be lost).
func FuzzTensorMap(f *testing.F) {
	f.Add([]byte("insert then look up"))
	f.Add([]byte{3, 0, 1, 0, 0, 2, 3, 7, 4, 4, 4, 1, 1, 0, 0, 0, 1, 2, 0, 0, 2, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		capacity, ops := decodeTensorMap(data)
		cfg := spec.Config{Capacity: capacity}
		model, err := spec.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ring, err := impl.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var tr trace.Trace
		fail := func(format string, args ...any) {
			t.Fatalf("%s", trace.Failure(fmt.Sprintf("capacity %d: ", capacity)+fmt.Sprintf(format, args...), &tr, ""))
		}
		type live struct {
			storage spec.Storage
			view    overlap.View
			task    spec.Task
		}
		var lives []live
		for _, op := range ops {
			want, got := op.Apply(model), op.Apply(ring)
			tr.Add(op, got)
			if got != want {
				fail("%v returned %v, the model %v", op, got, want)
			}
			if want.Err == "" && op.Kind == spec.OpInsert {
				lives = append(lives, live{op.Storage, spec.CloneView(op.View), op.Task})
			}
			if want.Err == "" && op.Kind == spec.OpRetire {
				lives = slices.DeleteFunc(lives, func(e live) bool { return e.task < op.Task })
			}
			if model.Len() != ring.Len() {
				fail("Len() = %d, the model %d", ring.Len(), model.Len())
			}
			for _, e := range lives {
				if e.view.Empty() {
					continue
				}
				all := spec.Op{Kind: spec.OpLookupAll, Storage: e.storage, View: e.view, Limit: capacity + 1}
				w, g := all.Apply(model), all.Apply(ring)
				if g != w {
					fail("%v returned %v, the model %v", all, g, w)
				}
				if task, ok, _ := ring.Lookup(e.storage, e.view); !ok || task < e.task {
					fail("lost producer: live task %d wrote %v of %#x", e.task, e.view, uint64(e.storage))
				}
			}
		}
	})
}
