package refcount

import (
	"errors"
	"fmt"
	"strings"
)

// OpKind names a Registry method.
type OpKind uint8

const (
	OpRegister OpKind = iota
	OpRegisterBuffer
	OpRetain
	OpUnregister
	OpIsRegistered
	OpRefs
	OpEnter
	OpTrack
	OpPromote
	OpExit
	OpClose
)

// Op is one Registry call as data. Properties, fuzz targets and traces share it.
type Op struct {
	Kind    OpKind
	P       Addr   // the pointer (the real pointer for RegisterBuffer)
	Bytes   int64  // Register, RegisterBuffer
	Alloc   Kind   // Register, RegisterBuffer
	Aliases []Addr // RegisterBuffer
}

// String prints the op as a Go-like call.
func (o Op) String() string {
	p := fmt.Sprintf("%#x", uint64(o.P))
	switch o.Kind {
	case OpRegister:
		return fmt.Sprintf("Register(%s, %d, %v)", p, o.Bytes, o.Alloc)
	case OpRegisterBuffer:
		as := make([]string, len(o.Aliases))
		for i, a := range o.Aliases {
			as[i] = fmt.Sprintf("%#x", uint64(a))
		}
		return fmt.Sprintf("RegisterBuffer(%s, %d, [%s], %v)", p, o.Bytes, strings.Join(as, " "), o.Alloc)
	case OpRetain:
		return "Retain(" + p + ")"
	case OpUnregister:
		return "Unregister(" + p + ")"
	case OpIsRegistered:
		return "IsRegistered(" + p + ")"
	case OpRefs:
		return "Refs(" + p + ")"
	case OpEnter:
		return "Enter()"
	case OpTrack:
		return "Track(" + p + ")"
	case OpPromote:
		return "Promote(" + p + ")"
	case OpExit:
		return "Exit()"
	case OpClose:
		return "Close()"
	}
	return fmt.Sprintf("Op(%d)", o.Kind)
}

// Result is what an op returned, reduced to a comparable value: errors become
// the names of the sentinels they match, so wrapped detail may differ between
// implementations. ID is the BufferID a RegisterBuffer returned; IDs are the
// implementation's choice, so compare them through a mapping, not directly.
type Result struct {
	Err   string // ErrName of the error; "" for nil
	Value int64  // IsRegistered: 0 or 1; Refs: the count; Close: registrations leaked
	ID    BufferID
}

func (r Result) String() string {
	s := "ok"
	if r.Err != "" {
		s = r.Err
	}
	if r.Value != 0 {
		s += fmt.Sprintf(" value=%d", r.Value)
	}
	if r.ID != 0 {
		s += fmt.Sprintf(" id=%d", r.ID)
	}
	return s
}

// Apply runs o against r.
func (o Op) Apply(r Registry) Result {
	var res Result
	var err error
	switch o.Kind {
	case OpRegister:
		err = r.Register(o.P, o.Bytes, o.Alloc)
	case OpRegisterBuffer:
		res.ID, err = r.RegisterBuffer(o.P, o.Bytes, o.Aliases, o.Alloc)
	case OpRetain:
		err = r.Retain(o.P)
	case OpUnregister:
		err = r.Unregister(o.P)
	case OpIsRegistered:
		if r.IsRegistered(o.P) {
			res.Value = 1
		}
	case OpRefs:
		res.Value = r.Refs(o.P)
	case OpEnter:
		r.Enter()
	case OpTrack:
		err = r.Track(o.P)
	case OpPromote:
		err = r.Promote(o.P)
	case OpExit:
		err = r.Exit()
	case OpClose:
		var leaked []Registration
		leaked, err = r.Close()
		res.Value = int64(len(leaked))
	}
	res.Err = ErrName(err)
	return res
}

var sentinels = []struct {
	err  error
	name string
}{
	{ErrInvalidSize, "ErrInvalidSize"},
	{ErrInvalidKind, "ErrInvalidKind"},
	{ErrNullPointer, "ErrNullPointer"},
	{ErrAlreadyRegistered, "ErrAlreadyRegistered"},
	{ErrAliasOutOfRange, "ErrAliasOutOfRange"},
	{ErrNotRegistered, "ErrNotRegistered"},
	{ErrNotTracked, "ErrNotTracked"},
	{ErrNoScope, "ErrNoScope"},
	{ErrClosed, "ErrClosed"},
}

// ErrName names the sentinel errors err matches: "" for nil, the sentinel's
// name, several joined by "+" for a joined error (Exit's failed releases, in
// order), or "unexpected(<text>)" for an error that matches none.
func ErrName(err error) string {
	if err == nil {
		return ""
	}
	var parts []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	} else {
		parts = []error{err}
	}
	names := make([]string, 0, len(parts))
	for _, e := range parts {
		name := ""
		for _, s := range sentinels {
			if errors.Is(e, s.err) {
				name = s.name
				break
			}
		}
		if name == "" {
			name = "unexpected(" + e.Error() + ")"
		}
		names = append(names, name)
	}
	return strings.Join(names, "+")
}
