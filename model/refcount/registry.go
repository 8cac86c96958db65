package refcount

import (
	"errors"
	"fmt"
)

// Addr is an opaque address. 0 is null.
type Addr uint64

// Kind says how the memory behind a registration is released (the seed's AllocType).
type Kind uint8

const (
	ArrayNew Kind = iota
	ScalarNew
	AlignedAlloc
	Custom
)

func (k Kind) String() string {
	switch k {
	case ArrayNew:
		return "ArrayNew"
	case ScalarNew:
		return "ScalarNew"
	case AlignedAlloc:
		return "AlignedAlloc"
	case Custom:
		return "Custom"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// BufferID names one shared buffer registration. IDs start at 1; 0 means none.
type BufferID uint64

// Sentinel errors. Implementations return these, wrapped with detail if they
// like; callers test them with errors.Is.
var (
	ErrInvalidSize       = errors.New("refcount: invalid size")
	ErrInvalidKind       = errors.New("refcount: invalid allocation kind")
	ErrNullPointer       = errors.New("refcount: null pointer")
	ErrAlreadyRegistered = errors.New("refcount: pointer already registered")
	ErrAliasOutOfRange   = errors.New("refcount: alias outside the buffer")
	ErrNotRegistered     = errors.New("refcount: pointer not registered")
	ErrNotTracked        = errors.New("refcount: pointer not tracked by the current scope")
	ErrNoScope           = errors.New("refcount: no scope to exit")
	ErrClosed            = errors.New("refcount: registry closed")
)

// Freer releases memory whose last reference is gone. The registry calls it
// exactly once per registration, with the real pointer, its size and kind,
// before the Unregister (or Exit, or Close) that dropped the last reference
// returns. It may be called from any goroutine that drops a last reference.
// A free decided by an Unregister or Exit that races Close belongs to that
// call, not to Close: it may run after Close has returned (Close does not
// report or free that registration again).
// New, NewLocked and the constructors in impl/refcount take a nil Freer to
// mean that memory is never released, only forgotten.
type Freer interface {
	Free(p Addr, bytes int64, kind Kind)
}

// FreerFunc adapts a function to Freer.
type FreerFunc func(p Addr, bytes int64, kind Kind)

func (f FreerFunc) Free(p Addr, bytes int64, kind Kind) { f(p, bytes, kind) }

// Stats summarises what is registered.
type Stats struct {
	Pointers int // live owned pointers (from Register)
	Buffers  int // live shared buffers (from RegisterBuffer)
	// Bytes is the sum of the sizes of live pointers and buffers, saturating
	// at math.MaxInt64: each size is an int64 and registrations may overlap
	// (the registry tracks pointers, not memory), so the sum can pass it. It
	// is exact whenever the true sum is at most math.MaxInt64, whatever was
	// registered and released before.
	Bytes int64
}

// Registration is one live registration in the leak report.
type Registration struct {
	Real    Addr     // the real pointer, which the Freer receives
	Bytes   int64    //
	Kind    Kind     //
	Refs    int64    // the registration's whole count
	Buffer  BufferID // 0 for an owned pointer
	Holders []Addr   // pointers that still hold references, sorted, each once
}

// Registry is the contract every implementation meets. All methods are safe for
// concurrent use and linearizable. After Close every method returns ErrClosed
// (queries answer their zero value).
type Registry interface {
	// Register records an owned pointer with one reference. p == 0 is a no-op.
	Register(p Addr, bytes int64, kind Kind) error
	// RegisterBuffer records a shared buffer [real, real+bytes). real and each
	// listed alias hold one reference per listing. All or nothing.
	RegisterBuffer(real Addr, bytes int64, aliases []Addr, kind Kind) (BufferID, error)
	// Retain adds a reference held by p. p == 0 is a no-op.
	Retain(p Addr) error
	// Unregister drops one reference held by p; the last one frees. p == 0 is a no-op.
	Unregister(p Addr) error

	IsRegistered(p Addr) bool
	// Refs returns the whole count of the registration p belongs to (0 if none).
	Refs(p Addr) int64
	Stats() Stats
	// Live is the leak report: every live registration, sorted by Real; at
	// one Real, buffers newest first, then an owned pointer (see the package
	// documentation).
	Live() []Registration
	// Close frees everything still registered, in Live's order, and returns
	// what leaked.
	Close() ([]Registration, error)

	// Enter opens a scope.
	Enter()
	// Track hands one reference p already holds to the current scope. Null
	// is a no-op; ErrNoScope when no scope is open, ErrNotRegistered when p
	// is not registered.
	Track(p Addr) error
	// Promote takes p out of the current scope; the enclosing scope tracks it,
	// or, at the outermost scope, the reference goes back to the caller. Null
	// is a no-op; ErrNoScope when no scope is open, ErrNotTracked when the
	// current scope does not track p.
	Promote(p Addr) error
	// Exit closes the current scope, releasing what it still tracks, newest
	// first (ErrNoScope when no scope is open).
	Exit() error
}
