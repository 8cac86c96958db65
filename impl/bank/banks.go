package bank

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/bank"
	"github.com/memverify/memverify/sched"
)

// Concurrent is a Banks safe for concurrent use. Allocation and free
// serialise on one mutex around a FreeListOpt (the banks share it, so there is
// nothing to shard); buffer records live in a single-writer hash table whose
// reads take no lock (records.go), so PageAddress, the hot path of every page
// read and write, is wait-free. Every method is linearizable: a record is
// published and withdrawn under the mutex, at the same point as its block.
type Concurrent struct {
	cfg     spec.BanksConfig
	mu      sched.Mutex
	list    *FreeListOpt
	buffers records
}

// record is one live buffer; immutable once published.
type record struct {
	buf    spec.Buffer
	pages  int64     // buf.Pages()
	n      int64     // len(buf.Banks)
	stride spec.Addr // align(PageSize)
}

var _ spec.Banks = (*Concurrent)(nil)

// NewConcurrent returns empty concurrent banks.
func NewConcurrent(cfg spec.BanksConfig) (*Concurrent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	list, err := NewFreeListOpt(cfg.List)
	if err != nil {
		return nil, err
	}
	cfg.Offsets = slices.Clone(cfg.Offsets)
	return &Concurrent{cfg: cfg, list: list}, nil
}

// Config implements spec.Banks.
func (c *Concurrent) Config() spec.BanksConfig {
	cfg := c.cfg
	cfg.Offsets = slices.Clone(cfg.Offsets)
	return cfg
}

// AllocateBuffer implements spec.Banks.
func (c *Concurrent) AllocateBuffer(size, pageSize int64, dir spec.Direction) (spec.Addr, error) {
	all := make([]int, len(c.cfg.Offsets))
	for i := range all {
		all[i] = i
	}
	return c.allocate(size, pageSize, all, dir)
}

// AllocateSharded implements spec.Banks.
func (c *Concurrent) AllocateSharded(size, pageSize int64, banks []int, dir spec.Direction) (spec.Addr, error) {
	if err := spec.CheckShards(banks, len(c.cfg.Offsets)); err != nil {
		return 0, err
	}
	return c.allocate(size, pageSize, slices.Clone(banks), dir)
}

func (c *Concurrent) allocate(size, pageSize int64, banks []int, dir spec.Direction) (spec.Addr, error) {
	over := len(banks)
	if bugs.On(BugShardedAllBanks) {
		over = len(c.cfg.Offsets) // sized as if interleaved over every bank
	}
	perBank, err := spec.Layout(size, pageSize, over, c.cfg.List.Alignment)
	if err != nil {
		return 0, err
	}
	if bugs.On(BugSeedAlignedSize) {
		// aligned_size(size, page_size, num_banks) / num_banks from the seed.
		perBank = int64(alignUpUnchecked(uint64(size/int64(len(banks))), uint64(pageSize)))
		if perBank == 0 {
			perBank = c.cfg.List.Alignment
		}
	}
	stride, _ := spec.AlignUp(uint64(pageSize), uint64(c.cfg.List.Alignment)) // Layout checked it
	if bugs.On(BugPageStrideUnaligned) {
		stride = uint64(pageSize)
	}
	rec := &record{
		buf:    spec.Buffer{Size: size, PageSize: pageSize, Banks: banks, PerBank: perBank},
		n:      int64(len(banks)),
		stride: spec.Addr(stride),
	}
	rec.pages = rec.buf.Pages()
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.list.Allocate(perBank, dir, c.cfg.Limit)
	if err != nil {
		return 0, err
	}
	rec.buf.Addr = a
	c.buffers.Store(rec)
	return a, nil
}

func alignUpUnchecked(x, a uint64) uint64 { return (x + a - 1) / a * a }

// FreeBuffer implements spec.Banks.
func (c *Concurrent) FreeBuffer(addr spec.Addr) error {
	c.mu.Lock()
	if _, ok := c.buffers.Load(addr); !ok {
		c.mu.Unlock()
		if bugs.On(BugUnknownBufferFreeAccepted) {
			return nil // BankManager::deallocate_buffer forwards and ignores the miss
		}
		return fmt.Errorf("%w: no buffer at %#x", spec.ErrUnknownAddress, uint64(addr))
	}
	err := c.list.Free(addr)
	if bugs.On(BugFreeRecordRace) {
		c.mu.Unlock()
		c.buffers.Delete(addr)
		return err
	}
	c.buffers.Delete(addr)
	c.mu.Unlock()
	return err
}

// PageAddress implements spec.Banks.
func (c *Concurrent) PageAddress(addr spec.Addr, page int64) (int, spec.Addr, error) {
	r, ok := c.buffers.Load(addr)
	if !ok {
		return 0, 0, fmt.Errorf("%w: no buffer at %#x", spec.ErrUnknownAddress, uint64(addr))
	}
	if (page < 0 || page >= r.pages) && !bugs.On(BugPageUnchecked) {
		return 0, 0, fmt.Errorf("%w: page %d of a %d-page buffer", spec.ErrInvalidAddress, page, r.pages)
	}
	row, col := page/r.n, page%r.n
	bank := r.buf.Banks[col]
	off := c.cfg.Offsets[bank]
	if bugs.On(BugShardOffset) {
		off = c.cfg.Offsets[col]
	}
	return bank, addr + off + spec.Addr(row)*r.stride, nil
}

// Buffers implements spec.Banks.
// The mutex makes it a consistent snapshot: records change only under it.
func (c *Concurrent) Buffers() []spec.Buffer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []spec.Buffer
	c.buffers.All(func(r *record) {
		b := r.buf
		b.Banks = slices.Clone(b.Banks)
		out = append(out, b)
	})
	slices.SortFunc(out, func(x, y spec.Buffer) int {
		switch {
		case x.Addr < y.Addr:
			return -1
		case x.Addr > y.Addr:
			return 1
		}
		return 0
	})
	return out
}

// Stats implements spec.Banks.
func (c *Concurrent) Stats() spec.Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.list.Stats()
}

// Blocks implements spec.Banks.
func (c *Concurrent) Blocks() []spec.Block {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.list.Blocks()
}
