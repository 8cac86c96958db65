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
// checks the pool's invariants. Because the simulators hand out addresses as
// a function of the malloc sequence, both sides see the same addresses.
// CheckStateMachine drives one with drawn ops; the fuzz targets drive one
// with decoded bytes.
//
// Where the contract lets the pool choose which cached block to hand out, the
// diff checks that the block it chose is one the model allows (see
// Model.Candidates) and makes the model take the same block.
type PoolDiff struct {
	model    *spec.Model
	impl     spec.Pool
	modelDev *spec.SimDevice
	implDev  *spec.SimDevice
	tr       trace.Trace
	frozen   map[spec.Addr]bool // every block seen frozen
	closed   bool
}

// NewPoolDiff builds the model and factory's pool over two simulated devices
// of the given capacity. A configuration the model refuses is
// ErrInvalidConfig; one the factory refuses is reported with its error.
func NewPoolDiff(factory PoolFactory, cfg spec.Config, capacity int64) (*PoolDiff, error) {
	d := &PoolDiff{modelDev: spec.NewSimDevice(capacity), implDev: spec.NewSimDevice(capacity), frozen: map[spec.Addr]bool{}}
	var err error
	if d.model, err = spec.NewModel(d.modelDev, cfg); err != nil {
		return nil, err
	}
	if d.impl, err = factory(d.implDev, cfg); err != nil {
		return nil, fmt.Errorf("factory refused %+v: %w", cfg, err)
	}
	return d, nil
}

// Trace returns the ops applied so far with the pool's outcomes, one
// numbered line each: the listing a failure prints.
func (d *PoolDiff) Trace() string { return d.tr.String() }

// Step applies op to both sides and compares them. It returns the pool's
// result, and an error that says what differs or which invariant broke (the
// trace holds the ops).
func (d *PoolDiff) Step(op spec.Op) (got spec.Result, err error) {
	op.Fault.Inject(d.modelDev)
	op.Fault.Inject(d.implDev)
	defer d.modelDev.ClearFaults()
	defer d.implDev.ClearFaults()

	var allowed []spec.Addr
	if op.Kind == spec.OpAlloc {
		allowed, _ = d.model.Candidates(op.N)
	}
	got = op.Apply(d.impl)
	d.tr.Add(op, got)
	if len(allowed) > 0 && got.Err == "" && slices.Contains(allowed, got.Addr) {
		if _, err := d.model.AllocFrom(op.N, got.Addr); err != nil {
			return got, fmt.Errorf("model refused the pool's pick %v: %v", got.Addr, err)
		}
	} else if want := op.Apply(d.model); got != want {
		if len(allowed) > 0 && got.Err == "" {
			return got, fmt.Errorf("%v returned %v; the cached blocks it may hand out are %v", op, got, allowed)
		}
		return got, fmt.Errorf("%v returned %v, the model %v", op, got, want)
	}
	if op.Kind == spec.OpClose {
		d.closed = true // also when a device free failed: Close still closes
	}
	if err := checkPoolInvariants(d.impl, d.implDev, d.frozen, d.closed); err != nil {
		return got, err
	}
	return got, d.compareState()
}

// failure is the message of a failed Step: what went wrong, then the trace.
func (d *PoolDiff) failure(err error) string {
	return trace.Failure(err.Error(), &d.tr, "")
}

func (d *PoolDiff) compareState() error {
	if got, want := d.impl.Stats(), d.model.Stats(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("Stats = %+v, the model %+v", got, want)
	}
	if got, want := d.impl.Blocks(), d.model.Blocks(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("Blocks = %v, the model %v", got, want)
	}
	if got, want := d.implDev.Stats(), d.modelDev.Stats(); got != want {
		return fmt.Errorf("device calls %+v, the model's %+v", got, want)
	}
	if got, want := d.implDev.Live(), d.modelDev.Live(); !slices.Equal(got, want) {
		return fmt.Errorf("device holds %v, the model's %v", got, want)
	}
	return nil
}
