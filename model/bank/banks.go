package bank

import (
	"fmt"
	"math"
	"math/bits"
)

// MaxBanks bounds the bank count a configuration may name.
const MaxBanks = 1024

// BanksConfig describes a set of banks that share one free list: a buffer
// occupies the same bank-local range in every bank (BankManager's layout).
type BanksConfig struct {
	// Offsets holds one offset per bank; a bank-local address a of bank b is
	// the absolute address a + Offsets[b]. There is at least one bank.
	Offsets []Addr
	// List is the shared free list over the bank-local range. Its alignment
	// also rounds the page size (one alignment serves both).
	List Config
	// Limit is the address limit every buffer allocation observes (0: none).
	Limit Addr
}

// Validate reports whether the configuration can be served (ErrInvalidConfig).
func (c BanksConfig) Validate() error {
	if len(c.Offsets) < 1 || len(c.Offsets) > MaxBanks {
		return fmt.Errorf("%w: %d banks (want 1 to %d)", ErrInvalidConfig, len(c.Offsets), MaxBanks)
	}
	if err := c.List.Validate(); err != nil {
		return err
	}
	for b, off := range c.Offsets {
		if _, carry := bits.Add64(uint64(off), uint64(c.List.End()), 0); carry != 0 {
			return fmt.Errorf("%w: bank %d at offset %#x passes the top of the address space", ErrInvalidConfig, b, uint64(off))
		}
	}
	return nil
}

// Buffer describes one live buffer.
type Buffer struct {
	Addr     Addr  // bank-local address, the same in every bank it uses
	Size     int64 // bytes requested
	PageSize int64 // bytes per page as requested
	Banks    []int // the banks its pages go round, in order; all banks if interleaved
	PerBank  int64 // bytes each bank holds: ceil(pages / len(Banks)) × align(PageSize)
}

// Pages is the number of pages: ceil(Size / PageSize); 0 for a Buffer with
// no positive page size, which Banks never describes.
func (b Buffer) Pages() int64 {
	if b.PageSize <= 0 || b.Size <= 0 {
		return 0
	}
	return ceilDiv(b.Size, b.PageSize)
}

// ceilDiv is ceil(a / b) for a ≥ 0 and b > 0, without forming a+b-1, which
// wraps for an a near 2^63.
func ceilDiv(a, b int64) int64 { return a/b + min(a%b, 1) }

// PageLen is the number of buffer bytes page i holds: PageSize, or less for
// the last page of a size that is not a page multiple.
func (b Buffer) PageLen(i int64) int64 { return min(b.PageSize, b.Size-i*b.PageSize) }

// Layout computes the per-bank size of a buffer of size bytes in pages of
// pageSize over nbanks banks, pages rounded to align:
// ceil(ceil(size / pageSize) / nbanks) × align(pageSize).
func Layout(size, pageSize int64, nbanks int, align int64) (perBank int64, err error) {
	if size <= 0 || pageSize <= 0 {
		return 0, fmt.Errorf("%w: buffer of %d bytes in pages of %d", ErrInvalidSize, size, pageSize)
	}
	if nbanks < 1 || align < 1 {
		return 0, fmt.Errorf("%w: a layout over %d banks with alignment %d", ErrInvalidConfig, nbanks, align)
	}
	pages := ceilDiv(size, pageSize)
	rows := ceilDiv(pages, int64(nbanks))
	stride, ok := AlignUp(uint64(pageSize), uint64(align))
	hi, lo := bits.Mul64(uint64(rows), stride)
	if !ok || hi != 0 || lo > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %d pages of %d over %d banks overflows", ErrInvalidSize, pages, pageSize, nbanks)
	}
	return int64(lo), nil
}

// Banks is the contract of a bank manager: interleaved and sharded buffers
// over banks that share one free list.
type Banks interface {
	// Config returns the configuration the banks were built with.
	Config() BanksConfig
	// AllocateBuffer places a buffer's pages round all banks and returns its
	// bank-local address.
	AllocateBuffer(size, pageSize int64, dir Direction) (Addr, error)
	// AllocateSharded places a buffer's pages round the listed banks (distinct,
	// existing; else ErrInvalidBank); page i goes to banks[i mod len(banks)].
	AllocateSharded(size, pageSize int64, banks []int, dir Direction) (Addr, error)
	// FreeBuffer releases the buffer at addr (ErrUnknownAddress if none).
	FreeBuffer(addr Addr) error
	// PageAddress is where page i of the buffer at addr lives: in bank
	// banks[i mod n] at addr + Offsets[bank] + (i div n) × align(pageSize).
	PageAddress(addr Addr, page int64) (bank int, abs Addr, err error)
	// Buffers lists the live buffers sorted by address.
	Buffers() []Buffer
	// Stats is one bank's statistics (every bank holds the same layout).
	Stats() Stats
	// Blocks is one bank's dump.
	Blocks() []Block
}
