package refcounttest

import (
	"slices"
	"strings"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// misordered is the model with its leak report or Close's frees reversed:
// the same registrations and the same frees, in an order the contract forbids.
type misordered struct {
	*spec.Locked
	reverseLive bool
	f           spec.Freer
	closing     []freeCall // Close's frees, held back to be made reversed
	inClose     bool
}

func newMisordered(f spec.Freer, reverseLive bool) *misordered {
	r := &misordered{f: f, reverseLive: reverseLive}
	r.Locked = spec.NewLocked(spec.FreerFunc(func(p spec.Addr, bytes int64, kind spec.Kind) {
		if r.inClose {
			r.closing = append(r.closing, freeCall{p, bytes, kind})
			return
		}
		f.Free(p, bytes, kind)
	}))
	return r
}

func (r *misordered) Live() []spec.Registration {
	live := r.Locked.Live()
	if r.reverseLive {
		slices.Reverse(live)
	}
	return live
}

func (r *misordered) Close() ([]spec.Registration, error) {
	r.inClose = true
	leaked, err := r.Locked.Close()
	r.inClose = false
	for _, c := range slices.Backward(r.closing) {
		r.f.Free(c.P, c.Bytes, c.Kind)
	}
	return leaked, err
}

// The state machine compares the leak report and Close's frees in order, and
// says so when only the order differs: a buffer that outlives its real
// pointer's share, an owned pointer registered anew at its address, Close.
func TestRegistryDiffChecksOrder(t *testing.T) {
	ops := []spec.Op{
		{Kind: spec.OpRegisterBuffer, P: 0x1000, Bytes: 0x40, Alloc: spec.ArrayNew, Aliases: []spec.Addr{0x1010}},
		{Kind: spec.OpUnregister, P: 0x1000},
		{Kind: spec.OpRegister, P: 0x1000, Bytes: 0x10, Alloc: spec.ScalarNew},
		{Kind: spec.OpClose},
	}
	for _, tc := range []struct {
		name    string
		factory RegistryFactory
		want    string // in the error; "" for none
	}{
		{"model", func(f spec.Freer) spec.Registry { return spec.NewLocked(f) }, ""},
		{"Live reversed", func(f spec.Freer) spec.Registry { return newMisordered(f, true) }, "Live() lists the registrations in the wrong order"},
		{"Close frees reversed", func(f spec.Freer) spec.Registry { return newMisordered(f, false) }, "Close() freed in the wrong order"},
	} {
		d := NewRegistryDiff(tc.factory)
		var err error
		for _, op := range ops {
			if err = d.Apply(op); err != nil {
				break
			}
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
