package cabi

/*
#include "glue.h"
memverify_status mv_deferred_create(const memverify_sizeclass_table *t, uint64_t ticket, const memverify_device *dev, uint32_t owner, void **self);
void mv_deferred_destroy(const memverify_sizeclass_table *t, void *self);
mv_result mv_deferred_alloc(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int64_t n);
memverify_status mv_deferred_free(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t ctx, memverify_addr p);
memverify_status mv_deferred_gc(const memverify_sizeclass_table *t, void *self, uint64_t ticket);
int64_t mv_deferred_pending(const memverify_sizeclass_table *t, void *self);
memverify_status mv_deferred_close(const memverify_sizeclass_table *t, void *self, uint64_t ticket);
*/
import "C"

import (
	"runtime"
	"unsafe"

	sc "github.com/memverify/memverify/model/sizeclass"
)

// Deferred is a C deferred-free allocator as a sizeclass.DeferredAllocator.
type Deferred struct {
	scInstance
	t    *C.memverify_sizeclass_table
	self unsafe.Pointer
}

var _ sc.DeferredAllocator = (*Deferred)(nil)

// NewDeferred creates a deferred-free allocator over dev owned by owner.
func (s *SizeclassTable) NewDeferred(dev sc.Device, owner sc.Context) (*Deferred, error) {
	if s.c.deferred_create == nil {
		return nil, s.t.errNotOffered("deferred allocator")
	}
	in, self, h, err := s.createInstance("deferred_create", dev, func(ticket C.uint64_t, cd *C.memverify_device, self *unsafe.Pointer) C.memverify_status {
		return C.mv_deferred_create(s.c, ticket, cd, C.uint32_t(owner), self)
	})
	if err != nil {
		return nil, err
	}
	d := &Deferred{scInstance: in, t: s.c, self: self}
	runtime.AddCleanup(d, func(c scCleanup) { C.mv_deferred_destroy(c.t, c.self); c.h.Delete() }, scCleanup{s.c, self, h})
	return d, nil
}

// DeferredFactory returns NewDeferred in the shape of
// sizeclasstest.DeferredAllocatorFactory. An allocator that could not be created is
// replaced by one whose every call reports why.
func (s *SizeclassTable) DeferredFactory() func(sc.Device, sc.Context) sc.DeferredAllocator {
	return func(dev sc.Device, owner sc.Context) sc.DeferredAllocator {
		d, err := s.NewDeferred(dev, owner)
		if err != nil {
			return brokenDeferred{err}
		}
		return d
	}
}

func (d *Deferred) Alloc(n int64) (sc.Addr, error) {
	ticket := nextTicket()
	d.enter()
	r := C.mv_deferred_alloc(d.t, d.self, C.uint64_t(ticket), C.int64_t(n))
	d.leave()
	out := r.value
	if err := d.result("deferred_alloc", ticket, r.st); err != nil {
		return 0, err
	}
	if n > 0 && out == 0 {
		return 0, d.bad("deferred_alloc(%d) returned OK and null", n)
	}
	return sc.Addr(out), nil
}

func (d *Deferred) Free(ctx sc.Context, p sc.Addr) error {
	ticket := nextTicket()
	d.enter()
	st := C.mv_deferred_free(d.t, d.self, C.uint64_t(ticket), C.uint32_t(ctx), C.memverify_addr(p))
	d.leave()
	return d.result("deferred_free", ticket, st)
}

func (d *Deferred) GC() error {
	ticket := nextTicket()
	d.enter()
	st := C.mv_deferred_gc(d.t, d.self, C.uint64_t(ticket))
	d.leave()
	return d.result("deferred_gc", ticket, st)
}

func (d *Deferred) Pending() int {
	d.enter()
	n := C.mv_deferred_pending(d.t, d.self)
	d.leave()
	return int(n)
}

func (d *Deferred) Close() error {
	ticket := nextTicket()
	d.enter()
	st := C.mv_deferred_close(d.t, d.self, C.uint64_t(ticket))
	d.leave()
	return d.result("deferred_close", ticket, st)
}

// brokenDeferred stands for an allocator whose create failed.
type brokenDeferred struct{ err error }

func (b brokenDeferred) Alloc(int64) (sc.Addr, error)   { return 0, b.err }
func (b brokenDeferred) Free(sc.Context, sc.Addr) error { return b.err }
func (b brokenDeferred) GC() error                      { return b.err }
func (b brokenDeferred) Pending() int                   { return 0 }
func (b brokenDeferred) Close() error                   { return b.err }
