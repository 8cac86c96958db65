package cabi

/*
#include "glue.h"
memverify_status mv_fl_create(const memverify_bank_table *t, const memverify_bank_config *cfg, void **self);
void mv_fl_destroy(const memverify_bank_table *t, void *self);
memverify_status mv_fl_allocate(const memverify_bank_table *t, void *self, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out);
memverify_status mv_fl_allocate_at(const memverify_bank_table *t, void *self, memverify_addr addr, int64_t size);
memverify_status mv_fl_allocate_avoiding(const memverify_bank_table *t, void *self, int64_t size, int32_t dir, const memverify_bank_range *avoid, size_t n, memverify_addr limit, memverify_addr *out);
memverify_status mv_fl_free(const memverify_bank_table *t, void *self, memverify_addr addr);
void mv_fl_stats(const memverify_bank_table *t, void *self, memverify_bank_stats *out);
void mv_fl_blocks(const memverify_bank_table *t, void *self, mv_list *out);
void mv_fl_state(const memverify_bank_table *t, void *self, mv_list *out);
memverify_status mv_fl_restore(const memverify_bank_table *t, void *self, const memverify_bank_state *s);
#cgo noescape mv_fl_create
#cgo nocallback mv_fl_create
#cgo noescape mv_fl_allocate
#cgo nocallback mv_fl_allocate
#cgo noescape mv_fl_allocate_avoiding
#cgo nocallback mv_fl_allocate_avoiding
#cgo noescape mv_fl_stats
#cgo nocallback mv_fl_stats
#cgo noescape mv_fl_blocks
#cgo nocallback mv_fl_blocks
#cgo noescape mv_fl_state
#cgo nocallback mv_fl_state
#cgo noescape mv_fl_restore
#cgo nocallback mv_fl_restore
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	bk "github.com/memverify/memverify/model/bank"
)

// BankTable is a library's bank table (memverify_bank_v1): a free list
// and banks, each offered when its create is set.
type BankTable struct {
	t *table
	c *C.memverify_bank_table
}

// Bank returns the library's bank table (ErrNoTable if it has none).
func (l *Library) Bank() (*BankTable, error) {
	t, err := l.table(DomainBank)
	if err != nil {
		return nil, err
	}
	return &BankTable{t: t, c: (*C.memverify_bank_table)(t.ptr)}, nil
}

func checkBankTable(c *C.memverify_bank_table) error {
	if c.freelist_create == nil && c.banks_create == nil {
		return fmt.Errorf("%w: it offers no interface (freelist_create and banks_create are NULL)", ErrMissingFunction)
	}
	return errors.Join(
		needAll("a free list", c.freelist_create != nil, fn{"freelist_destroy", c.freelist_destroy != nil},
			fn{"freelist_allocate", c.freelist_allocate != nil}, fn{"freelist_allocate_at", c.freelist_allocate_at != nil},
			fn{"freelist_allocate_avoiding", c.freelist_allocate_avoiding != nil}, fn{"freelist_free", c.freelist_free != nil},
			fn{"freelist_stats", c.freelist_stats != nil}, fn{"freelist_blocks", c.freelist_blocks != nil},
			fn{"freelist_state", c.freelist_state != nil}, fn{"freelist_restore", c.freelist_restore != nil}),
		needAll("banks", c.banks_create != nil, fn{"banks_destroy", c.banks_destroy != nil},
			fn{"banks_allocate_buffer", c.banks_allocate_buffer != nil}, fn{"banks_allocate_sharded", c.banks_allocate_sharded != nil},
			fn{"banks_free_buffer", c.banks_free_buffer != nil}, fn{"banks_page_address", c.banks_page_address != nil},
			fn{"banks_buffers", c.banks_buffers != nil}, fn{"banks_stats", c.banks_stats != nil},
			fn{"banks_blocks", c.banks_blocks != nil}))
}

// Name is the implementation's name; Concurrent reports MEMVERIFY_CONCURRENT.
func (b *BankTable) Name() string     { return b.t.name }
func (b *BankTable) Concurrent() bool { return b.t.concurrent }

// HasFreeList and HasBanks report which interfaces the table offers.
func (b *BankTable) HasFreeList() bool { return b.c.freelist_create != nil }
func (b *BankTable) HasBanks() bool    { return b.c.banks_create != nil }

// FreeList is a C free list as a bank.FreeList.
type FreeList struct {
	instance
	t    *C.memverify_bank_table
	self unsafe.Pointer
	cfg  bk.Config
}

var _ bk.FreeList = (*FreeList)(nil)

func cBankConfig(c bk.Config) C.memverify_bank_config {
	return C.memverify_bank_config{offset: C.memverify_addr(c.Offset), size: C.int64_t(c.Size),
		alignment: C.int64_t(c.Alignment), min_allocation: C.int64_t(c.MinAllocation), policy: C.int32_t(c.Policy)}
}

// NewFreeList creates a free list of cfg.
func (b *BankTable) NewFreeList(cfg bk.Config) (*FreeList, error) {
	if b.c.freelist_create == nil {
		return nil, b.t.errNotOffered("free list")
	}
	cc := cBankConfig(cfg)
	var self unsafe.Pointer
	if err := bankCodes.err(b.t.lib, "freelist_create", int32(C.mv_fl_create(b.c, &cc, &self))); err != nil {
		return nil, err
	}
	if self == nil {
		return nil, b.t.lib.violation(ErrBadValue, "freelist_create returned OK and a null instance")
	}
	l := &FreeList{instance: newInstance(b.t), t: b.c, self: self, cfg: cfg}
	runtime.AddCleanup(l, func(c bankCleanup) { C.mv_fl_destroy(c.t, c.self) }, bankCleanup{b.c, self})
	return l, nil
}

type bankCleanup struct {
	t    *C.memverify_bank_table
	self unsafe.Pointer
}

// FreeListFactory returns NewFreeList in the shape of banktest.FreeListFactory.
func (b *BankTable) FreeListFactory() func(bk.Config) (bk.FreeList, error) {
	return func(cfg bk.Config) (bk.FreeList, error) {
		l, err := b.NewFreeList(cfg)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
}

func (l *FreeList) status(fn string, st C.memverify_status) error {
	return bankCodes.err(l.lib, fn, int32(st))
}

// placed checks that an allocation's address lies in the managed range.
func (l *FreeList) placed(fn string, a C.memverify_addr) (bk.Addr, error) {
	if bk.Addr(a) < l.cfg.Offset || bk.Addr(a) >= l.cfg.End() {
		return 0, l.bad("%s returned %#x, outside the managed range [%#x, %#x)", fn, uint64(a), uint64(l.cfg.Offset), uint64(l.cfg.End()))
	}
	return bk.Addr(a), nil
}

func (l *FreeList) Config() bk.Config { return l.cfg }

func (l *FreeList) Allocate(size int64, dir bk.Direction, limit bk.Addr) (bk.Addr, error) {
	var out C.memverify_addr
	l.enter()
	st := C.mv_fl_allocate(l.t, l.self, C.int64_t(size), C.int32_t(dir), C.memverify_addr(limit), &out)
	l.leave()
	if err := l.status("freelist_allocate", st); err != nil {
		return 0, err
	}
	return l.placed("freelist_allocate", out)
}

func (l *FreeList) AllocateAt(addr bk.Addr, size int64) error {
	l.enter()
	st := C.mv_fl_allocate_at(l.t, l.self, C.memverify_addr(addr), C.int64_t(size))
	l.leave()
	return l.status("freelist_allocate_at", st)
}

func (l *FreeList) AllocateAvoiding(size int64, dir bk.Direction, avoid []bk.Range, limit bk.Addr) (bk.Addr, error) {
	ranges := make([]C.memverify_bank_range, len(avoid))
	for i, r := range avoid {
		ranges[i] = C.memverify_bank_range{start: C.memverify_addr(r.Start), end: C.memverify_addr(r.End)}
	}
	var out C.memverify_addr
	l.enter()
	st := C.mv_fl_allocate_avoiding(l.t, l.self, C.int64_t(size), C.int32_t(dir), unsafe.SliceData(ranges),
		C.size_t(len(ranges)), C.memverify_addr(limit), &out)
	l.leave()
	if err := l.status("freelist_allocate_avoiding", st); err != nil {
		return 0, err
	}
	return l.placed("freelist_allocate_avoiding", out)
}

func (l *FreeList) Free(addr bk.Addr) error {
	l.enter()
	st := C.mv_fl_free(l.t, l.self, C.memverify_addr(addr))
	l.leave()
	return l.status("freelist_free", st)
}

func (l *FreeList) Stats() bk.Stats {
	var s C.memverify_bank_stats
	l.enter()
	C.mv_fl_stats(l.t, l.self, &s)
	l.leave()
	return goBankStats(s)
}

func goBankStats(s C.memverify_bank_stats) bk.Stats {
	return bk.Stats{TotalAllocatable: int64(s.total_allocatable), Allocated: int64(s.allocated),
		Free: int64(s.free), LargestFree: int64(s.largest_free)}
}

func (l *FreeList) Blocks() []bk.Block {
	cl := newList(unsafe.Sizeof(C.memverify_bank_block{}), 0)
	defer C.mv_list_free(&cl)
	l.enter()
	C.mv_fl_blocks(l.t, l.self, &cl)
	l.leave()
	return goBankBlocks(&l.instance, "freelist_blocks", &cl)
}

func goBankBlocks(in *instance, fn string, l *C.mv_list) []bk.Block {
	if listFailed(l) {
		in.bad("%s: the harness ran out of host memory collecting the entries", fn)
	}
	its := items[C.memverify_bank_block](l)
	out := make([]bk.Block, len(its))
	for i, b := range its {
		out[i] = bk.Block{Addr: bk.Addr(b.addr), Size: int64(b.size), Allocated: in.boolean(fn, "allocated", b.allocated)}
	}
	return out
}

func (l *FreeList) State() bk.State {
	cl := newList(unsafe.Sizeof(C.memverify_bank_region{}), 0)
	defer C.mv_list_free(&cl)
	l.enter()
	C.mv_fl_state(l.t, l.self, &cl)
	l.leave()
	if listFailed(&cl) {
		l.bad("freelist_state: the harness ran out of host memory collecting the entries")
	}
	s := bk.State{Offset: l.cfg.Offset, Size: l.cfg.Size, Alignment: l.cfg.Alignment, MinAllocation: l.cfg.MinAllocation}
	for _, r := range items[C.memverify_bank_region](&cl) {
		s.Allocations = append(s.Allocations, bk.Region{Addr: bk.Addr(r.addr), Size: int64(r.size)})
	}
	return s
}

func (l *FreeList) Restore(s bk.State) error {
	regions := make([]C.memverify_bank_region, len(s.Allocations))
	for i, r := range s.Allocations {
		regions[i] = C.memverify_bank_region{addr: C.memverify_addr(r.Addr), size: C.int64_t(r.Size)}
	}
	cs := C.memverify_bank_state{offset: C.memverify_addr(s.Offset), size: C.int64_t(s.Size),
		alignment: C.int64_t(s.Alignment), min_allocation: C.int64_t(s.MinAllocation), nallocations: C.size_t(len(regions))}
	var pin runtime.Pinner
	defer pin.Unpin()
	if len(regions) > 0 {
		pin.Pin(&regions[0])
		cs.allocations = &regions[0]
	}
	l.enter()
	st := C.mv_fl_restore(l.t, l.self, &cs)
	l.leave()
	return l.status("freelist_restore", st)
}
