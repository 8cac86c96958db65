package cabi

/*
#include "glue.h"
memverify_status mv_pool_create(const memverify_sizeclass_table *t, uint64_t ticket, const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self);
void mv_pool_destroy(const memverify_sizeclass_table *t, void *self);
mv_result mv_pool_alloc(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int64_t n);
memverify_status mv_pool_free(const memverify_sizeclass_table *t, void *self, uint64_t ticket, memverify_addr p);
memverify_status mv_pool_set_pinned(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int32_t on);
mv_result mv_pool_trim(const memverify_sizeclass_table *t, void *self, uint64_t ticket);
memverify_status mv_pool_stats(const memverify_sizeclass_table *t, void *self, memverify_pool_stats *out, memverify_class_stats *classes, size_t n);
memverify_status mv_pool_blocks(const memverify_sizeclass_table *t, void *self, mv_list *out);
memverify_status mv_pool_close(const memverify_sizeclass_table *t, void *self, uint64_t ticket, mv_list *out);
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"unsafe"

	sc "github.com/memverify/memverify/model/sizeclass"
)

// Pool is a C pool as a sizeclass.Pool.
type Pool struct {
	scInstance
	t        *C.memverify_sizeclass_table
	self     unsafe.Pointer
	nclasses int
}

var _ sc.Pool = (*Pool)(nil)

// NewPool creates a pool over dev shaped by cfg; it has the shape of
// sizeclasstest.PoolFactory once converted (PoolFactory).
func (s *SizeclassTable) NewPool(dev sc.Device, cfg sc.Config) (*Pool, error) {
	if s.c.pool_create == nil {
		return nil, s.t.errNotOffered("pool")
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	ccfg := cConfig(cfg, &pin)
	in, self, h, err := s.createInstance("pool_create", dev, func(ticket C.uint64_t, cd *C.memverify_device, self *unsafe.Pointer) C.memverify_status {
		return C.mv_pool_create(s.c, ticket, cd, &ccfg, self)
	})
	if err != nil {
		return nil, err
	}
	p := &Pool{scInstance: in, t: s.c, self: self, nclasses: len(cfg.Classes)}
	runtime.AddCleanup(p, func(c scCleanup) { C.mv_pool_destroy(c.t, c.self); c.h.Delete() }, scCleanup{s.c, self, h})
	return p, nil
}

type scCleanup struct {
	t    *C.memverify_sizeclass_table
	self unsafe.Pointer
	h    cgo.Handle
}

// PoolFactory returns NewPool in the shape of sizeclasstest.PoolFactory.
func (s *SizeclassTable) PoolFactory() func(sc.Device, sc.Config) (sc.Pool, error) {
	return func(dev sc.Device, cfg sc.Config) (sc.Pool, error) {
		p, err := s.NewPool(dev, cfg)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
}

func (p *Pool) Alloc(n int64) (sc.Addr, error) {
	ticket := nextTicket()
	p.enter()
	r := C.mv_pool_alloc(p.t, p.self, C.uint64_t(ticket), C.int64_t(n))
	p.leave()
	out := r.value
	if err := p.result("pool_alloc", ticket, r.st); err != nil {
		return 0, err
	}
	if n > 0 && out == 0 {
		return 0, p.bad("pool_alloc(%d) returned OK and null", n)
	}
	return sc.Addr(out), nil
}

func (p *Pool) Free(a sc.Addr) error {
	ticket := nextTicket()
	p.enter()
	st := C.mv_pool_free(p.t, p.self, C.uint64_t(ticket), C.memverify_addr(a))
	p.leave()
	return p.result("pool_free", ticket, st)
}

func (p *Pool) SetPinned(on bool) error {
	var v C.int32_t
	if on {
		v = 1
	}
	ticket := nextTicket()
	p.enter()
	st := C.mv_pool_set_pinned(p.t, p.self, C.uint64_t(ticket), v)
	p.leave()
	return p.result("pool_set_pinned", ticket, st)
}

func (p *Pool) Trim() (int64, error) {
	ticket := nextTicket()
	p.enter()
	r := C.mv_pool_trim(p.t, p.self, C.uint64_t(ticket))
	p.leave()
	err := p.result("pool_trim", ticket, r.st)
	if err != nil && r.st != C.MEMVERIFY_E_DEVICE {
		return 0, err
	}
	return int64(r.value), err
}

func (p *Pool) Stats() sc.Stats {
	var s C.memverify_pool_stats
	classes := make([]C.memverify_class_stats, p.nclasses+1)
	p.enter()
	st := C.mv_pool_stats(p.t, p.self, &s, &classes[0], C.size_t(len(classes)))
	p.leave()
	if err := p.result("pool_stats", 0, st); err != nil {
		return sc.Stats{}
	}
	out := sc.Stats{Reserved: int64(s.reserved), InUse: int64(s.in_use), Requested: int64(s.requested),
		Cached: int64(s.cached), Hits: int64(s.hits), Misses: int64(s.misses), Blocks: int(s.blocks),
		Frozen: int(s.frozen), FreeFailures: int64(s.free_failures), Classes: make([]sc.ClassStats, len(classes))}
	for i, c := range classes {
		out.Classes[i] = sc.ClassStats{Size: int64(c.size), Blocks: int(c.blocks), InUse: int(c.in_use)}
	}
	return out
}

func (p *Pool) Blocks() []sc.Block {
	l := newList(unsafe.Sizeof(C.memverify_pool_block{}), 0)
	defer C.mv_list_free(&l)
	p.enter()
	st := C.mv_pool_blocks(p.t, p.self, &l)
	p.leave()
	if err := p.result("pool_blocks", 0, st); err != nil {
		return nil
	}
	return p.blocks("pool_blocks", &l)
}

func (p *Pool) Close() ([]sc.Block, error) {
	l := newList(unsafe.Sizeof(C.memverify_pool_block{}), 0)
	defer C.mv_list_free(&l)
	ticket := nextTicket()
	p.enter()
	st := C.mv_pool_close(p.t, p.self, C.uint64_t(ticket), &l)
	p.leave()
	err := p.result("pool_close", ticket, st)
	if err != nil && st != C.MEMVERIFY_E_DEVICE {
		return nil, err
	}
	return p.blocks("pool_close", &l), err
}

// blocks converts emitted pool blocks.
func (p *Pool) blocks(fn string, l *C.mv_list) []sc.Block {
	if listFailed(l) {
		p.bad("%s: the harness ran out of host memory collecting the entries", fn)
	}
	its := items[C.memverify_pool_block](l)
	out := make([]sc.Block, len(its))
	for i, b := range its {
		out[i] = sc.Block{Addr: sc.Addr(b.addr), Size: int64(b.size), Class: p.classIndex(fn, b.addr, b.class_index, p.nclasses),
			Requested: int64(b.requested), InUse: p.boolean(fn, "in_use", b.in_use), Frozen: p.boolean(fn, "frozen", b.frozen),
			Cached: int(b.cached)}
	}
	if len(out) == 0 && fn == "pool_close" {
		return nil
	}
	return out
}
