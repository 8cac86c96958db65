package bank

import (
	"errors"
	"fmt"
)

// Addr is an address in a bank's local address space. Every address is a
// real one, 0 included: a list whose range starts at 0 hands it out.
type Addr uint64

// Direction says which end of the address space an allocation prefers.
type Direction uint8

const (
	// BottomUp places an allocation at the lowest feasible address.
	BottomUp Direction = iota
	// TopDown places an allocation at the highest feasible address.
	TopDown
)

func (d Direction) String() string {
	switch d {
	case BottomUp:
		return "BottomUp"
	case TopDown:
		return "TopDown"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// CheckDirection reports ErrInvalidDirection unless d is BottomUp or
// TopDown. A FreeList checks the direction before anything else; Banks pass
// it on to their list, so a bad shard list or layout is reported first.
func CheckDirection(d Direction) error {
	if d == BottomUp || d == TopDown {
		return nil
	}
	return invalidDirection(d) // apart, so that the check inlines
}

func invalidDirection(d Direction) error { return fmt.Errorf("%w: %v", ErrInvalidDirection, d) }

// Policy selects the free block an allocation is carved from.
type Policy uint8

const (
	// FirstFit takes the first feasible block in address order: the lowest
	// bottom-up, the highest top-down. It is what BankManager uses.
	FirstFit Policy = iota
	// BestFit takes the smallest feasible block; among blocks of equal size
	// the lowest address bottom-up, the highest top-down.
	BestFit
)

func (p Policy) String() string {
	switch p {
	case FirstFit:
		return "FirstFit"
	case BestFit:
		return "BestFit"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// Sentinel errors. Implementations return these, wrapped with detail if they
// like; callers test them with errors.Is.
var (
	// ErrInvalidSize: a size ≤ 0, or one whose alignment overflows.
	ErrInvalidSize = errors.New("bank: invalid size")
	// ErrOutOfMemory: no feasible place for the allocation.
	ErrOutOfMemory = errors.New("bank: out of memory")
	// ErrNotFree: AllocateAt on a range that is not wholly inside one free block.
	ErrNotFree = errors.New("bank: range not free")
	// ErrInvalidAddress: an unaligned address, one outside the range, an
	// avoided range whose start lies past its end, or a page outside a buffer.
	ErrInvalidAddress = errors.New("bank: invalid address")
	// ErrUnknownAddress: Free of anything but the start of a live allocation
	// (a second free included); FreeBuffer of an unknown buffer.
	ErrUnknownAddress = errors.New("bank: unknown address")
	// ErrIncompatibleState: Restore of a state whose configuration differs
	// from the allocator's, or whose regions are not a valid layout.
	ErrIncompatibleState = errors.New("bank: incompatible state")
	// ErrInvalidDirection: a Direction other than BottomUp and TopDown.
	ErrInvalidDirection = errors.New("bank: invalid direction")
	// ErrInvalidConfig: a constructor was given a configuration it cannot serve.
	ErrInvalidConfig = errors.New("bank: invalid configuration")
	// ErrInvalidBank: a shard list that is empty, repeats a bank, or names a
	// bank that does not exist; a simulator access to a bank that does not exist.
	ErrInvalidBank = errors.New("bank: invalid bank")
	// ErrOutOfBounds: a simulator read or write outside its bank's memory.
	ErrOutOfBounds = errors.New("bank: access out of bounds")
)

// Config describes one free list: it manages [Offset, Offset+Size).
type Config struct {
	Offset        Addr   // first address; a multiple of Alignment
	Size          int64  // bytes managed; a positive multiple of Alignment
	Alignment     int64  // every address and block size is a multiple of it; ≥ 1
	MinAllocation int64  // allocations take at least this many bytes; ≥ 0, and aligned it fits an int64
	Policy        Policy // FirstFit (the zero value) or BestFit
}

// Block is one entry of the dump: free or allocated, [Addr, Addr+Size).
type Block struct {
	Addr      Addr
	Size      int64
	Allocated bool
}

func (b Block) String() string {
	state := "free"
	if b.Allocated {
		state = "allocated"
	}
	return fmt.Sprintf("[%#x, %#x) %s", uint64(b.Addr), uint64(b.Addr)+uint64(b.Size), state)
}

// Stats summarises a free list. Sizes count aligned bytes.
type Stats struct {
	TotalAllocatable int64 // the configured Size
	Allocated        int64 // Σ allocated block sizes
	Free             int64 // Σ free block sizes
	LargestFree      int64 // the largest free block, 0 if none
}

// Range is a half-open absolute address range [Start, End).
type Range struct {
	Start, End Addr
}

func (r Range) String() string { return fmt.Sprintf("[%#x, %#x)", uint64(r.Start), uint64(r.End)) }

// Region is one allocation of a State.
type Region struct {
	Addr Addr
	Size int64
}

// State is what State extracts and Restore overrides: the configuration that
// must match, and every live allocation as its own region, sorted by address.
type State struct {
	Offset        Addr
	Size          int64
	Alignment     int64
	MinAllocation int64
	Allocations   []Region
}

// FreeList is the contract of a bank's address-space allocator. It is not
// required to be safe for concurrent use (Banks adds the lock).
//
// A failed call returns a sentinel error (possibly wrapped) and changes nothing.
type FreeList interface {
	// Config returns the configuration the list was built with.
	Config() Config
	// Allocate takes align(max(size, MinAllocation)) bytes by the list's policy,
	// at or above limit (0: no limit), and returns the block's address.
	Allocate(size int64, dir Direction, limit Addr) (Addr, error)
	// AllocateAt takes align(max(size, MinAllocation)) bytes at addr, which
	// must be aligned and the range wholly inside one free block.
	AllocateAt(addr Addr, size int64) error
	// AllocateAvoiding is Allocate by first fit, with the extra constraint
	// that the block overlaps none of avoid (absolute [Start, End) ranges in
	// any order, possibly overlapping): memory another allocator uses.
	AllocateAvoiding(size int64, dir Direction, avoid []Range, limit Addr) (Addr, error)
	// Free releases the allocation starting at addr; the block coalesces with
	// free neighbours on both sides.
	Free(addr Addr) error
	// Stats sums the blocks.
	Stats() Stats
	// Blocks is the dump: every block, free and allocated, sorted by address.
	Blocks() []Block
	// State extracts the configuration and live allocations.
	State() State
	// Restore replaces the whole state by s; a state of another configuration
	// is refused with ErrIncompatibleState and nothing changes.
	Restore(s State) error
}
