package cabi

/*
#include "glue.h"
memverify_status mv_bk_create(const memverify_bank_table *t, const memverify_banks_config *cfg, void **self);
void mv_bk_destroy(const memverify_bank_table *t, void *self);
memverify_status mv_bk_allocate_buffer(const memverify_bank_table *t, void *self, int64_t size, int64_t page, int32_t dir, memverify_addr *out);
memverify_status mv_bk_allocate_sharded(const memverify_bank_table *t, void *self, int64_t size, int64_t page, const int32_t *banks, size_t n, int32_t dir, memverify_addr *out);
memverify_status mv_bk_free_buffer(const memverify_bank_table *t, void *self, memverify_addr addr);
memverify_status mv_bk_page_address(const memverify_bank_table *t, void *self, memverify_addr addr, int64_t page, int32_t *bank, memverify_addr *abs);
void mv_bk_buffers(const memverify_bank_table *t, void *self, mv_list *out);
void mv_bk_stats(const memverify_bank_table *t, void *self, memverify_bank_stats *out);
void mv_bk_blocks(const memverify_bank_table *t, void *self, mv_list *out);
#cgo noescape mv_bk_create
#cgo nocallback mv_bk_create
#cgo noescape mv_bk_allocate_buffer
#cgo nocallback mv_bk_allocate_buffer
#cgo noescape mv_bk_allocate_sharded
#cgo nocallback mv_bk_allocate_sharded
#cgo noescape mv_bk_page_address
#cgo nocallback mv_bk_page_address
#cgo noescape mv_bk_buffers
#cgo nocallback mv_bk_buffers
#cgo noescape mv_bk_stats
#cgo nocallback mv_bk_stats
#cgo noescape mv_bk_blocks
#cgo nocallback mv_bk_blocks
*/
import "C"

import (
	"math"
	"runtime"
	"slices"
	"unsafe"

	bk "github.com/memverify/memverify/model/bank"
)

// Banks is C banks as a bank.Banks.
type Banks struct {
	instance
	t    *C.memverify_bank_table
	self unsafe.Pointer
	cfg  bk.BanksConfig
}

var _ bk.Banks = (*Banks)(nil)

// NewBanks creates banks of cfg.
func (b *BankTable) NewBanks(cfg bk.BanksConfig) (*Banks, error) {
	if b.c.banks_create == nil {
		return nil, b.t.errNotOffered("banks")
	}
	cfg.Offsets = slices.Clone(cfg.Offsets)
	cc := C.memverify_banks_config{nbanks: C.size_t(len(cfg.Offsets)), list: cBankConfig(cfg.List), limit: C.memverify_addr(cfg.Limit)}
	var pin runtime.Pinner
	defer pin.Unpin()
	if len(cfg.Offsets) > 0 {
		pin.Pin(&cfg.Offsets[0])
		cc.offsets = (*C.memverify_addr)(unsafe.Pointer(&cfg.Offsets[0]))
	}
	var self unsafe.Pointer
	if err := bankCodes.err(b.t.lib, "banks_create", int32(C.mv_bk_create(b.c, &cc, &self))); err != nil {
		return nil, err
	}
	if self == nil {
		return nil, b.t.lib.violation(ErrBadValue, "banks_create returned OK and a null instance")
	}
	g := &Banks{instance: newInstance(b.t), t: b.c, self: self, cfg: cfg}
	runtime.AddCleanup(g, func(c bankCleanup) { C.mv_bk_destroy(c.t, c.self) }, bankCleanup{b.c, self})
	return g, nil
}

// BanksFactory returns NewBanks in the shape of banktest.BanksFactory.
func (b *BankTable) BanksFactory() func(bk.BanksConfig) (bk.Banks, error) {
	return func(cfg bk.BanksConfig) (bk.Banks, error) {
		g, err := b.NewBanks(cfg)
		if err != nil {
			return nil, err
		}
		return g, nil
	}
}

func (g *Banks) status(fn string, st C.memverify_status) error {
	return bankCodes.err(g.lib, fn, int32(st))
}

func (g *Banks) Config() bk.BanksConfig {
	c := g.cfg
	c.Offsets = slices.Clone(c.Offsets)
	return c
}

// placed checks that a buffer's bank-local address lies in the list's range.
func (g *Banks) placed(fn string, a C.memverify_addr) (bk.Addr, error) {
	if bk.Addr(a) < g.cfg.List.Offset || bk.Addr(a) >= g.cfg.List.End() {
		return 0, g.bad("%s returned %#x, outside the managed range [%#x, %#x)", fn, uint64(a),
			uint64(g.cfg.List.Offset), uint64(g.cfg.List.End()))
	}
	return bk.Addr(a), nil
}

func (g *Banks) AllocateBuffer(size, pageSize int64, dir bk.Direction) (bk.Addr, error) {
	var out C.memverify_addr
	g.enter()
	st := C.mv_bk_allocate_buffer(g.t, g.self, C.int64_t(size), C.int64_t(pageSize), C.int32_t(dir), &out)
	g.leave()
	if err := g.status("banks_allocate_buffer", st); err != nil {
		return 0, err
	}
	return g.placed("banks_allocate_buffer", out)
}

// AllocateSharded passes a bank number that does not fit an int32 as -1:
// both are invalid, and the C side sees an invalid bank either way.
func (g *Banks) AllocateSharded(size, pageSize int64, banks []int, dir bk.Direction) (bk.Addr, error) {
	list := make([]C.int32_t, len(banks))
	for i, b := range banks {
		list[i] = -1
		if b >= math.MinInt32 && b <= math.MaxInt32 {
			list[i] = C.int32_t(b)
		}
	}
	var out C.memverify_addr
	g.enter()
	st := C.mv_bk_allocate_sharded(g.t, g.self, C.int64_t(size), C.int64_t(pageSize), unsafe.SliceData(list),
		C.size_t(len(list)), C.int32_t(dir), &out)
	g.leave()
	if err := g.status("banks_allocate_sharded", st); err != nil {
		return 0, err
	}
	return g.placed("banks_allocate_sharded", out)
}

func (g *Banks) FreeBuffer(addr bk.Addr) error {
	g.enter()
	st := C.mv_bk_free_buffer(g.t, g.self, C.memverify_addr(addr))
	g.leave()
	return g.status("banks_free_buffer", st)
}

func (g *Banks) PageAddress(addr bk.Addr, page int64) (int, bk.Addr, error) {
	var bank C.int32_t
	var abs C.memverify_addr
	g.enter()
	st := C.mv_bk_page_address(g.t, g.self, C.memverify_addr(addr), C.int64_t(page), &bank, &abs)
	g.leave()
	if err := g.status("banks_page_address", st); err != nil {
		return 0, 0, err
	}
	if bank < 0 || int(bank) >= len(g.cfg.Offsets) {
		return 0, 0, g.bad("banks_page_address(%#x, %d) returned bank %d of %d", uint64(addr), page, int32(bank), len(g.cfg.Offsets))
	}
	return int(bank), bk.Addr(abs), nil
}

func (g *Banks) Buffers() []bk.Buffer {
	cl := newList(unsafe.Sizeof(C.mv_buffer_item{}), unsafe.Sizeof(C.int32_t(0)))
	defer C.mv_list_free(&cl)
	g.enter()
	C.mv_bk_buffers(g.t, g.self, &cl)
	g.leave()
	if listFailed(&cl) {
		g.bad("banks_buffers: the harness ran out of host memory collecting the entries")
	}
	its, banks := items[C.mv_buffer_item](&cl), extras[C.int32_t](&cl)
	out := make([]bk.Buffer, 0, len(its))
	for _, it := range its {
		n := min(int(it.nbanks), len(banks))
		list := make([]int, n)
		for i := range list {
			list[i] = int(banks[i])
		}
		banks = banks[n:]
		out = append(out, bk.Buffer{Addr: bk.Addr(it.b.addr), Size: int64(it.b.size), PageSize: int64(it.b.page_size),
			Banks: list, PerBank: int64(it.b.per_bank)})
	}
	return out
}

func (g *Banks) Stats() bk.Stats {
	var s C.memverify_bank_stats
	g.enter()
	C.mv_bk_stats(g.t, g.self, &s)
	g.leave()
	return goBankStats(s)
}

func (g *Banks) Blocks() []bk.Block {
	cl := newList(unsafe.Sizeof(C.memverify_bank_block{}), 0)
	defer C.mv_list_free(&cl)
	g.enter()
	C.mv_bk_blocks(g.t, g.self, &cl)
	g.leave()
	return goBankBlocks(&g.instance, "banks_blocks", &cl)
}
