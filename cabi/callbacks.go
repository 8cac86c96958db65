package cabi

// This file holds the Go functions C calls: the trampolines of glue.c and
// glue_sizeclass.c reach them with the runtime/cgo.Handle that was passed
// as the callback's ctx. (A file with //export may only declare C in its
// preamble, so they live apart.)

/*
#include "glue.h"
*/
import "C"

import (
	"errors"
	"runtime/cgo"

	ov "github.com/memverify/memverify/model/overlap"
	rc "github.com/memverify/memverify/model/refcount"
)

// freerBridge is the Go side of a registry's memverify_refcount_freer.
type freerBridge struct {
	freer rc.Freer
	lib   *Library
}

//export mvGoFree
func mvGoFree(h C.uintptr_t, real C.memverify_addr, bytes C.int64_t, kind C.int32_t) {
	b := cgo.Handle(h).Value().(*freerBridge)
	if kind < 0 || kind > C.MEMVERIFY_KIND_CUSTOM {
		b.lib.violation(ErrBadValue, "the freer was called with kind %d for %#x", int32(kind), uint64(real))
	}
	if b.freer != nil {
		b.freer.Free(rc.Addr(real), int64(bytes), rc.Kind(kind))
	}
}

// solverBridge is the Go side of a map's memverify_solver_fn.
type solverBridge struct {
	solve ov.Checker
}

//export mvGoSolve
func mvGoSolve(h C.uintptr_t, a, b *C.memverify_view, verdict *C.int32_t) C.memverify_status {
	s := cgo.Handle(h).Value().(*solverBridge)
	v, err := s.solve(goView(a), goView(b))
	*verdict = C.int32_t(v)
	if err != nil {
		return C.MEMVERIFY_E_SOLVER
	}
	return C.MEMVERIFY_OK
}

//export mvGoDeviceMalloc
func mvGoDeviceMalloc(h C.uintptr_t, ticket C.uint64_t, n C.int64_t, out *C.memverify_addr) C.memverify_status {
	d := cgo.Handle(h).Value().(*deviceBridge)
	p, err := d.dev.Malloc(int64(n))
	if err != nil {
		d.failed(uint64(ticket), err, true)
		if errors.Is(err, errOutOfMemory) {
			return C.MEMVERIFY_E_OUT_OF_MEMORY
		}
		return C.MEMVERIFY_E_DEVICE
	}
	*out = C.memverify_addr(p)
	return C.MEMVERIFY_OK
}

//export mvGoDeviceFree
func mvGoDeviceFree(h C.uintptr_t, ticket C.uint64_t, p C.memverify_addr) C.memverify_status {
	d := cgo.Handle(h).Value().(*deviceBridge)
	if err := d.dev.Free(scAddr(p)); err != nil {
		d.failed(uint64(ticket), err, false)
		return C.MEMVERIFY_E_DEVICE
	}
	return C.MEMVERIFY_OK
}

//export mvGoEmpty
func mvGoEmpty(h C.uintptr_t) {}
