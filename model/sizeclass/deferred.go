package sizeclass

import (
	"errors"
	"fmt"
)

// Context names the device a call runs on (the seed's context::getDevice()).
type Context uint32

// DeferredAllocator is the contract of the pinned-host allocator
// (DevicePinnedHostAllocator): blocks come straight from a Device owned by one
// context; a free from the owner releases the block at once and then drains
// the queue, a free from any other context is queued until GC or the next
// owner-side free. Every method is safe for concurrent use. After Close
// every call returns ErrClosed.
type DeferredAllocator interface {
	// Alloc returns a block of n bytes from the device. n == 0 returns null;
	// n < 0 is ErrInvalidSize; device errors are passed through.
	Alloc(n int64) (Addr, error)
	// Free releases p from context ctx. Null is a no-op; an address not handed
	// out (or already released) is ErrUnknownPointer; an address already queued
	// is ErrDoubleFree. A device free that fails is reported in the error of
	// the call that made it, and the block is forgotten: it is never freed again.
	Free(ctx Context, p Addr) error
	// GC frees every queued block; failures are reported joined.
	GC() error
	// Pending returns the number of queued blocks.
	Pending() int
	// Close runs GC and refuses every later call.
	Close() error
}

// DeferredModel is the reference DeferredAllocator. It is not safe for
// concurrent use.
type DeferredModel struct {
	dev    Device
	owner  Context
	live   map[Addr]bool // handed out and not released; true once queued
	queue  []Addr        // queued frees, oldest first
	closed bool
}

var _ DeferredAllocator = (*DeferredModel)(nil)

// NewDeferredModel returns a model allocator over dev owned by owner.
func NewDeferredModel(dev Device, owner Context) *DeferredModel {
	return &DeferredModel{dev: dev, owner: owner, live: map[Addr]bool{}}
}

// Alloc implements DeferredAllocator.
func (m *DeferredModel) Alloc(n int64) (Addr, error) {
	switch {
	case m.closed:
		return 0, ErrClosed
	case n < 0:
		return 0, fmt.Errorf("%w: %d bytes", ErrInvalidSize, n)
	case n == 0:
		return 0, nil
	}
	p, err := m.dev.Malloc(n)
	if err != nil {
		return 0, fmt.Errorf("sizeclass: pinned alloc %d bytes: %w", n, err)
	}
	m.live[p] = false
	return p, nil
}

// Free implements DeferredAllocator.
func (m *DeferredModel) Free(ctx Context, p Addr) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	queued, ok := m.live[p]
	if !ok {
		return fmt.Errorf("%w: %v", ErrUnknownPointer, p)
	}
	if queued {
		return fmt.Errorf("%w: %v is already queued", ErrDoubleFree, p)
	}
	if ctx != m.owner {
		m.live[p] = true
		m.queue = append(m.queue, p)
		return nil
	}
	delete(m.live, p)
	err := m.dev.Free(p)
	return errors.Join(err, m.GC())
}

// GC implements DeferredAllocator. The queue is emptied before any free, so
// a failed free is never repeated.
func (m *DeferredModel) GC() error {
	if m.closed {
		return ErrClosed
	}
	q := m.queue
	m.queue = nil
	var errs []error
	for _, p := range q {
		delete(m.live, p)
		if err := m.dev.Free(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Pending implements DeferredAllocator.
func (m *DeferredModel) Pending() int { return len(m.queue) }

// Close implements DeferredAllocator. Blocks still handed out are the
// caller's: they are not freed.
func (m *DeferredModel) Close() error {
	if m.closed {
		return ErrClosed
	}
	err := m.GC()
	m.closed = true
	return err
}
