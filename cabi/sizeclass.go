package cabi

/*
#include "glue.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"unsafe"

	sc "github.com/memverify/memverify/model/sizeclass"
)

// SizeclassTable is a library's sizeclass table (memverify_sizeclass_v1):
// a Pool, and optionally the deferred and stream-ordered allocators.
type SizeclassTable struct {
	t *table
	c *C.memverify_sizeclass_table
}

// Sizeclass returns the library's sizeclass table (ErrNoTable if it has none).
func (l *Library) Sizeclass() (*SizeclassTable, error) {
	t, err := l.table(DomainSizeclass)
	if err != nil {
		return nil, err
	}
	return &SizeclassTable{t: t, c: (*C.memverify_sizeclass_table)(t.ptr)}, nil
}

func checkSizeclassTable(c *C.memverify_sizeclass_table) error {
	if c.pool_create == nil && c.deferred_create == nil && c.streams_create == nil {
		return fmt.Errorf("%w: it offers no interface (pool_create, deferred_create and streams_create are NULL)", ErrMissingFunction)
	}
	return errors.Join(
		needAll("a pool", c.pool_create != nil, fn{"pool_destroy", c.pool_destroy != nil},
			fn{"pool_alloc", c.pool_alloc != nil}, fn{"pool_free", c.pool_free != nil},
			fn{"pool_set_pinned", c.pool_set_pinned != nil}, fn{"pool_trim", c.pool_trim != nil},
			fn{"pool_stats", c.pool_stats != nil}, fn{"pool_blocks", c.pool_blocks != nil},
			fn{"pool_close", c.pool_close != nil}),
		needAll("a deferred allocator", c.deferred_create != nil, fn{"deferred_destroy", c.deferred_destroy != nil},
			fn{"deferred_alloc", c.deferred_alloc != nil}, fn{"deferred_free", c.deferred_free != nil},
			fn{"deferred_gc", c.deferred_gc != nil}, fn{"deferred_pending", c.deferred_pending != nil},
			fn{"deferred_close", c.deferred_close != nil}),
		needAll("a stream allocator", c.streams_create != nil, fn{"streams_destroy", c.streams_destroy != nil},
			fn{"streams_alloc", c.streams_alloc != nil}, fn{"streams_free", c.streams_free != nil},
			fn{"streams_synchronize", c.streams_synchronize != nil}, fn{"streams_trim", c.streams_trim != nil},
			fn{"streams_blocks", c.streams_blocks != nil}, fn{"streams_close", c.streams_close != nil}))
}

// Name is the implementation's name; Concurrent reports MEMVERIFY_CONCURRENT.
func (s *SizeclassTable) Name() string     { return s.t.name }
func (s *SizeclassTable) Concurrent() bool { return s.t.concurrent }

// HasPool, HasDeferred and HasStreams report which interfaces the table offers.
func (s *SizeclassTable) HasPool() bool     { return s.c.pool_create != nil }
func (s *SizeclassTable) HasDeferred() bool { return s.c.deferred_create != nil }
func (s *SizeclassTable) HasStreams() bool  { return s.c.streams_create != nil }

var errOutOfMemory = sc.ErrOutOfMemory

func scAddr(p C.memverify_addr) sc.Addr { return sc.Addr(p) }

// deviceBridge is the Go side of a memverify_device: it serves the C
// implementation's device calls from a sc.Device and keeps each failure
// under the ticket of the operation that made it, until that operation's
// result is built (see glue_sizeclass.c).
type deviceBridge struct {
	dev     sc.Device
	mu      sync.Mutex
	calls   map[uint64]*deviceFailures
	waiting atomic.Int64 // entries in calls: the common case, none, takes no lock
}

type deviceFailures struct {
	malloc error   // the last failed malloc
	frees  []error // every failed free, in order
}

func newDeviceBridge(dev sc.Device) *deviceBridge {
	return &deviceBridge{dev: dev, calls: map[uint64]*deviceFailures{}}
}

// failed records a failed device call. One made outside any operation
// (ticket 0) cannot be reported to anyone and is not kept.
func (d *deviceBridge) failed(ticket uint64, err error, malloc bool) {
	if ticket == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.calls[ticket]
	if f == nil {
		f = &deviceFailures{}
		d.calls[ticket] = f
		d.waiting.Add(1)
	}
	if malloc {
		f.malloc = err
	} else {
		f.frees = append(f.frees, err)
	}
}

// take removes and returns the failures of the operation with ticket.
func (d *deviceBridge) take(ticket uint64) *deviceFailures {
	if d.waiting.Load() == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	f := d.calls[ticket]
	if f != nil {
		delete(d.calls, ticket)
		d.waiting.Add(-1)
	}
	return f
}

// createInstance runs one of the C constructors over a bridge of dev:
// create gets the operation's ticket, the C device and where to put the
// instance. It returns the instance, its C state and the handle its
// cleanup deletes; on an error the handle is already deleted.
func (s *SizeclassTable) createInstance(fn string, dev sc.Device, create func(ticket C.uint64_t, cd *C.memverify_device, self *unsafe.Pointer) C.memverify_status) (scInstance, unsafe.Pointer, cgo.Handle, error) {
	b := newDeviceBridge(dev)
	h := cgo.NewHandle(b)
	var cd C.memverify_device
	C.mv_device_init(&cd, C.uintptr_t(h))
	var self unsafe.Pointer
	in := scInstance{instance: newInstance(s.t), dev: b}
	ticket := nextTicket()
	if err := in.result(fn, ticket, create(C.uint64_t(ticket), &cd, &self)); err != nil {
		h.Delete()
		return scInstance{}, nil, 0, err
	}
	if self == nil {
		h.Delete()
		return scInstance{}, nil, 0, in.bad("%s returned OK and a null instance", fn)
	}
	return in, self, h, nil
}

// scInstance is what the three sizeclass adapters share: the instance, the
// device bridge, and the rule that turns a status into an error.
type scInstance struct {
	instance
	dev *deviceBridge
}

// result turns the status of the operation with ticket into an error. A
// device failure is reported with the device's own errors: the last failed
// malloc and every failed free of the call, each wrapped, joined (so that
// a caller counting injected failures counts each once).
func (s *scInstance) result(fn string, ticket uint64, st C.memverify_status) error {
	f := s.dev.take(ticket)
	switch int32(st) {
	case statusOK:
		return nil
	case statusDevice:
		if f == nil {
			return s.bad("%s returned MEMVERIFY_E_DEVICE, but none of its device calls failed", fn)
		}
		var errs []error
		for _, e := range f.frees {
			errs = append(errs, fmt.Errorf("%s: %s: device free: %w", s.lib.base, fn, e))
		}
		if f.malloc != nil {
			errs = append(errs, fmt.Errorf("%s: %s: device malloc: %w", s.lib.base, fn, f.malloc))
		}
		return errors.Join(errs...)
	case statusOutOfMemory:
		if f != nil && errors.Is(f.malloc, sc.ErrOutOfMemory) {
			return fmt.Errorf("%s: %s: %w", s.lib.base, fn, f.malloc)
		}
	}
	return sizeclassCodes.err(s.lib, fn, int32(st))
}

// cConfig is a sc.Config as C sees it, its classes pinned for the call.
func cConfig(cfg sc.Config, pin *runtime.Pinner) C.memverify_sizeclass_config {
	c := C.memverify_sizeclass_config{alignment: C.int64_t(cfg.Alignment), nclasses: C.size_t(len(cfg.Classes))}
	if len(cfg.Classes) > 0 {
		pin.Pin(&cfg.Classes[0])
		c.classes = (*C.int64_t)(unsafe.Pointer(&cfg.Classes[0]))
	}
	return c
}

// classIndex checks a block's class index against the configuration.
func (s *scInstance) classIndex(fn string, addr C.memverify_addr, i C.int32_t, nclasses int) int {
	if i < -1 || int(i) >= nclasses {
		s.bad("%s emitted block %#x of class %d; the configuration has %d classes", fn, uint64(addr), int32(i), nclasses)
	}
	return int(i)
}
