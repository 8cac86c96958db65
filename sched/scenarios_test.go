package sched_test

import (
	"fmt"
	"sync/atomic"

	"github.com/memverify/memverify/sched"
)

// The classic concurrency bugs, each in a few lines of instrumented code,
// with no widening: a point before every access to shared state, and
// nothing else. Each scenario has a buggy and a correct version; the
// scheduler must kill the first and pass the second.

type scenario struct {
	name    string
	body    func(correct bool) func(*sched.Scheduler)
	message string // what the buggy version's failure says
}

var scenarios = []scenario{
	{"LostUpdate", lostUpdate, "lost update"},
	{"CheckThenAct", checkThenAct, "claimed twice"},
	{"ABA", aba, "ABA"},
	{"LockOrder", lockOrder, "deadlock"},
}

// lostUpdate: two goroutines increment a counter, the buggy one as a load
// and a store (read-modify-write across two points).
func lostUpdate(correct bool) func(*sched.Scheduler) {
	return func(s *sched.Scheduler) {
		var n atomic.Int64
		inc := func() {
			if correct {
				sched.Point("add n")
				n.Add(1)
				return
			}
			sched.Point("load n")
			v := n.Load()
			sched.Point("store n")
			n.Store(v + 1)
		}
		for _, name := range []string{"A", "B"} {
			s.Go(name, func() {
				s.Call("Inc()")
				inc()
				s.Return("ok")
			})
		}
		s.Wait()
		if got := n.Load(); got != 2 {
			s.Fatalf("lost update: n = %d after two increments, want 2", got)
		}
	}
}

// registry hands each key to one owner.
type registry struct {
	mu     sched.Mutex
	owners map[int]string
}

// claim gives key to who unless it has an owner. The buggy version checks in
// one critical section and acts in another.
func (r *registry) claim(key int, who string, correct bool) bool {
	r.mu.Lock()
	_, taken := r.owners[key]
	if correct {
		if !taken {
			r.owners[key] = who
		}
		r.mu.Unlock()
		return !taken
	}
	r.mu.Unlock()
	if taken {
		return false
	}
	r.mu.Lock()
	r.owners[key] = who
	r.mu.Unlock()
	return true
}

// checkThenAct: two goroutines claim the same key; exactly one may win.
func checkThenAct(correct bool) func(*sched.Scheduler) {
	return func(s *sched.Scheduler) {
		r := &registry{owners: map[int]string{}}
		var wins atomic.Int32
		for _, name := range []string{"A", "B"} {
			s.Go(name, func() {
				s.Call("Claim(1)")
				won := r.claim(1, name, correct)
				if won {
					wins.Add(1)
				}
				s.Return(fmt.Sprint(won))
			})
		}
		s.Wait()
		if w := wins.Load(); w != 1 {
			s.Fatalf("key 1 claimed twice: %d claims won, want 1", w)
		}
	}
}

// stack is a lock-free (Treiber) stack of slots 1..3 linked through next.
// The buggy head is the bare slot, so a head that went from 1 to 2 to 0 and
// back to 1 looks unchanged to a compare-and-swap; the correct head carries a
// tag that every change increments.
type stack struct {
	head   atomic.Uint64 // tag<<32 | slot; slot 0 is the empty stack
	next   [4]atomic.Uint64
	tagged bool
}

func (st *stack) swing(h, slot uint64) uint64 {
	if st.tagged {
		return (h>>32+1)<<32 | slot
	}
	return slot
}

func (st *stack) pop() uint64 {
	for {
		sched.Point("load head")
		h := st.head.Load()
		slot := h & 0xffffffff
		if slot == 0 {
			return 0
		}
		sched.Point("load next")
		next := st.next[slot].Load()
		sched.Point("cas head")
		if st.head.CompareAndSwap(h, st.swing(h, next)) {
			return slot
		}
	}
}

func (st *stack) push(slot uint64) {
	for {
		sched.Point("load head")
		h := st.head.Load()
		sched.Point("store next")
		st.next[slot].Store(h & 0xffffffff)
		sched.Point("cas head")
		if st.head.CompareAndSwap(h, st.swing(h, slot)) {
			return
		}
	}
}

// aba: the stack holds 1 then 2; A pops once while B pops twice and pushes
// its first back. Every slot must end up exactly once: held by A, held by B,
// or on the stack.
func aba(correct bool) func(*sched.Scheduler) {
	return func(s *sched.Scheduler) {
		st := &stack{tagged: correct}
		st.next[1].Store(2)
		st.head.Store(1)
		var a, b uint64
		s.Go("A", func() {
			s.Call("Pop()")
			a = st.pop()
			s.Return(fmt.Sprint(a))
		})
		s.Go("B", func() {
			s.Call("Pop()")
			first := st.pop()
			s.Return(fmt.Sprint(first))
			s.Call("Pop()")
			b = st.pop()
			s.Return(fmt.Sprint(b))
			if first != 0 {
				s.Call(fmt.Sprintf("Push(%d)", first))
				st.push(first)
				s.Return("ok")
			}
		})
		s.Wait()
		seen := map[uint64]string{}
		place := func(slot uint64, where string) {
			if slot == 0 {
				return
			}
			if w, dup := seen[slot]; dup {
				s.Fatalf("ABA: slot %d is both %s and %s", slot, w, where)
			}
			seen[slot] = where
		}
		place(a, "held by A")
		place(b, "held by B")
		for slot, n := st.head.Load()&0xffffffff, 0; slot != 0 && n < 4; slot, n = st.next[slot].Load(), n+1 {
			place(slot, "on the stack")
		}
		if len(seen) != 2 {
			s.Fatalf("ABA: slots %v accounted for, want 1 and 2", seen)
		}
	}
}

// lockOrder: A takes m1 then m2, B takes m2 then m1 (the correct B takes
// them in A's order).
func lockOrder(correct bool) func(*sched.Scheduler) {
	return func(s *sched.Scheduler) {
		var m1, m2 sched.Mutex
		total := 0
		both := func(first, second *sched.Mutex) {
			first.Lock()
			second.Lock()
			total++
			second.Unlock()
			first.Unlock()
		}
		s.Go("A", func() { both(&m1, &m2) })
		s.Go("B", func() {
			if correct {
				both(&m1, &m2)
			} else {
				both(&m2, &m1)
			}
		})
		s.Wait()
		if total != 2 {
			s.Fatalf("%d of 2 critical sections ran", total)
		}
	}
}
