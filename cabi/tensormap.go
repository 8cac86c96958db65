package cabi

/*
#include "glue.h"
memverify_status mv_tm_create(const memverify_tensormap_table *t, const memverify_tensormap_config *cfg, void **self);
void mv_tm_destroy(const memverify_tensormap_table *t, void *self);
memverify_status mv_tm_insert(const memverify_tensormap_table *t, void *self, uint64_t storage, memverify_view v, uint64_t task);
mv_lookup_result mv_tm_lookup(const memverify_tensormap_table *t, void *self, uint64_t storage, memverify_view v);
memverify_status mv_tm_lookup_all(const memverify_tensormap_table *t, void *self, uint64_t storage, memverify_view v, int64_t limit, mv_list *out);
memverify_status mv_tm_retire(const memverify_tensormap_table *t, void *self, uint64_t task);
int64_t mv_tm_len(const memverify_tensormap_table *t, void *self);
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"unsafe"

	ov "github.com/memverify/memverify/model/overlap"
	tm "github.com/memverify/memverify/model/tensormap"
)

// TensorMapTable is a library's tensormap table (memverify_tensormap_v1).
type TensorMapTable struct {
	t *table
	c *C.memverify_tensormap_table
}

// TensorMap returns the library's tensormap table (ErrNoTable if it has none).
func (l *Library) TensorMap() (*TensorMapTable, error) {
	t, err := l.table(DomainTensorMap)
	if err != nil {
		return nil, err
	}
	return &TensorMapTable{t: t, c: (*C.memverify_tensormap_table)(t.ptr)}, nil
}

func checkTensorMapTable(c *C.memverify_tensormap_table) error {
	return needAll("a map", true, fn{"create", c.create != nil}, fn{"destroy", c.destroy != nil},
		fn{"insert", c.insert != nil}, fn{"lookup", c.lookup != nil}, fn{"lookup_all", c.lookup_all != nil},
		fn{"retire", c.retire != nil}, fn{"len", c.len != nil})
}

// Name is the implementation's name; Concurrent reports MEMVERIFY_CONCURRENT.
func (m *TensorMapTable) Name() string     { return m.t.name }
func (m *TensorMapTable) Concurrent() bool { return m.t.concurrent }

// Map is a C map as a tensormap.Map.
type Map struct {
	instance
	t    *C.memverify_tensormap_table
	self unsafe.Pointer
}

var _ tm.Map = (*Map)(nil)

// NewMap creates a map of cfg. A cfg.Solver is handed to the map as its
// solver callback; nil lets the map use its own.
func (m *TensorMapTable) NewMap(cfg tm.Config) (*Map, error) {
	cc := C.memverify_tensormap_config{capacity: C.int64_t(cfg.Capacity)}
	var h cgo.Handle
	if cfg.Solver != nil {
		h = cgo.NewHandle(&solverBridge{solve: cfg.Solver})
	}
	C.mv_solver_init(&cc, C.uintptr_t(h))
	var self unsafe.Pointer
	if err := tensormapCodes.err(m.t.lib, "create", int32(C.mv_tm_create(m.c, &cc, &self))); err != nil {
		deleteHandle(h)
		return nil, err
	}
	if self == nil {
		deleteHandle(h)
		return nil, m.t.lib.violation(ErrBadValue, "tensormap create returned OK and a null instance")
	}
	g := &Map{instance: newInstance(m.t), t: m.c, self: self}
	runtime.AddCleanup(g, func(c tmCleanup) { C.mv_tm_destroy(c.t, c.self); deleteHandle(c.h) }, tmCleanup{m.c, self, h})
	return g, nil
}

func deleteHandle(h cgo.Handle) {
	if h != 0 {
		h.Delete()
	}
}

type tmCleanup struct {
	t    *C.memverify_tensormap_table
	self unsafe.Pointer
	h    cgo.Handle
}

// MapFactory returns NewMap in the shape of tensormaptest.MapFactory.
func (m *TensorMapTable) MapFactory() func(tm.Config) (tm.Map, error) {
	return func(cfg tm.Config) (tm.Map, error) {
		g, err := m.NewMap(cfg)
		if err != nil {
			return nil, err
		}
		return g, nil
	}
}

func (g *Map) status(fn string, st C.memverify_status) error {
	return tensormapCodes.err(g.lib, fn, int32(st))
}

func (g *Map) Insert(storage tm.Storage, view ov.View, task tm.Task) error {
	cv := cView(view)
	g.enter()
	st := C.mv_tm_insert(g.t, g.self, C.uint64_t(storage), cv, C.uint64_t(task))
	g.leave()
	return g.status("insert", st)
}

func (g *Map) Lookup(storage tm.Storage, view ov.View) (tm.Task, bool, error) {
	cv := cView(view)
	g.enter()
	r := C.mv_tm_lookup(g.t, g.self, C.uint64_t(storage), cv)
	g.leave()
	if err := g.status("lookup", r.st); err != nil {
		return 0, false, err
	}
	if !g.boolean("lookup", "found", r.found) {
		return 0, false, nil
	}
	return tm.Task(r.task), true, nil
}

func (g *Map) LookupAll(storage tm.Storage, view ov.View, limit int) ([]tm.Task, error) {
	cv := cView(view)
	l := newList(unsafe.Sizeof(C.uint64_t(0)), 0)
	defer C.mv_list_free(&l)
	g.enter()
	st := C.mv_tm_lookup_all(g.t, g.self, C.uint64_t(storage), cv, C.int64_t(limit), &l)
	g.leave()
	err := g.status("lookup_all", st)
	if err != nil && st != C.MEMVERIFY_E_LIMIT {
		return nil, err
	}
	if listFailed(&l) {
		return nil, g.bad("lookup_all: the harness ran out of host memory collecting the entries")
	}
	its := items[C.uint64_t](&l)
	if len(its) > limit {
		return nil, g.bad("lookup_all with limit %d emitted %d tasks", limit, len(its))
	}
	var out []tm.Task
	for _, t := range its {
		out = append(out, tm.Task(t))
	}
	return out, err
}

func (g *Map) Retire(t tm.Task) error {
	g.enter()
	st := C.mv_tm_retire(g.t, g.self, C.uint64_t(t))
	g.leave()
	return g.status("retire", st)
}

func (g *Map) Len() int {
	g.enter()
	n := C.mv_tm_len(g.t, g.self)
	g.leave()
	return int(n)
}
