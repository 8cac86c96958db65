package sizeclasstest

import (
	"fmt"
	"strings"
	"sync"

	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// streamClock is the shared view of CheckStreamsConcurrent: who holds each
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

func (c *streamClock) event(f func()) {
	c.mu.Lock()
	c.now++
	f()
	c.mu.Unlock()
}

// CheckStreamsConcurrent drives three streams from three goroutines at
// once — each allocates, frees its own blocks and synchronises its own
// stream — and judges every block handed out against the safety rule using
// the real-time order of the calls (a Free counts from its return, a
// Synchronize from its call). Afterwards every stream is synchronised and
// every block freed; Close must leave the device empty and the device must
// have seen no double free.
func CheckStreamsConcurrent(t rapid.TB, factory StreamFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := SmallPoolConfig()
		dev := spec.NewSimDevice(1 << 40)
		a, err := factory(dev, cfg)
		if err != nil {
			rt.Fatalf("factory: %v", err)
		}
		const streams = 3
		type step struct {
			kind int // 0 alloc, 1 free, 2 synchronize
			n    int64
			pick int
		}
		plans := make([][]step, streams)
		for s := range plans {
			for range rapid.IntRange(1, 40).Draw(rt, "ops") {
				plans[s] = append(plans[s], step{
					kind: rapid.IntRange(0, 2).Draw(rt, "kind"),
					n:    rapid.SampledFrom([]int64{1, 1024, 4096}).Draw(rt, "n"),
					pick: rapid.IntRange(0, 7).Draw(rt, "pick"),
				})
			}
		}
		clock := &streamClock{holder: map[spec.Addr]spec.Stream{}, freeing: map[spec.Addr]spec.Stream{},
			freed: map[spec.Addr]streamFree{}, syncedAt: map[spec.Stream]int{}}
		held := make([][]spec.Addr, streams)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for si, plan := range plans {
			s := spec.Stream(si)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for _, k := range plan {
					switch {
					case k.kind == 0:
						p, err := a.Alloc(s, k.n)
						if err != nil {
							clock.event(func() { clock.problems = append(clock.problems, fmt.Sprintf("Alloc(s%d, %d): %v", s, k.n, err)) })
							return
						}
						clock.handedOut(p, s)
						held[s] = append(held[s], p)
					case k.kind == 1 && len(held[s]) > 0:
						i := k.pick % len(held[s])
						p := held[s][i]
						held[s] = append(held[s][:i], held[s][i+1:]...)
						clock.event(func() { delete(clock.holder, p); clock.freeing[p] = s })
						err := a.Free(s, p)
						clock.event(func() {
							delete(clock.freeing, p)
							clock.freed[p] = streamFree{s, clock.now}
							if err != nil {
								clock.problems = append(clock.problems, fmt.Sprintf("Free(s%d, %v): %v", s, p, err))
							}
						})
					case k.kind == 2:
						clock.event(func() { clock.syncedAt[s] = clock.now })
						if err := a.Synchronize(s); err != nil {
							clock.event(func() { clock.problems = append(clock.problems, fmt.Sprintf("Synchronize(s%d): %v", s, err)) })
						}
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(clock.problems) > 0 {
			rt.Fatalf("%d streams in parallel:\n%s", streams, strings.Join(clock.problems, "\n"))
		}
		for s := range held {
			for _, p := range held[s] {
				if err := a.Free(spec.Stream(s), p); err != nil {
					rt.Fatalf("Free(s%d, %v): %v", s, p, err)
				}
			}
			if err := a.Synchronize(spec.Stream(s)); err != nil {
				rt.Fatalf("Synchronize: %v", err)
			}
		}
		if leaks, err := a.Close(); err != nil || len(leaks) != 0 {
			rt.Fatalf("Close = %v, %v; every block was freed", leaks, err)
		}
		if v := dev.Violations(); len(v) > 0 {
			rt.Fatalf("device misuse: %v", v)
		}
		if live := dev.Live(); len(live) > 0 {
			rt.Fatalf("leak: the device holds %v after Close", live)
		}
	})
}
