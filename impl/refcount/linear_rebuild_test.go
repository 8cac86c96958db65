package refcount_test

import (
	"testing"

	impl "github.com/memverify/memverify/impl/refcount"
	spec "github.com/memverify/memverify/model/refcount"
	"github.com/memverify/memverify/props/refcounttest"
)

// snapshotting takes a snapshot (Stats) before every Retain and Unregister: in
// LockFree each one freezes and rebuilds the table while the other clients'
// operations are in flight, which the plain linearizability property never
// does. Stats changes nothing, so the recorded history stays checkable.
type snapshotting struct{ spec.Registry }

func (s snapshotting) Retain(p spec.Addr) error {
	s.Stats()
	return s.Registry.Retain(p)
}

func (s snapshotting) Unregister(p spec.Addr) error {
	s.Stats()
	return s.Registry.Unregister(p)
}

func TestLinearizableAcrossRebuilds(t *testing.T) {
	t.Run("LockFree", func(t *testing.T) {
		refcounttest.CheckLinearizable(t, func(f spec.Freer) spec.Registry { return snapshotting{impl.NewLockFree(f)} })
	})
	t.Run("Sharded", func(t *testing.T) {
		refcounttest.CheckLinearizable(t, func(f spec.Freer) spec.Registry { return snapshotting{impl.NewSharded(f)} })
	})
	t.Run("LastReleaseLockFree", func(t *testing.T) {
		refcounttest.CheckLastReleaseRace(t, func(f spec.Freer) spec.Registry { return snapshotting{impl.NewLockFree(f)} })
	})
}
