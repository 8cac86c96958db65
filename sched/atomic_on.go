//go:build sched

package sched

import (
	"sync"
	"sync/atomic"
)

// The atomic types under the tag: sync/atomic's, each operation preceded by
// a scheduling point labelled with the operation and the function that
// calls it ("CompareAndSwap in Sharded.dropTotal"). The value is the first
// field, so the 64-bit types keep atomic's alignment. Outside a scheduled
// run the point costs one atomic load.

// atomicPoint is the point before an atomic operation op.
func atomicPoint(op string) {
	if alone() {
		return
	}
	if g := caller(); g != nil {
		g.s.point(g, KindPoint, atomicLabel(g, op))
	}
}

// atomicLabel is the timeline's label of the atomic operation op that g is
// about to make, "Load in pop": made once for each operation and place.
func atomicLabel(g *goroutine, op string) string {
	pc, fn := g.callerFunc(atomicFrames)
	key := labelKey{op, pc}
	if l, ok := labels.Load(key); ok {
		return l.(string)
	}
	l := op + " in " + fn
	labels.Store(key, l)
	return l
}

type labelKey struct {
	op string
	pc uintptr
}

var labels sync.Map // labelKey → label

// Bool is an atomic.Bool whose every operation is a scheduling point first.
type Bool struct{ v atomic.Bool }

func (x *Bool) Load() bool         { atomicPoint("Load"); return x.v.Load() }
func (x *Bool) Store(val bool)     { atomicPoint("Store"); x.v.Store(val) }
func (x *Bool) Swap(new bool) bool { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Bool) CompareAndSwap(old, new bool) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}

// Pointer is an atomic.Pointer whose every operation is a scheduling point
// first.
type Pointer[T any] struct{ v atomic.Pointer[T] }

func (x *Pointer[T]) Load() *T             { atomicPoint("Load"); return x.v.Load() }
func (x *Pointer[T]) Store(val *T)         { atomicPoint("Store"); x.v.Store(val) }
func (x *Pointer[T]) Swap(new *T) (old *T) { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}

// Int32 is an atomic.Int32 whose every operation is a scheduling point first.
type Int32 struct{ v atomic.Int32 }

func (x *Int32) Load() int32                 { atomicPoint("Load"); return x.v.Load() }
func (x *Int32) Store(val int32)             { atomicPoint("Store"); x.v.Store(val) }
func (x *Int32) Swap(new int32) (old int32)  { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Int32) Add(delta int32) (new int32) { atomicPoint("Add"); return x.v.Add(delta) }
func (x *Int32) And(mask int32) (old int32)  { atomicPoint("And"); return x.v.And(mask) }
func (x *Int32) Or(mask int32) (old int32)   { atomicPoint("Or"); return x.v.Or(mask) }
func (x *Int32) CompareAndSwap(old, new int32) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}

// Int64 is an atomic.Int64 whose every operation is a scheduling point first.
type Int64 struct{ v atomic.Int64 }

func (x *Int64) Load() int64                 { atomicPoint("Load"); return x.v.Load() }
func (x *Int64) Store(val int64)             { atomicPoint("Store"); x.v.Store(val) }
func (x *Int64) Swap(new int64) (old int64)  { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Int64) Add(delta int64) (new int64) { atomicPoint("Add"); return x.v.Add(delta) }
func (x *Int64) And(mask int64) (old int64)  { atomicPoint("And"); return x.v.And(mask) }
func (x *Int64) Or(mask int64) (old int64)   { atomicPoint("Or"); return x.v.Or(mask) }
func (x *Int64) CompareAndSwap(old, new int64) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}

// Uint32 is an atomic.Uint32 whose every operation is a scheduling point first.
type Uint32 struct{ v atomic.Uint32 }

func (x *Uint32) Load() uint32                  { atomicPoint("Load"); return x.v.Load() }
func (x *Uint32) Store(val uint32)              { atomicPoint("Store"); x.v.Store(val) }
func (x *Uint32) Swap(new uint32) (old uint32)  { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Uint32) Add(delta uint32) (new uint32) { atomicPoint("Add"); return x.v.Add(delta) }
func (x *Uint32) And(mask uint32) (old uint32)  { atomicPoint("And"); return x.v.And(mask) }
func (x *Uint32) Or(mask uint32) (old uint32)   { atomicPoint("Or"); return x.v.Or(mask) }
func (x *Uint32) CompareAndSwap(old, new uint32) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}

// Uint64 is an atomic.Uint64 whose every operation is a scheduling point first.
type Uint64 struct{ v atomic.Uint64 }

func (x *Uint64) Load() uint64                  { atomicPoint("Load"); return x.v.Load() }
func (x *Uint64) Store(val uint64)              { atomicPoint("Store"); x.v.Store(val) }
func (x *Uint64) Swap(new uint64) (old uint64)  { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Uint64) Add(delta uint64) (new uint64) { atomicPoint("Add"); return x.v.Add(delta) }
func (x *Uint64) And(mask uint64) (old uint64)  { atomicPoint("And"); return x.v.And(mask) }
func (x *Uint64) Or(mask uint64) (old uint64)   { atomicPoint("Or"); return x.v.Or(mask) }
func (x *Uint64) CompareAndSwap(old, new uint64) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}

// Uintptr is an atomic.Uintptr whose every operation is a scheduling point first.
type Uintptr struct{ v atomic.Uintptr }

func (x *Uintptr) Load() uintptr                   { atomicPoint("Load"); return x.v.Load() }
func (x *Uintptr) Store(val uintptr)               { atomicPoint("Store"); x.v.Store(val) }
func (x *Uintptr) Swap(new uintptr) (old uintptr)  { atomicPoint("Swap"); return x.v.Swap(new) }
func (x *Uintptr) Add(delta uintptr) (new uintptr) { atomicPoint("Add"); return x.v.Add(delta) }
func (x *Uintptr) And(mask uintptr) (old uintptr)  { atomicPoint("And"); return x.v.And(mask) }
func (x *Uintptr) Or(mask uintptr) (old uintptr)   { atomicPoint("Or"); return x.v.Or(mask) }
func (x *Uintptr) CompareAndSwap(old, new uintptr) bool {
	atomicPoint("CompareAndSwap")
	return x.v.CompareAndSwap(old, new)
}
