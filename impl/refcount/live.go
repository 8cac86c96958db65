package refcount

import (
	"sort"

	"github.com/memverify/memverify/internal/bugs"
	spec "github.com/memverify/memverify/model/refcount"
)

// sortRegistrations puts a leak report in the contract's order, which Live
// returns and Close frees in: by real pointer, and at one real pointer the
// buffers newest first, then the owned pointer. Registrations share a real
// pointer only when a buffer's real pointer let go of its share while aliases
// kept the buffer alive, and the address was then registered anew (as another
// buffer, or as an owned pointer, which must be the newest: its share is its
// whole count). Both implementations hand out buffer IDs from a counter, and a
// buffer's ID is taken before its real pointer can let go, so at one address
// the larger ID is the newer buffer, and an owned pointer (ID 0) is last.
func sortRegistrations(rs []spec.Registration) {
	ownedFirst := bugs.On(BugOwnedBeforeBuffer)
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Real != rs[j].Real {
			return rs[i].Real < rs[j].Real
		}
		if ownedFirst {
			return rs[i].Buffer < rs[j].Buffer // the owned pointer, then buffers oldest first
		}
		return rs[i].Buffer > rs[j].Buffer
	})
}
