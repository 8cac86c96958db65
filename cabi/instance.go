package cabi

/*
#include "glue.h"
#cgo noescape mv_list_init
#cgo nocallback mv_list_init
#cgo noescape mv_list_free
#cgo nocallback mv_list_free
*/
import "C"

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// instance is what every adapter of a C instance holds: the library (for
// messages and the violation log) and, when the table does not claim
// safety for concurrent use, the mutex that serializes every call. A
// suite that calls such an instance from several goroutines then tests the
// mutex, not the library, which is why the concurrent suites apply only to
// concurrent tables; the mutex is there so that such a call cannot make the
// library race and take the harness down with it.
type instance struct {
	lib *Library
	mu  *sync.Mutex
}

func newInstance(t *table) instance {
	in := instance{lib: t.lib}
	if !t.concurrent {
		in.mu = new(sync.Mutex)
	}
	return in
}

// enter and leave bracket every call into C. leave also keeps the adapter
// reachable until the call has returned: the adapter's cleanup destroys
// the C instance, and must not run while a call is still inside it.
func (in *instance) enter() {
	if in.mu != nil {
		in.mu.Lock()
	}
}

func (in *instance) leave() {
	if in.mu != nil {
		in.mu.Unlock()
	}
	runtime.KeepAlive(in)
}

// bad logs a value the ABI rules out and returns it as an error.
func (in *instance) bad(format string, args ...any) error {
	return in.lib.violation(ErrBadValue, format, args...)
}

// tickets name operations that may call the device (see glue_sizeclass.c).
// 0 is never handed out: it is the ticket of a device call made outside
// any operation.
var tickets atomic.Uint64

func nextTicket() uint64 { return tickets.Add(1) }

// newList returns an empty listing whose items are item bytes each and
// whose trailing arrays' entries are extra bytes each.
func newList(item, extra uintptr) C.mv_list {
	var l C.mv_list
	C.mv_list_init(&l, C.size_t(item), C.size_t(extra))
	return l
}

// items returns a listing's entries, as C memory that lives until
// mv_list_free.
func items[T any](l *C.mv_list) []T {
	if l.items.len == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(l.items.data)), int(l.items.len))
}

// extras returns a listing's trailing arrays, concatenated.
func extras[T any](l *C.mv_list) []T {
	if l.extra.len == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(l.extra.data)), int(l.extra.len))
}

// listFailed reports a listing that could not be collected whole (host
// memory ran out in the collector).
func listFailed(l *C.mv_list) bool { return l.items.failed != 0 || l.extra.failed != 0 }

// boolean reports whether a C int32 flag is 0 or 1, logging a violation
// (and answering true) for anything else.
func (in *instance) boolean(fn, field string, v C.int32_t) bool {
	if v != 0 && v != 1 {
		in.bad("%s returned %s = %d, which is neither 0 nor 1", fn, field, int32(v))
	}
	return v != 0
}
