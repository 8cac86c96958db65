package refcount

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

type freeCall struct {
	p     Addr
	bytes int64
	kind  Kind
}

func newLogged() (*Model, *[]freeCall) {
	var log []freeCall
	return New(FreerFunc(func(p Addr, b int64, k Kind) { log = append(log, freeCall{p, b, k}) })), &log
}

// The seed's example: ten column aliases, the first equal to the main pointer,
// start at 11 and free after the ten alias releases plus the main one.
func TestSeedAliasExampleStartsAtElevenAndFreesOnce(t *testing.T) {
	m, log := newLogged()
	const main = Addr(0x10000)
	var aliases []Addr
	for i := 0; i < 10; i++ {
		aliases = append(aliases, main+Addr(i*100*8))
	}
	id, err := m.RegisterBuffer(main, 1000*8, aliases, ArrayNew)
	if err != nil || id == 0 {
		t.Fatalf("RegisterBuffer = %v, %v", id, err)
	}
	if got := m.Refs(main); got != 11 {
		t.Fatalf("initial count %d, want 11", got)
	}
	for _, a := range aliases {
		if err := m.Unregister(a); err != nil {
			t.Fatalf("Unregister(%#x): %v", a, err)
		}
	}
	if len(*log) != 0 || m.Refs(main) != 1 {
		t.Fatalf("after the alias releases: %d frees, count %d; want 0 frees, count 1", len(*log), m.Refs(main))
	}
	if err := m.Unregister(main); err != nil {
		t.Fatal(err)
	}
	if want := []freeCall{{main, 8000, ArrayNew}}; !reflect.DeepEqual(*log, want) {
		t.Fatalf("frees %v, want %v", *log, want)
	}
}

// Every bad input gets its sentinel and leaves the state as it was.
func TestBadInputIsRefusedWithoutChange(t *testing.T) {
	m, log := newLogged()
	if err := m.Register(0x1000, 64, ScalarNew); err != nil {
		t.Fatal(err)
	}
	if _, err := m.RegisterBuffer(0x8000, 256, []Addr{0x8010}, Custom); err != nil {
		t.Fatal(err)
	}
	before, stats := m.Live(), m.Stats()
	cases := []struct {
		name string
		call func() error
		want error
	}{
		{"zero size", func() error { return m.Register(0x2000, 0, ArrayNew) }, ErrInvalidSize},
		{"negative size", func() error { return m.Register(0x2000, -1, ArrayNew) }, ErrInvalidSize},
		{"past the top", func() error { return m.Register(math.MaxUint64-7, 16, ArrayNew) }, ErrInvalidSize},
		{"bad kind", func() error { return m.Register(0x2000, 8, Kind(9)) }, ErrInvalidKind},
		{"re-register", func() error { return m.Register(0x1000, 8, ArrayNew) }, ErrAlreadyRegistered},
		{"register an alias", func() error { return m.Register(0x8010, 8, ArrayNew) }, ErrAlreadyRegistered},
		{"null buffer", func() error { _, err := m.RegisterBuffer(0, 8, nil, ArrayNew); return err }, ErrNullPointer},
		{"buffer size", func() error { _, err := m.RegisterBuffer(0x3000, 0, nil, ArrayNew); return err }, ErrInvalidSize},
		{"buffer past the top", func() error {
			_, err := m.RegisterBuffer(math.MaxUint64-0xff, 0x101, nil, ArrayNew)
			return err
		}, ErrInvalidSize},
		{"alias past the end", func() error { _, err := m.RegisterBuffer(0x3000, 16, []Addr{0x3010}, ArrayNew); return err }, ErrAliasOutOfRange},
		{"alias below", func() error { _, err := m.RegisterBuffer(0x3000, 16, []Addr{0x2fff}, ArrayNew); return err }, ErrAliasOutOfRange},
		{"null alias", func() error { _, err := m.RegisterBuffer(0x3000, 16, []Addr{0}, ArrayNew); return err }, ErrAliasOutOfRange},
		{"alias known", func() error { _, err := m.RegisterBuffer(0xff0, 0x20, []Addr{0x1000}, ArrayNew); return err }, ErrAlreadyRegistered},
		{"real known", func() error { _, err := m.RegisterBuffer(0x8010, 8, nil, ArrayNew); return err }, ErrAlreadyRegistered},
		{"unknown retain", func() error { return m.Retain(0x5000) }, ErrNotRegistered},
		{"unknown release", func() error { return m.Unregister(0x5000) }, ErrNotRegistered},
		{"interior release", func() error { return m.Unregister(0x1001) }, ErrNotRegistered},
		{"track without scope", func() error { return m.Track(0x1000) }, ErrNoScope},
		{"promote without scope", func() error { return m.Promote(0x1000) }, ErrNoScope},
		{"exit without scope", m.Exit, ErrNoScope},
	}
	for _, c := range cases {
		if err := c.call(); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
		if !reflect.DeepEqual(m.Live(), before) || m.Stats() != stats || len(*log) != 0 {
			t.Fatalf("%s changed the state", c.name)
		}
	}
	m.Enter()
	if err := m.Promote(0x1000); !errors.Is(err, ErrNotTracked) {
		t.Errorf("promote untracked: %v", err)
	}
	if err := m.Track(0x5000); !errors.Is(err, ErrNotRegistered) {
		t.Errorf("track unknown: %v", err)
	}
}

func TestDoubleReleaseAndNullAreAnswered(t *testing.T) {
	m, log := newLogged()
	for _, call := range []func() error{
		func() error { return m.Register(0, -1, ArrayNew) },
		func() error { return m.Retain(0) },
		func() error { return m.Unregister(0) },
	} {
		if err := call(); err != nil {
			t.Fatalf("null must be a no-op, got %v", err)
		}
	}
	if err := m.Register(0x40, 8, ArrayNew); err != nil {
		t.Fatal(err)
	}
	if err := m.Unregister(0x40); err != nil {
		t.Fatal(err)
	}
	if err := m.Unregister(0x40); !errors.Is(err, ErrNotRegistered) {
		t.Fatalf("double release: %v", err)
	}
	if len(*log) != 1 {
		t.Fatalf("frees %v, want exactly one", *log)
	}
}

func TestScopesReleaseNewestFirstAndPromoteOutward(t *testing.T) {
	m, log := newLogged()
	for _, p := range []Addr{0x100, 0x200, 0x300} {
		if err := m.Register(p, 8, ScalarNew); err != nil {
			t.Fatal(err)
		}
	}
	m.Enter()      // caller
	m.Enter()      // callee
	m.Track(0x100) // callee's temporary
	m.Track(0x200) // the return value
	m.Track(0x300) //
	if err := m.Promote(0x200); err != nil {
		t.Fatal(err)
	}
	if err := m.Exit(); err != nil {
		t.Fatal(err)
	}
	want := []freeCall{{0x300, 8, ScalarNew}, {0x100, 8, ScalarNew}}
	if !reflect.DeepEqual(*log, want) {
		t.Fatalf("callee exit freed %v, want %v (newest first, promoted value kept)", *log, want)
	}
	if !m.IsRegistered(0x200) {
		t.Fatal("the promoted value was released")
	}
	if err := m.Unregister(0x200); err != nil { // the caller drops it itself...
		t.Fatal(err)
	}
	if err := m.Exit(); !errors.Is(err, ErrNotRegistered) { // ...so its scope's release fails, reported
		t.Fatalf("exit after the caller dropped a tracked reference: %v", err)
	}
}

func TestCloseReportsLeaksAndRefusesEverything(t *testing.T) {
	m, log := newLogged()
	m.Register(0x900, 8, ArrayNew)
	m.RegisterBuffer(0x100, 64, []Addr{0x110, 0x110}, AlignedAlloc)
	leaked, err := m.Close()
	if err != nil || len(leaked) != 2 || leaked[0].Real != 0x100 || leaked[0].Refs != 3 {
		t.Fatalf("Close = %+v, %v", leaked, err)
	}
	if len(*log) != 2 {
		t.Fatalf("Close freed %v, want both registrations", *log)
	}
	if err := m.Register(0x1, 1, ArrayNew); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := m.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

func TestErrNameNamesJoinedSentinels(t *testing.T) {
	err := errors.Join(ErrNotRegistered, errors.New("x"))
	if got := ErrName(err); got != "ErrNotRegistered+unexpected(x)" {
		t.Fatalf("ErrName = %q", got)
	}
}

// A nil Freer means memory is never released, only forgotten, as in the
// implementations: last releases, Exit and Close go through without a call.
func TestNilFreerNeverFrees(t *testing.T) {
	for name, r := range map[string]Registry{"Model": New(nil), "Locked": NewLocked(nil)} {
		if err := r.Register(0x100, 8, ArrayNew); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := r.Unregister(0x100); err != nil {
			t.Fatalf("%s: last release: %v", name, err)
		}
		if _, err := r.RegisterBuffer(0x200, 64, []Addr{0x210}, Custom); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r.Enter()
		if err := r.Track(0x210); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := r.Exit(); err != nil {
			t.Fatalf("%s: Exit: %v", name, err)
		}
		if err := r.Register(0x300, 8, ScalarNew); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if leaked, err := r.Close(); err != nil || len(leaked) != 2 {
			t.Fatalf("%s: Close = %+v, %v; want the buffer and 0x300", name, leaked, err)
		}
	}
}

// Sizes are int64 and registrations may overlap, so the live bytes can pass
// math.MaxInt64 (three times over here, past 2^64): Stats.Bytes saturates
// there and is exact again once the live sizes sum below it.
func TestStatsBytesSaturate(t *testing.T) {
	m := New(nil)
	for _, p := range []Addr{0x1000, 0x2000} {
		if err := m.Register(p, math.MaxInt64, ArrayNew); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.RegisterBuffer(0x3000, math.MaxInt64, []Addr{0x3010}, Custom); err != nil {
		t.Fatal(err)
	}
	if err := m.Register(0x10, 5, ScalarNew); err != nil {
		t.Fatal(err)
	}
	if got := m.Stats().Bytes; got != math.MaxInt64 {
		t.Fatalf("three registrations of MaxInt64 bytes and one of 5: Stats().Bytes = %d, want MaxInt64", got)
	}
	for _, p := range []Addr{0x1000, 0x3000, 0x3010} {
		if err := m.Unregister(p); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Stats().Bytes; got != math.MaxInt64 {
		t.Fatalf("MaxInt64 and 5 bytes live: Stats().Bytes = %d, want MaxInt64", got)
	}
	if err := m.Unregister(0x2000); err != nil {
		t.Fatal(err)
	}
	if got := m.Stats().Bytes; got != 5 {
		t.Fatalf("5 bytes live: Stats().Bytes = %d", got)
	}
}

// TestLiveOrderIsFixed: a buffer whose real pointer's own share ran out and
// an owned pointer registered anew at that address share a Real; the leak
// report lists the buffer first whatever order the map yields them in, and
// Close frees in that order.
func TestLiveOrderIsFixed(t *testing.T) {
	for range 50 {
		var freed []Addr
		m := New(FreerFunc(func(p Addr, bytes int64, _ Kind) {
			freed = append(freed, p+Addr(bytes)) // tells the two apart
		}))
		if _, err := m.RegisterBuffer(0x100, 64, []Addr{0x110}, ArrayNew); err != nil {
			t.Fatal(err)
		}
		if err := m.Unregister(0x100); err != nil {
			t.Fatal(err)
		}
		if err := m.Register(0x100, 8, ScalarNew); err != nil {
			t.Fatal(err)
		}
		live := m.Live()
		if len(live) != 2 || live[0].Buffer == 0 || live[1].Buffer != 0 {
			t.Fatalf("Live() = %+v; want the buffer, then the owned pointer", live)
		}
		if _, err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if len(freed) != 2 || freed[0] != 0x100+64 || freed[1] != 0x100+8 {
			t.Fatalf("Close freed %#x; want the buffer's [0x140], then the pointer's [0x108]", freed)
		}
	}
}
