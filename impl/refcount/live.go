package refcount

import (
	"sort"

	spec "github.com/memverify/memverify/model/refcount"
)

// sortRegistrations orders a leak report by real pointer, as the contract asks.
// Two live registrations never share a real pointer: the real pointer holds a
// share until its registration ends, unless it was released early, in which
// case a new registration at the same address may coexist; the buffer ID then
// breaks the tie.
func sortRegistrations(rs []spec.Registration) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Real != rs[j].Real {
			return rs[i].Real < rs[j].Real
		}
		return rs[i].Buffer < rs[j].Buffer
	})
}
