package sizeclasstest

import (
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/sizeclass"
	"pgregory.net/rapid"
)

// CheckLinearizable records short histories of Alloc and Free from three
// goroutines on one class of factory's pool (frees aim at blocks any
// goroutine got, so they race on the same blocks) and checks with porcupine
// that each history is linearizable under linStep. An unknown verdict (the
// checker timed out) does not fail the property.
func CheckLinearizable(t rapid.TB, factory PoolFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		_, dev, pool := newSmallPool(rt, factory)
		// Warm the cache with a few blocks so Allocs hit and race.
		init := linState{}
		var seen []spec.Addr
		for range rapid.IntRange(0, 3).Draw(rt, "warm") {
			a, err := pool.Alloc(1024)
			if err != nil {
				rt.Fatalf("Alloc: %v", err)
			}
			seen = append(seen, a)
		}
		for _, a := range seen {
			if err := pool.Free(a); err != nil {
				rt.Fatalf("Free: %v", err)
			}
			init[a] = false
		}
		plans := make([][]linCall, 3)
		for c := range plans {
			plans[c] = drawLinPlan(rt)
		}
		history := recordLinHistory(pool, plans, seen)
		res := linear.Check(linModel(init), history, 2*time.Second)
		switch res.Verdict {
		case linear.NotLinearizable:
			rt.Fatalf("history of Alloc/Free from %d goroutines, cache warmed with %v: %v\n%s", len(plans), init, res, describeLinHistory(history))
		case linear.Unknown:
			// rapid draws another case instead, and fails the run if too few prove anything.
			rt.Skipf("%v: this history proves nothing", res)
		}
		if err := checkPoolInvariants(pool, dev, map[spec.Addr]bool{}, false); err != nil {
			rt.Fatalf("after the history: %v", err)
		}
	})
}

// linCall is one call of a client's plan: an Alloc of n bytes, or a Free of
// the pick-th block handed out so far by any client (modulo their number;
// null if none).
type linCall struct {
	alloc bool
	n     int64
	pick  int
}

func drawLinPlan(t *rapid.T) []linCall {
	var plan []linCall
	for range rapid.IntRange(2, 6).Draw(t, "ops") {
		plan = append(plan, linCall{
			alloc: rapid.Bool().Draw(t, "alloc"),
			n:     rapid.SampledFrom([]int64{1, 512, 1024}).Draw(t, "n"),
			pick:  rapid.IntRange(0, 7).Draw(t, "pick"),
		})
	}
	return plan
}

// recordLinHistory runs each client's plan on pool in a goroutine of its
// own and records the calls; seen holds the blocks handed out before.
func recordLinHistory(pool spec.Pool, plans [][]linCall, seen []spec.Addr) []porcupine.Operation {
	var rec linear.Recorder
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for c, plan := range plans {
		wg.Go(func() {
			<-start
			for _, k := range plan {
				if k.alloc {
					rec.Do(c, linInput{Alloc: true, N: k.n}, func() any {
						a, err := pool.Alloc(k.n)
						if err == nil {
							mu.Lock()
							seen = append(seen, a)
							mu.Unlock()
						}
						return linOutput{P: a, Err: spec.ErrName(err)}
					})
					continue
				}
				var p spec.Addr
				mu.Lock()
				if len(seen) > 0 {
					p = seen[k.pick%len(seen)]
				}
				mu.Unlock()
				rec.Do(c, linInput{P: p}, func() any {
					return linOutput{Err: spec.ErrName(pool.Free(p))}
				})
			}
		})
	}
	close(start)
	wg.Wait()
	return rec.History()
}

// linInput is one call of a linearizability history: Alloc(N) or Free(P).
type linInput struct {
	Alloc bool
	N     int64
	P     spec.Addr
}

func (in linInput) String() string {
	if in.Alloc {
		return fmt.Sprintf("Alloc(%d)", in.N)
	}
	return fmt.Sprintf("Free(%v)", in.P)
}

// linOutput is what the call returned.
type linOutput struct {
	P   spec.Addr
	Err string
}

// linState maps every block handed out so far to whether it is in use.
// The histories use one class only, so any cached block may serve any Alloc.
type linState map[spec.Addr]bool

// linModel is the porcupine model of Alloc and Free on one class, starting
// from init.
func linModel(init linState) porcupine.Model {
	return porcupine.Model{
		Init:  func() any { return maps.Clone(init) },
		Step:  linStep,
		Equal: func(a, b any) bool { return maps.Equal(a.(linState), b.(linState)) },
		DescribeOperation: func(in, out any) string {
			o := out.(linOutput)
			return fmt.Sprintf("%v -> %v %s", in, o.P, o.Err)
		},
	}
}

// linStep is the sequential specification of Alloc and Free on one class.
// A call that hands out a block not seen before is a device miss; under
// concurrency the contract does not promise when a call hits and when it
// misses (a racing Free may not have reached the cache yet), only that a
// cached block goes to one caller and that frees are judged exactly.
func linStep(state, input, output any) (bool, any) {
	s, in, out := state.(linState), input.(linInput), output.(linOutput)
	if in.Alloc {
		if out.Err != "" || out.P == 0 {
			return false, s
		}
		if inUse, known := s[out.P]; known && inUse {
			return false, s
		}
		next := maps.Clone(s)
		next[out.P] = true
		return true, next
	}
	inUse, known := s[in.P]
	switch {
	case in.P == 0:
		return out.Err == "", s
	case !known:
		return out.Err == "ErrUnknownPointer", s
	case !inUse:
		return out.Err == "ErrDoubleFree", s
	case out.Err != "":
		return false, s
	}
	next := maps.Clone(s)
	next[in.P] = false
	return true, next
}

func describeLinHistory(h []porcupine.Operation) string {
	var out []byte
	for _, op := range h {
		o := op.Output.(linOutput)
		out = fmt.Appendf(out, "  client %d [%d,%d] %v -> %v %s\n", op.ClientId, op.Call, op.Return, op.Input, o.P, o.Err)
	}
	return string(out)
}
