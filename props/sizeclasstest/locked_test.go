package sizeclasstest_test

import (
	"sync"
	"testing"

	spec "github.com/memverify/memverify/model/sizeclass"
	"github.com/memverify/memverify/props/sizeclasstest"
)

// The concurrent properties hold of the simplest implementation that is
// safe for concurrent use: the reference model behind one lock. Run under
// -race, this also checks that the properties share nothing unguarded
// between their own goroutines.

type lockedPool struct {
	mu sync.Mutex
	m  *spec.Model
}

func (p *lockedPool) Alloc(n int64) (spec.Addr, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Alloc(n)
}

func (p *lockedPool) Free(a spec.Addr) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Free(a)
}

func (p *lockedPool) SetPinned(on bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.SetPinned(on)
}

func (p *lockedPool) Trim() (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Trim()
}

func (p *lockedPool) Stats() spec.Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Stats()
}

func (p *lockedPool) Blocks() []spec.Block {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Blocks()
}

func (p *lockedPool) Close() ([]spec.Block, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m.Close()
}

func newLockedPool(d spec.Device, c spec.Config) (spec.Pool, error) {
	m, err := spec.NewModel(d, c)
	return &lockedPool{m: m}, err
}

type lockedStreams struct {
	mu sync.Mutex
	m  *spec.StreamModel
}

func (a *lockedStreams) Alloc(s spec.Stream, n int64) (spec.Addr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Alloc(s, n)
}

func (a *lockedStreams) Free(s spec.Stream, p spec.Addr) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Free(s, p)
}

func (a *lockedStreams) Synchronize(s spec.Stream) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Synchronize(s)
}

func (a *lockedStreams) Trim() (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Trim()
}

func (a *lockedStreams) Blocks() []spec.StreamBlock {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Blocks()
}

func (a *lockedStreams) Close() ([]spec.StreamBlock, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.m.Close()
}

func newLockedStreams(d spec.Device, c spec.Config) (spec.StreamAllocator, error) {
	m, err := spec.NewStreamModel(d, c)
	return &lockedStreams{m: m}, err
}

type lockedDeferred struct {
	mu sync.Mutex
	m  *spec.DeferredModel
}

func (d *lockedDeferred) Alloc(n int64) (spec.Addr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m.Alloc(n)
}

func (d *lockedDeferred) Free(ctx spec.Context, p spec.Addr) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m.Free(ctx, p)
}

func (d *lockedDeferred) GC() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m.GC()
}

func (d *lockedDeferred) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m.Pending()
}

func (d *lockedDeferred) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m.Close()
}

func newLockedDeferred(dev spec.Device, owner spec.Context) spec.DeferredAllocator {
	return &lockedDeferred{m: spec.NewDeferredModel(dev, owner)}
}

func TestConcurrentPropertiesHoldOfALockedModel(t *testing.T) {
	t.Run("Concurrent", func(t *testing.T) { sizeclasstest.CheckConcurrent(t, newLockedPool) })
	t.Run("Exclusive", func(t *testing.T) { sizeclasstest.CheckExclusive(t, newLockedPool) })
	t.Run("DoubleFreeRace", func(t *testing.T) { sizeclasstest.CheckDoubleFreeRace(t, newLockedPool) })
	t.Run("Linearizable", func(t *testing.T) { sizeclasstest.CheckLinearizable(t, newLockedPool) })
	t.Run("CloseRace", func(t *testing.T) { sizeclasstest.CheckCloseRace(t, newLockedPool) })
	t.Run("PinnedTrimRace", func(t *testing.T) { sizeclasstest.CheckPinnedTrimRace(t, newLockedPool) })
	t.Run("FreeRacingAlloc", func(t *testing.T) { sizeclasstest.CheckFreeRacingAlloc(t, newLockedPool) })
	t.Run("StreamsFreeRacingAlloc", func(t *testing.T) { sizeclasstest.CheckStreamsFreeRacingAlloc(t, newLockedStreams) })
	t.Run("StreamConcurrent", func(t *testing.T) { sizeclasstest.CheckStreamConcurrent(t, newLockedStreams) })
	t.Run("DeferredConcurrent", func(t *testing.T) { sizeclasstest.CheckDeferredConcurrent(t, newLockedDeferred) })
}
