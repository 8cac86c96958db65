package bank

import (
	"fmt"
	"math"
	"math/bits"
)

// Validate reports whether the configuration can be served, with
// ErrInvalidConfig (wrapped with the reason) when it cannot.
func (c Config) Validate() error {
	switch {
	case c.Alignment < 1:
		return fmt.Errorf("%w: alignment %d < 1", ErrInvalidConfig, c.Alignment)
	case c.Size < 1 || c.Size%c.Alignment != 0:
		return fmt.Errorf("%w: size %d is not a positive multiple of the alignment %d", ErrInvalidConfig, c.Size, c.Alignment)
	case c.MinAllocation < 0:
		return fmt.Errorf("%w: minimum allocation %d < 0", ErrInvalidConfig, c.MinAllocation)
	case !alignable(c.MinAllocation, c.Alignment):
		// Every request would be refused as ErrInvalidSize, blaming the
		// request for the configuration.
		return fmt.Errorf("%w: minimum allocation %d overflows when aligned to %d", ErrInvalidConfig, c.MinAllocation, c.Alignment)
	case uint64(c.Offset)%uint64(c.Alignment) != 0:
		return fmt.Errorf("%w: offset %#x is not aligned to %d", ErrInvalidConfig, uint64(c.Offset), c.Alignment)
	case c.Policy != FirstFit && c.Policy != BestFit:
		return fmt.Errorf("%w: unknown policy %v", ErrInvalidConfig, c.Policy)
	}
	if _, carry := bits.Add64(uint64(c.Offset), uint64(c.Size), 0); carry != 0 {
		return fmt.Errorf("%w: range [%#x, +%d) passes the top of the address space", ErrInvalidConfig, uint64(c.Offset), c.Size)
	}
	return nil
}

// End is the first address past the managed range.
func (c Config) End() Addr { return c.Offset + Addr(c.Size) }

// AllocSize is the number of bytes an allocation of size takes:
// align(max(size, MinAllocation)). A size ≤ 0 or one whose alignment
// overflows int64 is ErrInvalidSize.
func (c Config) AllocSize(size int64) (int64, error) {
	if size <= 0 {
		return 0, fmt.Errorf("%w: %d", ErrInvalidSize, size)
	}
	if c.Alignment < 1 {
		return 0, fmt.Errorf("%w: alignment %d", ErrInvalidConfig, c.Alignment)
	}
	size = max(size, c.MinAllocation)
	n, ok := AlignUp(uint64(size), uint64(c.Alignment))
	if !ok || n > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %d overflows when aligned to %d", ErrInvalidSize, size, c.Alignment)
	}
	return int64(n), nil
}

// alignable reports whether n ≥ 0 rounded up to a multiple of a ≥ 1 fits
// an int64.
func alignable(n, a int64) bool {
	m, ok := AlignUp(uint64(n), uint64(a))
	return ok && m <= math.MaxInt64
}

// Compatible reports whether a state can be restored into a list of this
// configuration: size, offset, alignment and minimum must all match.
func (c Config) Compatible(s State) bool {
	return s.Offset == c.Offset && s.Size == c.Size && s.Alignment == c.Alignment && s.MinAllocation == c.MinAllocation
}

// AlignUp rounds x up to a multiple of a (a ≥ 1); ok is false on overflow.
func AlignUp(x, a uint64) (uint64, bool) {
	r := x % a
	if r == 0 {
		return x, true
	}
	n, carry := bits.Add64(x, a-r, 0)
	return n, carry == 0
}

// AlignDown rounds x down to a multiple of a (a ≥ 1).
func AlignDown(x, a uint64) uint64 { return x - x%a }
