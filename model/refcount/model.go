package refcount

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Model is the reference registry: sequential, maps and counters, no
// cleverness. It is not safe for concurrent use; concurrent properties put it
// behind a lock or replay a linearization through it.
type Model struct {
	freer  Freer
	regs   map[*registration]bool
	ptrs   map[Addr]*registration // every pointer that holds a share
	nextID BufferID
	scopes [][]Addr // the scope stack; each scope lists tracked pointers, oldest first
	closed bool
}

// registration is one owned pointer or one shared buffer.
type registration struct {
	real    Addr
	bytes   int64
	kind    Kind
	buffer  BufferID       // 0 for an owned pointer
	refs    int64          // the whole count: the sum of shares
	holders map[Addr]int64 // each holding pointer's share
}

var _ Registry = (*Model)(nil)

// New returns an empty registry that releases memory through f (nil: memory
// is never released, only forgotten, as in the implementations).
func New(f Freer) *Model {
	if f == nil {
		f = FreerFunc(func(Addr, int64, Kind) {})
	}
	return &Model{freer: f, regs: map[*registration]bool{}, ptrs: map[Addr]*registration{}}
}

// checkRange validates a registration's size and kind.
func checkRange(p Addr, bytes int64, kind Kind) error {
	if bytes <= 0 {
		return fmt.Errorf("%w: %d bytes at %#x", ErrInvalidSize, bytes, uint64(p))
	}
	if uint64(p) > math.MaxUint64-uint64(bytes)+1 {
		return fmt.Errorf("%w: %d bytes at %#x run past the top of the address space", ErrInvalidSize, bytes, uint64(p))
	}
	if kind > Custom {
		return fmt.Errorf("%w: %v", ErrInvalidKind, kind)
	}
	return nil
}

func (m *Model) Register(p Addr, bytes int64, kind Kind) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	if err := checkRange(p, bytes, kind); err != nil {
		return err
	}
	if m.ptrs[p] != nil {
		return fmt.Errorf("%w: %#x", ErrAlreadyRegistered, uint64(p))
	}
	r := &registration{real: p, bytes: bytes, kind: kind, refs: 1, holders: map[Addr]int64{p: 1}}
	m.regs[r] = true
	m.ptrs[p] = r
	return nil
}

func (m *Model) RegisterBuffer(real Addr, bytes int64, aliases []Addr, kind Kind) (BufferID, error) {
	if m.closed {
		return 0, ErrClosed
	}
	if real == 0 {
		return 0, ErrNullPointer
	}
	if err := checkRange(real, bytes, kind); err != nil {
		return 0, err
	}
	for _, a := range aliases {
		if a < real || uint64(a-real) >= uint64(bytes) {
			return 0, fmt.Errorf("%w: %#x not in [%#x, +%d)", ErrAliasOutOfRange, uint64(a), uint64(real), bytes)
		}
	}
	for _, p := range append([]Addr{real}, aliases...) {
		if m.ptrs[p] != nil {
			return 0, fmt.Errorf("%w: %#x", ErrAlreadyRegistered, uint64(p))
		}
	}
	m.nextID++
	r := &registration{real: real, bytes: bytes, kind: kind, buffer: m.nextID, holders: map[Addr]int64{}}
	for _, p := range append([]Addr{real}, aliases...) {
		r.holders[p]++
		r.refs++
		m.ptrs[p] = r
	}
	m.regs[r] = true
	return r.buffer, nil
}

func (m *Model) Retain(p Addr) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	r := m.ptrs[p]
	if r == nil {
		return fmt.Errorf("%w: %#x", ErrNotRegistered, uint64(p))
	}
	r.holders[p]++
	r.refs++
	return nil
}

func (m *Model) Unregister(p Addr) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	r := m.ptrs[p]
	if r == nil {
		return fmt.Errorf("%w: %#x", ErrNotRegistered, uint64(p))
	}
	r.holders[p]--
	r.refs--
	if r.holders[p] == 0 {
		delete(r.holders, p)
		delete(m.ptrs, p)
	}
	if r.refs == 0 {
		delete(m.regs, r)
		m.freer.Free(r.real, r.bytes, r.kind)
	}
	return nil
}

func (m *Model) IsRegistered(p Addr) bool {
	return !m.closed && m.ptrs[p] != nil
}

func (m *Model) Refs(p Addr) int64 {
	if m.closed || m.ptrs[p] == nil {
		return 0
	}
	return m.ptrs[p].refs
}

func (m *Model) Stats() Stats {
	var s Stats
	if m.closed {
		return s
	}
	for r := range m.regs {
		if r.buffer == 0 {
			s.Pointers++
		} else {
			s.Buffers++
		}
		// Every size is positive, so once the sum passes MaxInt64 the rest
		// cannot bring it back: saturating each addition is exact.
		s.Bytes = addSaturating(s.Bytes, r.bytes)
	}
	return s
}

// addSaturating returns a+b for non-negative a and b, or math.MaxInt64 if the
// sum does not fit.
func addSaturating(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func (m *Model) Live() []Registration {
	if m.closed {
		return nil
	}
	out := []Registration{}
	for r := range m.regs {
		holders := make([]Addr, 0, len(r.holders))
		for p := range r.holders {
			holders = append(holders, p)
		}
		slices.Sort(holders)
		out = append(out, Registration{Real: r.real, Bytes: r.bytes, Kind: r.kind, Refs: r.refs, Buffer: r.buffer, Holders: holders})
	}
	// By address; buffers and an owned pointer registered anew at a buffer's
	// address (after the real pointer's own share ran out) share a Real, and
	// then the buffers come first, newest (the largest ID: the model hands
	// IDs out in order) first, so the order does not depend on the map's.
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Real != b.Real {
			return a.Real < b.Real
		}
		return a.Buffer > b.Buffer
	})
	return out
}

func (m *Model) Close() ([]Registration, error) {
	if m.closed {
		return nil, ErrClosed
	}
	leaked := m.Live()
	for _, r := range leaked {
		m.freer.Free(r.Real, r.Bytes, r.Kind)
	}
	m.closed = true
	m.regs, m.ptrs, m.scopes = nil, nil, nil
	return leaked, nil
}

func (m *Model) Enter() {
	if !m.closed {
		m.scopes = append(m.scopes, nil)
	}
}

func (m *Model) Track(p Addr) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	if len(m.scopes) == 0 {
		return ErrNoScope
	}
	if m.ptrs[p] == nil {
		return fmt.Errorf("%w: %#x", ErrNotRegistered, uint64(p))
	}
	top := len(m.scopes) - 1
	m.scopes[top] = append(m.scopes[top], p)
	return nil
}

func (m *Model) Promote(p Addr) error {
	if m.closed {
		return ErrClosed
	}
	if p == 0 {
		return nil
	}
	if len(m.scopes) == 0 {
		return ErrNoScope
	}
	top := len(m.scopes) - 1
	// The oldest of p's tracked references in the scope: which one leaves
	// decides the order in which Exit releases the rest, and so the order of
	// the Freer's calls, which the properties compare.
	i := slices.Index(m.scopes[top], p)
	if i < 0 {
		return fmt.Errorf("%w: %#x", ErrNotTracked, uint64(p))
	}
	m.scopes[top] = slices.Delete(m.scopes[top], i, i+1)
	if top > 0 {
		m.scopes[top-1] = append(m.scopes[top-1], p)
	}
	return nil
}

func (m *Model) Exit() error {
	if m.closed {
		return ErrClosed
	}
	if len(m.scopes) == 0 {
		return ErrNoScope
	}
	top := len(m.scopes) - 1
	tracked := m.scopes[top]
	m.scopes = m.scopes[:top]
	var errs []error
	for i := len(tracked) - 1; i >= 0; i-- {
		if err := m.Unregister(tracked[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
