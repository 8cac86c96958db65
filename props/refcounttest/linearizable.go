package refcounttest

import (
	"fmt"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/draw"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// The linearizability property runs short racy histories on two registrations:
// group 0, a buffer whose real pointer holds one share and whose alias, listed
// twice, holds two; group 1, an owned pointer that may be released and
// registered again. Ops on different registrations commute, so porcupine checks
// each group on its own (Model.Partition); a group's state is the share of each
// of its pointers.
var linGroups = [2][2]spec.Addr{{0x9000, 0x9010}, {0xa000, 0}}

type linInput struct {
	group, slot int
	op          spec.OpKind
}

// linState is a group's state: the share each of its pointers holds. Init is
// shared by every partition, so a state starts unset and takes its group's
// initial shares at the first step.
type linState struct {
	set    bool
	shares [2]int64
}

// initialShares is the state the property sets up before the race.
func initialShares(group int) [2]int64 {
	if group == 0 {
		return [2]int64{1, 2} // RegisterBuffer(0x9000, ..., [0x9010 0x9010])
	}
	return [2]int64{1, 0} // Register(0xa000, ...)
}

func (in linInput) String() string {
	return spec.Op{Kind: in.op, P: linGroups[in.group][in.slot], Bytes: 0x40, Alloc: spec.ScalarNew}.String()
}

func linStep(state, input, output any) (bool, any) {
	s, in, out := state.(linState), input.(linInput), output.(spec.Result)
	if !s.set {
		s = linState{set: true, shares: initialShares(in.group)}
	}
	held := s.shares[in.slot] > 0
	switch in.op {
	case spec.OpRetain:
		if !held {
			return out.Err == "ErrNotRegistered", s
		}
		s.shares[in.slot]++
		return out.Err == "", s
	case spec.OpUnregister:
		if !held {
			return out.Err == "ErrNotRegistered", s
		}
		s.shares[in.slot]--
		return out.Err == "", s
	case spec.OpRegister:
		if held {
			return out.Err == "ErrAlreadyRegistered", s
		}
		s.shares[in.slot] = 1
		return out.Err == "", s
	case spec.OpIsRegistered:
		return out.Err == "" && (out.Value == 1) == held, s
	case spec.OpRefs:
		want := int64(0)
		if held {
			want = s.shares[0] + s.shares[1]
		}
		return out.Err == "" && out.Value == want, s
	}
	return false, s
}

var refcountLinModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		var parts [2][]porcupine.Operation
		for _, op := range h {
			g := op.Input.(linInput).group
			parts[g] = append(parts[g], op)
		}
		return [][]porcupine.Operation{parts[0], parts[1]}
	},
	Init: func() any { return linState{} },
	Step: linStep,
	DescribeOperation: func(input, output any) string {
		return fmt.Sprintf("%v -> %v", input, output)
	},
	DescribeState: func(state any) string { return fmt.Sprint(state.(linState).shares) },
}

// CheckLinearizable records short histories of Retain, Unregister, Register,
// IsRegistered and Refs racing from three goroutines on a shared buffer and
// an owned pointer, and checks each for linearizability against the
// sequential contract with porcupine. A history the checker cannot decide in
// time proves nothing and is skipped.
func CheckLinearizable(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		plans := make([][]linInput, linClients)
		for c := range plans {
			plans[c] = rapid.SliceOfN(rapid.Custom(drawLinInput), linOpsPerClient, linOpsPerClient).Draw(rt, fmt.Sprintf("client%d", c))
		}
		r := factory(&freeLog{})
		if _, err := r.RegisterBuffer(0x9000, 0x40, []spec.Addr{0x9010, 0x9010}, spec.ScalarNew); err != nil {
			rt.Fatalf("setup RegisterBuffer: %v", err)
		}
		if err := r.Register(0xa000, 0x40, spec.ScalarNew); err != nil {
			rt.Fatalf("setup Register: %v", err)
		}
		history := raceLinPlans(r, plans)
		res := linear.Check(refcountLinModel, history, 5*time.Second)
		switch res.Verdict {
		case linear.NotLinearizable:
			rt.Fatalf("history of %v:\n%s", res, linear.Describe(history))
		case linear.Unknown:
			// rapid draws another case instead, and fails the run if too few prove anything.
			rt.Skipf("%v: this history proves nothing", res)
		}
	})
}

// How many goroutines race in a history, and how many ops each makes.
const linClients, linOpsPerClient = 3, 6

// drawLinInput draws one op of a history: mostly retains, releases and
// queries of either group; about one time in four, for the owned pointer, a
// Register (refused while it is registered). It shrinks to a Retain of the
// buffer's real pointer.
func drawLinInput(t *rapid.T) linInput {
	g := rapid.IntRange(0, 1).Draw(t, "group")
	in := linInput{group: g, op: rapid.SampledFrom([]spec.OpKind{
		spec.OpRetain, spec.OpUnregister, spec.OpUnregister, spec.OpIsRegistered, spec.OpRefs,
	}).Draw(t, "op")}
	if g == 0 {
		in.slot = rapid.IntRange(0, 1).Draw(t, "slot")
	} else if draw.Rarely(t, 4, "register") {
		in.op = spec.OpRegister
	}
	return in
}

// raceLinPlans runs each plan in a goroutine of its own against r, all
// started at once, and returns the recorded history.
func raceLinPlans(r spec.Registry, plans [][]linInput) []porcupine.Operation {
	var rec linear.Recorder
	var start, done sync.WaitGroup
	start.Add(1)
	for c, plan := range plans {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			for _, in := range plan {
				op := spec.Op{Kind: in.op, P: linGroups[in.group][in.slot], Bytes: 0x40, Alloc: spec.ScalarNew}
				rec.Do(c, in, func() any {
					res := op.Apply(r)
					res.ID = 0
					return res
				})
			}
		}()
	}
	start.Done()
	done.Wait()
	return rec.History()
}
