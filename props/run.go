// Package props is the parent of memverify's property suites, one package per
// domain, each named for the model it checks with Go's -test suffix (as
// testing/fstest is to io/fs), so that a user imports both without renaming:
//
//	refcounttest   refcount.Registry         (model/refcount)
//	sizeclasstest  sizeclass.Pool, Deferred, Streams
//	banktest       bank.FreeList, bank.Banks
//	overlaptest    overlap.Checker
//	tensormaptest  tensormap.Map
//
// Every suite is an exported Check function that takes a rapid.TB (a
// *testing.T works) and the implementation under test, and fails it with the
// shrunk op trace and the command that replays it.
//
// This package itself runs suites outside go test: Run and RunWithin give a
// suite a TB of their own and return its outcome as a typed Result, which is
// how cmd/verify runs every suite in one process. Like testing, the TB ends a
// failing goroutine in FailNow with runtime.Goexit, so FailNow never returns.
// Each suite runs in a goroutine of its own; a panic that escapes it (from a
// goroutine the suite started and did not guard, say) cannot be recovered, so
// suites must keep their panics inside rapid's checks.
//
// A program must call testing.Init and parse its flags before Run, so that
// rapid's flags (-rapid.checks, -rapid.seed, -rapid.steps) are registered and
// read; under go test that is already done.
package props

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"pgregory.net/rapid"
)

// Outcome is how a run ended. Its values are the words a report shows
// ("pass", "FAIL", "skip"), so that JSON carries them as they read; its
// zero value, "", is no outcome, never a pass. Compare with the constants,
// never with a literal.
type Outcome string

const (
	Passed  Outcome = "pass"
	Failed  Outcome = "FAIL"
	Skipped Outcome = "skip"
)

// Result is the structured outcome of one run.
type Result struct {
	Name     string
	Outcome  Outcome
	Duration time.Duration
	Output   string // everything logged; for a failure, rapid's report and our trace
	// TimedOut is set when the run's bound (RunWithin) passed before the
	// property returned: the outcome is then Failed, with no report of
	// rapid's to say where the property stood.
	TimedOut bool
}

// TB is a rapid.TB that records output and failure. It is safe for concurrent use.
type TB struct {
	name    string
	mu      sync.Mutex
	out     strings.Builder
	failed  bool
	skipped bool
}

var _ rapid.TB = (*TB)(nil)

func (t *TB) Helper()      {}
func (t *TB) Name() string { return t.name }

func (t *TB) Log(args ...any) { t.log(fmt.Sprintln(args...)) }
func (t *TB) Logf(format string, args ...any) {
	t.log(fmt.Sprintf(format, args...) + "\n")
}
func (t *TB) log(s string) {
	t.mu.Lock()
	t.out.WriteString(s)
	t.mu.Unlock()
}

func (t *TB) Error(args ...any)                 { t.Log(args...); t.Fail() }
func (t *TB) Errorf(format string, args ...any) { t.Logf(format, args...); t.Fail() }
func (t *TB) Fatal(args ...any)                 { t.Log(args...); t.FailNow() }
func (t *TB) Fatalf(format string, args ...any) { t.Logf(format, args...); t.FailNow() }

func (t *TB) Fail() {
	t.mu.Lock()
	t.failed = true
	t.mu.Unlock()
}

// FailNow marks the run failed and ends the calling goroutine; it does not return.
func (t *TB) FailNow() {
	t.Fail()
	runtime.Goexit()
}

func (t *TB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

func (t *TB) Skip(args ...any)                 { t.Log(args...); t.SkipNow() }
func (t *TB) Skipf(format string, args ...any) { t.Logf(format, args...); t.SkipNow() }

// SkipNow marks the run skipped and ends the calling goroutine.
func (t *TB) SkipNow() {
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	runtime.Goexit()
}

// Output returns everything logged so far.
func (t *TB) Output() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

// Run runs prop with a fresh TB in a goroutine of its own and waits for it.
// A panic in that goroutine is caught and reported as a failure.
func Run(name string, prop func(rapid.TB)) Result { return RunWithin(name, prop, 0) }

// RunWithin is Run with a bound on the run's time (none if limit ≤ 0): a
// property whose code under test deadlocks must not hang the program. When
// the bound passes, the run is reported failed, as timed out. Its goroutine
// is left behind, blocked (Go cannot stop a goroutine from outside), so a
// program that meets a timeout should end soon rather than run on for long.
func RunWithin(name string, prop func(rapid.TB), limit time.Duration) Result {
	t := &TB{name: name}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.Logf("panic: %v", r)
				t.Fail()
			}
		}()
		prop(t)
	}()
	timedOut := wait(done, limit)
	if timedOut {
		t.Logf("timed out after %v: the property has not returned (a deadlock or a livelock in the code under test?)", limit)
		t.Fail()
	}
	res := Result{Name: name, Duration: time.Since(start), Output: t.Output(), Outcome: Passed, TimedOut: timedOut}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.failed:
		res.Outcome = Failed
	case t.skipped:
		res.Outcome = Skipped
	}
	return res
}

// wait waits for done to close, for at most limit (for ever if limit ≤ 0),
// and reports whether the limit passed first.
func wait(done <-chan struct{}, limit time.Duration) (timedOut bool) {
	if limit <= 0 {
		<-done
		return false
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-done:
		return false
	case <-timer.C:
		return true
	}
}
