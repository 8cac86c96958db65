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

// disjointWorkers is how many goroutines CheckDisjointParallel runs.
const disjointWorkers = 4

// CheckDisjointParallel runs generated op sequences from several goroutines
// at once, each on pointers of its own address range, against the registry
// built by factory. Because the ranges are disjoint, every op's result is
// what a model that sees only that goroutine's ops answers, whatever the
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
func CheckDisjointParallel(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		seqs := make([][]spec.Op, disjointWorkers)
		for w := range seqs {
			seqs[w] = drawDisjointOps(rt, disjointBase(w))
		}
		log := &freeLog{}
		impl := factory(log)
		got, snaps := runDisjoint(impl, seqs)
		all := &freeLog{}
		whole := spec.New(all)
		prefixes := make([][]disjointPrefix, disjointWorkers)
		for w, seq := range seqs {
			var err string
			if prefixes[w], err = replayAlone(w, seq, got[w], whole); err != "" {
				rt.Fatalf("%s", err)
			}
		}
		// The final state is compared before the snapshots: it does not
		// depend on the interleaving, so a defect it shows is reported the
		// same way whatever the timing, and shrinks as one failure.
		if err := compareAfter(whole, impl, all, log); err != "" {
			rt.Fatalf("after the parallel run %s\nthe goroutines' ops:\n%s", err, formatSeqs(seqs))
		}
		for _, s := range snaps {
			if err := s.check(prefixes); err != "" {
				rt.Fatalf("during the parallel run, %s\nthe goroutines' ops:\n%s", err, formatSeqs(seqs))
			}
		}
	})
}

// runDisjoint runs each sequence in a goroutine of its own against impl,
// while an observer takes snapshots, and returns each op's result and the
// snapshots.
func runDisjoint(impl spec.Registry, seqs [][]spec.Op) ([][]spec.Result, []disjointSnapshot) {
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
	return got, snaps
}

// replayAlone replays goroutine w's ops on a model of its own, compares each
// result with got, and returns what that model showed after each prefix of
// the ops. It also applies the ops to whole, the model of every goroutine.
func replayAlone(w int, seq []spec.Op, got []spec.Result, whole *spec.Model) ([]disjointPrefix, string) {
	alone := spec.New(&freeLog{})
	prefixes := []disjointPrefix{{alone.Stats(), stripIDs(alone.Live())}}
	for i, op := range seq {
		want := op.Apply(alone)
		op.Apply(whole)
		if g := got[i]; g.Err != want.Err || g.Value != want.Value || (g.ID == 0) != (want.ID == 0) {
			return nil, fmt.Sprintf("goroutine %d, op %d: %v returned %v, the model %v\nits ops:\n%s", w, i+1, op, g, want, formatOps(seq[:i+1]))
		}
		prefixes = append(prefixes, disjointPrefix{alone.Stats(), stripIDs(alone.Live())})
	}
	return prefixes, ""
}

// compareAfter compares the registry after the parallel run with the model
// of every goroutine's ops: Stats, Live and the frees each made.
func compareAfter(whole *spec.Model, impl spec.Registry, all, log *freeLog) string {
	if ws, gs := whole.Stats(), impl.Stats(); ws != gs {
		return fmt.Sprintf("Stats() = %+v, the model %+v", gs, ws)
	}
	if wl, gl := stripIDs(whole.Live()), stripIDs(impl.Live()); !reflect.DeepEqual(wl, gl) && len(wl)+len(gl) > 0 {
		if sameElements(wl, gl, regKey) {
			return fmt.Sprintf("Live() lists the registrations in the wrong order: %s, the model %s", liveOrder(gl, false), liveOrder(wl, false))
		}
		return fmt.Sprintf("Live() = %+v, the model %+v", gl, wl)
	}
	if wf, gf := sortFrees(all.take()), sortFrees(log.take()); !slices.Equal(wf, gf) {
		return fmt.Sprintf("it freed %v, the model %v", gf, wf)
	}
	return ""
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
		return s.checkStats(prefixes)
	}
	return s.checkLive(prefixes)
}

// checkStats checks a Stats snapshot: each figure lies between the sums,
// over the goroutines, of the least and the most any prefix in its window
// shows.
func (s disjointSnapshot) checkStats(prefixes [][]disjointPrefix) string {
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

// checkLive checks a Live snapshot: each goroutine's range, in order, is
// what some prefix in its window shows.
func (s disjointSnapshot) checkLive(prefixes [][]disjointPrefix) string {
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

// formatSeqs lists each goroutine's ops.
func formatSeqs(seqs [][]spec.Op) string {
	s := ""
	for w, seq := range seqs {
		s += fmt.Sprintf("goroutine %d:\n%s", w, formatOps(seq))
	}
	return s
}
