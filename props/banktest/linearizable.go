package banktest

import (
	"fmt"
	"hash/fnv"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/memverify/memverify/internal/linear"
	spec "github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// banksLinState is the sequential state behind a history prefix: the ops
// applied so far (replayed on a fresh model at each step, histories are
// short) and a digest of the model after them, for porcupine's state cache.
type banksLinState struct {
	ops    []spec.BanksOp
	digest string
}

// banksLinModel is the porcupine model of Banks over configuration cfg.
func banksLinModel(cfg spec.BanksConfig) porcupine.Model {
	replay := func(ops []spec.BanksOp) *spec.BanksModel {
		m, _ := spec.NewBanksModel(cfg)
		for _, op := range ops {
			op.Apply(m)
		}
		return m
	}
	return porcupine.Model{
		Init: func() any { return &banksLinState{digest: banksDigest(replay(nil))} },
		Step: func(state, input, output any) (bool, any) {
			s, op := state.(*banksLinState), input.(spec.BanksOp)
			m := replay(s.ops)
			if op.Apply(m) != output.(spec.BanksResult) {
				return false, state
			}
			ops := append(append([]spec.BanksOp(nil), s.ops...), op)
			return true, &banksLinState{ops: ops, digest: banksDigest(m)}
		},
		Equal: func(a, b any) bool { return a.(*banksLinState).digest == b.(*banksLinState).digest },
		Hash: func(s any) uint64 {
			h := fnv.New64a()
			h.Write([]byte(s.(*banksLinState).digest))
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v -> %v", in, out) },
		DescribeState:     func(s any) string { return s.(*banksLinState).digest },
	}
}

// banksDigest is everything observable of banks, as text.
func banksDigest(b spec.Banks) string {
	var sb strings.Builder
	for _, blk := range b.Blocks() {
		fmt.Fprintf(&sb, "%v;", blk)
	}
	for _, buf := range b.Buffers() {
		fmt.Fprintf(&sb, "%+v;", buf)
	}
	return sb.String()
}

// banksStep is one step of a client's script: allocate, query a page of the
// client's newest buffer, or free it.
type banksStep struct {
	kind  int // 0 allocate, 1 page address, 2 free
	alloc spec.BanksOp
	page  int64
}

// CheckBanksLinearizable runs short racy histories against factory's banks
// (which must be safe for concurrent use): three clients, each allocating
// buffers, asking page addresses of its own buffers and freeing them, started
// together; the recorded history must be linearizable under the model
// (internal/linear). Clients free and reallocate the same small range, so an
// address freed by one is soon handed to another: the window in which a
// stale record or a torn update shows. Run it under -race too.
func CheckBanksLinearizable(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		cfg.Limit = 0
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		const clients = 3
		var scripts [clients][]banksStep
		for c := range scripts {
			// Rounds of allocate, page address, free (the last two sometimes
			// skipped): the free-and-reallocate churn where records race.
			for range rapid.IntRange(1, 4).Draw(rt, "rounds") {
				scripts[c] = append(scripts[c], banksStep{kind: 0, alloc: drawBanksAlloc(rt, cfg)})
				for kind := 1; kind <= 2; kind++ {
					if rapid.IntRange(0, 3).Draw(rt, "skip") > 0 {
						scripts[c] = append(scripts[c], banksStep{kind: kind, page: rapid.Int64Range(0, 3).Draw(rt, "page")})
					}
				}
			}
		}
		rec := &linear.Recorder{}
		var start, done sync.WaitGroup
		start.Add(1)
		for c := range clients {
			done.Add(1)
			go func() {
				defer done.Done()
				start.Wait()
				var own []spec.Buffer
				for _, s := range scripts[c] {
					var op spec.BanksOp
					switch {
					case s.kind == 0:
						op = s.alloc
					case len(own) == 0:
						continue
					case s.kind == 1:
						buf := own[len(own)-1]
						op = spec.BanksOp{Kind: spec.OpPageAddress, Addr: buf.Addr, Page: s.page % buf.Pages()}
					default:
						op = spec.BanksOp{Kind: spec.OpFreeBuffer, Addr: own[len(own)-1].Addr}
						own = own[:len(own)-1]
					}
					r := rec.Do(c, op, func() any { return op.Apply(b) }).(spec.BanksResult)
					if op.Kind <= spec.OpAllocateSharded && r.Err == "" {
						size, page := op.Size, op.PageSize
						own = append(own, spec.Buffer{Addr: r.Addr, Size: size, PageSize: page})
					}
					runtime.Gosched()
				}
			}()
		}
		start.Done()
		done.Wait()
		res := linear.Check(banksLinModel(cfg), rec.History(), 5*time.Second)
		switch res.Verdict {
		case linear.NotLinearizable:
			rt.Fatalf("history of %d ops over banks %+v is not linearizable: %v\n%s", res.Ops, cfg, res, describeHistory(rec.History()))
		case linear.Unknown:
			// rapid draws another case instead, and fails the run if too few prove anything.
			rt.Skipf("%v: this history proves nothing", res)
		}
	})
}

// describeHistory lists a history one op a line, by call time.
func describeHistory(h []porcupine.Operation) string {
	var sb strings.Builder
	for _, op := range h {
		fmt.Fprintf(&sb, "  client %d [%3d, %3d]  %v -> %v\n", op.ClientId, op.Call, op.Return, op.Input, op.Output)
	}
	return sb.String()
}
