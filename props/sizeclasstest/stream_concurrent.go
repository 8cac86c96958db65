package sizeclasstest

import (
	"fmt"
	"strings"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckStreamConcurrent drives three streams from three goroutines at once
// — each allocates, frees its own blocks and synchronises its own stream —
// and judges every block handed out against the safety rule using the
// real-time order of the calls (a Free counts from its return, a Synchronize
// from its call). Afterwards every stream is synchronised and every block
// freed; Close must leave the device empty and the device must have seen no
// double free.
func CheckStreamConcurrent(t rapid.TB, factory StreamAllocatorFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		dev := spec.NewSimDevice(1 << 40)
		a, err := factory(dev, SmallPoolConfig())
		if err != nil {
			rt.Fatalf("factory: %v", err)
		}
		plans := make([][]streamStep, 3)
		for s := range plans {
			plans[s] = drawStreamPlan(rt)
		}
		clock := &streamClock{holder: map[spec.Addr]spec.Stream{}, freeing: map[spec.Addr]spec.Stream{},
			freed: map[spec.Addr]streamFree{}, syncedAt: map[spec.Stream]int{}}
		held := make([][]spec.Addr, len(plans))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for s, plan := range plans {
			wg.Go(func() {
				<-start
				held[s] = runStreamPlan(a, spec.Stream(s), plan, clock)
			})
		}
		close(start)
		wg.Wait()
		if len(clock.problems) > 0 {
			rt.Fatalf("%d streams in parallel:\n%s", len(plans), strings.Join(clock.problems, "\n"))
		}
		if err := freeSyncAndClose(a, dev, held); err != nil {
			rt.Fatalf("%v", err)
		}
	})
}

// streamStep is one step of a stream's plan in CheckStreamConcurrent: an
// Alloc of n bytes, a Free of the held block pick (modulo how many it
// holds; nothing if none), or a Synchronize.
type streamStep struct {
	kind streamStepKind
	n    int64
	pick int
}

type streamStepKind int

const (
	stepAlloc streamStepKind = iota
	stepFree
	stepSync
)

func drawStreamPlan(t *rapid.T) []streamStep {
	var plan []streamStep
	for range rapid.IntRange(1, 40).Draw(t, "ops") {
		plan = append(plan, streamStep{
			kind: streamStepKind(rapid.IntRange(0, 2).Draw(t, "kind")),
			n:    rapid.SampledFrom([]int64{1, 1024, 4096}).Draw(t, "n"),
			pick: rapid.IntRange(0, 7).Draw(t, "pick"),
		})
	}
	return plan
}

// runStreamPlan runs plan on stream s, telling clock about every call, and
// returns the blocks s still holds.
func runStreamPlan(a spec.StreamAllocator, s spec.Stream, plan []streamStep, clock *streamClock) []spec.Addr {
	var held []spec.Addr
	for _, k := range plan {
		switch {
		case k.kind == stepAlloc:
			p, err := a.Alloc(s, k.n)
			if err != nil {
				clock.problem("Alloc(s%d, %d): %v", s, k.n, err)
				return held
			}
			clock.handedOut(p, s)
			held = append(held, p)
		case k.kind == stepFree && len(held) > 0:
			i := k.pick % len(held)
			p := held[i]
			held = append(held[:i], held[i+1:]...)
			clock.event(func() { delete(clock.holder, p); clock.freeing[p] = s })
			err := a.Free(s, p)
			clock.event(func() {
				delete(clock.freeing, p)
				clock.freed[p] = streamFree{s, clock.now}
			})
			if err != nil {
				clock.problem("Free(s%d, %v): %v", s, p, err)
			}
		case k.kind == stepSync:
			clock.event(func() { clock.syncedAt[s] = clock.now })
			if err := a.Synchronize(s); err != nil {
				clock.problem("Synchronize(s%d): %v", s, err)
			}
		}
	}
	return held
}

// freeSyncAndClose frees every block still held (held[s] on stream s),
// synchronises every stream and closes a, which must then report no leak
// and leave the device empty, with no double free.
func freeSyncAndClose(a spec.StreamAllocator, dev *spec.SimDevice, held [][]spec.Addr) error {
	for s := range held {
		for _, p := range held[s] {
			if err := a.Free(spec.Stream(s), p); err != nil {
				return fmt.Errorf("Free(s%d, %v): %v", s, p, err)
			}
		}
		if err := a.Synchronize(spec.Stream(s)); err != nil {
			return fmt.Errorf("Synchronize: %v", err)
		}
	}
	if leaks, err := a.Close(); err != nil || len(leaks) != 0 {
		return fmt.Errorf("Close = %v, %v; every block was freed", leaks, err)
	}
	if v := dev.Violations(); len(v) > 0 {
		return fmt.Errorf("device misuse: %v", v)
	}
	if live := dev.Live(); len(live) > 0 {
		return fmt.Errorf("leak: the device holds %v after Close", live)
	}
	return nil
}

// streamClock is the shared view of CheckStreamConcurrent: who holds each
// block, which frees are complete (and when), and when each stream's last
// Synchronize started. Times come from one counter under mu.
type streamClock struct {
	mu       sync.Mutex
	now      int
	holder   map[spec.Addr]spec.Stream
	freeing  map[spec.Addr]spec.Stream // Free called, not returned
	freed    map[spec.Addr]streamFree  // Free returned
	syncedAt map[spec.Stream]int       // start of the last Synchronize
	problems []string
}

type streamFree struct {
	s  spec.Stream
	at int
}

// handedOut judges a block handed to s: no other stream may hold it or be
// freeing it, and if another stream freed it, a Synchronize of that stream
// must have started after the free returned.
func (c *streamClock) handedOut(p spec.Addr, s spec.Stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now++
	if h, ok := c.holder[p]; ok {
		c.problems = append(c.problems, fmt.Sprintf("block %v handed to stream %d while stream %d holds it", p, s, h))
	}
	if f, ok := c.freeing[p]; ok && f != s {
		c.problems = append(c.problems, fmt.Sprintf("block %v handed to stream %d while stream %d is freeing it", p, s, f))
	}
	if f, ok := c.freed[p]; ok && f.s != s && c.syncedAt[f.s] < f.at {
		c.problems = append(c.problems, fmt.Sprintf("block %v handed to stream %d before stream %d, which freed it, was synchronised", p, s, f.s))
	}
	delete(c.freed, p)
	c.holder[p] = s
}

// event runs f as one tick of the clock.
func (c *streamClock) event(f func()) {
	c.mu.Lock()
	c.now++
	f()
	c.mu.Unlock()
}

// problem records a call that failed.
func (c *streamClock) problem(format string, args ...any) {
	c.event(func() { c.problems = append(c.problems, fmt.Sprintf(format, args...)) })
}
