//go:build !sched

package sched

import "sync/atomic"

// The atomic types are sync/atomic's without the `sched` tag: the same
// types, so a normal build pays nothing. Under the tag each operation is
// preceded by a scheduling point, so declaring a field as sched.Uint64
// instead of atomic.Uint64 puts a point before every operation on it.

// Bool is atomic.Bool; under the tag every operation is a point first.
type Bool = atomic.Bool

// Int32 is atomic.Int32; under the tag every operation is a point first.
type Int32 = atomic.Int32

// Int64 is atomic.Int64; under the tag every operation is a point first.
type Int64 = atomic.Int64

// Uint32 is atomic.Uint32; under the tag every operation is a point first.
type Uint32 = atomic.Uint32

// Uint64 is atomic.Uint64; under the tag every operation is a point first.
type Uint64 = atomic.Uint64

// Uintptr is atomic.Uintptr; under the tag every operation is a point first.
type Uintptr = atomic.Uintptr

// Pointer is atomic.Pointer; under the tag every operation is a point first.
type Pointer[T any] = atomic.Pointer[T]
