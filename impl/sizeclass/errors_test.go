package sizeclass_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	impl "github.com/memverify/memverify/impl/sizeclass"
	spec "github.com/memverify/memverify/model/sizeclass"
)

var pools = []struct {
	name string
	make func(spec.Device, spec.Config) (spec.Pool, error)
}{
	{"Mutex", func(d spec.Device, c spec.Config) (spec.Pool, error) { return impl.NewMutex(d, c) }},
	{"Sharded", func(d spec.Device, c spec.Config) (spec.Pool, error) {
		return impl.NewSharded(d, c, impl.ShardedOptions{})
	}},
	{"LockFree", func(d spec.Device, c spec.Config) (spec.Pool, error) { return impl.NewLockFree(d, c) }},
}

// TestPoolErrors checks each sentinel error of every pool and that the
// failed call changed nothing.
func TestPoolErrors(t *testing.T) {
	for _, pl := range pools {
		t.Run(pl.name, func(t *testing.T) {
			if _, err := pl.make(spec.NewSimDevice(1), spec.Config{Alignment: 3}); !errors.Is(err, spec.ErrInvalidConfig) {
				t.Errorf("bad config: %v", err)
			}
			d := spec.NewSimDevice(8192)
			p, err := pl.make(d, spec.Config{Alignment: 256, Classes: []int64{1024, 4096}})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := p.Alloc(1000)
			c, _ := p.Alloc(1)
			if err := p.Free(c); err != nil {
				t.Fatal(err)
			}
			cases := []struct {
				name string
				call func() error
				want error
			}{
				{"negative size", func() error { _, err := p.Alloc(-1); return err }, spec.ErrInvalidSize},
				{"rounding overflows", func() error { _, err := p.Alloc(math.MaxInt64); return err }, spec.ErrInvalidSize},
				{"device fails", func() error { d.FailNextMalloc(nil); _, err := p.Alloc(4096); return err }, spec.ErrInjected},
				{"unknown pointer", func() error { return p.Free(0x1234) }, spec.ErrUnknownPointer},
				{"interior pointer", func() error { return p.Free(a + 256) }, spec.ErrUnknownPointer},
				{"double free", func() error { return p.Free(c) }, spec.ErrDoubleFree},
			}
			for _, tc := range cases {
				before := fmt.Sprintf("%+v %v %v", p.Stats(), p.Blocks(), d.Live())
				if err := tc.call(); !errors.Is(err, tc.want) {
					t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
				}
				if after := fmt.Sprintf("%+v %v %v", p.Stats(), p.Blocks(), d.Live()); after != before {
					t.Errorf("%s changed the state:\n%s\n%s", tc.name, before, after)
				}
			}
			if _, err := p.Alloc(1 << 20); !errors.Is(err, spec.ErrOutOfMemory) {
				t.Errorf("device exhausted: %v", err)
			}
			if err := p.Free(c); !errors.Is(err, spec.ErrUnknownPointer) {
				t.Errorf("Free of a block the OOM path trimmed: %v", err)
			}
			leaks, err := p.Close()
			if err != nil || len(leaks) != 1 || leaks[0].Addr != a || len(d.Live()) != 0 {
				t.Errorf("Close = %v, %v; device holds %v", leaks, err, d.Live())
			}
			if err := p.Free(a); !errors.Is(err, spec.ErrClosed) {
				t.Errorf("Free after Close: %v", err)
			}
			if _, err := p.Alloc(1); !errors.Is(err, spec.ErrClosed) {
				t.Errorf("Alloc after Close: %v", err)
			}
			if err := p.SetPinned(true); !errors.Is(err, spec.ErrClosed) {
				t.Errorf("SetPinned after Close: %v", err)
			}
			if _, err := p.Trim(); !errors.Is(err, spec.ErrClosed) {
				t.Errorf("Trim after Close: %v", err)
			}
		})
	}
}

func TestDeferredErrors(t *testing.T) {
	d := spec.NewSimDevice(1 << 20)
	m := impl.NewDeferred(d, 0)
	a, _ := m.Alloc(100)
	if _, err := m.Alloc(-1); !errors.Is(err, spec.ErrInvalidSize) {
		t.Errorf("Alloc(-1): %v", err)
	}
	if err := m.Free(1, a); err != nil || m.Pending() != 1 {
		t.Fatalf("foreign free: %v, pending %d", err, m.Pending())
	}
	if err := m.Free(2, a); !errors.Is(err, spec.ErrDoubleFree) || m.Pending() != 1 {
		t.Errorf("free of a queued block: %v", err)
	}
	if err := m.Free(0, 0x99); !errors.Is(err, spec.ErrUnknownPointer) {
		t.Errorf("unknown: %v", err)
	}
	d.FailNextFree(nil)
	if err := m.GC(); !errors.Is(err, spec.ErrInjected) || m.Pending() != 0 {
		t.Errorf("GC with a failing free: %v, pending %d", err, m.Pending())
	}
	if err := m.GC(); err != nil || len(d.Violations()) != 0 {
		t.Errorf("a failed free was repeated: %v %v", err, d.Violations())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Free(0, a); !errors.Is(err, spec.ErrClosed) {
		t.Errorf("Free after Close: %v", err)
	}
}

func TestStreamsErrors(t *testing.T) {
	d := spec.NewSimDevice(1 << 20)
	s, _ := impl.NewStreams(d, spec.Config{Alignment: 256, Classes: []int64{1024}})
	a, _ := s.Alloc(1, 1000)
	if _, err := s.Alloc(1, math.MaxInt64); !errors.Is(err, spec.ErrInvalidSize) {
		t.Errorf("overflow: %v", err)
	}
	if err := s.Free(1, a+256); !errors.Is(err, spec.ErrUnknownPointer) {
		t.Errorf("interior: %v", err)
	}
	s.Free(1, a)
	if err := s.Free(2, a); !errors.Is(err, spec.ErrDoubleFree) {
		t.Errorf("double free: %v", err)
	}
	if b, _ := s.Alloc(2, 1); b == a {
		t.Errorf("stream 2 reused %v before stream 1 was synchronised", a)
	}
	if n, _ := s.Trim(); n != 0 {
		t.Errorf("Trim released %d bytes whose free is not synchronised", n)
	}
	s.Synchronize(1)
	if n, _ := s.Trim(); n != 1024 {
		t.Errorf("Trim after Synchronize released %d, want 1024", n)
	}
	if _, err := s.Close(); err != nil || len(d.Live()) != 0 {
		t.Errorf("Close: %v, live %v", err, d.Live())
	}
	if err := s.Synchronize(1); !errors.Is(err, spec.ErrClosed) {
		t.Errorf("Synchronize after Close: %v", err)
	}
}

// TestShardedOptionsBounded: options too large to allocate, or to count in
// the shards' int32s, are refused with ErrInvalidConfig, not a panic or a
// fatal out-of-memory.
func TestShardedOptionsBounded(t *testing.T) {
	for _, opt := range []impl.ShardedOptions{
		{Capacity: 1 << 62}, {Capacity: impl.MaxShardCapacity + 1},
		{Shards: 1 << 40}, {Shards: impl.MaxShards + 1},
	} {
		_, err := impl.NewSharded(spec.NewSimDevice(1<<20), spec.DefaultConfig(), opt)
		if !errors.Is(err, spec.ErrInvalidConfig) {
			t.Errorf("NewSharded(%+v): %v, want ErrInvalidConfig", opt, err)
		}
	}
	if _, err := impl.NewSharded(spec.NewSimDevice(1<<20), spec.DefaultConfig(),
		impl.ShardedOptions{Shards: impl.MaxShards, Capacity: 1}); err != nil {
		t.Errorf("NewSharded at the shard limit: %v", err)
	}
}
