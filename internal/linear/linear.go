// Package linear records concurrent histories and checks them for
// linearizability with porcupine.
//
// A history is a list of operations, each with the time it was called and the
// time it returned. Times come from one shared atomic counter, not a clock: the
// counter is strictly monotonic, so an operation that returned before another
// was called is ordered before it, which is all linearizability needs, and ties
// between clocks of different cores cannot occur.
//
// Usage: run a few goroutines against the implementation under test, wrap each
// call in Recorder.Do, then hand the history and a sequential model to Check.
// Keep histories short (tens of operations per partition): checking is
// exponential in the worst case, and a short racy history finds the same bugs.
package linear

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// Recorder collects a concurrent history. It is safe for concurrent use.
type Recorder struct {
	clock atomic.Int64
	mu    sync.Mutex
	ops   []porcupine.Operation
}

// Do records one operation by client: it stamps the call, runs op, stamps the
// return and keeps input and op's output. op must perform exactly one call to
// the implementation under test.
func (r *Recorder) Do(client int, input any, op func() any) any {
	call := r.clock.Add(1)
	out := op()
	ret := r.clock.Add(1)
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: input, Call: call, Output: out, Return: ret})
	r.mu.Unlock()
	return out
}

// History returns the operations recorded so far.
func (r *Recorder) History() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]porcupine.Operation(nil), r.ops...)
}

// Verdict is the outcome of a linearizability check.
type Verdict int

const (
	// Linearizable: some order of the operations, consistent with real time,
	// explains every output under the sequential model.
	Linearizable Verdict = iota
	// NotLinearizable: no such order exists; the implementation is wrong.
	NotLinearizable
	// Unknown: the checker ran out of time; nothing is proved either way.
	Unknown
)

func (v Verdict) String() string {
	switch v {
	case Linearizable:
		return "linearizable"
	case NotLinearizable:
		return "NOT linearizable"
	default:
		return "unknown (checker timed out)"
	}
}

// Result is the outcome of Check, with what a report needs to show it.
type Result struct {
	Verdict Verdict
	Ops     int
	// Visualization is the path of porcupine's HTML rendering of a history that
	// is not linearizable ("" otherwise, or if it could not be written).
	Visualization string
}

// HistoryDirEnv names the environment variable that, when set to a directory,
// makes Check draw every history that is not linearizable there as
// porcupine's HTML visualization. Off by default: a property that fails is
// shrunk through many failing histories, and each would leave a file.
const HistoryDirEnv = "MEMVERIFY_HISTORY_DIR"

// Check decides whether history is linearizable under model, giving up after
// timeout. When it is not and HistoryDirEnv names a directory, it draws the
// history there and names the file in the result.
func Check(model porcupine.Model, history []porcupine.Operation, timeout time.Duration) Result {
	res, info := porcupine.CheckOperationsVerbose(model, history, timeout)
	out := Result{Ops: len(history)}
	switch res {
	case porcupine.Ok:
		out.Verdict = Linearizable
	case porcupine.Illegal:
		out.Verdict = NotLinearizable
		if dir := os.Getenv(HistoryDirEnv); dir != "" {
			if f, err := os.CreateTemp(dir, "history-*.html"); err == nil {
				if porcupine.Visualize(model, info, f) == nil {
					out.Visualization = f.Name()
				}
				f.Close()
			}
		}
	default:
		out.Verdict = Unknown
	}
	return out
}

// String describes the result in one line.
func (r Result) String() string {
	s := fmt.Sprintf("%d ops: %v", r.Ops, r.Verdict)
	switch {
	case r.Visualization != "":
		s += " (history drawn in " + r.Visualization + ")"
	case r.Verdict == NotLinearizable:
		s += " (set " + HistoryDirEnv + "=<dir> to draw it)"
	}
	return s
}

// Describe lists a history by call time, one operation a line, with the
// client, the [call, return] interval and the input and output, so that a
// failure message shows the racing calls.
func Describe(history []porcupine.Operation) string {
	h := append([]porcupine.Operation(nil), history...)
	sort.Slice(h, func(i, j int) bool { return h[i].Call < h[j].Call })
	var b strings.Builder
	for _, op := range h {
		fmt.Fprintf(&b, "  client %d [%3d,%3d] %v -> %v\n", op.ClientId, op.Call, op.Return, op.Input, op.Output)
	}
	return b.String()
}
