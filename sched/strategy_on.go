//go:build sched

package sched

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"
)

// chooser picks who runs next. Its methods are called by the goroutine that
// holds the turn, with the scheduler's mutex held, so they are never
// concurrent.
type chooser interface {
	started(g *goroutine) // g joined the run
	yielded(g *goroutine) // g called Yield
	pick(d decision) int  // an index into d.cands, which has two or more
}

// decision is one choice of the next goroutine.
type decision struct {
	cur   *goroutine   // the goroutine at the scheduling point (it may be blocked or ended)
	cands []*goroutine // who may run: cur first if cont, then by number
	cont  bool         // cur may go on; picking another preempts it
	yield bool
	n     int // 1-based count of decisions in the run
}

// walkSwitch is the random walk's odds: a goroutine that could go on is
// preempted at a point once in walkSwitch draws. One in two switches so often
// that a bug needing one goroutine to run several points undisturbed (ABA:
// pop, pop, push while another is preempted) is rarely seen; one in four
// keeps both kinds likely.
const walkSwitch = 4

// walk is the random walk: at each decision, preempt with odds 1 in
// walkSwitch, then draw among the others. Both draws shrink to 0, "go on" and
// "the lowest-numbered", so a shrunk schedule has as few switches as the
// failure allows.
type walk struct{ t *rapid.T }

func (w *walk) started(*goroutine) {}
func (w *walk) yielded(*goroutine) {}

func (w *walk) pick(d decision) int {
	first := 0
	if d.cont {
		if rapid.IntRange(0, walkSwitch-1).Draw(w.t, "sched preempt") != walkSwitch-1 {
			return 0
		}
		first = 1
	}
	if len(d.cands)-first == 1 {
		return first
	}
	return first + rapid.IntRange(0, len(d.cands)-first-1).Draw(w.t, "sched next")
}

// pct is probabilistic concurrency testing. Priorities are an order:
// undemoted goroutines, highest first, above those demoted at change point j
// (higher j above lower), above those demoted by Yield (the latest lowest).
type pct struct {
	t            *rapid.T
	depth, steps int
	order        []*goroutine
	level        map[*goroutine]int // demoted: j ≥ 1 at change point j, negative by Yield
	changes      []int              // the decisions at which the running goroutine is demoted; 0: none
	yields       int
}

// started gives g a random place among the undemoted. The first goroutine of
// a run also draws the change points. Both draws shrink toward the serial
// schedule: a new goroutine below the others, no change point.
func (p *pct) started(g *goroutine) {
	if p.level == nil {
		p.level = map[*goroutine]int{}
		for j := 1; j < p.depth; j++ {
			p.changes = append(p.changes, rapid.IntRange(0, p.steps).Draw(p.t, "sched change point"))
		}
		p.order = []*goroutine{g}
		return
	}
	r := rapid.IntRange(0, len(p.order)).Draw(p.t, "sched priority")
	p.order = slices.Insert(p.order, len(p.order)-r, g)
}

// yielded puts g below every other goroutine, as Coyote and Shuttle do, so a
// spin-wait lets the goroutine it waits for run.
func (p *pct) yielded(g *goroutine) {
	p.yields++
	p.demote(g, -p.yields)
}

func (p *pct) demote(g *goroutine, level int) {
	if i := slices.Index(p.order, g); i >= 0 {
		p.order = slices.Delete(p.order, i, i+1)
	}
	p.level[g] = level
}

func (p *pct) pick(d decision) int {
	for j, at := range p.changes {
		if at == d.n {
			p.demote(d.cur, j+1)
		}
	}
	best := 0
	for i := 1; i < len(d.cands); i++ {
		if p.above(d.cands[i], d.cands[best]) {
			best = i
		}
	}
	return best
}

func (p *pct) above(a, b *goroutine) bool {
	ca, ka := p.rank(a)
	cb, kb := p.rank(b)
	return ca > cb || ca == cb && ka > kb
}

// rank orders priorities as (class, key), higher first.
func (p *pct) rank(g *goroutine) (class, key int) {
	if i := slices.Index(p.order, g); i >= 0 {
		return 2, -i
	}
	if l := p.level[g]; l > 0 {
		return 1, l
	}
	return 0, p.level[g]
}

// dfs enumerates schedules depth-first, fewest preemptions first along each
// path: a run replays the previous run's decisions up to the deepest one it
// can still change within the bound, changes it, then takes choice 0 (go on,
// which costs nothing) at every new decision.
type dfs struct {
	bound    int
	path     []branch
	pos      int
	mismatch string
}

type branch struct {
	ids    []int // the candidates offered, by goroutine number
	names  []string
	idx    int // the one taken
	cont   bool
	before int // preemptions before this decision
}

func (d *dfs) started(*goroutine) {}
func (d *dfs) yielded(*goroutine) {}

func (d *dfs) pick(dc decision) int {
	ids, names := make([]int, len(dc.cands)), make([]string, len(dc.cands))
	for i, g := range dc.cands {
		ids[i], names[i] = g.id, g.name
	}
	if d.pos < len(d.path) {
		b := d.path[d.pos]
		d.pos++
		if !slices.Equal(b.ids, ids) || b.cont != dc.cont {
			if d.mismatch == "" {
				d.mismatch = fmt.Sprintf("nondeterministic scenario: at decision %d the same schedule offered %v, and %v before; "+
					"the run depends on something the scheduler does not control (map order, time, randomness, "+
					"a goroutine not started with sched.Go, a lock that is not a sched.Mutex)", dc.n, names, b.names)
			}
			return 0
		}
		return b.idx
	}
	before := 0
	if n := len(d.path); n > 0 {
		last := d.path[n-1]
		before = last.before + cost(last.cont, last.idx)
	}
	d.path = append(d.path, branch{ids: ids, names: names, cont: dc.cont, before: before})
	d.pos++
	return 0
}

// advance sets up the next schedule and reports whether there is one.
func (d *dfs) advance() bool {
	d.pos = 0
	for i := len(d.path) - 1; i >= 0; i-- {
		b := &d.path[i]
		if b.idx+1 < len(b.ids) && b.before+cost(b.cont, b.idx+1) <= d.bound {
			b.idx++
			d.path = d.path[:i+1]
			return true
		}
	}
	return false
}

// cost is the preemptions a choice makes: one when it passes over a
// goroutine that could go on.
func cost(cont bool, idx int) int {
	if cont && idx != 0 {
		return 1
	}
	return 0
}
