//go:build mutants

package bugs

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Enabled reports whether this binary was built with the `mutants` tag.
const Enabled = true

var (
	// active holds the active bug. It is read on hot paths of mutant builds only.
	active atomic.Pointer[ID]
	// fromEnv reads MEMVERIFY_BUG on first use rather than in init: go test
	// records the environment variables a test reads only once the test has
	// started, and must see this one, or it would replay a cached result of
	// another bug.
	fromEnv sync.Once
)

func loadEnv() {
	fromEnv.Do(func() {
		if id := os.Getenv("MEMVERIFY_BUG"); id != "" && active.Load() == nil {
			v := ID(id)
			active.Store(&v)
		}
	})
}

// On reports whether the seeded bug id is the active one.
func On(id ID) bool {
	loadEnv()
	p := active.Load()
	return p != nil && *p == id
}

// Active returns the active bug, "" when none.
func Active() ID {
	loadEnv()
	if p := active.Load(); p != nil {
		return *p
	}
	return ""
}

// Activate makes id the active bug ("" for none), overriding MEMVERIFY_BUG.
// An id missing from the catalogue is refused, so a typo cannot pass for a bug
// that survived.
func Activate(id ID) error {
	loadEnv()
	if id == "" {
		active.Store(nil)
		return nil
	}
	if _, ok := Lookup(id); !ok {
		return fmt.Errorf("bugs: %q is not in the catalogue", id)
	}
	active.Store(&id)
	return nil
}
