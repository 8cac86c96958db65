package sched_test

import (
	"flag"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// recorder is a rapid.TB that keeps what a property logs and whether it
// failed, so a test can run a property that is meant to fail and look at its
// report.
type recorder struct {
	name   string
	mu     sync.Mutex
	out    strings.Builder
	failed bool
}

var _ rapid.TB = (*recorder)(nil)

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(&r.out, args...)
}
func (r *recorder) Logf(format string, args ...any)   { r.Log(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.Log(args...); r.Fail() }
func (r *recorder) Errorf(format string, args ...any) { r.Logf(format, args...); r.Fail() }
func (r *recorder) Fatal(args ...any)                 { r.Log(args...); r.FailNow() }
func (r *recorder) Fatalf(format string, args ...any) { r.Logf(format, args...); r.FailNow() }
func (r *recorder) Skip(args ...any)                  { r.Log(args...); r.SkipNow() }
func (r *recorder) Skipf(format string, args ...any)  { r.Logf(format, args...); r.SkipNow() }
func (r *recorder) SkipNow()                          { runtime.Goexit() }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// outcome is how a recorded property ended.
type outcome struct {
	failed bool
	output string
}

// record runs prop with a recorder in a goroutine of its own, as go test
// runs a test, and returns its outcome; a panic counts as a failure.
func record(name string, prop func(rapid.TB)) outcome {
	r := &recorder{name: name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				r.Logf("panic: %v", p)
				r.Fail()
			}
		}()
		prop(r)
	}()
	<-done
	return outcome{failed: r.Failed(), output: r.out.String()}
}

// withRapid sets rapid's seed and check budget for the rest of the test and
// keeps rapid from writing fail files for the failures the test expects.
func withRapid(t *testing.T, seed, checks int) {
	t.Helper()
	for name, v := range map[string]string{"rapid.seed": strconv.Itoa(seed), "rapid.checks": strconv.Itoa(checks), "rapid.nofailfile": "true"} {
		old := flag.Lookup(name).Value.String()
		if err := flag.Set(name, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flag.Set(name, old) })
	}
}

var failedAfter = regexp.MustCompile(`\[rapid\] (?:failed|panic) after (\d+) tests`)

// checksToFail returns the 1-based check at which rapid found the failure,
// or 0 if the output holds none.
func checksToFail(out string) int {
	m := failedAfter.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n + 1
}

var scheduleNumber = regexp.MustCompile(`exhaustive \(preemptions ≤ \d+\), schedule (\d+)`)

// schedulesToFail returns the schedule at which Explore failed, 0 if none.
func schedulesToFail(out string) int {
	m := scheduleNumber.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
