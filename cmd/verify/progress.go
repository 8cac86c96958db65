package main

// Progress of the long phases (the suites, the unmutated baseline, the
// seeded bugs, the benchmark rounds): one line per step, with a counter,
// the time so far and an estimate of the time left. Lines only, never a
// terminal's control codes, so that a log or CI's output reads as a
// terminal does.
//
// The estimate weighs each step by its expected cost (the cost table of
// shard.go: durations measured by an earlier run), so that a phase whose
// slow steps come last does not promise too early an end; without costs
// every step weighs the same.

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress counts the steps of one phase.
type progress struct {
	mu        sync.Mutex
	total     int
	done      int
	start     time.Time
	doneCost  float64 // expected cost of the steps done
	totalCost float64
}

// newProgress starts a phase of total steps whose expected costs add up to
// totalCost (0 if unknown).
func newProgress(total int, totalCost float64) *progress {
	return &progress{total: total, start: time.Now(), totalCost: totalCost}
}

// step records one step of expected cost done, and returns its counter and
// the time left as a prefix and a suffix for its line.
func (p *progress) step(cost float64) (counter, eta string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.doneCost += cost
	counter = fmt.Sprintf("[%*d/%d]", width(p.total), p.done, p.total)
	elapsed := time.Since(p.start)
	left := 0.0
	switch {
	case p.done >= p.total:
		return counter, fmt.Sprintf("(%v)", elapsed.Round(time.Second))
	case p.totalCost > 0 && p.doneCost > 0:
		left = (p.totalCost - p.doneCost) / p.doneCost
	default:
		left = float64(p.total-p.done) / float64(p.done)
	}
	rem := time.Duration(float64(elapsed) * max(left, 0))
	return counter, fmt.Sprintf("(%v, about %v left)", elapsed.Round(time.Second), rem.Round(time.Second))
}

// childProgressPrefix opens each progress line a campaign's child writes
// on its standard error, for the parent to pick out of the child's output.
const childProgressPrefix = "verify-progress: "

// progressTap is the writer of a child's standard error: it passes each
// progress line, without the prefix, to onLine, and everything else to
// rest.
type progressTap struct {
	rest   io.Writer
	onLine func(string)
	buf    []byte
}

func (t *progressTap) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		line := string(t.buf[:i+1])
		t.buf = t.buf[i+1:]
		if rest, ok := strings.CutPrefix(line, childProgressPrefix); ok && t.onLine != nil {
			t.onLine(strings.TrimSuffix(rest, "\n"))
			continue
		}
		t.rest.Write([]byte(line))
	}
	if len(t.buf) > 64<<10 { // a line this long is no progress line
		t.rest.Write(t.buf)
		t.buf = t.buf[:0]
	}
	return len(p), nil
}
