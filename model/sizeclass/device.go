package sizeclass

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// Device is the memory a pool caches: a device allocator (cudaMalloc and
// cudaFree, infinirtMalloc and infinirtFree, or a simulator).
//
// Malloc returns the start of a fresh block of n > 0 bytes (never null, nor
// the start of a block it still holds); it signals exhaustion with an error
// that matches ErrOutOfMemory, and any other error is passed through to the
// caller without a retry. The blocks a device holds at once total at most
// MaxInt64 bytes: a pool's Stats sums them in int64s.
//
// Free returns a block. An error from Free means the block's fate is unknown
// (a real device often reports an earlier asynchronous failure on a later
// call); the caller must treat the block as gone and never free it again, so
// a failed free is reported once and never repeated.
//
// Both methods must be safe for concurrent use.
type Device interface {
	Malloc(n int64) (Addr, error)
	Free(p Addr) error
}

// Errors of the simulated device.
var (
	// ErrInjected is what SimDevice returns for a failure it was told to
	// inject without naming an error.
	ErrInjected = errors.New("sizeclass: injected device failure")
	// ErrBadDeviceFree is a free of an address the device does not hold:
	// never allocated, or already freed (a device double free).
	ErrBadDeviceFree = errors.New("sizeclass: device free of an address it does not hold")
)

// simBase is the first address the simulator hands out; simGap separates
// blocks, so an interior pointer of one block is never the start of another.
const (
	simBase Addr  = 0x10000
	simGap  int64 = 256
)

// SimDevice is a simulated device with a capacity. It hands out addresses in
// increasing order and never reuses one, so a second free of an address is
// always recognised; it records every misuse (double free, free of an
// unknown address) and reports the blocks still live (leaks). It can be told
// to fail the next Malloc or Free. It is safe for concurrent use.
//
// Because addresses are a pure function of the sequence of successful
// Mallocs, two simulators given the same calls hand out the same addresses:
// properties rely on this to compare a pool with the model.
type SimDevice struct {
	mu         sync.Mutex
	capacity   int64
	used       int64
	next       Addr
	live       map[Addr]int64
	freed      map[Addr]bool
	mallocs    int64
	frees      int64
	failMalloc error
	failFree   error
	injected   int // injected failures delivered
	violations []string
}

// NewSimDevice returns an empty simulated device of capacity bytes.
func NewSimDevice(capacity int64) *SimDevice {
	return &SimDevice{capacity: capacity, next: simBase, live: map[Addr]int64{}, freed: map[Addr]bool{}}
}

// FailNextMalloc makes the next Malloc fail with err (ErrInjected if err is
// nil) and change nothing. A later call replaces a pending failure.
func (d *SimDevice) FailNextMalloc(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failMalloc = orInjected(err)
}

// FailNextFree makes the next Free return err (ErrInjected if err is nil).
// The block is released all the same, as on a device that reports an earlier
// asynchronous failure: repeating the free is then a double free.
func (d *SimDevice) FailNextFree(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failFree = orInjected(err)
}

// ClearFaults withdraws failures that were injected and not yet delivered.
func (d *SimDevice) ClearFaults() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failMalloc, d.failFree = nil, nil
}

func orInjected(err error) error {
	if err == nil {
		return ErrInjected
	}
	return err
}

// Malloc implements Device.
func (d *SimDevice) Malloc(n int64) (Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.failMalloc; err != nil {
		d.failMalloc = nil
		d.injected++
		return 0, err
	}
	if n <= 0 {
		return 0, fmt.Errorf("%w: device malloc of %d bytes", ErrInvalidSize, n)
	}
	if n > d.capacity-d.used {
		return 0, fmt.Errorf("%w: device malloc of %d bytes with %d of %d free", ErrOutOfMemory, n, d.capacity-d.used, d.capacity)
	}
	// The next address leaves a gap of at least one byte after the block.
	// Addresses are never reused, so a device that has handed out nearly
	// 2^64 bytes in all has none left: it is out of memory (and never
	// wraps to reuse an address, or to hand out null).
	step := uint64(n) + uint64(simGap) - uint64(n%simGap)
	if uint64(d.next) > math.MaxUint64-step {
		return 0, fmt.Errorf("%w: device malloc of %d bytes: the address space is spent", ErrOutOfMemory, n)
	}
	p := d.next
	d.next += Addr(step)
	d.used += n
	d.live[p] = n
	d.mallocs++
	return p, nil
}

// NextAddr returns the address the next successful Malloc will return, of
// whatever size: a pool has not handed it out yet (properties race a Free of
// it against the Alloc that gets it).
func (d *SimDevice) NextAddr() Addr {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.next
}

// Free implements Device.
func (d *SimDevice) Free(p Addr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.frees++
	n, ok := d.live[p]
	if !ok {
		what := "unknown address"
		if d.freed[p] {
			what = "double free"
		}
		d.violations = append(d.violations, fmt.Sprintf("%s of %v", what, p))
		return fmt.Errorf("%w: %s of %v", ErrBadDeviceFree, what, p)
	}
	delete(d.live, p)
	d.freed[p] = true
	d.used -= n
	if err := d.failFree; err != nil {
		d.failFree = nil
		d.injected++
		return err
	}
	return nil
}

// DeviceStats counts what a SimDevice was asked to do.
type DeviceStats struct {
	Used     int64 // bytes live
	Live     int   // blocks live
	Mallocs  int64 // successful mallocs
	Frees    int64 // free calls, failed ones included
	Injected int   // injected failures delivered
}

// Stats returns the device's counters.
func (d *SimDevice) Stats() DeviceStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return DeviceStats{Used: d.used, Live: len(d.live), Mallocs: d.mallocs, Frees: d.frees, Injected: d.injected}
}

// Live returns the addresses still allocated (the leaks, after Close), sorted.
func (d *SimDevice) Live() []Addr {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Addr, 0, len(d.live))
	for p := range d.live {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Violations returns every misuse seen so far: double frees and frees of
// addresses the device never handed out.
func (d *SimDevice) Violations() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.violations)
}
