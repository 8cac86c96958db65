package sizeclass

import (
	"errors"
	"fmt"
	"strings"
)

// Fault is a device failure injected just before an op runs. Ops do not
// inject faults themselves (they see only the pool); whoever owns the
// SimDevice calls Inject before Apply.
type Fault uint8

const (
	NoFault     Fault = iota
	MallocFails       // the next device Malloc fails with ErrInjected
	FreeFails         // the next device Free fails with ErrInjected
)

// Inject arms f on d.
func (f Fault) Inject(d *SimDevice) {
	switch f {
	case MallocFails:
		d.FailNextMalloc(nil)
	case FreeFails:
		d.FailNextFree(nil)
	}
}

func (f Fault) suffix() string {
	switch f {
	case MallocFails:
		return " [device malloc fails]"
	case FreeFails:
		return " [device free fails]"
	}
	return ""
}

// OpKind names a Pool call.
type OpKind uint8

const (
	OpAlloc OpKind = iota
	OpFree
	OpSetPinned
	OpTrim
	OpStats
	OpClose
)

// Op is one Pool call as data.
type Op struct {
	Kind  OpKind
	N     int64 // Alloc
	P     Addr  // Free
	On    bool  // SetPinned
	Fault Fault
}

// Result is what an op returned, reduced to comparable values.
type Result struct {
	Addr  Addr   // Alloc
	Bytes int64  // Trim
	Err   string // the sentinels the error matches (ErrName); "" for nil
	State string // Stats, and the leak report of Close, printed
}

func (r Result) String() string {
	if r == (Result{}) {
		return "ok"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v", r.Addr)
	if r.Bytes != 0 {
		fmt.Fprintf(&b, " bytes=%d", r.Bytes)
	}
	if r.Err != "" {
		b.WriteString(" err=" + r.Err)
	}
	if r.State != "" {
		b.WriteString(" " + r.State)
	}
	return b.String()
}

func (o Op) String() string {
	var s string
	switch o.Kind {
	case OpAlloc:
		s = fmt.Sprintf("Alloc(%d)", o.N)
	case OpFree:
		s = fmt.Sprintf("Free(%v)", o.P)
	case OpSetPinned:
		s = fmt.Sprintf("SetPinned(%t)", o.On)
	case OpTrim:
		s = "Trim()"
	case OpStats:
		s = "Stats()"
	case OpClose:
		s = "Close()"
	default:
		s = fmt.Sprintf("Op(%d)", o.Kind)
	}
	return s + o.Fault.suffix()
}

// Apply runs o against x.
func (o Op) Apply(x Pool) Result {
	switch o.Kind {
	case OpAlloc:
		p, err := x.Alloc(o.N)
		return Result{Addr: p, Err: ErrName(err)}
	case OpFree:
		return Result{Err: ErrName(x.Free(o.P))}
	case OpSetPinned:
		return Result{Err: ErrName(x.SetPinned(o.On))}
	case OpTrim:
		n, err := x.Trim()
		return Result{Bytes: n, Err: ErrName(err)}
	case OpStats:
		return Result{State: fmt.Sprintf("%+v", x.Stats())}
	case OpClose:
		leaks, err := x.Close()
		return Result{Err: ErrName(err), State: fmt.Sprint(leaks)}
	}
	return Result{Err: "bad op"}
}

var sentinels = []struct {
	name string
	err  error
}{
	{"ErrInvalidSize", ErrInvalidSize},
	{"ErrInvalidConfig", ErrInvalidConfig},
	{"ErrOutOfMemory", ErrOutOfMemory},
	{"ErrUnknownPointer", ErrUnknownPointer},
	{"ErrDoubleFree", ErrDoubleFree},
	{"ErrClosed", ErrClosed},
	{"ErrInjected", ErrInjected},
	{"ErrBadDeviceFree", ErrBadDeviceFree},
}

// ErrName reduces err to the names of the sentinels it matches, joined with
// "+" ("" for nil, "other" if it matches none), so results compare with ==.
func ErrName(err error) string {
	if err == nil {
		return ""
	}
	var names []string
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			names = append(names, s.name)
		}
	}
	if len(names) == 0 {
		return "other"
	}
	return strings.Join(names, "+")
}

// StreamOpKind names a StreamAllocator call.
type StreamOpKind uint8

const (
	StreamAlloc StreamOpKind = iota
	StreamFree
	StreamSync
	StreamTrim
	StreamClose
)

// StreamOp is one StreamAllocator call as data.
type StreamOp struct {
	Kind   StreamOpKind
	Stream Stream
	N      int64
	P      Addr
	Fault  Fault
}

func (o StreamOp) String() string {
	var s string
	switch o.Kind {
	case StreamAlloc:
		s = fmt.Sprintf("Alloc(s%d, %d)", o.Stream, o.N)
	case StreamFree:
		s = fmt.Sprintf("Free(s%d, %v)", o.Stream, o.P)
	case StreamSync:
		s = fmt.Sprintf("Synchronize(s%d)", o.Stream)
	case StreamTrim:
		s = "Trim()"
	case StreamClose:
		s = "Close()"
	default:
		s = fmt.Sprintf("StreamOp(%d)", o.Kind)
	}
	return s + o.Fault.suffix()
}

// Apply runs o against x.
func (o StreamOp) Apply(x StreamAllocator) Result {
	switch o.Kind {
	case StreamAlloc:
		p, err := x.Alloc(o.Stream, o.N)
		return Result{Addr: p, Err: ErrName(err)}
	case StreamFree:
		return Result{Err: ErrName(x.Free(o.Stream, o.P))}
	case StreamSync:
		return Result{Err: ErrName(x.Synchronize(o.Stream))}
	case StreamTrim:
		n, err := x.Trim()
		return Result{Bytes: n, Err: ErrName(err)}
	case StreamClose:
		leaks, err := x.Close()
		return Result{Err: ErrName(err), State: fmt.Sprint(leaks)}
	}
	return Result{Err: "bad op"}
}

// DeferredOpKind names a DeferredAllocator call.
type DeferredOpKind uint8

const (
	DeferredAlloc DeferredOpKind = iota
	DeferredFree
	DeferredGC
	DeferredPending
	DeferredClose
)

// DeferredOp is one DeferredAllocator call as data.
type DeferredOp struct {
	Kind  DeferredOpKind
	Ctx   Context
	N     int64
	P     Addr
	Fault Fault
}

func (o DeferredOp) String() string {
	var s string
	switch o.Kind {
	case DeferredAlloc:
		s = fmt.Sprintf("Alloc(%d)", o.N)
	case DeferredFree:
		s = fmt.Sprintf("Free(ctx%d, %v)", o.Ctx, o.P)
	case DeferredGC:
		s = "GC()"
	case DeferredPending:
		s = "Pending()"
	case DeferredClose:
		s = "Close()"
	default:
		s = fmt.Sprintf("DeferredOp(%d)", o.Kind)
	}
	return s + o.Fault.suffix()
}

// Apply runs o against x.
func (o DeferredOp) Apply(x DeferredAllocator) Result {
	switch o.Kind {
	case DeferredAlloc:
		p, err := x.Alloc(o.N)
		return Result{Addr: p, Err: ErrName(err)}
	case DeferredFree:
		return Result{Err: ErrName(x.Free(o.Ctx, o.P))}
	case DeferredGC:
		return Result{Err: ErrName(x.GC())}
	case DeferredPending:
		return Result{Bytes: int64(x.Pending())}
	case DeferredClose:
		return Result{Err: ErrName(x.Close())}
	}
	return Result{Err: "bad op"}
}
