package refcounttest

import (
	"reflect"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// invertedIDs is the model with other buffer IDs: every ID it reports is the
// bitwise complement of the model's, so a later buffer gets a smaller ID. The
// contract leaves IDs to the implementation, so it is a correct registry.
type invertedIDs struct{ *spec.Locked }

func (r invertedIDs) RegisterBuffer(real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) (spec.BufferID, error) {
	id, err := r.Locked.RegisterBuffer(real, bytes, aliases, kind)
	if id != 0 {
		id = ^id
	}
	return id, err
}

func (r invertedIDs) Live() []spec.Registration { return invert(r.Locked.Live()) }

func (r invertedIDs) Close() ([]spec.Registration, error) {
	leaked, err := r.Locked.Close()
	return invert(leaked), err
}

func invert(rs []spec.Registration) []spec.Registration {
	for i := range rs {
		if rs[i].Buffer != 0 {
			rs[i].Buffer = ^rs[i].Buffer
		}
	}
	return rs
}

// Two live buffers can share a real pointer (the first one's real pointer was
// released, then registered again as a buffer's). The leak report lists the
// newer first whatever IDs the registry chose: stripIDs ignores the IDs but
// keeps the order, so the model under other IDs compares equal and a report
// with the two swapped does not.
func TestStripIDsKeepsOrderIgnoresIDs(t *testing.T) {
	older := spec.Registration{Real: 0x100, Bytes: 0x30, Refs: 1, Buffer: 1, Holders: []spec.Addr{0x110}}
	newer := spec.Registration{Real: 0x100, Bytes: 0x30, Refs: 2, Buffer: 2, Holders: []spec.Addr{0x100}}
	model := []spec.Registration{newer, older}
	olderInv, newerInv := older, newer
	olderInv.Buffer, newerInv.Buffer = ^older.Buffer, ^newer.Buffer
	if a, b := stripIDs(model), stripIDs([]spec.Registration{newerInv, olderInv}); !reflect.DeepEqual(a, b) {
		t.Fatalf("the same registrations under other IDs compare unequal:\n%+v\n%+v", a, b)
	}
	if a, b := stripIDs(model), stripIDs([]spec.Registration{olderInv, newerInv}); reflect.DeepEqual(a, b) {
		t.Fatalf("the older buffer listed first compares equal:\n%+v\n%+v", a, b)
	}
}

// The model under other IDs passes the parallel property.
func TestDisjointParallelAcceptsOtherIDs(t *testing.T) {
	for range 5 { // a few hundred generated runs: two buffers sharing a real pointer are not drawn often
		CheckDisjointParallel(t, func(f spec.Freer) spec.Registry { return invertedIDs{spec.NewLocked(f)} })
	}
}
