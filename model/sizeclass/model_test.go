package sizeclass_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	sc "github.com/memverify/memverify/model/sizeclass"
)

func small() sc.Config { return sc.Config{Alignment: 256, Classes: []int64{1024, 4096}} }

func snapshot(p sc.Pool, d *sc.SimDevice) string {
	return fmt.Sprintf("%+v %v %v", p.Stats(), p.Blocks(), d.Live())
}

// TestPoolErrors checks each sentinel error of the model pool and that the
// failed call changed nothing.
func TestPoolErrors(t *testing.T) {
	d := sc.NewSimDevice(8192)
	p, err := sc.NewModel(d, small())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := p.Alloc(1000)
	b, _ := p.Alloc(5000) // large
	c, _ := p.Alloc(1)
	if err := p.Free(c); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"negative size", func() error { _, err := p.Alloc(-1); return err }, sc.ErrInvalidSize},
		{"min size", func() error { _, err := p.Alloc(math.MinInt64); return err }, sc.ErrInvalidSize},
		{"rounding overflows", func() error { _, err := p.Alloc(math.MaxInt64); return err }, sc.ErrInvalidSize},
		{"rounding overflows by one", func() error { _, err := p.Alloc(math.MaxInt64 - 254); return err }, sc.ErrInvalidSize},
		{"device fails", func() error { d.FailNextMalloc(nil); _, err := p.Alloc(4096); return err }, sc.ErrInjected},
		{"unknown pointer", func() error { return p.Free(0x1234) }, sc.ErrUnknownPointer},
		{"interior pointer", func() error { return p.Free(a + 256) }, sc.ErrUnknownPointer},
		{"double free", func() error { return p.Free(c) }, sc.ErrDoubleFree},
		// Last: these trim the cache (c) before failing, which the contract allows.
		{"device exhausted", func() error { _, err := p.Alloc(1 << 20); return err }, sc.ErrOutOfMemory},
		{"huge but rounds", func() error { _, err := p.Alloc(math.MaxInt64 - 255); return err }, sc.ErrOutOfMemory},
	}
	for _, tc := range cases {
		before := snapshot(p, d)
		err := tc.call()
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
		if after := snapshot(p, d); after != before && tc.want != sc.ErrOutOfMemory {
			t.Errorf("%s changed the state:\n%s\n%s", tc.name, before, after)
		}
	}
	if p.Stats().Misses != 3 || p.Stats().Hits != 0 {
		t.Errorf("failed Allocs were counted: %+v", p.Stats())
	}
	// The OOM cases trimmed the cached block c and then failed.
	if _, err := p.Trim(); err != nil {
		t.Fatal(err)
	}
	if err := p.Free(c); !errors.Is(err, sc.ErrUnknownPointer) {
		t.Errorf("Free of a trimmed block: %v, want ErrUnknownPointer", err)
	}
	leaks, err := p.Close()
	if err != nil || len(leaks) != 2 || leaks[0].Addr != a || leaks[1].Addr != b {
		t.Errorf("Close = %v, %v; want the two live blocks", leaks, err)
	}
	if live := d.Live(); len(live) != 0 {
		t.Errorf("device holds %v after Close", live)
	}
	for name, call := range map[string]func() error{
		"Alloc":     func() error { _, err := p.Alloc(1); return err },
		"Free":      func() error { return p.Free(a) },
		"SetPinned": func() error { return p.SetPinned(true) },
		"Trim":      func() error { _, err := p.Trim(); return err },
		"Close":     func() error { _, err := p.Close(); return err },
	} {
		if err := call(); !errors.Is(err, sc.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

func TestInvalidConfig(t *testing.T) {
	for _, cfg := range []sc.Config{
		{Alignment: 0, Classes: []int64{256}},
		{Alignment: 3, Classes: []int64{3}},
		{Alignment: 256, Classes: []int64{100}},
		{Alignment: 256, Classes: []int64{512, 512}},
		{Alignment: 256, Classes: []int64{-256}},
	} {
		if _, err := sc.NewModel(sc.NewSimDevice(1), cfg); !errors.Is(err, sc.ErrInvalidConfig) {
			t.Errorf("%+v: %v, want ErrInvalidConfig", cfg, err)
		}
		if _, err := sc.NewStreamModel(sc.NewSimDevice(1), cfg); !errors.Is(err, sc.ErrInvalidConfig) {
			t.Errorf("stream %+v: %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

// TestOutOfMemoryRetry: a miss that exhausts the device trims the cache and
// retries once.
func TestOutOfMemoryRetry(t *testing.T) {
	d := sc.NewSimDevice(4096)
	p, _ := sc.NewModel(d, small())
	a, _ := p.Alloc(4096)
	p.Free(a)
	b, err := p.Alloc(1)
	if err != nil || b == a {
		t.Fatalf("Alloc(1) = %v, %v; want a new 1 KiB block after trimming", b, err)
	}
	if st := p.Stats(); st.Reserved != 1024 || st.Blocks != 1 {
		t.Errorf("after the retry: %+v", st)
	}
}

func TestDeviceRecordsMisuse(t *testing.T) {
	d := sc.NewSimDevice(1 << 20)
	a, _ := d.Malloc(100)
	if err := d.Free(a); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(a); !errors.Is(err, sc.ErrBadDeviceFree) {
		t.Errorf("second free: %v", err)
	}
	if err := d.Free(12345); !errors.Is(err, sc.ErrBadDeviceFree) {
		t.Errorf("unknown free: %v", err)
	}
	if v := d.Violations(); len(v) != 2 {
		t.Errorf("violations %v", v)
	}
	d.FailNextFree(nil)
	b, _ := d.Malloc(100)
	if err := d.Free(b); !errors.Is(err, sc.ErrInjected) || len(d.Live()) != 0 {
		t.Errorf("injected free failure: %v, live %v", err, d.Live())
	}
}

func TestDeferredErrors(t *testing.T) {
	d := sc.NewSimDevice(1 << 20)
	m := sc.NewDeferredModel(d, 0)
	a, _ := m.Alloc(100)
	if _, err := m.Alloc(-1); !errors.Is(err, sc.ErrInvalidSize) {
		t.Errorf("Alloc(-1): %v", err)
	}
	if err := m.Free(1, a); err != nil || m.Pending() != 1 || len(d.Live()) != 1 {
		t.Fatalf("foreign free: %v, pending %d, live %v", err, m.Pending(), d.Live())
	}
	if err := m.Free(1, a); !errors.Is(err, sc.ErrDoubleFree) {
		t.Errorf("free of a queued block: %v", err)
	}
	if err := m.Free(0, 0x99); !errors.Is(err, sc.ErrUnknownPointer) {
		t.Errorf("unknown: %v", err)
	}
	b, _ := m.Alloc(100)
	d.FailNextFree(nil)
	if err := m.Free(0, b); !errors.Is(err, sc.ErrInjected) || m.Pending() != 0 || len(d.Live()) != 0 {
		t.Errorf("owner free: %v, pending %d, live %v", err, m.Pending(), d.Live())
	}
	if err := m.GC(); err != nil || len(d.Violations()) != 0 {
		t.Errorf("GC after a failure repeated a free: %v %v", err, d.Violations())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.GC(); !errors.Is(err, sc.ErrClosed) {
		t.Errorf("GC after Close: %v", err)
	}
}

func TestStreamErrorsAndOrdering(t *testing.T) {
	d := sc.NewSimDevice(1 << 20)
	m, _ := sc.NewStreamModel(d, small())
	a, _ := m.Alloc(1, 1000)
	if _, err := m.Alloc(1, -5); !errors.Is(err, sc.ErrInvalidSize) {
		t.Errorf("Alloc(-5): %v", err)
	}
	if err := m.Free(1, a+256); !errors.Is(err, sc.ErrUnknownPointer) {
		t.Errorf("interior: %v", err)
	}
	m.Free(1, a)
	if err := m.Free(1, a); !errors.Is(err, sc.ErrDoubleFree) {
		t.Errorf("double free: %v", err)
	}
	if b, _ := m.Alloc(2, 1000); b == a {
		t.Errorf("stream 2 got %v before stream 1 was synchronised", a)
	}
	if b, _ := m.Alloc(1, 1000); b != a {
		t.Errorf("stream 1 did not reuse its own free block: got %v, want %v", b, a)
	}
	m.Free(1, a)
	m.Synchronize(1)
	if b, _ := m.Alloc(2, 1000); b != a {
		t.Errorf("after Synchronize(1) stream 2 got %v, want %v", b, a)
	}
}
