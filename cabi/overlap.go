package cabi

/*
#include "glue.h"
memverify_status mv_ov_overlap(const memverify_overlap_table *t, const memverify_view *a, const memverify_view *b, int32_t *verdict);
memverify_status mv_ov_capped(const memverify_overlap_table *t, const memverify_view *a, const memverify_view *b, int64_t max_work, int32_t *verdict, int64_t *work);
#cgo noescape mv_ov_overlap
#cgo noescape mv_ov_capped
#cgo nocallback mv_ov_overlap
#cgo nocallback mv_ov_capped
*/
import "C"

import (
	ov "github.com/memverify/memverify/model/overlap"
)

// OverlapTable is a library's overlap table (memverify_overlap_v1).
type OverlapTable struct {
	t *table
	c *C.memverify_overlap_table
}

// Overlap returns the library's overlap table (ErrNoTable if it has none).
func (l *Library) Overlap() (*OverlapTable, error) {
	t, err := l.table(DomainOverlap)
	if err != nil {
		return nil, err
	}
	return &OverlapTable{t: t, c: (*C.memverify_overlap_table)(t.ptr)}, nil
}

func checkOverlapTable(c *C.memverify_overlap_table) error {
	return needAll("a checker", true, fn{"overlap", c.overlap != nil})
}

// Name is the implementation's name; Concurrent reports MEMVERIFY_CONCURRENT.
func (o *OverlapTable) Name() string     { return o.t.name }
func (o *OverlapTable) Concurrent() bool { return o.t.concurrent }

// HasCapped reports whether the table offers overlap_capped.
func (o *OverlapTable) HasCapped() bool { return o.c.overlap_capped != nil }

// cView is v as C sees it. A view with more dims than the C view has room
// for is passed as one of rank MaxRank+1 (and strides likewise), which is
// as invalid as the original: the implementation still decides the error,
// and in its own order of checks.
func cView(v ov.View) C.memverify_view {
	c := C.memverify_view{offset: C.int64_t(v.Offset), elem_size: C.int64_t(v.ElemSize)}
	c.rank = dims(len(v.Shape))
	c.nstrides = dims(len(v.Strides))
	for i := range min(len(v.Shape), C.MEMVERIFY_VIEW_DIMS) {
		c.shape[i] = C.int64_t(v.Shape[i])
	}
	for i := range min(len(v.Strides), C.MEMVERIFY_VIEW_DIMS) {
		c.strides[i] = C.int64_t(v.Strides[i])
	}
	return c
}

func dims(n int) C.int32_t {
	if n > C.MEMVERIFY_VIEW_DIMS {
		return C.MEMVERIFY_MAX_RANK + 1
	}
	return C.int32_t(n)
}

// goView is a C view as Go sees it (for a solver the harness supplies).
// Counts outside the room are clamped to it.
func goView(c *C.memverify_view) ov.View {
	rank := min(max(int(c.rank), 0), C.MEMVERIFY_VIEW_DIMS)
	nstrides := min(max(int(c.nstrides), 0), C.MEMVERIFY_VIEW_DIMS)
	v := ov.View{Offset: int64(c.offset), ElemSize: int64(c.elem_size), Shape: make([]int64, rank), Strides: make([]int64, nstrides)}
	for i := range v.Shape {
		v.Shape[i] = int64(c.shape[i])
	}
	for i := range v.Strides {
		v.Strides[i] = int64(c.strides[i])
	}
	return v
}

// verdict checks a verdict C returned.
func (in *instance) verdict(fn string, v C.int32_t) (ov.Verdict, error) {
	if v < C.MEMVERIFY_NO || v > C.MEMVERIFY_TOO_HARD {
		return ov.No, in.bad("%s returned verdict %d", fn, int32(v))
	}
	return ov.Verdict(v), nil
}

// Checker returns the table's overlap function as an overlap.Checker. A
// failed query's verdict is No, as the model's is.
func (o *OverlapTable) Checker() ov.Checker {
	in := newInstance(o.t)
	return func(a, b ov.View) (ov.Verdict, error) {
		ca, cb := cView(a), cView(b)
		var v C.int32_t
		in.enter()
		st := C.mv_ov_overlap(o.c, &ca, &cb, &v)
		in.leave()
		if err := overlapCodes.err(in.lib, "overlap", int32(st)); err != nil {
			return ov.No, err
		}
		return in.verdict("overlap", v)
	}
}

// CappedChecker returns overlap_capped in the shape of
// overlaptest.CappedChecker, or false if the table does not offer it.
func (o *OverlapTable) CappedChecker() (func(a, b ov.View, maxWork int) (ov.Verdict, int, error), bool) {
	if o.c.overlap_capped == nil {
		return nil, false
	}
	in := newInstance(o.t)
	return func(a, b ov.View, maxWork int) (ov.Verdict, int, error) {
		ca, cb := cView(a), cView(b)
		var v C.int32_t
		var work C.int64_t
		in.enter()
		st := C.mv_ov_capped(o.c, &ca, &cb, C.int64_t(maxWork), &v, &work)
		in.leave()
		if err := overlapCodes.err(in.lib, "overlap_capped", int32(st)); err != nil {
			return ov.No, 0, err
		}
		if work < 0 {
			return ov.No, 0, in.bad("overlap_capped returned work %d", int64(work))
		}
		verdict, err := in.verdict("overlap_capped", v)
		return verdict, int(work), err
	}, true
}
