package sizeclass

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// Deferred is the pinned-host allocator with a queue that is safe for
// concurrent use (the seed's queue is not). A free from a foreign context
// only appends to the queue under a short lock. GC takes the whole queue
// under the lock and frees it outside, so foreign frees never wait for the
// device, and a failed free has already left the queue: it is reported once
// and never repeated.
type Deferred struct {
	dev    spec.Device
	owner  spec.Context
	mu     sync.Mutex
	closed bool
	live   map[spec.Addr]bool // handed out; true once queued
	queue  []spec.Addr
}

var _ spec.DeferredAllocator = (*Deferred)(nil)

// NewDeferred returns an allocator over dev owned by owner.
func NewDeferred(dev spec.Device, owner spec.Context) *Deferred {
	return &Deferred{dev: dev, owner: owner, live: map[spec.Addr]bool{}}
}

// Alloc implements spec.DeferredAllocator.
func (d *Deferred) Alloc(n int64) (spec.Addr, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	switch {
	case closed:
		return 0, spec.ErrClosed
	case n < 0:
		return 0, fmt.Errorf("%w: %d bytes", spec.ErrInvalidSize, n)
	case n == 0:
		return 0, nil
	}
	p, err := d.dev.Malloc(n)
	if err != nil {
		return 0, fmt.Errorf("sizeclass: pinned alloc %d bytes: %w", n, err)
	}
	d.mu.Lock()
	d.live[p] = false
	d.mu.Unlock()
	return p, nil
}

// Free implements spec.DeferredAllocator.
func (d *Deferred) Free(ctx spec.Context, p spec.Addr) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return spec.ErrClosed
	}
	if p == 0 {
		d.mu.Unlock()
		return nil
	}
	queued, ok := d.live[p]
	switch {
	case !ok:
		d.mu.Unlock()
		return fmt.Errorf("%w: %v", spec.ErrUnknownPointer, p)
	case queued:
		d.mu.Unlock()
		return fmt.Errorf("%w: %v is already queued", spec.ErrDoubleFree, p)
	case ctx != d.owner:
		d.live[p] = true
		d.queue = append(d.queue, p)
		d.mu.Unlock()
		return nil
	}
	delete(d.live, p)
	d.mu.Unlock()
	err := d.dev.Free(p)
	if bugs.On(BugDeferredNoDrain) {
		return err
	}
	return errors.Join(err, d.drain())
}

// GC implements spec.DeferredAllocator.
func (d *Deferred) GC() error {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return spec.ErrClosed
	}
	return d.drain()
}

func (d *Deferred) drain() error {
	if bugs.On(BugDeferredRepeat) {
		return d.drainFrontThenPop()
	}
	d.mu.Lock()
	q := d.queue
	d.queue = nil
	for _, p := range q {
		delete(d.live, p)
	}
	d.mu.Unlock()
	var errs []error
	for _, p := range q {
		if err := d.dev.Free(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// drainFrontThenPop is the seed's gc(): free the front, pop it only if the
// free succeeded. A failure leaves the block queued for a second free.
func (d *Deferred) drainFrontThenPop() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.queue) > 0 {
		p := d.queue[0]
		if err := d.dev.Free(p); err != nil {
			return err
		}
		d.queue = d.queue[1:]
		delete(d.live, p)
	}
	return nil
}

// Pending implements spec.DeferredAllocator.
func (d *Deferred) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queue)
}

// Close implements spec.DeferredAllocator.
func (d *Deferred) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return spec.ErrClosed
	}
	d.closed = true
	d.mu.Unlock()
	return d.drain()
}
