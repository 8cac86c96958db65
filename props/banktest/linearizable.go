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
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckLinearizable runs short racy histories against factory's banks (which
// must be safe for concurrent use): three clients, each allocating buffers,
// asking page addresses of its own buffers and freeing them, started
// together; the recorded history must be linearizable under the model
// (checked with porcupine). Clients free and reallocate the same small range,
// so an address freed by one is soon handed to another: the window in which
// a stale record or a torn update shows. Run it under -race too.
func CheckLinearizable(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		cfg.Limit = 0
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		h := raceScripts(b, drawScripts(rt, cfg))
		res := linear.Check(banksLinModel(cfg), h, 5*time.Second)
		switch res.Verdict {
		case linear.NotLinearizable:
			rt.Fatalf("history of %d ops over banks %+v is not linearizable: %v\n%s", res.Ops, cfg, res, describeHistory(h))
		case linear.Unknown:
			// rapid draws another case instead, and fails the run if too few prove anything.
			rt.Skipf("%v: this history proves nothing", res)
		}
	})
}

// banksStep is one step of a client's script: allocate, query a page of the
// client's newest buffer, or free it.
type banksStep struct {
	kind  int // 0 allocate, 1 page address, 2 free
	alloc bank.BanksOp
	page  int64
}

// linClients is how many clients race in a history.
const linClients = 3

// drawScripts draws each client's script: rounds of allocate, page address,
// free (the last two sometimes skipped, which is the simpler choice): the
// free-and-reallocate churn where records race.
func drawScripts(rt *rapid.T, cfg bank.BanksConfig) [linClients][]banksStep {
	var scripts [linClients][]banksStep
	for c := range scripts {
		for range rapid.IntRange(1, 4).Draw(rt, "rounds") {
			scripts[c] = append(scripts[c], banksStep{kind: 0, alloc: drawBanksAlloc(rt, cfg)})
			for kind := 1; kind <= 2; kind++ {
				if rapid.IntRange(0, 3).Draw(rt, "skip") > 0 {
					scripts[c] = append(scripts[c], banksStep{kind: kind, page: rapid.Int64Range(0, 3).Draw(rt, "page")})
				}
			}
		}
	}
	return scripts
}

// raceScripts starts one goroutine a client, all at once, and records the
// history of their calls on b.
func raceScripts(b bank.Banks, scripts [linClients][]banksStep) []porcupine.Operation {
	rec := &linear.Recorder{}
	var start, done sync.WaitGroup
	start.Add(1)
	for c := range linClients {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			runScript(b, rec, c, scripts[c])
		}()
	}
	start.Done()
	done.Wait()
	return rec.History()
}

// runScript runs client c's script, each page query and free on the client's
// newest buffer (skipped while it has none).
func runScript(b bank.Banks, rec *linear.Recorder, c int, script []banksStep) {
	var own []bank.Buffer
	for _, s := range script {
		var op bank.BanksOp
		switch {
		case s.kind == 0:
			op = s.alloc
		case len(own) == 0:
			continue
		case s.kind == 1:
			buf := own[len(own)-1]
			op = bank.BanksOp{Kind: bank.OpPageAddress, Addr: buf.Addr, Page: s.page % buf.Pages()}
		default:
			op = bank.BanksOp{Kind: bank.OpFreeBuffer, Addr: own[len(own)-1].Addr}
			own = own[:len(own)-1]
		}
		r := rec.Do(c, op, func() any { return op.Apply(b) }).(bank.BanksResult)
		if op.Kind <= bank.OpAllocateSharded && r.Err == "" {
			own = append(own, bank.Buffer{Addr: r.Addr, Size: op.Size, PageSize: op.PageSize})
		}
		runtime.Gosched()
	}
}

// describeHistory lists a history one op a line, by call time.
func describeHistory(h []porcupine.Operation) string {
	var sb strings.Builder
	for _, op := range h {
		fmt.Fprintf(&sb, "  client %d [%3d, %3d]  %v -> %v\n", op.ClientId, op.Call, op.Return, op.Input, op.Output)
	}
	return sb.String()
}

// banksLinState is the sequential state behind a history prefix: the ops
// applied so far (replayed on a fresh model at each step, histories are
// short) and a digest of the model after them, for porcupine's state cache.
type banksLinState struct {
	ops    []bank.BanksOp
	digest string
}

// banksLinModel is the porcupine model of Banks over configuration cfg.
func banksLinModel(cfg bank.BanksConfig) porcupine.Model {
	replay := func(ops []bank.BanksOp) *bank.BanksModel {
		m, _ := bank.NewBanksModel(cfg)
		for _, op := range ops {
			op.Apply(m)
		}
		return m
	}
	return porcupine.Model{
		Init: func() any { return &banksLinState{digest: banksDigest(replay(nil))} },
		Step: func(state, input, output any) (bool, any) {
			s, op := state.(*banksLinState), input.(bank.BanksOp)
			m := replay(s.ops)
			if op.Apply(m) != output.(bank.BanksResult) {
				return false, state
			}
			ops := append(append([]bank.BanksOp(nil), s.ops...), op)
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
func banksDigest(b bank.Banks) string {
	var sb strings.Builder
	for _, blk := range b.Blocks() {
		fmt.Fprintf(&sb, "%v;", blk)
	}
	for _, buf := range b.Buffers() {
		fmt.Fprintf(&sb, "%+v;", buf)
	}
	return sb.String()
}
