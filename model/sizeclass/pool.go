package sizeclass

import (
	"errors"
	"fmt"
	"math"
)

// Addr is an opaque device address. 0 is null.
type Addr uint64

func (a Addr) String() string { return fmt.Sprintf("%#x", uint64(a)) }

// Sentinel errors. Implementations return these, wrapped with detail if they
// like; callers test them with errors.Is.
var (
	ErrInvalidSize    = errors.New("sizeclass: invalid size")
	ErrInvalidConfig  = errors.New("sizeclass: invalid configuration")
	ErrOutOfMemory    = errors.New("sizeclass: out of memory")
	ErrUnknownPointer = errors.New("sizeclass: pointer not allocated by this pool")
	ErrDoubleFree     = errors.New("sizeclass: double free")
	ErrClosed         = errors.New("sizeclass: closed")
)

// Config is the shape of a pool: every request is rounded up to a multiple of
// Alignment, then served by the first class whose block size fits it, or,
// above the largest class, by a large block of exactly the rounded size.
type Config struct {
	Alignment int64   // a power of two
	Classes   []int64 // block sizes, strictly increasing, each a multiple of Alignment
}

const (
	kib = 1 << 10
	mib = 1 << 20
)

// DefaultConfig is the seed's: 256-byte alignment and the 11 classes
// 32K, 256K, 1M, 2M, 4M, 8M, 16M, 32M, 64M, 128M, 256M.
func DefaultConfig() Config {
	return Config{Alignment: 256, Classes: []int64{
		32 * kib, 256 * kib, 1 * mib, 2 * mib, 4 * mib, 8 * mib,
		16 * mib, 32 * mib, 64 * mib, 128 * mib, 256 * mib,
	}}
}

// Validate reports ErrInvalidConfig if c breaks a rule of Config.
func (c Config) Validate() error {
	if c.Alignment <= 0 || c.Alignment&(c.Alignment-1) != 0 {
		return fmt.Errorf("%w: alignment %d is not a power of two", ErrInvalidConfig, c.Alignment)
	}
	for i, s := range c.Classes {
		if s <= 0 || s%c.Alignment != 0 {
			return fmt.Errorf("%w: class %d (%d bytes) is not a positive multiple of the alignment", ErrInvalidConfig, i, s)
		}
		if i > 0 && s <= c.Classes[i-1] {
			return fmt.Errorf("%w: classes are not strictly increasing at %d", ErrInvalidConfig, i)
		}
	}
	return nil
}

// Round returns n rounded up to the alignment, or false if that does not fit
// in an int64. The seed's (n + 255) / 256 * 256 wraps here; this does not.
func (c Config) Round(n int64) (int64, bool) {
	a := c.Alignment
	if n < 0 || n > math.MaxInt64-(a-1) {
		return 0, false
	}
	return (n + a - 1) &^ (a - 1), true
}

// ClassOf returns the index of the first class whose blocks hold size bytes,
// or -1 if size is above the largest class (a large block).
func (c Config) ClassOf(size int64) int {
	for i, s := range c.Classes {
		if size <= s {
			return i
		}
	}
	return -1
}

// Stats summarises a pool. Under concurrent calls it is a snapshot that may
// mix moments; when no call is running it is exact.
type Stats struct {
	Reserved     int64 // bytes held from the device
	InUse        int64 // block bytes of live allocations
	Requested    int64 // requested bytes of live allocations
	Cached       int64 // Reserved - InUse
	Hits         int64 // allocations served from a cache
	Misses       int64 // allocations that went to the device
	Blocks       int   // blocks held from the device
	Frozen       int   // of which frozen
	FreeFailures int64 // device frees that failed (the block was dropped, see Device)
	// Classes has one entry per configured class, then one for large blocks
	// (Size 0).
	Classes []ClassStats
}

// ClassStats counts the blocks of one class.
type ClassStats struct {
	Size   int64 // the class's block size; 0 for large blocks
	Blocks int   // held from the device
	InUse  int   // handed out
}

// Block describes one block held from the device, as the pool sees it.
type Block struct {
	Addr      Addr
	Size      int64
	Class     int   // index into Config.Classes; -1 for a large block
	Requested int64 // the raw size of the allocation it serves; 0 when free
	InUse     bool
	Frozen    bool
	// Cached counts the cache entries that hold the block. A free block is in
	// exactly one cache and a block in use in none; any other count is a
	// defect (a block listed twice is handed out twice).
	Cached int
}

func (b Block) String() string {
	return fmt.Sprintf("{%v %d class=%d req=%d inUse=%t frozen=%t cached=%d}",
		b.Addr, b.Size, b.Class, b.Requested, b.InUse, b.Frozen, b.Cached)
}

// Pool is the contract of a size-class caching pool over a Device. Every
// implementation is safe for concurrent use; Alloc and Free are linearizable.
// After Close every call returns ErrClosed (Stats and Blocks answer their zero
// value). A call that returns an error changes nothing the caller owns.
type Pool interface {
	// Alloc returns a block of at least n bytes. n == 0 returns null and takes
	// no block; n < 0 or a size whose rounding overflows is ErrInvalidSize.
	// When the device is out of memory the pool trims, retries once, and
	// otherwise returns ErrOutOfMemory.
	Alloc(n int64) (Addr, error)
	// Free returns p's block to its cache. Null is a no-op; an address that is
	// not the start of a block the pool holds is ErrUnknownPointer; a block
	// not in use is ErrDoubleFree.
	Free(p Addr) error
	// SetPinned turns pin mode on or off. Every block handed out while it is
	// on becomes frozen: Trim never returns a frozen block to the device, so
	// it stays held, in use or cached, until Close.
	SetPinned(on bool) error
	// Trim returns every cached block that is not frozen to the device and
	// reports the bytes released. A failed device free is reported (joined)
	// and the block is dropped all the same; the other blocks are still freed.
	Trim() (int64, error)
	// Stats summarises the pool.
	Stats() Stats
	// Blocks lists every block held from the device, sorted by address.
	// It is meant for checks and debugging, not for hot paths.
	Blocks() []Block
	// Close returns every block to the device and reports the blocks still in
	// use (the leak report), sorted by address.
	Close() ([]Block, error)
}
