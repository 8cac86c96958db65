package refcount

import (
	"errors"
	"fmt"
	"slices"

	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/sched"
)

// scopes is the scope stack a registry keeps (TensorLogic's enter/exit_scope):
// each scope lists the references handed to it, oldest first. Scope calls are
// rare next to Register and Unregister, so one mutex serialises them; it is
// always taken before any lock of the registry itself, and Exit holds it while
// it releases, so two Exits never interleave their releases.
//
// Close holds the mutex while it closes the registry, and marks the stack
// closed before it lets go. A scope call checks the registry's closed flag
// first, without the mutex, for a cheap early answer; one that passed that
// check while Close was running then waits for the mutex, and must answer
// ErrClosed, not find the stack Close emptied and answer ErrNoScope. So every
// method checks closed again under the mutex.
type scopes struct {
	mu     sched.Mutex
	stack  [][]spec.Addr
	closed bool
}

func (s *scopes) enter() {
	s.mu.Lock()
	if !s.closed {
		s.stack = append(s.stack, nil)
	}
	s.mu.Unlock()
}

// track appends p to the innermost scope if registered(p). The caller has
// already answered p == 0.
func (s *scopes) track(p spec.Addr, registered func(spec.Addr) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return spec.ErrClosed
	}
	if len(s.stack) == 0 {
		return spec.ErrNoScope
	}
	if !registered(p) {
		return notRegistered(p)
	}
	top := len(s.stack) - 1
	s.stack[top] = append(s.stack[top], p)
	return nil
}

// promote moves one tracked reference of p to the enclosing scope, or hands it
// back to the caller at the outermost scope.
func (s *scopes) promote(p spec.Addr) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return spec.ErrClosed
	}
	if len(s.stack) == 0 {
		return spec.ErrNoScope
	}
	top := len(s.stack) - 1
	i := slices.Index(s.stack[top], p)
	if i < 0 {
		return fmt.Errorf("%w: %#x", spec.ErrNotTracked, uint64(p))
	}
	s.stack[top] = slices.Delete(s.stack[top], i, i+1)
	if top > 0 {
		s.stack[top-1] = append(s.stack[top-1], p)
	}
	return nil
}

// exit pops the innermost scope and releases what it tracks through release,
// newest first (oldest first if newestFirst is false, which only a seeded bug
// asks for). Failed releases are joined; the rest still happen.
func (s *scopes) exit(release func(spec.Addr) error, newestFirst bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return spec.ErrClosed
	}
	if len(s.stack) == 0 {
		return spec.ErrNoScope
	}
	top := len(s.stack) - 1
	tracked := s.stack[top]
	s.stack = s.stack[:top]
	var errs []error
	for i := range tracked {
		j := len(tracked) - 1 - i
		if !newestFirst {
			j = i
		}
		if err := release(tracked[j]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// close drops every scope and refuses every later call; Close calls it with
// the mutex held.
func (s *scopes) close() {
	s.stack = nil
	s.closed = true
}
