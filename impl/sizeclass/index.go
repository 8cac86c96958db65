package sizeclass

import "github.com/memverify/memverify/sched"

// classIndex lists every block of one class, so that a steal scans the
// class's blocks only, without a lock. Writers hold core.slow. Between
// rebuilds the list only grows: a new block is written past the end that
// readers know and then published with a longer header, so a reader's
// snapshot never changes under it. Dropping blocks (Trim) builds a new
// array.
type classIndex struct {
	cur sched.Pointer[[]*block]
}

// load returns a snapshot of the class's blocks.
func (x *classIndex) load() []*block {
	if p := x.cur.Load(); p != nil {
		return *p
	}
	return nil
}

// add appends b. Called with slow held.
func (x *classIndex) add(b *block) {
	l := append(x.load(), b) // in place when there is room: past every reader's end
	x.cur.Store(&l)
}

// keep drops the blocks for which keep is false, into a new array. Called
// with slow held.
func (x *classIndex) keep(keep func(*block) bool) {
	old := x.load()
	l := make([]*block, 0, len(old))
	for _, b := range old {
		if keep(b) {
			l = append(l, b)
		}
	}
	x.cur.Store(&l)
}
