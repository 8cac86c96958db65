package cabi

/*
#include "glue.h"
memverify_status mv_streams_create(const memverify_sizeclass_table *t, uint64_t ticket, const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self);
void mv_streams_destroy(const memverify_sizeclass_table *t, void *self);
mv_result mv_streams_alloc(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t s, int64_t n);
memverify_status mv_streams_free(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t s, memverify_addr p);
memverify_status mv_streams_synchronize(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t s);
mv_result mv_streams_trim(const memverify_sizeclass_table *t, void *self, uint64_t ticket);
memverify_status mv_streams_blocks(const memverify_sizeclass_table *t, void *self, mv_list *out);
memverify_status mv_streams_close(const memverify_sizeclass_table *t, void *self, uint64_t ticket, mv_list *out);
*/
import "C"

import (
	"runtime"
	"unsafe"

	sc "github.com/memverify/memverify/model/sizeclass"
)

// Streams is a C stream-ordered allocator as a sizeclass.StreamAllocator.
type Streams struct {
	scInstance
	t        *C.memverify_sizeclass_table
	self     unsafe.Pointer
	nclasses int
}

var _ sc.StreamAllocator = (*Streams)(nil)

// NewStreams creates a stream-ordered allocator over dev shaped by cfg.
func (s *SizeclassTable) NewStreams(dev sc.Device, cfg sc.Config) (*Streams, error) {
	if s.c.streams_create == nil {
		return nil, s.t.errNotOffered("stream allocator")
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	ccfg := cConfig(cfg, &pin)
	in, self, h, err := s.createInstance("streams_create", dev, func(ticket C.uint64_t, cd *C.memverify_device, self *unsafe.Pointer) C.memverify_status {
		return C.mv_streams_create(s.c, ticket, cd, &ccfg, self)
	})
	if err != nil {
		return nil, err
	}
	a := &Streams{scInstance: in, t: s.c, self: self, nclasses: len(cfg.Classes)}
	runtime.AddCleanup(a, func(c scCleanup) { C.mv_streams_destroy(c.t, c.self); c.h.Delete() }, scCleanup{s.c, self, h})
	return a, nil
}

// StreamsFactory returns NewStreams in the shape of
// sizeclasstest.StreamAllocatorFactory.
func (s *SizeclassTable) StreamsFactory() func(sc.Device, sc.Config) (sc.StreamAllocator, error) {
	return func(dev sc.Device, cfg sc.Config) (sc.StreamAllocator, error) {
		a, err := s.NewStreams(dev, cfg)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
}

func (a *Streams) Alloc(s sc.Stream, n int64) (sc.Addr, error) {
	ticket := nextTicket()
	a.enter()
	r := C.mv_streams_alloc(a.t, a.self, C.uint64_t(ticket), C.uint32_t(s), C.int64_t(n))
	a.leave()
	out := r.value
	if err := a.result("streams_alloc", ticket, r.st); err != nil {
		return 0, err
	}
	if n > 0 && out == 0 {
		return 0, a.bad("streams_alloc(%d) returned OK and null", n)
	}
	return sc.Addr(out), nil
}

func (a *Streams) Free(s sc.Stream, p sc.Addr) error {
	ticket := nextTicket()
	a.enter()
	st := C.mv_streams_free(a.t, a.self, C.uint64_t(ticket), C.uint32_t(s), C.memverify_addr(p))
	a.leave()
	return a.result("streams_free", ticket, st)
}

func (a *Streams) Synchronize(s sc.Stream) error {
	ticket := nextTicket()
	a.enter()
	st := C.mv_streams_synchronize(a.t, a.self, C.uint64_t(ticket), C.uint32_t(s))
	a.leave()
	return a.result("streams_synchronize", ticket, st)
}

func (a *Streams) Trim() (int64, error) {
	ticket := nextTicket()
	a.enter()
	r := C.mv_streams_trim(a.t, a.self, C.uint64_t(ticket))
	a.leave()
	err := a.result("streams_trim", ticket, r.st)
	if err != nil && r.st != C.MEMVERIFY_E_DEVICE {
		return 0, err
	}
	return int64(r.value), err
}

func (a *Streams) Blocks() []sc.StreamBlock {
	l := newList(unsafe.Sizeof(C.memverify_stream_block{}), 0)
	defer C.mv_list_free(&l)
	a.enter()
	st := C.mv_streams_blocks(a.t, a.self, &l)
	a.leave()
	if err := a.result("streams_blocks", 0, st); err != nil {
		return nil
	}
	return a.blocks("streams_blocks", &l)
}

func (a *Streams) Close() ([]sc.StreamBlock, error) {
	l := newList(unsafe.Sizeof(C.memverify_stream_block{}), 0)
	defer C.mv_list_free(&l)
	ticket := nextTicket()
	a.enter()
	st := C.mv_streams_close(a.t, a.self, C.uint64_t(ticket), &l)
	a.leave()
	err := a.result("streams_close", ticket, st)
	if err != nil && st != C.MEMVERIFY_E_DEVICE {
		return nil, err
	}
	out := a.blocks("streams_close", &l)
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

func (a *Streams) blocks(fn string, l *C.mv_list) []sc.StreamBlock {
	if listFailed(l) {
		a.bad("%s: the harness ran out of host memory collecting the entries", fn)
	}
	its := items[C.memverify_stream_block](l)
	out := make([]sc.StreamBlock, len(its))
	for i, b := range its {
		out[i] = sc.StreamBlock{Addr: sc.Addr(b.addr), Size: int64(b.size), Class: a.classIndex(fn, b.addr, b.class_index, a.nclasses),
			InUse: a.boolean(fn, "in_use", b.in_use), Stream: sc.Stream(b.stream), Pending: a.boolean(fn, "pending", b.pending),
			Cached: int(b.cached)}
	}
	return out
}
