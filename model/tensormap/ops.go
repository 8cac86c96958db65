package tensormap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memverify/memverify/model/overlap"
)

// OpKind names a Map method.
type OpKind uint8

// The Map methods an Op can call.
const (
	OpInsert OpKind = iota
	OpLookup
	OpLookupAll
	OpRetire
	OpLen
)

// Op is one Map call as data. Properties, fuzz targets and traces share it.
type Op struct {
	Kind    OpKind
	Storage Storage      // Insert, Lookup, LookupAll
	View    overlap.View // Insert, Lookup, LookupAll
	Task    Task         // Insert, Retire
	Limit   int          // LookupAll
}

// String prints the op as a Go-like call, e.g. Insert(0x1, {off=0 elem=4 shape=[4] strides=[4]}, 3).
func (o Op) String() string {
	s := fmt.Sprintf("%#x", uint64(o.Storage))
	switch o.Kind {
	case OpInsert:
		return fmt.Sprintf("Insert(%s, %v, %d)", s, o.View, o.Task)
	case OpLookup:
		return fmt.Sprintf("Lookup(%s, %v)", s, o.View)
	case OpLookupAll:
		return fmt.Sprintf("LookupAll(%s, %v, %d)", s, o.View, o.Limit)
	case OpRetire:
		return fmt.Sprintf("Retire(%d)", o.Task)
	case OpLen:
		return "Len()"
	}
	return fmt.Sprintf("Op(%d)", o.Kind)
}

// Result is what an op returned, reduced to a comparable value: errors become
// the names of the sentinels they match, so wrapped detail may differ between
// implementations.
type Result struct {
	Kind  OpKind // the op that produced it, for printing
	Err   string // ErrName of the error; "" for nil
	Task  Task   // Lookup: the producer found
	Found bool   // Lookup: whether one was found
	Tasks string // LookupAll: the producers returned, e.g. "[7 5 2]"
	N     int    // Len
}

func (r Result) String() string {
	var parts []string
	switch {
	case r.Err != "" && r.Tasks == "":
		// the error says it all
	case r.Kind == OpLookup && r.Found:
		parts = append(parts, fmt.Sprintf("task %d", r.Task))
	case r.Kind == OpLookup:
		parts = append(parts, "none")
	case r.Kind == OpLookupAll && r.Tasks == "":
		parts = append(parts, "[]")
	case r.Kind == OpLookupAll:
		parts = append(parts, r.Tasks)
	case r.Kind == OpLen:
		parts = append(parts, fmt.Sprint(r.N))
	default:
		parts = append(parts, "ok")
	}
	if r.Err != "" {
		parts = append(parts, r.Err)
	}
	return strings.Join(parts, ", ")
}

// Apply runs the op against m and reduces the outcome to a Result.
func (o Op) Apply(m Map) Result {
	switch o.Kind {
	case OpInsert:
		return Result{Kind: o.Kind, Err: ErrName(m.Insert(o.Storage, o.View, o.Task))}
	case OpLookup:
		t, ok, err := m.Lookup(o.Storage, o.View)
		return Result{Kind: o.Kind, Err: ErrName(err), Task: t, Found: ok}
	case OpLookupAll:
		ts, err := m.LookupAll(o.Storage, o.View, o.Limit)
		r := Result{Kind: o.Kind, Err: ErrName(err)}
		if len(ts) > 0 {
			r.Tasks = fmt.Sprint(ts)
		}
		return r
	case OpRetire:
		return Result{Kind: o.Kind, Err: ErrName(m.Retire(o.Task))}
	case OpLen:
		return Result{Kind: o.Kind, N: m.Len()}
	}
	return Result{Kind: o.Kind, Err: fmt.Sprintf("unknown op kind %d", o.Kind)}
}

var sentinels = []struct {
	err  error
	name string
}{
	{ErrNullStorage, "ErrNullStorage"},
	{ErrOutOfOrder, "ErrOutOfOrder"},
	{ErrPoolExhausted, "ErrPoolExhausted"},
	{ErrLimit, "ErrLimit"},
	{ErrInvalidLimit, "ErrInvalidLimit"},
	{ErrInvalidConfig, "ErrInvalidConfig"},
	{overlap.ErrInvalidView, "ErrInvalidView"},
	{overlap.ErrTooLarge, "ErrTooLarge"},
}

// ErrName returns the name of the sentinel err matches, "" for nil, and
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
