package sizeclass

import (
	"errors"
	"fmt"
	"slices"
)

// Model is the reference pool: sequential, one map of blocks, one LIFO list
// per class and one list of large blocks in insertion order. It is the
// specification the implementations are checked against; it is not safe for
// concurrent use.
type Model struct {
	dev    Device
	cfg    Config
	pinned bool
	closed bool
	blocks map[Addr]*modelBlock
	free   [][]Addr // per class; the last entry is handed out next
	large  []Addr   // every large block, free or not, in insertion order
	hits   int64
	misses int64
	fails  int64
}

type modelBlock struct {
	size   int64
	class  int
	req    int64
	inUse  bool
	frozen bool
}

var _ Pool = (*Model)(nil)

// NewModel returns an empty model pool over dev. A config that breaks a rule
// of Config is ErrInvalidConfig.
func NewModel(dev Device, cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Classes = slices.Clone(cfg.Classes)
	return &Model{dev: dev, cfg: cfg, blocks: map[Addr]*modelBlock{}, free: make([][]Addr, len(cfg.Classes))}, nil
}

// Alloc implements Pool. The model hands out the most recently freed block
// of the class, or the first free large block that is big enough.
func (m *Model) Alloc(n int64) (Addr, error) {
	c, err := m.Candidates(n)
	if err != nil || n == 0 {
		return 0, err
	}
	if len(c) > 0 {
		return m.AllocFrom(n, c[0])
	}
	return m.allocNew(n)
}

// Candidates returns the cached blocks the contract allows Alloc(n) to hand
// out, the model's own pick first: every free block of n's class, or every
// free large block of at least n's rounded size. An empty list means Alloc(n)
// must go to the device. Errors are those of Alloc; null when n == 0.
func (m *Model) Candidates(n int64) ([]Addr, error) {
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
	if c := m.cfg.ClassOf(size); c >= 0 {
		out := slices.Clone(m.free[c])
		slices.Reverse(out) // LIFO: the last freed comes first
		return out, nil
	}
	var out []Addr
	for _, p := range m.large {
		if b := m.blocks[p]; !b.inUse && b.size >= size {
			out = append(out, p)
		}
	}
	return out, nil
}

// AllocFrom serves Alloc(n) with the cached block p, which must be one of
// Candidates(n) (else ErrUnknownPointer, nothing changed). It is how a
// property adopts an implementation's allowed choice.
func (m *Model) AllocFrom(n int64, p Addr) (Addr, error) {
	c, err := m.Candidates(n)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(c, p) {
		return 0, fmt.Errorf("%w: %v is not a cached block allowed for %d bytes", ErrUnknownPointer, p, n)
	}
	b := m.blocks[p]
	if b.class >= 0 {
		i := slices.Index(m.free[b.class], p)
		m.free[b.class] = slices.Delete(m.free[b.class], i, i+1)
	}
	m.hits++
	m.handOut(b, n)
	return p, nil
}

// allocNew mallocs a block for n: the class size, or the rounded size of a
// large request. On exhaustion it trims and, if that released anything,
// retries once.
func (m *Model) allocNew(n int64) (Addr, error) {
	size, _ := m.cfg.Round(n)
	c := m.cfg.ClassOf(size)
	if c >= 0 {
		size = m.cfg.Classes[c]
	}
	p, err := m.dev.Malloc(size)
	if errors.Is(err, ErrOutOfMemory) {
		if released, _ := m.Trim(); released > 0 {
			p, err = m.dev.Malloc(size)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("sizeclass: alloc %d bytes: %w", n, err)
	}
	b := &modelBlock{size: size, class: c}
	m.blocks[p] = b
	if c < 0 {
		m.large = append(m.large, p)
	}
	m.misses++
	m.handOut(b, n)
	return p, nil
}

func (m *Model) handOut(b *modelBlock, n int64) {
	b.inUse, b.req = true, n
	b.frozen = b.frozen || m.pinned
}

// Free implements Pool.
func (m *Model) Free(p Addr) error {
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
	if !b.inUse {
		return fmt.Errorf("%w: %v", ErrDoubleFree, p)
	}
	b.inUse, b.req = false, 0
	if b.class >= 0 {
		m.free[b.class] = append(m.free[b.class], p)
	}
	return nil
}

// SetPinned implements Pool.
func (m *Model) SetPinned(on bool) error {
	if m.closed {
		return ErrClosed
	}
	m.pinned = on
	return nil
}

// Trim implements Pool. Blocks are freed class by class, then large blocks
// in insertion order.
func (m *Model) Trim() (int64, error) {
	if m.closed {
		return 0, ErrClosed
	}
	var released int64
	var errs []error
	drop := func(p Addr) bool {
		b := m.blocks[p]
		if b.inUse || b.frozen {
			return false
		}
		released += b.size
		if err := m.dev.Free(p); err != nil {
			m.fails++
			errs = append(errs, err)
		}
		delete(m.blocks, p)
		return true
	}
	for c := range m.free {
		m.free[c] = slices.DeleteFunc(m.free[c], drop)
	}
	m.large = slices.DeleteFunc(m.large, drop)
	return released, errors.Join(errs...)
}

// Stats implements Pool.
func (m *Model) Stats() Stats {
	if m.closed {
		return Stats{}
	}
	s := Stats{Hits: m.hits, Misses: m.misses, FreeFailures: m.fails, Classes: make([]ClassStats, len(m.cfg.Classes)+1)}
	for i, size := range m.cfg.Classes {
		s.Classes[i].Size = size
	}
	for _, b := range m.blocks {
		cs := &s.Classes[len(m.cfg.Classes)]
		if b.class >= 0 {
			cs = &s.Classes[b.class]
		}
		cs.Blocks++
		s.Blocks++
		s.Reserved += b.size
		if b.inUse {
			cs.InUse++
			s.InUse += b.size
			s.Requested += b.req
		}
		if b.frozen {
			s.Frozen++
		}
	}
	s.Cached = s.Reserved - s.InUse
	return s
}

// Blocks implements Pool. In the model a block is cached exactly when it is
// free.
func (m *Model) Blocks() []Block {
	if m.closed {
		return nil
	}
	out := make([]Block, 0, len(m.blocks))
	for p, b := range m.blocks {
		cached := 0
		if !b.inUse {
			cached = 1
		}
		out = append(out, Block{Addr: p, Size: b.size, Class: b.class, Requested: b.req, InUse: b.inUse, Frozen: b.frozen, Cached: cached})
	}
	slices.SortFunc(out, func(a, b Block) int { return compareAddr(a.Addr, b.Addr) })
	return out
}

// Close implements Pool. Blocks are freed in address order.
func (m *Model) Close() ([]Block, error) {
	if m.closed {
		return nil, ErrClosed
	}
	all := m.Blocks()
	var leaks []Block
	var errs []error
	for _, b := range all {
		if b.InUse {
			leaks = append(leaks, b)
		}
		if err := m.dev.Free(b.Addr); err != nil {
			errs = append(errs, err)
		}
	}
	m.closed = true
	m.blocks, m.free, m.large = nil, nil, nil
	return leaks, errors.Join(errs...)
}

func compareAddr(a, b Addr) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
