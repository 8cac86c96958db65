package refcount

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	spec "github.com/memverify/memverify/model/refcount"
)

// scopes is the scope stack a registry keeps (TensorLogic's enter/exit_scope):
// each scope lists the references handed to it, oldest first. Scope calls are
// rare next to Register and Unregister, so one mutex serialises them; it is
// always taken before any lock of the registry itself, and Exit holds it while
// it releases, so two Exits never interleave their releases.
type scopes struct {
	mu    sync.Mutex
	stack [][]spec.Addr
}

func (s *scopes) enter() {
	s.mu.Lock()
	s.stack = append(s.stack, nil)
	s.mu.Unlock()
}

// track appends p to the innermost scope if registered(p). The caller has
// already answered ErrClosed and p == 0.
func (s *scopes) track(p spec.Addr, registered func(spec.Addr) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
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

// reset drops every scope (Close).
func (s *scopes) reset() {
	s.stack = nil
}
