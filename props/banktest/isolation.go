package banktest

import (
	"fmt"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/bank"
	"pgregory.net/rapid"
)

// CheckIsolation is the end-to-end property of banks: every live buffer of
// factory's banks is filled, through PageAddress, with its own pattern in a
// simulated memory (bank.Memory, bounds-checked per bank); random
// allocations, frees and rewrites follow; after every step every live
// buffer's bytes are read back and must be its own pattern. A buffer whose
// bytes changed was hit by an operation on another; a write that leaves its
// bank is a failure too.
func CheckIsolation(t rapid.TB, factory BanksFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		cfg := drawBanksConfig(rt)
		b, err := factory(cfg)
		if err != nil {
			rt.Fatalf("factory refused the valid configuration %+v: %v", cfg, err)
		}
		mem, err := bank.NewMemory(cfg)
		if err != nil {
			rt.Fatalf("%v", err)
		}
		s := &isolation{b: b, mem: mem, seeds: map[bank.Addr]uint64{}}
		repeatLong(rt, map[string]func(*rapid.T){
			"Allocate":  func(t *rapid.T) { s.allocate(t, drawBanksAlloc(t, cfg)) },
			"Allocate2": func(t *rapid.T) { s.allocate(t, drawBanksAlloc(t, cfg)) },
			"Free": func(t *rapid.T) {
				s.free(t, bank.BanksOp{Kind: bank.OpFreeBuffer, Addr: drawBuffer(t, cfg, b.Buffers())})
			},
			"Rewrite": func(t *rapid.T) {
				if live := b.Buffers(); len(live) > 0 {
					s.fill(t, rapid.SampledFrom(live).Draw(t, "buffer"))
				}
			},
			"": s.verify,
		})
	})
}

// isolation is the state of one run: the banks, their bytes, and the pattern
// each live buffer was last filled with.
type isolation struct {
	b     bank.Banks
	mem   *bank.Memory
	tr    trace.Trace
	seeds map[bank.Addr]uint64 // live buffer → its pattern
	next  uint64
}

func (s *isolation) fail(t *rapid.T, format string, args ...any) {
	t.Fatalf("%s", trace.Failure(fmt.Sprintf(format, args...), &s.tr, ""))
}

// allocate applies op and fills the new buffer with a pattern of its own.
func (s *isolation) allocate(t *rapid.T, op bank.BanksOp) {
	r := op.Apply(s.b)
	s.tr.Add(op, r)
	if r.Err != "" {
		return
	}
	live := s.b.Buffers()
	i := slices.IndexFunc(live, func(x bank.Buffer) bool { return x.Addr == r.Addr })
	if i < 0 {
		s.fail(t, "%v succeeded but Buffers() does not list %#x", op, uint64(r.Addr))
	}
	s.fill(t, live[i])
}

// free applies op, which must succeed exactly when its buffer is live.
func (s *isolation) free(t *rapid.T, op bank.BanksOp) {
	r := op.Apply(s.b)
	s.tr.Add(op, r)
	if _, live := s.seeds[op.Addr]; live != (r.Err == "") {
		s.fail(t, "%v returned %v for a buffer that is live: %v", op, r, live)
	}
	delete(s.seeds, op.Addr)
}

// fill writes a fresh pattern over every page of buf.
func (s *isolation) fill(t *rapid.T, buf bank.Buffer) {
	s.next++
	s.seeds[buf.Addr] = s.next
	s.tr.Add(fillOp{buf.Addr, s.next}, "ok")
	for i := int64(0); i < buf.Pages(); i++ {
		inBank, abs, err := s.b.PageAddress(buf.Addr, i)
		if err != nil {
			s.fail(t, "PageAddress(%#x, %d): %v", uint64(buf.Addr), i, err)
		}
		data := make([]byte, buf.PageLen(i))
		for j := range data {
			data[j] = patternByte(s.next, i, int64(j))
		}
		if err := s.mem.Write(inBank, abs, data); err != nil {
			s.fail(t, "page %d of buffer %#x: %v", i, uint64(buf.Addr), err)
		}
	}
}

// verify reads every live buffer back: each must hold its own pattern.
func (s *isolation) verify(t *rapid.T) {
	live := s.b.Buffers()
	if got, want := len(live), len(s.seeds); got != want {
		s.fail(t, "Buffers() lists %d buffers, %d are live", got, want)
	}
	for _, buf := range live {
		seed, ok := s.seeds[buf.Addr]
		if !ok {
			s.fail(t, "Buffers() lists %#x, which is not live", uint64(buf.Addr))
		}
		for i := int64(0); i < buf.Pages(); i++ {
			inBank, abs, err := s.b.PageAddress(buf.Addr, i)
			if err != nil {
				s.fail(t, "PageAddress(%#x, %d): %v", uint64(buf.Addr), i, err)
			}
			got := make([]byte, buf.PageLen(i))
			if err := s.mem.Read(inBank, abs, got); err != nil {
				s.fail(t, "page %d of buffer %#x: %v", i, uint64(buf.Addr), err)
			}
			for j, c := range got {
				if w := patternByte(seed, i, int64(j)); c != w {
					s.fail(t, "byte %d of page %d of buffer %#x (bank %d, %#x) is %#x, its pattern %d wrote %#x: another buffer's operation changed it",
						j, i, uint64(buf.Addr), inBank, uint64(abs)+uint64(j), c, seed, w)
				}
			}
		}
	}
}

// fillOp is the trace entry of a pattern written through the page mapping.
type fillOp struct {
	addr bank.Addr
	seed uint64
}

func (f fillOp) String() string { return fmt.Sprintf("Fill(%#x, pattern %d)", uint64(f.addr), f.seed) }

// patternByte is byte j of page i of the pattern seed: distinct seeds give
// different bytes almost everywhere, so a page overwritten by another buffer
// shows.
func patternByte(seed uint64, page int64, j int64) byte {
	x := seed*0x9e3779b97f4a7c15 + uint64(page)*0xbf58476d1ce4e5b9 + uint64(j)*0x94d049bb133111eb
	x ^= x >> 31
	x *= 0xd6e8feb86659fd39
	return byte(x>>32) | 1 // never 0, so an unwritten byte never matches
}
