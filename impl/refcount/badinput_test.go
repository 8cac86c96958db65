package refcount_test

import (
	"errors"
	"reflect"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// Every bad input gets its sentinel error and leaves the state as it was:
// same leak report, same stats, no free.
func TestBadInput(t *testing.T) {
	top := ^spec.Addr(0) - 0x3f
	cases := []struct {
		name string
		call func(r spec.Registry) error
		want error
	}{
		{"Register zero size", func(r spec.Registry) error { return r.Register(0x3000, 0, spec.ArrayNew) }, spec.ErrInvalidSize},
		{"Register negative size", func(r spec.Registry) error { return r.Register(0x3000, -1, spec.ArrayNew) }, spec.ErrInvalidSize},
		{"Register past the top", func(r spec.Registry) error { return r.Register(top, 0x41, spec.ArrayNew) }, spec.ErrInvalidSize},
		{"Register bad kind", func(r spec.Registry) error { return r.Register(0x3000, 16, spec.Kind(4)) }, spec.ErrInvalidKind},
		{"Register owned twice", func(r spec.Registry) error { return r.Register(0x1000, 16, spec.ArrayNew) }, spec.ErrAlreadyRegistered},
		{"Register an alias", func(r spec.Registry) error { return r.Register(0x2010, 16, spec.ArrayNew) }, spec.ErrAlreadyRegistered},
		{"RegisterBuffer null", func(r spec.Registry) error { return buf(r, 0, 64, nil, 0) }, spec.ErrNullPointer},
		{"RegisterBuffer zero size", func(r spec.Registry) error { return buf(r, 0x4000, 0, nil, 0) }, spec.ErrInvalidSize},
		{"RegisterBuffer past the top", func(r spec.Registry) error { return buf(r, top, 0x41, nil, 0) }, spec.ErrInvalidSize},
		{"RegisterBuffer bad kind", func(r spec.Registry) error { return buf(r, 0x4000, 64, nil, 9) }, spec.ErrInvalidKind},
		{"RegisterBuffer null alias", func(r spec.Registry) error { return buf(r, 0x4000, 64, []spec.Addr{0x4010, 0}, 0) }, spec.ErrAliasOutOfRange},
		{"RegisterBuffer alias at the end", func(r spec.Registry) error { return buf(r, 0x4000, 64, []spec.Addr{0x4040}, 0) }, spec.ErrAliasOutOfRange},
		{"RegisterBuffer alias below", func(r spec.Registry) error { return buf(r, 0x4000, 64, []spec.Addr{0x3ff0}, 0) }, spec.ErrAliasOutOfRange},
		{"RegisterBuffer real taken", func(r spec.Registry) error { return buf(r, 0x1000, 64, []spec.Addr{0x1010}, 0) }, spec.ErrAlreadyRegistered},
		{"RegisterBuffer later alias taken", func(r spec.Registry) error { return buf(r, 0x1fc0, 0x100, []spec.Addr{0x1fd0, 0x2010}, 0) }, spec.ErrAlreadyRegistered},
		{"Retain unknown", func(r spec.Registry) error { return r.Retain(0x5000) }, spec.ErrNotRegistered},
		{"Unregister unknown", func(r spec.Registry) error { return r.Unregister(0x5000) }, spec.ErrNotRegistered},
		{"Track without scope", func(r spec.Registry) error { return r.Track(0x1000) }, spec.ErrNoScope},
		{"Promote without scope", func(r spec.Registry) error { return r.Promote(0x1000) }, spec.ErrNoScope},
		{"Exit without scope", func(r spec.Registry) error { return r.Exit() }, spec.ErrNoScope},
		{"Track unknown", func(r spec.Registry) error { r.Enter(); return r.Track(0x5000) }, spec.ErrNotRegistered},
		{"Promote untracked", func(r spec.Registry) error { r.Enter(); return r.Promote(0x1000) }, spec.ErrNotTracked},
		{"Register null", func(r spec.Registry) error { return r.Register(0, 16, spec.ArrayNew) }, nil},
		{"Register null, bad size", func(r spec.Registry) error { return r.Register(0, -5, spec.Kind(7)) }, nil},
		{"Retain null", func(r spec.Registry) error { return r.Retain(0) }, nil},
		{"Unregister null", func(r spec.Registry) error { return r.Unregister(0) }, nil},
		{"Track null", func(r spec.Registry) error { return r.Track(0) }, nil},
		{"Promote null", func(r spec.Registry) error { return r.Promote(0) }, nil},
	}
	for name, mk := range factories {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				log := &freeLog{}
				r := mk(log)
				if err := r.Register(0x1000, 16, spec.ArrayNew); err != nil {
					t.Fatal(err)
				}
				if err := buf(r, 0x2000, 64, []spec.Addr{0x2010}, spec.Custom); err != nil {
					t.Fatal(err)
				}
				live, stats := r.Live(), r.Stats()
				err := c.call(r)
				if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
					t.Fatalf("got %v, want %v", err, c.want)
				}
				if got := r.Live(); !reflect.DeepEqual(got, live) {
					t.Fatalf("Live() = %+v after the call, before %+v", got, live)
				}
				if got := r.Stats(); got != stats {
					t.Fatalf("Stats() = %+v after the call, before %+v", got, stats)
				}
				if f := log.take(); len(f) != 0 {
					t.Fatalf("the call freed %v", f)
				}
			})
		}
	}
}

func buf(r spec.Registry, real spec.Addr, bytes int64, aliases []spec.Addr, kind spec.Kind) error {
	id, err := r.RegisterBuffer(real, bytes, aliases, kind)
	if (id == 0) != (err != nil) {
		return errors.New("RegisterBuffer: an ID must be returned exactly on success")
	}
	return err
}

// After Close every method answers ErrClosed and queries their zero value;
// Close frees what leaked, once, and a second Close is refused.
func TestClosed(t *testing.T) {
	for name, mk := range factories {
		t.Run(name, func(t *testing.T) {
			log := &freeLog{}
			r := mk(log)
			_ = r.Register(0x1000, 16, spec.ArrayNew)
			_ = buf(r, 0x2000, 64, []spec.Addr{0x2010, 0x2010}, spec.Custom)
			r.Enter()
			_ = r.Track(0x1000)
			leaked, err := r.Close()
			if err != nil || len(leaked) != 2 {
				t.Fatalf("Close() = %v, %v", leaked, err)
			}
			if f := log.take(); len(f) != 2 {
				t.Fatalf("Close freed %v, want two frees", f)
			}
			for what, err := range map[string]error{
				"Register":       r.Register(0x3000, 16, spec.ArrayNew),
				"Register(0)":    r.Register(0, 16, spec.ArrayNew),
				"RegisterBuffer": buf(r, 0x4000, 64, nil, 0),
				"Retain":         r.Retain(0x1000),
				"Retain(0)":      r.Retain(0),
				"Unregister":     r.Unregister(0x1000),
				"Track":          r.Track(0x1000),
				"Promote":        r.Promote(0x1000),
				"Exit":           r.Exit(),
			} {
				if !errors.Is(err, spec.ErrClosed) {
					t.Errorf("%s after Close = %v, want ErrClosed", what, err)
				}
			}
			r.Enter()
			if _, err := r.Close(); !errors.Is(err, spec.ErrClosed) {
				t.Errorf("second Close = %v, want ErrClosed", err)
			}
			if r.IsRegistered(0x2010) || r.Refs(0x2010) != 0 || r.Stats() != (spec.Stats{}) || len(r.Live()) != 0 {
				t.Error("queries after Close are not zero")
			}
			if f := log.take(); len(f) != 0 {
				t.Fatalf("calls after Close freed %v", f)
			}
		})
	}
}
