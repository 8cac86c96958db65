package bench

import (
	"fmt"
	"runtime"
	"testing"

	implov "github.com/memverify/memverify/impl/overlap"
	impl "github.com/memverify/memverify/impl/tensormap"
	"github.com/memverify/memverify/model/overlap"
	spec "github.com/memverify/memverify/model/tensormap"
)

// The TensorMap benchmarks run one steady-state trace of a runtime that
// splits tensors: every tensor is 64×64 float32 (row-major, rows of 256
// bytes) in a storage of its own, written by four tasks, one part each. With
// layout=tiles the parts are 32×32 tiles: tiles side by side have
// intersecting byte bounds but no common byte, so about half the lookups
// need the exact solver. With layout=rows they are bands of 16 rows, whose
// bounds are disjoint: the map's own cost, without solver calls. One op is
// an Insert (the next task writes its part), a Lookup (a task reads one part
// of a live tensor) and a Retire that keeps exactly `live` entries live. The
// map has room for twice that, so the ring reuses retired slots throughout.

// tmPart returns part t (0..3) of a 64×64 float32 tensor.
func tmPart(layout string, t int) overlap.View {
	if layout == "rows" {
		return overlap.View{Offset: int64(t) * 16 * 256, ElemSize: 4, Shape: []int64{16, 64}, Strides: []int64{256, 4}}
	}
	row, col := int64(t/2), int64(t%2)
	return overlap.View{Offset: row*32*256 + col*32*4, ElemSize: 4, Shape: []int64{32, 32}, Strides: []int64{256, 4}}
}

// tmStorage is the storage of task i's tensor: a fresh allocation every four
// tasks, at addresses spaced like a real allocator's.
func tmStorage(i uint64) spec.Storage { return spec.Storage(0x7f00_0000_0000 + (i/4)<<16) }

type tmImpl struct {
	name string
	make func(spec.Config) (spec.Map, error)
}

var tmImpls = []tmImpl{
	{"Model", func(c spec.Config) (spec.Map, error) { return spec.New(c) }},
	{"Ring", func(c spec.Config) (spec.Map, error) { return impl.New(c) }},
	{"GoMap", func(c spec.Config) (spec.Map, error) { return newGoMapTracker(c.Capacity), nil }},
}

// BenchmarkTensorMapInsertLookup measures one Insert + Lookup + Retire with
// `live` live entries. read=random reads a tile of any live tensor, uniformly
// (the worst case for caches: at 64k live entries the Ring's slots take
// 5 MiB, its buckets and task heads 1 MiB more);
// read=recent reads one written by the last 64 tasks (a consumer close
// behind its producers, the common case of a task graph). The model is a
// linear list searched by brute force: go test's b.N calibration bounds its
// run to the benchtime (a few hundred ops at 64k), so its figure comes from
// fewer iterations.
func BenchmarkTensorMapInsertLookup(b *testing.B) {
	for _, live := range []int{1024, 65536} {
		for _, layout := range []string{"tiles", "rows"} {
			for _, read := range []string{"random", "recent"} {
				for _, im := range tmImpls {
					name := fmt.Sprintf("live=%d/layout=%s/read=%s/impl=%s", live, layout, read, im.name)
					b.Run(name, func(b *testing.B) { tmInsertLookup(b, im, live, layout, read == "recent") })
				}
			}
		}
	}
}

// tmInsertLookup runs the trace of BenchmarkTensorMapInsertLookup on one map.
func tmInsertLookup(b *testing.B, im tmImpl, live int, layout string, recent bool) {
	m, err := im.make(spec.Config{Capacity: 2 * live})
	if err != nil {
		b.Fatal(err)
	}
	tiles := [4]overlap.View{tmPart(layout, 0), tmPart(layout, 1), tmPart(layout, 2), tmPart(layout, 3)}
	// Warm up over twice the live count, so that every slot of the ring has
	// been written (no first-touch page faults in the timed loop) and the
	// timed loop starts in the steady state. Retiring in batches keeps the
	// model's setup (its Retire is O(n)) short.
	n := uint64(live)
	for i := range 2 * n {
		if err := m.Insert(tmStorage(i), tiles[i%4], spec.Task(i)); err != nil {
			b.Fatal(err)
		}
		if i >= n && i%1024 == 0 {
			if err := m.Retire(spec.Task(i + 1 - n)); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := m.Retire(spec.Task(n + 1)); err != nil {
		b.Fatal(err)
	}
	rnd := uint64(0x9E3779B97F4A7C15)
	found := 0
	runtime.GC() // the warm-up's garbage (the model's, above all) must not be collected on our time
	b.ReportAllocs()
	b.ResetTimer()
	for i := 2 * n; i < 2*n+uint64(b.N); i++ {
		if err := m.Insert(tmStorage(i), tiles[i%4], spec.Task(i)); err != nil {
			b.Fatal(err)
		}
		rnd ^= rnd << 13 // xorshift64: cheap and deterministic
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		j := i - rnd%n // a live task; read its tile of its tensor
		if recent {
			j = i - rnd%64
		}
		if _, ok, _ := m.Lookup(tmStorage(j), tiles[j%4]); ok {
			found++
		}
		if err := m.Retire(spec.Task(i + 1 - n)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if found != b.N {
		b.Fatalf("found %d producers in %d lookups of live tiles", found, b.N)
	}
}

// goMapTracker is the tracker a Go programmer might write first: a map from
// storage to its entries in insertion order, with the exact solver and lazy
// removal of retired entries (a retired prefix is cut when a storage's list
// is touched, and storages of retired tasks are dropped when the map has
// twice the capacity of keys). It is a benchmark peer, not a checked
// implementation.
type goMapTracker struct {
	m         map[spec.Storage][]goMapEntry
	threshold spec.Task
	capacity  int
}

type goMapEntry struct {
	view overlap.View
	task spec.Task
}

func newGoMapTracker(capacity int) *goMapTracker {
	return &goMapTracker{m: make(map[spec.Storage][]goMapEntry), capacity: capacity}
}

func (g *goMapTracker) trim(s spec.Storage) []goMapEntry {
	es := g.m[s]
	k := 0
	for k < len(es) && es[k].task < g.threshold {
		k++
	}
	if k > 0 {
		es = es[k:]
		if len(es) == 0 {
			delete(g.m, s)
		} else {
			g.m[s] = es
		}
	}
	return es
}

func (g *goMapTracker) Insert(s spec.Storage, v overlap.View, t spec.Task) error {
	if len(g.m) > 2*g.capacity {
		for k := range g.m {
			g.trim(k)
		}
	}
	g.m[s] = append(g.trim(s), goMapEntry{spec.CloneView(v), t})
	return nil
}

func (g *goMapTracker) Lookup(s spec.Storage, v overlap.View) (spec.Task, bool, error) {
	es := g.trim(s)
	for i := len(es) - 1; i >= 0; i-- {
		if verdict, err := implov.Exact(es[i].view, v); err != nil || verdict != overlap.No {
			return es[i].task, true, nil
		}
	}
	return 0, false, nil
}

func (g *goMapTracker) LookupAll(s spec.Storage, v overlap.View, limit int) ([]spec.Task, error) {
	panic("not benchmarked")
}

func (g *goMapTracker) Retire(t spec.Task) error { g.threshold = t; return nil }

func (g *goMapTracker) Len() int { panic("not benchmarked") }

// BenchmarkTensorMapLatencyFloor is a reference, not a map: one dependent
// load of a random cache line from an array of the given size per op — the
// least any structure pays per lookup whose data is a random line of a
// working set that size. The Ring's state at live=65536 is about 6 MiB
// (128 Ki slots of 40 bytes, buckets and task heads), between the two
// larger sizes; its live half about 3.5 MiB.
func BenchmarkTensorMapLatencyFloor(b *testing.B) {
	for _, mib := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("bytes=%dMiB", mib), func(b *testing.B) {
			lines := uint64(mib) << 20 / 64 // a power of two
			mem := make([][8]uint64, lines)
			for i := range mem {
				mem[i][0] = uint64(i) // every page touched before timing
			}
			rnd, sink := uint64(0x9E3779B97F4A7C15), uint64(0)
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				rnd ^= rnd << 13
				rnd ^= rnd >> 7
				rnd ^= rnd << 17
				// The next address waits for this load (sink's low bit).
				sink += mem[(rnd^sink&1)&(lines-1)][0]
			}
			tmFloorSink = sink
		})
	}
}

var tmFloorSink uint64
