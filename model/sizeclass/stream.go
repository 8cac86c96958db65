package sizeclass

import (
	"errors"
	"fmt"
	"slices"
)

// Stream names a queue of device work (a CUDA stream).
type Stream uint32

// StreamBlock describes one block of a StreamAllocator.
type StreamBlock struct {
	Addr  Addr
	Size  int64
	Class int // -1 for a large block
	InUse bool
	// Stream is the stream the block was handed out on (in use) or freed on
	// (free). Pending says the free has not been synchronised yet: until it
	// is, only Stream may have the block again.
	Stream  Stream
	Pending bool
	Cached  int // cache entries that hold it: 1 when free, 0 in use
}

// StreamAllocator is the contract of stream-ordered reuse
// (StreamOrderedAllocator, cudaMallocAsync): a block freed on stream s may be
// handed out again at once on s, whose later work is ordered after the free,
// and on another stream only after Synchronize(s). As with cudaFreeAsync, the
// caller orders every earlier use of the block on other streams before the
// free on s. Sizes are rounded and classed as in Pool. Every method is safe
// for concurrent use; after Close every call returns ErrClosed.
type StreamAllocator interface {
	// Alloc returns a block of at least n bytes for use on s.
	Alloc(s Stream, n int64) (Addr, error)
	// Free releases p on s (errors as Pool.Free).
	Free(s Stream, p Addr) error
	// Synchronize waits for s: its frees become reusable on every stream.
	Synchronize(s Stream) error
	// Trim returns every free block whose free is synchronised to the device.
	Trim() (int64, error)
	// Blocks lists every block held from the device, sorted by address.
	Blocks() []StreamBlock
	// Close returns every block to the device and reports those in use.
	Close() ([]StreamBlock, error)
}

// StreamModel is the reference StreamAllocator: one list of free blocks,
// most recently freed last. It is not safe for concurrent use.
type StreamModel struct {
	dev    Device
	cfg    Config
	closed bool
	blocks map[Addr]*StreamBlock
	cache  []Addr
}

var _ StreamAllocator = (*StreamModel)(nil)

// NewStreamModel returns an empty model over dev (ErrInvalidConfig for a
// bad cfg).
func NewStreamModel(dev Device, cfg Config) (*StreamModel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Classes = slices.Clone(cfg.Classes)
	return &StreamModel{dev: dev, cfg: cfg, blocks: map[Addr]*StreamBlock{}}, nil
}

// Alloc implements StreamAllocator: the most recently freed allowed block.
func (m *StreamModel) Alloc(s Stream, n int64) (Addr, error) {
	c, err := m.Candidates(s, n)
	if err != nil || n == 0 {
		return 0, err
	}
	if len(c) > 0 {
		return m.AllocFrom(s, n, c[0])
	}
	size, _ := m.cfg.Round(n)
	class := m.cfg.ClassOf(size)
	if class >= 0 {
		size = m.cfg.Classes[class]
	}
	p, err := m.dev.Malloc(size)
	if errors.Is(err, ErrOutOfMemory) {
		if released, _ := m.Trim(); released > 0 {
			p, err = m.dev.Malloc(size)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("sizeclass: stream alloc %d bytes: %w", n, err)
	}
	m.blocks[p] = &StreamBlock{Addr: p, Size: size, Class: class, InUse: true, Stream: s}
	return p, nil
}

// Candidates returns the free blocks Alloc(s, n) may hand out, the model's
// pick first: blocks of n's class (or large blocks big enough) that were freed
// on s or whose free is synchronised.
func (m *StreamModel) Candidates(s Stream, n int64) ([]Addr, error) {
	if m.closed {
		return nil, ErrClosed
	}
	size, ok := m.cfg.Round(n)
	if !ok {
		return nil, fmt.Errorf("%w: %d bytes", ErrInvalidSize, n)
	}
	if n == 0 {
		return nil, nil
	}
	class := m.cfg.ClassOf(size)
	var out []Addr
	for _, p := range slices.Backward(m.cache) {
		b := m.blocks[p]
		fits := b.Class == class && (class >= 0 || b.Size >= size)
		if fits && (b.Stream == s || !b.Pending) {
			out = append(out, p)
		}
	}
	return out, nil
}

// AllocFrom serves Alloc(s, n) with p, one of Candidates(s, n) (else
// ErrUnknownPointer, nothing changed).
func (m *StreamModel) AllocFrom(s Stream, n int64, p Addr) (Addr, error) {
	c, err := m.Candidates(s, n)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(c, p) {
		return 0, fmt.Errorf("%w: %v may not be handed to stream %d", ErrUnknownPointer, p, s)
	}
	m.cache = slices.DeleteFunc(m.cache, func(q Addr) bool { return q == p })
	b := m.blocks[p]
	b.InUse, b.Stream, b.Pending = true, s, false
	return p, nil
}

// Free implements StreamAllocator.
func (m *StreamModel) Free(s Stream, p Addr) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	b, ok := m.blocks[p]
	if !ok {
		return fmt.Errorf("%w: %v", ErrUnknownPointer, p)
	}
	if !b.InUse {
		return fmt.Errorf("%w: %v", ErrDoubleFree, p)
	}
	b.InUse, b.Stream, b.Pending = false, s, true
	m.cache = append(m.cache, p)
	return nil
}

// Synchronize implements StreamAllocator.
func (m *StreamModel) Synchronize(s Stream) error {
	if m.closed {
		return ErrClosed
	}
	for _, p := range m.cache {
		if b := m.blocks[p]; b.Stream == s {
			b.Pending = false
		}
	}
	return nil
}

// Trim implements StreamAllocator, in cache order.
func (m *StreamModel) Trim() (int64, error) {
	if m.closed {
		return 0, ErrClosed
	}
	var released int64
	var errs []error
	m.cache = slices.DeleteFunc(m.cache, func(p Addr) bool {
		b := m.blocks[p]
		if b.Pending {
			return false
		}
		released += b.Size
		if err := m.dev.Free(p); err != nil {
			errs = append(errs, err)
		}
		delete(m.blocks, p)
		return true
	})
	return released, errors.Join(errs...)
}

// Blocks implements StreamAllocator.
func (m *StreamModel) Blocks() []StreamBlock {
	if m.closed {
		return nil
	}
	out := make([]StreamBlock, 0, len(m.blocks))
	for _, b := range m.blocks {
		c := *b
		if !c.InUse {
			c.Cached = 1
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b StreamBlock) int { return compareAddr(a.Addr, b.Addr) })
	return out
}

// Close implements StreamAllocator: every block is freed, in address order.
func (m *StreamModel) Close() ([]StreamBlock, error) {
	if m.closed {
		return nil, ErrClosed
	}
	var leaks []StreamBlock
	var errs []error
	for _, b := range m.Blocks() {
		if b.InUse {
			leaks = append(leaks, b)
		}
		if err := m.dev.Free(b.Addr); err != nil {
			errs = append(errs, err)
		}
	}
	m.closed = true
	m.blocks, m.cache = nil, nil
	return leaks, errors.Join(errs...)
}
