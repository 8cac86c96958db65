package refcount

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	spec "github.com/memverify/memverify/model/refcount"
)

// checkRange validates a registration's size, range and kind, in the order the
// contract fixes: ErrInvalidSize (non-positive, or running past the top of the
// address space), then ErrInvalidKind.
func checkRange(p spec.Addr, bytes int64, kind spec.Kind) error {
	if bytes <= 0 {
		return fmt.Errorf("%w: %d bytes at %#x", spec.ErrInvalidSize, bytes, uint64(p))
	}
	// [p, p+bytes) must fit below 2^64: p + bytes - 1 <= MaxUint64.
	if uint64(p) > math.MaxUint64-uint64(bytes)+1 {
		return fmt.Errorf("%w: %d bytes at %#x run past the top of the address space", spec.ErrInvalidSize, bytes, uint64(p))
	}
	if kind > spec.Custom {
		return fmt.Errorf("%w: %v", spec.ErrInvalidKind, kind)
	}
	return nil
}

// checkBuffer runs RegisterBuffer's input checks (everything but
// ErrAlreadyRegistered, which needs the registry's state).
func checkBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) error {
	if real == 0 {
		return spec.ErrNullPointer
	}
	if err := checkRange(real, bytes, kind); err != nil {
		return err
	}
	for _, a := range aliases {
		if a < real || uint64(a-real) >= uint64(bytes) {
			return fmt.Errorf("%w: %#x not in [%#x, +%d)", spec.ErrAliasOutOfRange, uint64(a), uint64(real), bytes)
		}
	}
	return nil
}

// share is one holder of a buffer and the references it holds.
type share struct {
	p spec.Addr
	n int64
}

// shares counts the listings of a buffer into dst (reusing its storage): real
// once, plus every alias once per time it is listed (references are counted
// per listing). The result is sorted by address, each pointer once.
func shares(dst []share, real spec.Addr, aliases []spec.Addr) []share {
	dst = append(dst[:0], share{real, 1})
	for _, a := range aliases {
		dst = append(dst, share{a, 1})
	}
	slices.SortFunc(dst, func(x, y share) int { return cmp.Compare(x.p, y.p) })
	out := dst[:0]
	for _, h := range dst {
		if n := len(out); n > 0 && out[n-1].p == h.p {
			out[n-1].n++
			continue
		}
		out = append(out, h)
	}
	return out
}

// notRegistered and alreadyRegistered wrap the sentinels with the pointer.
func notRegistered(p spec.Addr) error {
	return fmt.Errorf("%w: %#x", spec.ErrNotRegistered, uint64(p))
}

func alreadyRegistered(p spec.Addr) error {
	return fmt.Errorf("%w: %#x", spec.ErrAlreadyRegistered, uint64(p))
}
