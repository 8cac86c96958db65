// Package refcount is the specification of a pointer registry with reference
// counts: the contract (Registry, its errors) and the reference model (Model)
// that every implementation in impl/refcount is checked against.
//
// It models SCL-Core's registry (seeds/refcount-registry.md) and TensorLogic's
// scoped Arc release (seeds/arc-scope-release.md). A registration is either an
// owned pointer (Register: one reference, freed by its Unregister) or a shared
// buffer (RegisterBuffer: a real pointer plus aliases inside it, freed when the
// last reference of any of them is dropped). Memory itself is never touched:
// the registry calls a Freer exactly once per registration, with the real
// pointer, size and kind.
//
// # Decisions where the seeds are silent or wrong
//
// References are counted per listing. The real pointer holds one reference and
// every listed alias one more, so an alias listed k times (or equal to the real
// pointer) holds k (+1). The seed's example — ten aliases, the first equal to
// the main pointer — therefore starts at 11 and is freed after the ten alias
// releases and the main one, exactly as the seed narrates. (SCL-Core's code keeps
// aliases in a set, so a repeated alias is counted but not stored and the
// buffer can never be freed; that is a seeded bug.)
//
// Each pointer holds a share of its registration's count; Refs reports the
// whole count. A pointer whose share reaches 0 stops being registered even if
// the buffer lives on, and may then be registered anew: the registry tracks
// pointers, not memory. Retain adds to the caller's share (Arc::clone,
// ptr_acquire); Unregister drops one from it.
//
// Null is never an error where a zero-sized value may show up: Register(0),
// Retain(0), Unregister(0), Track(0) and Promote(0) are no-ops (TensorLogic's
// ZST rule), before any other check but ErrClosed (after Close every call
// answers it). RegisterBuffer checks, in order:
// ErrNullPointer for real == 0; ErrInvalidSize for bytes <= 0 or a range past
// the top of the address space; ErrInvalidKind; ErrAliasOutOfRange for a null
// alias or one outside [real, real+bytes); then ErrAlreadyRegistered if any
// listed pointer already holds a share. Register checks size, range and kind
// the same way. An empty alias list is allowed (the buffer starts at 1).
// Every failed call leaves the state as it was, but Exit, which pops its
// scope and makes every release it can before it reports the ones that
// failed.
//
// BufferIDs are nonzero and distinct among live buffers; which value an
// implementation hands out is its choice, so properties compare them through a
// mapping.
//
// Scopes form one stack per registry. Track hands a reference the caller
// already holds to the innermost scope (it does not retain: ownership moves);
// Track with no open scope is ErrNoScope. Promote moves the oldest tracked
// reference of p to the enclosing scope, or back to the caller at the
// outermost scope; ErrNoScope with no open scope, else ErrNotTracked if the
// innermost scope does not track p. Exit releases what the scope still
// tracks, newest first; releases that fail (the caller dropped the reference
// it had handed over) are returned joined, and the rest still happen. A scope
// tracks addresses, not registrations: a reference released behind its back
// and the address registered anew, the scope's release drops the new one.
//
// Live lists the live registrations by address. Several share an address
// when a buffer's real pointer let go of its share (aliases keep the buffer)
// and the address was registered anew: then the buffers come first, newest
// first, and an owned pointer registered anew there last. Close frees every
// live registration in that order and returns them as the leak report;
// afterwards every method returns ErrClosed and queries answer their zero
// value. Stats.Pointers counts owned pointers only; Bytes counts owned
// pointers and buffers, and saturates at math.MaxInt64: sizes are int64 and
// registrations may overlap, so their sum can pass it (below it, Bytes is
// exact).
package refcount
