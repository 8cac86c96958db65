package sizeclass

import (
	"errors"
	"fmt"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/sched"
)

// Streams is a stream-ordered caching allocator. Each stream keeps its own
// per-class lists of blocks it freed, which it may reuse at once (its later
// work is ordered after the free); Synchronize(s) moves s's lists to the
// shared ready lists, from which every stream allocates. Large blocks use the
// same lists (their last entry), most recent fit first. One mutex guards everything:
// streams are driven by few host threads, and the cost that matters is the
// device round trip this cache saves.
//
// A stream has lists of its own only while it holds frees not yet
// synchronised: a runtime may create and destroy streams all its life, and
// an entry kept per stream ever seen would grow without bound.
// The emptied lists are kept for the next stream that frees.
type Streams struct {
	mu     sched.Mutex
	dev    spec.Device
	cls    classes
	closed bool
	blocks map[spec.Addr]*sblock
	own    map[spec.Stream]*pending // streams with unsynchronised frees
	ready  [][]*sblock              // per class (+ large)
	spare  []*pending               // emptied lists, for reuse
}

// pending is one stream's blocks freed and not yet synchronised.
type pending struct {
	lists [][]*sblock // per class (+ large)
	n     int         // blocks in lists
}

type sblock struct {
	addr   spec.Addr
	size   int64
	class  int
	inUse  bool
	stream spec.Stream
}

var _ spec.StreamAllocator = (*Streams)(nil)

// NewStreams returns an empty allocator over dev (ErrInvalidConfig for a bad
// cfg).
func NewStreams(dev spec.Device, cfg spec.Config) (*Streams, error) {
	cls, err := newClasses(cfg)
	if err != nil {
		return nil, err
	}
	return &Streams{dev: dev, cls: cls, blocks: map[spec.Addr]*sblock{},
		own: map[spec.Stream]*pending{}, ready: make([][]*sblock, len(cls.sizes)+1)}, nil
}

// Alloc implements spec.StreamAllocator.
func (a *Streams) Alloc(s spec.Stream, n int64) (spec.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.closed:
		return 0, spec.ErrClosed
	case n == 0:
		return 0, nil
	case n < 0:
		return 0, fmt.Errorf("%w: %d bytes", spec.ErrInvalidSize, n)
	}
	size, class, err := a.cls.classify(n)
	if err != nil {
		return 0, err
	}
	list := class
	if class < 0 {
		list = a.cls.large
	}
	if p := a.own[s]; p != nil {
		if b := take(p.lists, list, size); b != nil {
			a.taken(s, p)
			return a.handOut(b, s), nil
		}
	}
	if b := take(a.ready, list, size); b != nil {
		return a.handOut(b, s), nil
	}
	if bugs.On(BugStreamEarlyReuse) {
		for t, p := range a.own {
			if b := take(p.lists, list, size); b != nil && t != s {
				a.taken(t, p)
				return a.handOut(b, s), nil
			}
		}
	}
	p, err := a.dev.Malloc(size)
	if errors.Is(err, spec.ErrOutOfMemory) {
		if released, _ := a.trimLocked(); released > 0 {
			p, err = a.dev.Malloc(size)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("sizeclass: stream alloc %d bytes: %w", n, err)
	}
	b := &sblock{addr: p, size: size, class: class}
	a.blocks[p] = b
	return a.handOut(b, s), nil
}

func (a *Streams) handOut(b *sblock, s spec.Stream) spec.Addr {
	b.inUse, b.stream = true, s
	return b.addr
}

// pendingOf is s's pending frees, made (or reused) if it has none.
func (a *Streams) pendingOf(s spec.Stream) *pending {
	p := a.own[s]
	if p == nil {
		if n := len(a.spare); n > 0 {
			p, a.spare = a.spare[n-1], a.spare[:n-1]
		} else {
			p = &pending{lists: make([][]*sblock, len(a.cls.sizes)+1)}
		}
		a.own[s] = p
	}
	return p
}

// taken accounts for a block taken from s's pending frees p, and retires
// p once it is empty.
func (a *Streams) taken(s spec.Stream, p *pending) {
	if p.n--; p.n == 0 {
		a.retire(s, p)
	}
}

// retire drops s's emptied lists p from own and keeps them for reuse.
func (a *Streams) retire(s spec.Stream, p *pending) {
	delete(a.own, s)
	a.spare = append(a.spare, p)
}

// take removes the most recently added block of at least size bytes from
// lists[i] (in a class list every block fits).
func take(lists [][]*sblock, i int, size int64) *sblock {
	l := lists[i]
	for j := len(l) - 1; j >= 0; j-- {
		if b := l[j]; b.size >= size {
			copy(l[j:], l[j+1:])
			l[len(l)-1] = nil
			lists[i] = l[:len(l)-1]
			return b
		}
	}
	return nil
}

// Free implements spec.StreamAllocator.
func (a *Streams) Free(s spec.Stream, p spec.Addr) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return spec.ErrClosed
	}
	if p == 0 {
		return nil
	}
	b, ok := a.blocks[p]
	if !ok {
		return fmt.Errorf("%w: %v", spec.ErrUnknownPointer, p)
	}
	if !b.inUse {
		return errDoubleFree(p)
	}
	if bugs.On(BugStreamFreeSplit) {
		// "Shorter critical sections": the block is checked under one
		// acquisition of the lock and listed under another.
		a.mu.Unlock()
		a.mu.Lock()
		if a.closed {
			return spec.ErrClosed
		}
	}
	b.inUse, b.stream = false, s
	own := a.pendingOf(s)
	i := a.listOf(b)
	own.lists[i] = append(own.lists[i], b)
	own.n++
	return nil
}

func (a *Streams) listOf(b *sblock) int {
	if b.class < 0 {
		return a.cls.large
	}
	return b.class
}

// Synchronize implements spec.StreamAllocator.
func (a *Streams) Synchronize(s spec.Stream) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return spec.ErrClosed
	}
	p := a.own[s]
	if p == nil {
		return nil
	}
	for i, l := range p.lists {
		a.ready[i] = append(a.ready[i], l...)
		clear(l)
		p.lists[i] = l[:0]
	}
	p.n = 0
	a.retire(s, p)
	return nil
}

// Trim implements spec.StreamAllocator.
func (a *Streams) Trim() (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return 0, spec.ErrClosed
	}
	return a.trimLocked()
}

// trimLocked frees the ready lists: only their frees are synchronised.
func (a *Streams) trimLocked() (int64, error) {
	var released int64
	var errs []error
	for i, l := range a.ready {
		for _, b := range l {
			released += b.size
			delete(a.blocks, b.addr)
			if err := a.dev.Free(b.addr); err != nil {
				errs = append(errs, err)
			}
		}
		clear(l)
		a.ready[i] = l[:0]
	}
	return released, errors.Join(errs...)
}

// Blocks implements spec.StreamAllocator.
func (a *Streams) Blocks() []spec.StreamBlock {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	return a.blocksLocked()
}

func (a *Streams) blocksLocked() []spec.StreamBlock {
	cached := map[*sblock]int{}
	pending := map[*sblock]bool{}
	for _, p := range a.own {
		for _, l := range p.lists {
			for _, b := range l {
				cached[b]++
				pending[b] = true
			}
		}
	}
	for _, l := range a.ready {
		for _, b := range l {
			cached[b]++
		}
	}
	out := make([]spec.StreamBlock, 0, len(a.blocks))
	for _, b := range a.blocks {
		out = append(out, spec.StreamBlock{Addr: b.addr, Size: b.size, Class: b.class, InUse: b.inUse,
			Stream: b.stream, Pending: pending[b], Cached: cached[b]})
	}
	sortStreamBlocks(out)
	return out
}

// Close implements spec.StreamAllocator.
func (a *Streams) Close() ([]spec.StreamBlock, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, spec.ErrClosed
	}
	var leaks []spec.StreamBlock
	var errs []error
	for _, b := range a.blocksLocked() {
		if b.InUse {
			leaks = append(leaks, b)
		}
		if err := a.dev.Free(b.Addr); err != nil {
			errs = append(errs, err)
		}
	}
	a.closed = true
	a.blocks, a.own, a.ready, a.spare = nil, nil, nil, nil
	return leaks, errors.Join(errs...)
}
