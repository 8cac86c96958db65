package sizeclass

import (
	"errors"
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
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
	mu     sched.Mutex
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
	if bugs.On(BugDeferredNoDrain) || bugs.On(BugDeferredRepeat) || bugs.On(BugDrainLate) {
		d.mu.Unlock()
		err := d.dev.Free(p)
		if bugs.On(BugDeferredNoDrain) {
			return err
		}
		return errors.Join(err, d.drain())
	}
	// The queue is taken in the same critical section that releases p: the
	// model's owner-side free is a free and a GC in one step, so a foreign
	// free ordered after it stays queued.
	q := d.takeQueueLocked()
	d.mu.Unlock()
	return errors.Join(d.dev.Free(p), d.freeAll(q))
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
	if bugs.On(BugDrainLate) {
		return d.drainThenSwap()
	}
	d.mu.Lock()
	q := d.takeQueueLocked()
	d.mu.Unlock()
	return d.freeAll(q)
}

// takeQueueLocked empties the queue and forgets its blocks, and returns
// them: from here on they are the caller's to free, once. Called with mu
// held.
func (d *Deferred) takeQueueLocked() []spec.Addr {
	q := d.queue
	d.queue = nil
	for _, p := range q {
		delete(d.live, p)
	}
	return q
}

// freeAll frees the blocks of a queue taken by takeQueueLocked, outside the
// lock, and reports every failure.
func (d *Deferred) freeAll(q []spec.Addr) error {
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

// drainThenSwap frees the queue it read under the lock, then empties the
// queue under the lock again: two drains at once free the same blocks, and
// a free queued during the frees is dropped, never made (the seeded
// BugDrainLate).
func (d *Deferred) drainThenSwap() error {
	d.mu.Lock()
	q := d.queue
	d.mu.Unlock()
	err := d.freeAll(q)
	d.mu.Lock()
	for _, p := range q {
		delete(d.live, p)
	}
	d.queue = nil
	d.mu.Unlock()
	return err
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
	if bugs.On(BugDeferredRepeat) || bugs.On(BugDrainLate) {
		d.mu.Unlock()
		return d.drain()
	}
	// The queue is taken in the same critical section that closes: a
	// Pending that sees the allocator closed sees it drained too, as the
	// model's Close, a GC and then closed, in one step.
	q := d.takeQueueLocked()
	d.mu.Unlock()
	return d.freeAll(q)
}
