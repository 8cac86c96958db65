package refcounttest

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// RegistryFactory builds the registry under test over the given Freer.
type RegistryFactory func(spec.Freer) spec.Registry

// FreeCall is one call a registry made to its Freer.
type FreeCall struct {
	P     spec.Addr
	Bytes int64
	Kind  spec.Kind
}

func (c FreeCall) String() string {
	return fmt.Sprintf("Free(%#x, %d, %v)", uint64(c.P), c.Bytes, c.Kind)
}

// FreeLog is a Freer that records its calls. It is safe for concurrent use.
type FreeLog struct {
	mu    sync.Mutex
	calls []FreeCall
}

// Free records the call.
func (l *FreeLog) Free(p spec.Addr, bytes int64, kind spec.Kind) {
	l.mu.Lock()
	l.calls = append(l.calls, FreeCall{p, bytes, kind})
	l.mu.Unlock()
}

// Take returns the calls recorded since the last Take.
func (l *FreeLog) Take() []FreeCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// The address pool of generated ops: a few buffer bases far apart, pointers at
// small offsets inside them, so that aliases, re-registrations and pointers of
// other registrations collide often. Plus null and a range that reaches the
// top of the address space.
var (
	refBases   = []spec.Addr{0x1000, 0x2000, 0x3000, 0x4000}
	refOffsets = []spec.Addr{0, 0x10, 0x20, 0x40}
	topAddr    = spec.Addr(math.MaxUint64 - 0x3f)
)

// RegistryPointerPool returns the pointers the refcount properties draw from;
// fuzz targets map their bytes onto the same pool.
func RegistryPointerPool() []spec.Addr { return refPointerPool() }

func refPointerPool() []spec.Addr {
	pool := []spec.Addr{0, topAddr}
	for _, b := range refBases {
		for _, o := range refOffsets {
			pool = append(pool, b+o)
		}
	}
	return pool
}

// drawPointer draws a pointer from the pool.
func drawPointer(t *rapid.T, label string) spec.Addr {
	return rapid.SampledFrom(refPointerPool()).Draw(t, label)
}

// drawSize draws a registration size: mostly valid, sometimes zero, negative
// or large enough to run past the top of the address space from topAddr.
func drawSize(t *rapid.T) int64 {
	return rapid.OneOf(
		rapid.SampledFrom([]int64{0x10, 0x40, 0x80}),
		rapid.SampledFrom([]int64{0, -1, 0x40, 0x41}),
	).Draw(t, "bytes")
}

func drawKind(t *rapid.T) spec.Kind {
	return spec.Kind(rapid.IntRange(0, 4).Draw(t, "kind")) // 4 is invalid
}

// drawAliases draws up to four aliases of a buffer at real: mostly inside,
// sometimes repeated, equal to real, null or outside.
func drawAliases(t *rapid.T, real spec.Addr) []spec.Addr {
	n := rapid.IntRange(0, 4).Draw(t, "naliases")
	out := make([]spec.Addr, n)
	for i := range out {
		out[i] = rapid.OneOf(
			rapid.SampledFrom([]spec.Addr{real, real + 0x10, real + 0x20, real + 0x40}),
			rapid.SampledFrom(refPointerPool()),
		).Draw(t, "alias")
	}
	return out
}

// liveView is Live() with buffer IDs replaced by the model's IDs (toModel nil:
// they are the model's already), so that model and implementation compare
// directly. It keeps the order: the contract fixes it (by real pointer; at
// one real pointer, buffers newest first, then an owned pointer registered
// anew there), and Close frees in it.
func liveView(live []spec.Registration, toModel map[spec.BufferID]spec.BufferID) []spec.Registration {
	out := make([]spec.Registration, len(live))
	for i, r := range live {
		r.Holders = slices.Clone(r.Holders)
		if r.Buffer != 0 && toModel != nil {
			if id, ok := toModel[r.Buffer]; ok {
				r.Buffer = id
			} else {
				r.Buffer = spec.BufferID(math.MaxUint64) // an ID the implementation never returned
			}
		}
		out[i] = r
	}
	return out
}

// sameElements reports whether a and b hold the same elements, counted with
// multiplicity, in whatever order: a failure message then says that only the
// order differs.
func sameElements[T any](a, b []T, key func(T) string) bool {
	if len(a) != len(b) {
		return false
	}
	n := map[string]int{}
	for _, x := range a {
		n[key(x)]++
	}
	for _, x := range b {
		if n[key(x)]--; n[key(x)] < 0 {
			return false
		}
	}
	return true
}

// regKey identifies a registration in a leak report, for sameElements.
func regKey(r spec.Registration) string { return fmt.Sprintf("%+v", r) }

// freeKey identifies a Freer call, for sameElements.
func freeKey(c FreeCall) string { return c.String() }

// liveOrder is a leak report's order in brief: where each registration is and
// whether it is a buffer (with its ID, if ids) or an owned pointer.
func liveOrder(live []spec.Registration, ids bool) string {
	s := "["
	for i, r := range live {
		if i > 0 {
			s += " "
		}
		switch {
		case r.Buffer == 0:
			s += fmt.Sprintf("owned@%#x", uint64(r.Real))
		case ids:
			s += fmt.Sprintf("buffer%d@%#x", r.Buffer, uint64(r.Real))
		default:
			s += fmt.Sprintf("buffer@%#x", uint64(r.Real))
		}
	}
	return s + "]"
}

// sortFrees puts frees in a canonical order, for frees made by concurrent
// calls, whose order across goroutines is any (Close's own frees have an
// order, which the properties check as it is). Two registrations can share a
// real pointer and a size (a buffer whose real pointer was released and then
// registered again), so the kind breaks the tie.
func sortFrees(c []FreeCall) []FreeCall {
	c = slices.Clone(c)
	sort.Slice(c, func(i, j int) bool {
		if c[i].P != c[j].P {
			return c[i].P < c[j].P
		}
		if c[i].Bytes != c[j].Bytes {
			return c[i].Bytes < c[j].Bytes
		}
		return c[i].Kind < c[j].Kind
	})
	return c
}
