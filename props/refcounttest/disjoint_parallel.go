package refcounttest

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// disjointWorkers is how many goroutines CheckRegistryDisjointParallel runs.
const disjointWorkers = 4

// CheckRegistryDisjointParallel runs generated op sequences from several
// goroutines at once, each on pointers of its own address range, against the
// registry built by factory. Because the ranges are disjoint, every op's result
// is what a model that sees only that goroutine's ops answers, whatever the
// interleaving; and the final Stats, Live (in order) and the multiset of
// frees equal those of one model that ran every sequence. Scopes are left
// out: the scope stack is shared by design.
//
// While the goroutines run, an observer calls Stats and Live over and over:
// they read a snapshot of the whole registry (LockFree freezes its table and
// rebuilds it for one), so operations keep meeting a snapshot in progress and
// must wait for it and retry. Each snapshot must show every goroutine's range
// as a model that ran some prefix of its ops: one of those it had finished
// before the call, up to those it had started by the call's return. Live must
// match such a prefix exactly, in order (buffer IDs aside); Stats, summed
// over the ranges, must lie between the sums of the fewest and the most each
// range could show.
func CheckRegistryDisjointParallel(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		seqs := make([][]spec.Op, disjointWorkers)
		for w := range seqs {
			seqs[w] = drawDisjointOps(rt, disjointBase(w))
		}
		log := &FreeLog{}
		impl := factory(log)
		got := make([][]spec.Result, disjointWorkers)
		var started, finished [disjointWorkers]atomic.Int64 // ops begun and returned, per goroutine
		var start, wg sync.WaitGroup
		start.Add(1)
		for w := range seqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start.Wait()
				for _, op := range seqs[w] {
					started[w].Add(1)
					got[w] = append(got[w], op.Apply(impl))
					finished[w].Add(1)
				}
			}()
		}
		var stop atomic.Bool
		var snaps []disjointSnapshot
		observed := make(chan struct{})
		go func() {
			defer close(observed)
			start.Wait()
			for !stop.Load() {
				var s disjointSnapshot
				s.lo = loadAll(&finished)
				if len(snaps)%2 == 0 {
					st := impl.Stats()
					s.stats = &st
				} else {
					s.live = impl.Live()
				}
				s.hi = loadAll(&started)
				snaps = append(snaps, s)
				runtime.Gosched() // a snapshot costs more than an op: let the goroutines on
			}
		}()
		start.Done()
		wg.Wait()
		stop.Store(true)
		<-observed

		all := &FreeLog{}
		whole := spec.New(all)
		prefixes := make([][]disjointPrefix, disjointWorkers) // each goroutine's model after each prefix of its ops
		for w, seq := range seqs {
			alone := spec.New(&FreeLog{})
			prefixes[w] = append(prefixes[w], disjointPrefix{alone.Stats(), stripIDs(alone.Live())})
			for i, op := range seq {
				want := op.Apply(alone)
				op.Apply(whole)
				if g := got[w][i]; g.Err != want.Err || g.Value != want.Value || (g.ID == 0) != (want.ID == 0) {
					rt.Fatalf("goroutine %d, op %d: %v returned %v, the model %v\nits ops:\n%s", w, i+1, op, g, want, formatOps(seq[:i+1]))
				}
				prefixes[w] = append(prefixes[w], disjointPrefix{alone.Stats(), stripIDs(alone.Live())})
			}
		}
		for _, s := range snaps {
			if err := s.check(prefixes); err != "" {
				rt.Fatalf("during the parallel run, %s\nthe goroutines' ops:\n%s", err, formatSeqs(seqs))
			}
		}
		if ws, gs := whole.Stats(), impl.Stats(); ws != gs {
			rt.Fatalf("after the parallel run Stats() = %+v, the model %+v", gs, ws)
		}
		if wl, gl := stripIDs(whole.Live()), stripIDs(impl.Live()); !reflect.DeepEqual(wl, gl) && len(wl)+len(gl) > 0 {
			if sameElements(wl, gl, regKey) {
				rt.Fatalf("after the parallel run Live() lists the registrations in the wrong order: %s, the model %s", liveOrder(gl, false), liveOrder(wl, false))
			}
			rt.Fatalf("after the parallel run Live() = %+v, the model %+v", gl, wl)
		}
		if wf, gf := sortFrees(all.Take()), sortFrees(log.Take()); !slices.Equal(wf, gf) {
			rt.Fatalf("the parallel run freed %v, the model %v", gf, wf)
		}
	})
}

// disjointBase is the first address of goroutine w's range, which is
// disjointSpan bytes long.
func disjointBase(w int) spec.Addr { return spec.Addr(w+1) << 32 }

const disjointSpan = 0x10000

// disjointPrefix is what a model shows after a prefix of one goroutine's ops.
type disjointPrefix struct {
	stats spec.Stats
	live  []spec.Registration // stripped of IDs
}

// disjointSnapshot is one Stats or Live call of the observer, with how many
// ops each goroutine had finished before it (lo) and begun by its return
// (hi): the registry it saw had applied between lo and hi ops of each.
type disjointSnapshot struct {
	lo, hi [disjointWorkers]int
	stats  *spec.Stats
	live   []spec.Registration
}

func loadAll(c *[disjointWorkers]atomic.Int64) (out [disjointWorkers]int) {
	for i := range c {
		out[i] = int(c[i].Load())
	}
	return out
}

// check returns what is wrong with s given each goroutine's prefixes, or "".
func (s disjointSnapshot) check(prefixes [][]disjointPrefix) string {
	if s.stats != nil {
		var least, most spec.Stats
		for w, ps := range prefixes {
			l, m := ps[s.lo[w]].stats, ps[s.lo[w]].stats
			for _, p := range ps[s.lo[w] : s.hi[w]+1] {
				l = spec.Stats{Pointers: min(l.Pointers, p.stats.Pointers), Buffers: min(l.Buffers, p.stats.Buffers), Bytes: min(l.Bytes, p.stats.Bytes)}
				m = spec.Stats{Pointers: max(m.Pointers, p.stats.Pointers), Buffers: max(m.Buffers, p.stats.Buffers), Bytes: max(m.Bytes, p.stats.Bytes)}
			}
			least = spec.Stats{Pointers: least.Pointers + l.Pointers, Buffers: least.Buffers + l.Buffers, Bytes: least.Bytes + l.Bytes}
			most = spec.Stats{Pointers: most.Pointers + m.Pointers, Buffers: most.Buffers + m.Buffers, Bytes: most.Bytes + m.Bytes}
		}
		g := *s.stats
		if g.Pointers < least.Pointers || g.Pointers > most.Pointers || g.Buffers < least.Buffers || g.Buffers > most.Buffers || g.Bytes < least.Bytes || g.Bytes > most.Bytes {
			return fmt.Sprintf("Stats() = %+v, outside [%+v, %+v] (ops finished before the call %v, begun by its return %v)", g, least, most, s.lo, s.hi)
		}
		return ""
	}
	mine := make([][]spec.Registration, len(prefixes))
	for _, r := range s.live {
		w := int(r.Real>>32) - 1
		if w < 0 || w >= len(prefixes) || r.Real-disjointBase(w) >= disjointSpan {
			return fmt.Sprintf("Live() lists %+v, in no goroutine's range", r)
		}
		mine[w] = append(mine[w], r)
	}
	for w, ps := range prefixes {
		got := stripIDs(mine[w])
		ok, reordered := false, -1
		for i, p := range ps[s.lo[w] : s.hi[w]+1] {
			if reflect.DeepEqual(got, p.live) || len(got)+len(p.live) == 0 {
				ok = true
				break
			}
			if reordered < 0 && sameElements(got, p.live, regKey) {
				reordered = s.lo[w] + i
			}
		}
		switch {
		case ok:
		case reordered >= 0:
			return fmt.Sprintf("Live() lists goroutine %d's range in the wrong order: %s, the model after %d of its ops %s", w, liveOrder(got, false), reordered, liveOrder(ps[reordered].live, false))
		default:
			return fmt.Sprintf("Live() shows goroutine %d's range as %+v, which no model shows after %d to %d of its ops", w, got, s.lo[w], s.hi[w])
		}
	}
	return ""
}

func formatSeqs(seqs [][]spec.Op) string {
	s := ""
	for w, seq := range seqs {
		s += fmt.Sprintf("goroutine %d:\n%s", w, formatOps(seq))
	}
	return s
}

// drawDisjointOps draws a sequence of non-scope ops on pointers inside
// [base, base+0x10000): registrations, buffers with aliases, retains, releases
// (valid and not), queries. One draw in eighteen is instead a buffer of 8 to
// 24 holders, 8 bytes apart from p on, or a burst of 64 to 128 Retains of p
// followed by Refs: LockFree keeps the counts of a buffer of more than 10
// holders copy on write, packs those of fewer into fields of 6 or 7 bits,
// and moves a packed buffer to copy on write when a burst fills a field, so
// the observer's snapshots freeze such records and meet them changing.
func drawDisjointOps(t *rapid.T, base spec.Addr) []spec.Op {
	ptrs := []spec.Addr{base + 0x100, base + 0x110, base + 0x200, base + 0x210, base + 0x220}
	ptr := rapid.SampledFrom(ptrs)
	runs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) []spec.Op {
		p := ptr.Draw(t, "p")
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			return []spec.Op{{Kind: spec.OpRegister, P: p, Bytes: 0x20, Alloc: spec.ScalarNew}}
		case 1:
			if rapid.IntRange(0, 2).Draw(t, "wide") == 0 {
				return drawDisjointWide(t, p)
			}
			n := rapid.IntRange(0, 3).Draw(t, "naliases")
			aliases := make([]spec.Addr, n)
			for i := range aliases {
				aliases[i] = p + spec.Addr(rapid.IntRange(0, 2).Draw(t, "alias"))*0x10
			}
			return []spec.Op{{Kind: spec.OpRegisterBuffer, P: p, Bytes: 0x30, Aliases: aliases, Alloc: spec.ArrayNew}}
		case 2:
			return []spec.Op{{Kind: spec.OpRetain, P: p}}
		case 3, 4:
			return []spec.Op{{Kind: spec.OpUnregister, P: p}}
		default:
			return []spec.Op{{Kind: spec.OpRefs, P: p}}
		}
	}), 1, 40).Draw(t, "ops")
	var ops []spec.Op
	for _, r := range runs {
		ops = append(ops, r...)
	}
	return ops
}

// drawDisjointWide draws a buffer of many holders at p, or a burst of
// Retains of p (see drawDisjointOps).
func drawDisjointWide(t *rapid.T, p spec.Addr) []spec.Op {
	if rapid.Bool().Draw(t, "burst") {
		ops := make([]spec.Op, rapid.IntRange(64, 128).Draw(t, "retains"), 130)
		for i := range ops {
			ops[i] = spec.Op{Kind: spec.OpRetain, P: p}
		}
		return append(ops, spec.Op{Kind: spec.OpRefs, P: p})
	}
	aliases := make([]spec.Addr, rapid.IntRange(7, 23).Draw(t, "naliases"))
	for i := range aliases {
		aliases[i] = p + 8*spec.Addr(i+1)
	}
	return []spec.Op{{Kind: spec.OpRegisterBuffer, P: p, Bytes: 0x100, Aliases: aliases, Alloc: spec.ArrayNew}}
}

func formatOps(ops []spec.Op) string {
	s := ""
	for i, op := range ops {
		s += fmt.Sprintf("%4d  %v\n", i+1, op)
	}
	return s
}

// stripIDs blanks buffer IDs, which are the implementation's choice, and
// keeps the order, which is not: by real pointer, and at one real pointer
// buffers newest first, then an owned pointer. Disjoint ranges keep
// registrations of different goroutines apart, and the buffers that share a
// real pointer (the first one's real pointer was released, then registered
// again as another buffer's) are one goroutine's, registered in its program
// order, so the order of a range's registrations does not depend on how the
// goroutines interleaved.
func stripIDs(live []spec.Registration) []spec.Registration {
	out := liveView(live, nil)
	for i := range out {
		if out[i].Buffer != 0 {
			out[i].Buffer = 1
		}
	}
	return out
}
