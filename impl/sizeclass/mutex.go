package sizeclass

import (
	"errors"
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// Mutex is the seed's design and the baseline: one lock around a map of every
// block, a LIFO slice per class and a slice of large blocks in insertion
// order. Device calls are made under the lock, as in the seed.
type Mutex struct {
	mu     sched.Mutex
	dev    spec.Device
	cls    classes
	pinned bool
	closed bool
	blocks map[spec.Addr]*mblock
	free   [][]*mblock
	large  []*mblock
	hits   int64
	misses int64
	fails  int64
}

type mblock struct {
	addr   spec.Addr
	size   int64
	class  int
	req    int64
	inUse  bool
	frozen bool
}

var _ spec.Pool = (*Mutex)(nil)

// NewMutex returns an empty pool over dev (ErrInvalidConfig for a bad cfg).
func NewMutex(dev spec.Device, cfg spec.Config) (*Mutex, error) {
	cls, err := newClasses(cfg)
	if err != nil {
		return nil, err
	}
	return &Mutex{dev: dev, cls: cls, blocks: map[spec.Addr]*mblock{}, free: make([][]*mblock, len(cls.sizes))}, nil
}

// Alloc implements spec.Pool.
func (m *Mutex) Alloc(n int64) (spec.Addr, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, spec.ErrClosed
	}
	if n == 0 {
		return 0, nil
	}
	if n < 0 {
		return 0, fmt.Errorf("%w: %d bytes", spec.ErrInvalidSize, n)
	}
	size, class, err := m.cls.classify(n)
	if bugs.On(BugRoundWraps) {
		a := m.cls.cfg.Alignment
		size, class, err = (n+a-1)/a*a, -1, nil // negative near the top of the range
		for i, s := range m.cls.sizes {
			if size <= s {
				size, class = s, i
				break
			}
		}
	}
	if err != nil {
		return 0, err
	}
	if class >= 0 {
		if bugs.On(BugStaleListEntry) {
			// The entry stays listed; in-use entries are skipped.
			l := m.free[class]
			for i := len(l) - 1; i >= 0; i-- {
				if !l[i].inUse {
					return m.handOut(l[i], n, true), nil
				}
			}
		} else if l := m.free[class]; len(l) > 0 {
			b := l[len(l)-1]
			m.free[class] = l[:len(l)-1]
			return m.handOut(b, n, true), nil
		}
	} else {
		for _, b := range m.large {
			fits := b.size >= size
			if bugs.On(BugLargeTooSmall) {
				fits = b.size >= size/m.cls.cfg.Alignment
			}
			if !b.inUse && fits {
				return m.handOut(b, n, true), nil
			}
		}
	}
	p, err := m.dev.Malloc(size)
	if errors.Is(err, spec.ErrOutOfMemory) && !bugs.On(BugOOMNoRetry) {
		if released, _ := m.trimLocked(); released > 0 {
			p, err = m.dev.Malloc(size)
		}
	}
	if err != nil {
		if bugs.On(BugFailedAllocCounted) {
			m.misses++ // counted as if the malloc had been a miss served
		}
		return 0, fmt.Errorf("sizeclass: alloc %d bytes: %w", n, err)
	}
	b := &mblock{addr: p, size: size, class: class}
	m.blocks[p] = b
	if class < 0 {
		m.large = append(m.large, b)
	}
	return m.handOut(b, n, false), nil
}

func (m *Mutex) handOut(b *mblock, n int64, hit bool) spec.Addr {
	if hit {
		m.hits++
	} else {
		m.misses++
	}
	b.inUse, b.req = true, n
	if bugs.On(BugReuseNotFrozen) && hit && b.class >= 0 {
		return b.addr // the seed marks only new blocks frozen
	}
	b.frozen = b.frozen || m.pinned
	return b.addr
}

// Free implements spec.Pool.
func (m *Mutex) Free(p spec.Addr) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	b, ok := m.blocks[p]
	if !ok {
		return fmt.Errorf("%w: %v", spec.ErrUnknownPointer, p)
	}
	if !b.inUse {
		return fmt.Errorf("%w: %v", spec.ErrDoubleFree, p)
	}
	b.inUse, b.req = false, 0
	if b.class >= 0 {
		m.free[b.class] = append(m.free[b.class], b)
	}
	return nil
}

// SetPinned implements spec.Pool. Unlike the seed, the flag is written under
// the lock: the seed's unlocked store races with Alloc.
func (m *Mutex) SetPinned(on bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return spec.ErrClosed
	}
	m.pinned = on
	return nil
}

// Trim implements spec.Pool.
func (m *Mutex) Trim() (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, spec.ErrClosed
	}
	return m.trimLocked()
}

func (m *Mutex) trimLocked() (int64, error) {
	var released int64
	var errs []error
	release := func(b *mblock) {
		released += b.size
		delete(m.blocks, b.addr)
		if err := m.dev.Free(b.addr); err != nil {
			m.fails++
			errs = append(errs, err)
		}
	}
	for c, l := range m.free {
		kept := l[:0]
		for _, b := range l {
			if b.frozen {
				kept = append(kept, b)
			} else {
				release(b)
			}
		}
		clear(l[len(kept):]) // drop references for the collector
		m.free[c] = kept
	}
	kept := m.large[:0]
	for _, b := range m.large {
		if b.frozen || (b.inUse && !bugs.On(BugTrimInUse)) {
			kept = append(kept, b)
		} else {
			release(b)
		}
	}
	clear(m.large[len(kept):])
	m.large = kept
	return released, errors.Join(errs...)
}

// Stats implements spec.Pool.
func (m *Mutex) Stats() spec.Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return spec.Stats{}
	}
	s := m.cls.newStats()
	s.Hits, s.Misses, s.FreeFailures = m.hits, m.misses, m.fails
	for _, b := range m.blocks {
		m.cls.count(&s, m.describe(b, 0))
	}
	return s
}

func (m *Mutex) describe(b *mblock, cached int) spec.Block {
	return spec.Block{Addr: b.addr, Size: b.size, Class: b.class, Requested: b.req, InUse: b.inUse, Frozen: b.frozen, Cached: cached}
}

// Blocks implements spec.Pool.
func (m *Mutex) Blocks() []spec.Block {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	return m.blocksLocked()
}

func (m *Mutex) blocksLocked() []spec.Block {
	cached := map[*mblock]int{}
	for _, l := range m.free {
		for _, b := range l {
			cached[b]++
		}
	}
	for _, b := range m.large {
		if !b.inUse {
			cached[b]++
		}
	}
	out := make([]spec.Block, 0, len(m.blocks))
	for _, b := range m.blocks {
		out = append(out, m.describe(b, cached[b]))
	}
	sortBlocks(out)
	return out
}

// Close implements spec.Pool.
func (m *Mutex) Close() ([]spec.Block, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, spec.ErrClosed
	}
	leaks, err := closeAll(m.dev, m.blocksLocked())
	m.closed = true
	m.blocks, m.free, m.large = nil, nil, nil
	return leaks, err
}

// closeAll frees every block, in address order, and returns those in use.
func closeAll(dev spec.Device, all []spec.Block) ([]spec.Block, error) {
	var leaks []spec.Block
	var errs []error
	for _, b := range all {
		if b.InUse {
			leaks = append(leaks, b)
		}
		if err := dev.Free(b.Addr); err != nil {
			errs = append(errs, err)
		}
	}
	return leaks, errors.Join(errs...)
}
