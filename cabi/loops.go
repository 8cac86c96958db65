package cabi

/*
#include "glue.h"
memverify_status mv_loop_rc_pairs(const memverify_refcount_table *t, void *self, memverify_addr base, int64_t span, int64_t n);
memverify_status mv_loop_rc_buffers(const memverify_refcount_table *t, void *self, memverify_addr base, int64_t span, int64_t n);
memverify_status mv_loop_fl_trace(const memverify_bank_table *t, void *self, uint32_t *live, size_t nlive, memverify_addr base, int64_t align, int64_t units, int32_t dir, uint64_t seed, int64_t n);
memverify_status mv_loop_pool_pairs(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int64_t size, int64_t n);
#cgo noescape mv_loop_fl_trace
#cgo nocallback mv_loop_fl_trace
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"

	bk "github.com/memverify/memverify/model/bank"
	rc "github.com/memverify/memverify/model/refcount"
)

// The loops below run a benchmark's operation n times on the C side, in
// one cgo call, calling the table's functions directly: the time they take
// over n is the implementation's cost per operation, with cgo's cost
// spread over n. Each is the C twin of a loop in bench/ and says which.

// EmptyCall makes one cgo call to a C function that does nothing: the
// fixed cost of every adapter call.
func EmptyCall() { C.mv_empty() }

// CallbackLoop makes n calls from C to a Go function that does nothing, in
// one cgo call: over n, the cost of a callback into the harness (a freer,
// a device, a solver).
func CallbackLoop(n int) {
	h := cgo.NewHandle(0)
	defer h.Delete()
	C.mv_callback_loop(C.uintptr_t(h), C.int64_t(n))
}

// LoopPairs registers and unregisters an owned pointer of 64 bytes n
// times, cycling over span pointers 64 bytes apart from base: the loop of
// BenchmarkRefcountPair.
func (g *Registry) LoopPairs(base rc.Addr, span, n int) error {
	g.enter()
	st := C.mv_loop_rc_pairs(g.t, g.self, C.memverify_addr(base), C.int64_t(span), C.int64_t(n))
	g.leave()
	return g.status("register_pointer/unregister loop", st)
}

// LoopBuffers registers a buffer of 4096 bytes with 8 aliases and releases
// its 9 holders n times, cycling over span buffers from base: the loop of
// BenchmarkRefcountBuffer.
func (g *Registry) LoopBuffers(base rc.Addr, span, n int) error {
	g.enter()
	st := C.mv_loop_rc_buffers(g.t, g.self, C.memverify_addr(base), C.int64_t(span), C.int64_t(n))
	g.leave()
	return g.status("register_buffer/unregister loop", st)
}

// LoopTrace runs n ops of the free-list trace of BenchmarkBankFreeList:
// free a random live block, allocate 1 to units alignment units in its
// place (bottom-up or top-down, no limit). live holds the live blocks as
// offsets from base in units of align, and is updated in place; seed
// starts the C side's generator.
func (l *FreeList) LoopTrace(live []uint32, base bk.Addr, align, units int64, dir bk.Direction, seed uint64, n int) error {
	if len(live) == 0 || align < 1 || units < 1 {
		return fmt.Errorf("cabi: LoopTrace needs live blocks, an alignment and a size range")
	}
	l.enter()
	st := C.mv_loop_fl_trace(l.t, l.self, (*C.uint32_t)(unsafe.Pointer(&live[0])), C.size_t(len(live)),
		C.memverify_addr(base), C.int64_t(align), C.int64_t(units), C.int32_t(dir), C.uint64_t(seed), C.int64_t(n))
	l.leave()
	return l.status("free/allocate loop", st)
}

// LoopPairs allocates size bytes and frees them n times: after the first,
// a cached block each time, the loop of BenchmarkSizeclassPair.
func (p *Pool) LoopPairs(size int64, n int) error {
	ticket := nextTicket()
	p.enter()
	st := C.mv_loop_pool_pairs(p.t, p.self, C.uint64_t(ticket), C.int64_t(size), C.int64_t(n))
	p.leave()
	return p.result("alloc/free loop", ticket, st)
}
