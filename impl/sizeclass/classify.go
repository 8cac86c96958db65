package sizeclass

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// classes is a validated configuration with its lookups precomputed.
type classes struct {
	cfg   spec.Config
	sizes []int64
	large int // index of the large "class" in per-class arrays: len(sizes)
	// largest is the largest class size, 0 without classes: small's
	// range check in one compare.
	largest int64
	// start[k] is the first class whose size exceeds 2^(k-1): where the
	// search for a request n with bits.Len64(n-1) == k begins.
	start [65]int32
	// startSize[k] is the size of class start[k] (0 if there is none): a
	// request no larger has its class without a look at sizes, whose
	// length, base and bounds check every Alloc would load and test.
	startSize [65]int64
}

func newClasses(cfg spec.Config) (classes, error) {
	if err := cfg.Validate(); err != nil {
		return classes{}, err
	}
	// The sizes are read on every call on every P: isolated keeps
	// their array off lines that something else writes.
	sizes := isolated[int64](len(cfg.Classes))
	copy(sizes, cfg.Classes)
	cfg.Classes = sizes
	c := classes{cfg: cfg, sizes: cfg.Classes, large: len(cfg.Classes)}
	if len(sizes) > 0 {
		c.largest = sizes[len(sizes)-1]
	}
	for k := range c.start {
		i := 0
		for i < len(c.sizes) && k > 0 && uint64(c.sizes[i]) <= 1<<(k-1) {
			i++
		}
		c.start[k] = int32(i)
		if i < len(c.sizes) {
			c.startSize[k] = c.sizes[i]
		}
	}
	return c, nil
}

// small returns the class of a request of n bytes, or -1 when n is not
// between 1 and the largest class (the caller then takes the general path).
// The first class at least n is also the first at least n rounded up, since
// class sizes are multiples of the alignment; so no rounding is needed.
func (c *classes) small(n int64) int {
	if n <= 0 || n > c.largest {
		return -1
	}
	k := bits.Len64(uint64(n - 1))
	i := int(c.start[k])
	if bugs.On(BugClassByBitLength) {
		return i // right only when every class is a power of two
	}
	if n <= c.startSize[k] {
		return i
	}
	for c.sizes[i] < n {
		i++
	}
	return i
}

// classify rounds n (> 0) and returns the block size to hand out and its
// class, -1 for a large block.
func (c *classes) classify(n int64) (int64, int, error) {
	size, ok := c.cfg.Round(n)
	if !ok {
		return 0, 0, fmt.Errorf("%w: %d bytes", spec.ErrInvalidSize, n)
	}
	for i, s := range c.sizes {
		if size <= s {
			return s, i, nil
		}
	}
	return size, -1, nil
}

// newStats returns Stats with its per-class entries labelled.
func (c *classes) newStats() spec.Stats {
	s := spec.Stats{Classes: make([]spec.ClassStats, len(c.sizes)+1)}
	for i, size := range c.sizes {
		s.Classes[i].Size = size
	}
	return s
}

// count adds one block to s.
func (c *classes) count(s *spec.Stats, b spec.Block) {
	cs := &s.Classes[c.large]
	if b.Class >= 0 {
		cs = &s.Classes[b.Class]
	}
	cs.Blocks++
	s.Blocks++
	s.Reserved += b.Size
	if b.InUse {
		cs.InUse++
		s.InUse += b.Size
		s.Requested += b.Requested
	}
	if b.Frozen {
		s.Frozen++
	}
	s.Cached = s.Reserved - s.InUse
}

func sortBlocks(bs []spec.Block) {
	slices.SortFunc(bs, func(a, b spec.Block) int {
		switch {
		case a.Addr < b.Addr:
			return -1
		case a.Addr > b.Addr:
			return 1
		}
		return 0
	})
}

func sortStreamBlocks(bs []spec.StreamBlock) {
	slices.SortFunc(bs, func(a, b spec.StreamBlock) int {
		switch {
		case a.Addr < b.Addr:
			return -1
		case a.Addr > b.Addr:
			return 1
		}
		return 0
	})
}
