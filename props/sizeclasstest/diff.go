package sizeclasstest

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	spec "github.com/memverify/memverify/model/sizeclass"
)

// PoolFactory builds the Pool under test over a device and a configuration.
// It may refuse a configuration it does not support by returning an error
// (the property then fails: the error is part of the contract).
type PoolFactory func(dev spec.Device, cfg spec.Config) (spec.Pool, error)

// PoolDiff runs ops against the reference model and a pool under test, each
// over its own SimDevice, and compares them after every op: the result and
// error, Stats, the block dump, the device's calls and live blocks; then it
// checks the pool's invariants. Because the simulators hand out addresses as a
// function of the malloc sequence, both sides see the same addresses.
//
// Where the contract lets the pool choose which cached block to hand out, the
// diff checks that the block it chose is one the model allows (see
// Model.Candidates) and makes the model take the same block.
type PoolDiff struct {
	Model    *spec.Model
	Impl     spec.Pool
	ModelDev *spec.SimDevice
	ImplDev  *spec.SimDevice
	tr       trace.Trace
	frozen   map[spec.Addr]bool // every block seen frozen
	closed   bool
}

// NewPoolDiff builds the model and factory's pool over two simulated devices
// of the given capacity.
func NewPoolDiff(factory PoolFactory, cfg spec.Config, capacity int64) (*PoolDiff, error) {
	d := &PoolDiff{ModelDev: spec.NewSimDevice(capacity), ImplDev: spec.NewSimDevice(capacity), frozen: map[spec.Addr]bool{}}
	var err error
	if d.Model, err = spec.NewModel(d.ModelDev, cfg); err != nil {
		return nil, err
	}
	if d.Impl, err = factory(d.ImplDev, cfg); err != nil {
		return nil, fmt.Errorf("factory refused %+v: %w", cfg, err)
	}
	return d, nil
}

// Trace returns the ops applied so far with the pool's outcomes.
func (d *PoolDiff) Trace() *trace.Trace { return &d.tr }

// Step applies op to both sides and compares them. It returns the pool's
// result, and an error that says what differs or which invariant broke (the
// trace holds the ops).
func (d *PoolDiff) Step(op spec.Op) (got spec.Result, err error) {
	op.Fault.Inject(d.ModelDev)
	op.Fault.Inject(d.ImplDev)
	defer d.ModelDev.ClearFaults()
	defer d.ImplDev.ClearFaults()

	var allowed []spec.Addr
	if op.Kind == spec.OpAlloc {
		allowed, _ = d.Model.Candidates(op.N)
	}
	got = op.Apply(d.Impl)
	d.tr.Add(op, got)
	if len(allowed) > 0 && got.Err == "" && slices.Contains(allowed, got.Addr) {
		if _, err := d.Model.AllocFrom(op.N, got.Addr); err != nil {
			return got, fmt.Errorf("model refused the pool's pick %v: %v", got.Addr, err)
		}
	} else if want := op.Apply(d.Model); got != want {
		if len(allowed) > 0 && got.Err == "" {
			return got, fmt.Errorf("%v returned %v; the cached blocks it may hand out are %v", op, got, allowed)
		}
		return got, fmt.Errorf("%v returned %v, the model %v", op, got, want)
	}
	if op.Kind == spec.OpClose {
		d.closed = true // also when a device free failed: Close still closes
	}
	if err := CheckPoolInvariants(d.Impl, d.ImplDev, d.frozen, d.closed); err != nil {
		return got, err
	}
	return got, d.compareState()
}

func (d *PoolDiff) compareState() error {
	if got, want := d.Impl.Stats(), d.Model.Stats(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("Stats = %+v, the model %+v", got, want)
	}
	if got, want := d.Impl.Blocks(), d.Model.Blocks(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("Blocks = %v, the model %v", got, want)
	}
	if got, want := d.ImplDev.Stats(), d.ModelDev.Stats(); got != want {
		return fmt.Errorf("device calls %+v, the model's %+v", got, want)
	}
	if got, want := d.ImplDev.Live(), d.ModelDev.Live(); !slices.Equal(got, want) {
		return fmt.Errorf("device holds %v, the model's %v", got, want)
	}
	return nil
}

// CheckPoolInvariants checks what must hold of any pool between calls, with
// no model: every free block is in exactly one cache and no block in use is
// in any; every block in frozen (addresses seen frozen before, updated here)
// is still held and still frozen; the bytes of the blocks equal Stats.Reserved
// and the device's live bytes, and the blocks are exactly the device's live
// blocks; the device saw no double free or unknown free; after Close the
// device holds nothing.
func CheckPoolInvariants(p spec.Pool, dev *spec.SimDevice, frozen map[spec.Addr]bool, closed bool) error {
	if v := dev.Violations(); len(v) > 0 {
		return fmt.Errorf("device misuse: %v", v)
	}
	if closed {
		if live := dev.Live(); len(live) > 0 {
			return fmt.Errorf("leak: the device still holds %v after Close", live)
		}
		return nil
	}
	blocks := p.Blocks()
	held := map[spec.Addr]bool{}
	var sum int64
	addrs := make([]spec.Addr, 0, len(blocks))
	for _, b := range blocks {
		held[b.Addr] = true
		addrs = append(addrs, b.Addr)
		sum += b.Size
		switch {
		case b.Cached > 1:
			return fmt.Errorf("block %v is listed %d times in the caches", b.Addr, b.Cached)
		case b.InUse && b.Cached != 0:
			return fmt.Errorf("block %v is in use and cached", b.Addr)
		case !b.InUse && b.Cached != 1:
			return fmt.Errorf("block %v is free but in no cache", b.Addr)
		}
		if frozen[b.Addr] && !b.Frozen {
			return fmt.Errorf("block %v was frozen and is no longer", b.Addr)
		}
		if b.Frozen {
			frozen[b.Addr] = true
		}
	}
	for a := range frozen {
		if !held[a] {
			return fmt.Errorf("frozen block %v was returned to the device", a)
		}
	}
	st := p.Stats()
	if st.Reserved != sum || dev.Stats().Used != sum {
		return fmt.Errorf("blocks hold %d bytes, Stats.Reserved %d, the device %d", sum, st.Reserved, dev.Stats().Used)
	}
	if live := dev.Live(); !slices.Equal(live, addrs) {
		return fmt.Errorf("pool holds %v, the device %v", addrs, live)
	}
	return nil
}
