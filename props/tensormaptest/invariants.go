package tensormaptest

import (
	"slices"

	"github.com/memverify/memverify/model/tensormap"
	"pgregory.net/rapid"
)

// The invariant of every map: no live producer is ever lost. A map that
// evicts a live entry, cuts a chain at the wrong link or hides an entry
// behind a stale index answers a lookup of that entry's own view with an
// older task, or none: a dependency the runtime would miss.

// checkState compares Len and checks that every live producer is still
// found, by its own view, by both lookups.
func (m *machine) checkState(t *rapid.T) {
	if w, g := m.model.Len(), m.impl.Len(); w != g {
		m.fail(t, "Len() = %d, the model %d", g, w)
	}
	if len(m.live) != m.model.Len() {
		m.fail(t, "the model holds %d live entries, the property counted %d", m.model.Len(), len(m.live))
	}
	for _, e := range m.live {
		if e.view.Empty() {
			continue // an empty view overlaps nothing, not even itself
		}
		one := tensormap.Op{Kind: tensormap.OpLookup, Storage: e.storage, View: e.view}
		gotOne := one.Apply(m.impl)
		if !gotOne.Found || gotOne.Task < e.task || gotOne.Err != "" {
			m.fail(t, "lost producer: live task %d wrote %v of %#x, but %v returned %v",
				e.task, e.view, uint64(e.storage), one, gotOne)
		}
		if wantOne := one.Apply(m.model); gotOne != wantOne {
			m.fail(t, "%v returned %v, the model %v", one, gotOne, wantOne)
		}
		// A limit above the capacity can never be reached.
		all := tensormap.Op{Kind: tensormap.OpLookupAll, Storage: e.storage, View: e.view, Limit: m.capacity + 1}
		gotAll := all.Apply(m.impl)
		tasks, err := m.impl.LookupAll(e.storage, e.view, m.capacity+1)
		if err != nil || !slices.Contains(tasks, e.task) {
			m.fail(t, "lost producer: live task %d wrote %v of %#x, but %v returned %v, %v",
				e.task, e.view, uint64(e.storage), all, tasks, err)
		}
		if wantAll := all.Apply(m.model); gotAll != wantAll {
			m.fail(t, "%v returned %v, the model %v", all, gotAll, wantAll)
		}
		// And with a limit of 1, which two producers already exceed.
		one1 := tensormap.Op{Kind: tensormap.OpLookupAll, Storage: e.storage, View: e.view, Limit: 1}
		if got, want := one1.Apply(m.impl), one1.Apply(m.model); got != want {
			m.fail(t, "%v returned %v, the model %v", one1, got, want)
		}
	}
}
