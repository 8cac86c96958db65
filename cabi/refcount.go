package cabi

/*
#include "glue.h"
memverify_status mv_rc_create(const memverify_refcount_table *t, const memverify_refcount_freer *f, void **self);
void mv_rc_destroy(const memverify_refcount_table *t, void *self);
memverify_status mv_rc_register(const memverify_refcount_table *t, void *self, memverify_addr p, int64_t bytes, int32_t kind);
mv_result mv_rc_register_buffer(const memverify_refcount_table *t, void *self, memverify_addr real, int64_t bytes, const memverify_addr *aliases, size_t n, int32_t kind);
memverify_status mv_rc_retain(const memverify_refcount_table *t, void *self, memverify_addr p);
memverify_status mv_rc_unregister(const memverify_refcount_table *t, void *self, memverify_addr p);
int32_t mv_rc_is_registered(const memverify_refcount_table *t, void *self, memverify_addr p);
int64_t mv_rc_refs(const memverify_refcount_table *t, void *self, memverify_addr p);
mv_rc_stats_result mv_rc_stats(const memverify_refcount_table *t, void *self);
memverify_status mv_rc_live(const memverify_refcount_table *t, void *self, mv_list *out);
memverify_status mv_rc_close(const memverify_refcount_table *t, void *self, mv_list *out);
void mv_rc_enter(const memverify_refcount_table *t, void *self);
memverify_status mv_rc_track(const memverify_refcount_table *t, void *self, memverify_addr p);
memverify_status mv_rc_promote(const memverify_refcount_table *t, void *self, memverify_addr p);
mv_result mv_rc_exit(const memverify_refcount_table *t, void *self);
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"

	rc "github.com/memverify/memverify/model/refcount"
)

// RefcountTable is a library's refcount table (memverify_refcount_v1).
type RefcountTable struct {
	t *table
	c *C.memverify_refcount_table
}

// Refcount returns the library's refcount table (ErrNoTable if it has none).
func (l *Library) Refcount() (*RefcountTable, error) {
	t, err := l.table(DomainRefcount)
	if err != nil {
		return nil, err
	}
	return &RefcountTable{t: t, c: (*C.memverify_refcount_table)(t.ptr)}, nil
}

func checkRefcountTable(c *C.memverify_refcount_table) error {
	return needAll("a registry", true, fn{"create", c.create != nil}, fn{"destroy", c.destroy != nil},
		fn{"register_pointer", c.register_pointer != nil}, fn{"register_buffer", c.register_buffer != nil},
		fn{"retain", c.retain != nil}, fn{"unregister", c.unregister != nil},
		fn{"is_registered", c.is_registered != nil}, fn{"refs", c.refs != nil}, fn{"stats", c.stats != nil},
		fn{"live", c.live != nil}, fn{"close", c.close != nil}, fn{"enter", c.enter != nil},
		fn{"track", c.track != nil}, fn{"promote", c.promote != nil}, fn{"exit", c.exit != nil})
}

// Name is the implementation's name; Concurrent reports MEMVERIFY_CONCURRENT.
func (r *RefcountTable) Name() string     { return r.t.name }
func (r *RefcountTable) Concurrent() bool { return r.t.concurrent }

// Registry is a C registry as a refcount.Registry.
type Registry struct {
	instance
	t    *C.memverify_refcount_table
	self unsafe.Pointer
}

var _ rc.Registry = (*Registry)(nil)

// NewRegistry creates a registry that releases memory through f (nil: never).
func (r *RefcountTable) NewRegistry(f rc.Freer) (*Registry, error) {
	h := cgo.NewHandle(&freerBridge{freer: f, lib: r.t.lib})
	var cf C.memverify_refcount_freer
	C.mv_freer_init(&cf, C.uintptr_t(h))
	var self unsafe.Pointer
	if err := refcountCodes.err(r.t.lib, "create", int32(C.mv_rc_create(r.c, &cf, &self))); err != nil {
		h.Delete()
		return nil, err
	}
	if self == nil {
		h.Delete()
		return nil, r.t.lib.violation(ErrBadValue, "refcount create returned OK and a null instance")
	}
	g := &Registry{instance: newInstance(r.t), t: r.c, self: self}
	runtime.AddCleanup(g, func(c rcCleanup) { C.mv_rc_destroy(c.t, c.self); c.h.Delete() }, rcCleanup{r.c, self, h})
	return g, nil
}

type rcCleanup struct {
	t    *C.memverify_refcount_table
	self unsafe.Pointer
	h    cgo.Handle
}

// RegistryFactory returns NewRegistry in the shape of
// refcounttest.RegistryFactory. A registry that could not be created is
// replaced by one whose every call reports why.
func (r *RefcountTable) RegistryFactory() func(rc.Freer) rc.Registry {
	return func(f rc.Freer) rc.Registry {
		g, err := r.NewRegistry(f)
		if err != nil {
			return brokenRegistry{err}
		}
		return g
	}
}

func (g *Registry) status(fn string, st C.memverify_status) error {
	return refcountCodes.err(g.lib, fn, int32(st))
}

func (g *Registry) Register(p rc.Addr, bytes int64, kind rc.Kind) error {
	g.enter()
	st := C.mv_rc_register(g.t, g.self, C.memverify_addr(p), C.int64_t(bytes), C.int32_t(kind))
	g.leave()
	return g.status("register_pointer", st)
}

func (g *Registry) RegisterBuffer(real rc.Addr, bytes int64, aliases []rc.Addr, kind rc.Kind) (rc.BufferID, error) {
	g.enter()
	r := C.mv_rc_register_buffer(g.t, g.self, C.memverify_addr(real), C.int64_t(bytes),
		(*C.memverify_addr)(unsafe.Pointer(unsafe.SliceData(aliases))), C.size_t(len(aliases)), C.int32_t(kind))
	g.leave()
	if err := g.status("register_buffer", r.st); err != nil {
		return 0, err
	}
	id := r.value
	if id == 0 {
		return 0, g.bad("register_buffer returned OK and buffer id 0")
	}
	return rc.BufferID(id), nil
}

func (g *Registry) Retain(p rc.Addr) error {
	g.enter()
	st := C.mv_rc_retain(g.t, g.self, C.memverify_addr(p))
	g.leave()
	return g.status("retain", st)
}

func (g *Registry) Unregister(p rc.Addr) error {
	g.enter()
	st := C.mv_rc_unregister(g.t, g.self, C.memverify_addr(p))
	g.leave()
	return g.status("unregister", st)
}

func (g *Registry) IsRegistered(p rc.Addr) bool {
	g.enter()
	v := C.mv_rc_is_registered(g.t, g.self, C.memverify_addr(p))
	g.leave()
	return g.boolean("is_registered", "its result", v)
}

func (g *Registry) Refs(p rc.Addr) int64 {
	g.enter()
	n := C.mv_rc_refs(g.t, g.self, C.memverify_addr(p))
	g.leave()
	return int64(n)
}

func (g *Registry) Stats() rc.Stats {
	g.enter()
	r := C.mv_rc_stats(g.t, g.self)
	g.leave()
	if err := g.status("stats", r.st); err != nil {
		return rc.Stats{}
	}
	s := r.s
	return rc.Stats{Pointers: int(s.pointers), Buffers: int(s.buffers), Bytes: int64(s.bytes)}
}

func (g *Registry) Live() []rc.Registration {
	l := newList(unsafe.Sizeof(C.mv_registration_item{}), unsafe.Sizeof(C.memverify_addr(0)))
	defer C.mv_list_free(&l)
	g.enter()
	st := C.mv_rc_live(g.t, g.self, &l)
	g.leave()
	if err := g.status("live", st); err != nil {
		return nil
	}
	return g.registrations("live", &l)
}

func (g *Registry) Close() ([]rc.Registration, error) {
	l := newList(unsafe.Sizeof(C.mv_registration_item{}), unsafe.Sizeof(C.memverify_addr(0)))
	defer C.mv_list_free(&l)
	g.enter()
	st := C.mv_rc_close(g.t, g.self, &l)
	g.leave()
	if err := g.status("close", st); err != nil {
		return nil, err
	}
	return g.registrations("close", &l), nil
}

// registrations converts an emitted leak report.
func (g *Registry) registrations(fn string, l *C.mv_list) []rc.Registration {
	if listFailed(l) {
		g.bad("%s: the harness ran out of host memory collecting the entries", fn)
	}
	its, hs := items[C.mv_registration_item](l), extras[C.memverify_addr](l)
	out := make([]rc.Registration, 0, len(its))
	for _, it := range its {
		n := min(int(it.nholders), len(hs))
		holders := make([]rc.Addr, n)
		for i := range holders {
			holders[i] = rc.Addr(hs[i])
		}
		hs = hs[n:]
		if it.r.kind < 0 || it.r.kind > C.MEMVERIFY_KIND_CUSTOM {
			g.bad("%s emitted a registration of %#x with kind %d", fn, uint64(it.r.real), int32(it.r.kind))
		}
		out = append(out, rc.Registration{Real: rc.Addr(it.r.real), Bytes: int64(it.r.bytes), Kind: rc.Kind(it.r.kind),
			Refs: int64(it.r.refs), Buffer: rc.BufferID(it.r.buffer), Holders: holders})
	}
	return out
}

func (g *Registry) Enter() {
	g.enter()
	C.mv_rc_enter(g.t, g.self)
	g.leave()
}

func (g *Registry) Track(p rc.Addr) error {
	g.enter()
	st := C.mv_rc_track(g.t, g.self, C.memverify_addr(p))
	g.leave()
	return g.status("track", st)
}

func (g *Registry) Promote(p rc.Addr) error {
	g.enter()
	st := C.mv_rc_promote(g.t, g.self, C.memverify_addr(p))
	g.leave()
	return g.status("promote", st)
}

// maxExitFailures bounds the joined error Exit builds from a failure count
// C reports: a scope cannot have tracked more than this in any suite, and
// a garbage count must not make the harness allocate without bound.
const maxExitFailures = 1 << 16

func (g *Registry) Exit() error {
	g.enter()
	r := C.mv_rc_exit(g.t, g.self)
	g.leave()
	st, failed := r.st, r.value
	switch {
	case st == C.MEMVERIFY_OK && failed != 0:
		return g.bad("exit returned OK with %d failed releases", uint64(failed))
	case st != C.MEMVERIFY_E_NOT_REGISTERED:
		return g.status("exit", st)
	case failed == 0 || failed > maxExitFailures:
		return g.bad("exit returned MEMVERIFY_E_NOT_REGISTERED with %d failed releases", uint64(failed))
	}
	errs := make([]error, failed)
	for i := range errs {
		errs[i] = fmt.Errorf("%s: exit: release %d of %d: %w", g.lib.base, i+1, failed, rc.ErrNotRegistered)
	}
	return errors.Join(errs...)
}

// brokenRegistry stands for a registry whose create failed: every call
// reports why, and queries answer their zero value.
type brokenRegistry struct{ err error }

func (b brokenRegistry) Register(rc.Addr, int64, rc.Kind) error { return b.err }
func (b brokenRegistry) RegisterBuffer(rc.Addr, int64, []rc.Addr, rc.Kind) (rc.BufferID, error) {
	return 0, b.err
}
func (b brokenRegistry) Retain(rc.Addr) error              { return b.err }
func (b brokenRegistry) Unregister(rc.Addr) error          { return b.err }
func (b brokenRegistry) IsRegistered(rc.Addr) bool         { return false }
func (b brokenRegistry) Refs(rc.Addr) int64                { return 0 }
func (b brokenRegistry) Stats() rc.Stats                   { return rc.Stats{} }
func (b brokenRegistry) Live() []rc.Registration           { return nil }
func (b brokenRegistry) Close() ([]rc.Registration, error) { return nil, b.err }
func (b brokenRegistry) Enter()                            {}
func (b brokenRegistry) Track(rc.Addr) error               { return b.err }
func (b brokenRegistry) Promote(rc.Addr) error             { return b.err }
func (b brokenRegistry) Exit() error                       { return b.err }
