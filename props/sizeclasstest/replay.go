package sizeclasstest

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sync"

	"github.com/anishathalye/porcupine"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// replayModel is a porcupine model whose state is the calls applied so far:
// a step replays them on a fresh reference model and applies the next one
// (the models cannot be copied, and the histories of the scheduled
// properties are short). apply runs the calls of a state, each with the
// answer the implementation gave, and reports whether the last answer is one
// the contract allows, and a digest of the model after them. Steps are
// memoised by state and call: porcupine's search takes the same step many
// times, above all through a history that is not linearizable.
func replayModel(apply func(calls []replayCall) (bool, string)) porcupine.Model {
	var mu sync.Mutex
	memo := map[string]replayStep{}
	step := func(s *replayState, c replayCall) replayStep {
		key := s.digest + "|" + c.key()
		mu.Lock()
		st, ok := memo[key]
		mu.Unlock()
		if ok {
			return st
		}
		next := append(slices.Clip(s.calls), c)
		legal, digest := apply(next)
		st = replayStep{legal: legal, next: &replayState{calls: next, digest: digest}}
		mu.Lock()
		memo[key] = st
		mu.Unlock()
		return st
	}
	return porcupine.Model{
		Init: func() any {
			_, digest := apply(nil)
			return &replayState{digest: digest}
		},
		Step: func(state, input, output any) (bool, any) {
			st := step(state.(*replayState), replayCall{input, output})
			if !st.legal {
				return false, state
			}
			return true, st.next
		},
		Equal: func(a, b any) bool { return a.(*replayState).digest == b.(*replayState).digest },
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			h.Write([]byte(s.(*replayState).digest))
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) },
		DescribeState:     func(s any) string { return s.(*replayState).digest },
	}
}

// replayCall is a call and the answer the implementation gave.
type replayCall struct {
	in, out any
}

func (c replayCall) key() string { return fmt.Sprintf("%v -> %v", c.in, c.out) }

type replayState struct {
	calls  []replayCall
	digest string
}

type replayStep struct {
	legal bool
	next  *replayState
}

// scriptDevice is the device of a replayed reference model: Malloc returns
// the address the implementation's device gave the call being replayed
// (next), so that the model's blocks have the implementation's addresses
// whatever order the two devices were asked in; Free accepts anything (the
// real device judges the frees).
type scriptDevice struct {
	next spec.Addr
}

func (d *scriptDevice) Malloc(n int64) (spec.Addr, error) {
	if d.next == 0 {
		return 0, fmt.Errorf("%w: the implementation's call got no block", spec.ErrOutOfMemory)
	}
	p := d.next
	d.next = 0
	return p, nil
}

func (d *scriptDevice) Free(spec.Addr) error { return nil }
