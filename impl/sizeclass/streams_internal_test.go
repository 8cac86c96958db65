package sizeclass

import (
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
)

// TestStreamsForgetSynchronisedStreams: Streams keeps per-stream lists only
// for streams with frees not yet synchronised. A runtime that uses each of
// many streams once (free on it, then synchronise it, or reuse the block on
// it) must not leave an entry behind per stream.
func TestStreamsForgetSynchronisedStreams(t *testing.T) {
	a, err := NewStreams(spec.NewSimDevice(1<<30), spec.Config{Alignment: 256, Classes: []int64{1024, 4096}})
	if err != nil {
		t.Fatal(err)
	}
	step := func(s spec.Stream, sync bool) {
		t.Helper()
		p, err := a.Alloc(s, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Free(s, p); err != nil {
			t.Fatal(err)
		}
		if sync {
			if err := a.Synchronize(s); err != nil {
				t.Fatal(err)
			}
			return
		}
		// Reused on its own stream: its pending free is gone with it.
		q, err := a.Alloc(s, 1000)
		if err != nil || q != p {
			t.Fatalf("stream %d: Alloc after its own free = %v, %v; want %v", s, q, err, p)
		}
		if err := a.Free(s, q); err != nil {
			t.Fatal(err)
		}
		if err := a.Synchronize(s); err != nil {
			t.Fatal(err)
		}
	}
	for s := range spec.Stream(10000) {
		step(s, s%2 == 0)
	}
	if n := len(a.own); n != 0 {
		t.Errorf("after 10000 streams each synchronised, %d keep lists; want 0", n)
	}
	if n := len(a.spare); n > 1 {
		t.Errorf("%d spare list sets kept; want at most 1 (one stream pending at a time)", n)
	}
	// A stream whose pending block is taken back by its own Alloc has
	// nothing pending any more, synchronised or not.
	p, _ := a.Alloc(7, 1000)
	if err := a.Free(7, p); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Alloc(7, 1000); err != nil {
		t.Fatal(err)
	}
	if n := len(a.own); n != 0 {
		t.Errorf("stream 7 took its only pending block back; %d streams keep lists, want 0", n)
	}
	if got := a.Blocks(); len(got) != 1 || !got[0].InUse || got[0].Pending {
		t.Errorf("Blocks = %+v; want the one block, in use, not pending", got)
	}
}
