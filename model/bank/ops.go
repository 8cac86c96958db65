package bank

import (
	"errors"
	"fmt"
	"strings"
)

// OpKind names the FreeList call an Op makes.
type OpKind uint8

// The FreeList calls.
const (
	OpAllocate OpKind = iota
	OpAllocateAt
	OpAllocateAvoiding
	OpFree
	OpRestore
)

// Op is one FreeList call as data: properties, fuzz targets, traces and
// mutants share it. Fields a kind does not use are ignored.
type Op struct {
	Kind  OpKind
	Size  int64
	Dir   Direction
	Limit Addr
	Addr  Addr    // AllocateAt, Free
	Avoid []Range // AllocateAvoiding
	State State   // Restore
}

// Result is the comparable outcome of an Op: the address returned (0 when
// the call returns none) and the name of the sentinel its error matches.
type Result struct {
	Addr Addr
	Err  string
}

func (r Result) String() string {
	if r.Err != "" {
		return r.Err
	}
	return fmt.Sprintf("%#x", uint64(r.Addr))
}

// String prints the op as a Go-like call.
func (o Op) String() string {
	switch o.Kind {
	case OpAllocate:
		return fmt.Sprintf("Allocate(%d, %v, %#x)", o.Size, o.Dir, uint64(o.Limit))
	case OpAllocateAt:
		return fmt.Sprintf("AllocateAt(%#x, %d)", uint64(o.Addr), o.Size)
	case OpAllocateAvoiding:
		return fmt.Sprintf("AllocateAvoiding(%d, %v, %v, %#x)", o.Size, o.Dir, o.Avoid, uint64(o.Limit))
	case OpFree:
		return fmt.Sprintf("Free(%#x)", uint64(o.Addr))
	case OpRestore:
		return fmt.Sprintf("Restore(%v)", o.State)
	}
	return fmt.Sprintf("Op(%d)", o.Kind)
}

// Apply runs the op against f.
func (o Op) Apply(f FreeList) Result {
	var a Addr
	var err error
	switch o.Kind {
	case OpAllocate:
		a, err = f.Allocate(o.Size, o.Dir, o.Limit)
	case OpAllocateAt:
		err = f.AllocateAt(o.Addr, o.Size)
		if err == nil {
			a = o.Addr
		}
	case OpAllocateAvoiding:
		a, err = f.AllocateAvoiding(o.Size, o.Dir, o.Avoid, o.Limit)
	case OpFree:
		err = f.Free(o.Addr)
	case OpRestore:
		err = f.Restore(o.State)
	default:
		err = fmt.Errorf("unknown op kind %d", o.Kind)
	}
	if err != nil {
		return Result{Err: ErrName(err)}
	}
	return Result{Addr: a}
}

// String prints a state compactly: configuration, then allocations.
func (s State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "State{[%#x, +%d) align %d min %d:", uint64(s.Offset), s.Size, s.Alignment, s.MinAllocation)
	for _, r := range s.Allocations {
		fmt.Fprintf(&b, " %#x+%d", uint64(r.Addr), r.Size)
	}
	b.WriteString("}")
	return b.String()
}

var sentinels = []struct {
	name string
	err  error
}{
	{"ErrInvalidSize", ErrInvalidSize},
	{"ErrOutOfMemory", ErrOutOfMemory},
	{"ErrNotFree", ErrNotFree},
	{"ErrInvalidAddress", ErrInvalidAddress},
	{"ErrUnknownAddress", ErrUnknownAddress},
	{"ErrIncompatibleState", ErrIncompatibleState},
	{"ErrInvalidDirection", ErrInvalidDirection},
	{"ErrInvalidConfig", ErrInvalidConfig},
	{"ErrInvalidBank", ErrInvalidBank},
	{"ErrOutOfBounds", ErrOutOfBounds},
}

// ErrName reduces err to the name of the sentinel it matches: "" for nil,
// "other: <text>" for an error that matches none.
func ErrName(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	return "other: " + err.Error()
}
