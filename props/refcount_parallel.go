package props

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"sync"

	spec "github.com/memverify/memverify/model/refcount"
	"pgregory.net/rapid"
)

// disjointWorkers is how many goroutines CheckRegistryDisjointParallel runs.
const disjointWorkers = 4

// CheckRegistryDisjointParallel runs generated op sequences from several
// goroutines at once, each on pointers of its own address range, against the
// registry built by factory. Because the ranges are disjoint, every op's result
// is what a model that sees only that goroutine's ops answers, whatever the
// interleaving; and the final Stats, Live and the multiset of frees equal those
// of one model that ran every sequence. Scopes are left out: the scope stack is
// shared by design.
func CheckRegistryDisjointParallel(t rapid.TB, factory RegistryFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		seqs := make([][]spec.Op, disjointWorkers)
		for w := range seqs {
			seqs[w] = drawDisjointOps(rt, spec.Addr(w+1)<<32)
		}
		log := &FreeLog{}
		impl := factory(log)
		got := make([][]spec.Result, disjointWorkers)
		var wg sync.WaitGroup
		for w := range seqs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, op := range seqs[w] {
					got[w] = append(got[w], op.Apply(impl))
				}
			}()
		}
		wg.Wait()

		all := &FreeLog{}
		whole := spec.New(all)
		for w, seq := range seqs {
			alone := spec.New(&FreeLog{})
			for i, op := range seq {
				want := op.Apply(alone)
				op.Apply(whole)
				if g := got[w][i]; g.Err != want.Err || g.Value != want.Value || (g.ID == 0) != (want.ID == 0) {
					rt.Fatalf("goroutine %d, op %d: %v returned %v, the model %v\nits ops:\n%s", w, i+1, op, g, want, formatOps(seq[:i+1]))
				}
			}
		}
		if ws, gs := whole.Stats(), impl.Stats(); ws != gs {
			rt.Fatalf("after the parallel run Stats() = %+v, the model %+v", gs, ws)
		}
		if wl, gl := stripIDs(whole.Live()), stripIDs(impl.Live()); !reflect.DeepEqual(wl, gl) && len(wl)+len(gl) > 0 {
			rt.Fatalf("after the parallel run Live() = %+v, the model %+v", gl, wl)
		}
		if wf, gf := sortFrees(all.Take()), sortFrees(log.Take()); !slices.Equal(wf, gf) {
			rt.Fatalf("the parallel run freed %v, the model %v", gf, wf)
		}
	})
}

// drawDisjointOps draws a sequence of non-scope ops on pointers inside
// [base, base+0x10000): registrations, buffers with aliases, retains, releases
// (valid and not), queries.
func drawDisjointOps(t *rapid.T, base spec.Addr) []spec.Op {
	ptrs := []spec.Addr{base + 0x100, base + 0x110, base + 0x200, base + 0x210, base + 0x220}
	ptr := rapid.SampledFrom(ptrs)
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) spec.Op {
		p := ptr.Draw(t, "p")
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			return spec.Op{Kind: spec.OpRegister, P: p, Bytes: 0x20, Alloc: spec.ScalarNew}
		case 1:
			n := rapid.IntRange(0, 3).Draw(t, "naliases")
			aliases := make([]spec.Addr, n)
			for i := range aliases {
				aliases[i] = p + spec.Addr(rapid.IntRange(0, 2).Draw(t, "alias"))*0x10
			}
			return spec.Op{Kind: spec.OpRegisterBuffer, P: p, Bytes: 0x30, Aliases: aliases, Alloc: spec.ArrayNew}
		case 2:
			return spec.Op{Kind: spec.OpRetain, P: p}
		case 3, 4:
			return spec.Op{Kind: spec.OpUnregister, P: p}
		default:
			return spec.Op{Kind: spec.OpRefs, P: p}
		}
	}), 1, 40).Draw(t, "ops")
}

func formatOps(ops []spec.Op) string {
	s := ""
	for i, op := range ops {
		s += fmt.Sprintf("%4d  %v\n", i+1, op)
	}
	return s
}

// stripIDs drops buffer IDs, which are the implementation's choice, and puts
// the report in an order that does not depend on them. Disjoint ranges keep
// registrations of different goroutines apart, but one goroutine can have two
// live buffers on one real pointer (the first one's real pointer was released,
// then registered again as another buffer's), which a leak report orders by
// ID. So the IDs are blanked first, then the report is sorted by all the rest
// of each record.
func stripIDs(live []spec.Registration) []spec.Registration {
	out := liveView(live, nil)
	for i := range out {
		if out[i].Buffer != 0 {
			out[i].Buffer = 1
		}
	}
	slices.SortFunc(out, func(a, b spec.Registration) int {
		return cmp.Or(
			cmp.Compare(a.Real, b.Real),
			cmp.Compare(a.Buffer, b.Buffer), // owned pointers first
			cmp.Compare(a.Bytes, b.Bytes),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Refs, b.Refs),
			slices.Compare(a.Holders, b.Holders),
		)
	})
	return out
}
