package refcount_test

import (
	"fmt"
	"slices"
	"testing"

	spec "github.com/memverify/memverify/model/refcount"
)

// TestLeakOrderAtSharedAddress: registrations share a real pointer when a
// buffer's real pointer lets go of its share (aliases keep the buffer) and the
// address is registered anew. The contract (model/refcount doc.go) orders the
// leak report, and Close's frees, by address and there puts the buffers first,
// newest first, then the owned pointer. The implementations once listed the
// owned pointer first (sortRegistrations broke the tie by buffer ID ascending,
// and an owned pointer's is 0), which the properties missed while they
// re-sorted both sides; the seeded bug refcount/owned-before-buffer keeps it.
func TestLeakOrderAtSharedAddress(t *testing.T) {
	for name, mk := range factories {
		t.Run(name, func(t *testing.T) {
			ml, il := &freeLog{}, &freeLog{}
			m, x := spec.New(ml), mk(il)
			for _, r := range []spec.Registry{m, x} {
				// Two buffers at 0x1000 that outlive their real pointer, then an owned pointer there.
				for i, alias := range []spec.Addr{0x1010, 0x1020} {
					if _, err := r.RegisterBuffer(0x1000, 0x100*int64(i+1), []spec.Addr{alias}, spec.ArrayNew); err != nil {
						t.Fatal(err)
					}
					if err := r.Unregister(0x1000); err != nil {
						t.Fatal(err)
					}
				}
				if err := r.Register(0x1000, 0x10, spec.ScalarNew); err != nil {
					t.Fatal(err)
				}
			}
			if w, g := order(m.Live()), order(x.Live()); !slices.Equal(w, g) {
				t.Errorf("Live() order %v, the model %v", g, w)
			}
			wl, _ := m.Close()
			gl, _ := x.Close()
			if w, g := order(wl), order(gl); !slices.Equal(w, g) {
				t.Errorf("Close() leak report order %v, the model %v", g, w)
			}
			if w, g := ml.take(), il.take(); !slices.Equal(w, g) {
				t.Errorf("Close() freed %v, the model %v", g, w)
			}
		})
	}
}

// order is a leak report in brief; the size tells the two buffers apart.
func order(rs []spec.Registration) []string {
	var out []string
	for _, r := range rs {
		k := "owned"
		if r.Buffer != 0 {
			k = "buffer"
		}
		out = append(out, fmt.Sprintf("%s@%#x+%#x", k, uint64(r.Real), r.Bytes))
	}
	return out
}
