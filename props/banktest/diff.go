package banktest

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/memverify/memverify/internal/trace"
	"github.com/memverify/memverify/model/bank"
)

// FreeListFactory builds the free list under test for a configuration. It may
// refuse a configuration it cannot serve with an error; the properties only
// pass valid ones and treat a refusal as a failure.
type FreeListFactory func(bank.Config) (bank.FreeList, error)

// BanksFactory builds the banks under test for a configuration.
type BanksFactory func(bank.BanksConfig) (bank.Banks, error)

// FreeListDiff runs ops against the model and an implementation in lock step
// and reports the first disagreement: results compare exactly (the contract
// fixes the address for both policies), then Blocks, Stats and State, then the
// invariants of the implementation. The state machines and the fuzz targets
// share it.
type FreeListDiff struct {
	Model *bank.Model   // the reference: draw the next op from its state
	Impl  bank.FreeList // the list under test: change it only through Apply
	cfg   bank.Config
	lockstep
}

// NewFreeListDiff returns a diff of a fresh model against factory's free list.
func NewFreeListDiff(cfg bank.Config, factory FreeListFactory) (*FreeListDiff, error) {
	m, err := bank.NewModel(cfg)
	if err != nil {
		return nil, err
	}
	impl, err := factory(cfg)
	if err != nil {
		return nil, fmt.Errorf("factory refused the valid configuration %+v: %v", cfg, err)
	}
	d := &FreeListDiff{Model: m, Impl: impl, cfg: cfg}
	return d, d.compare("NewFreeList")
}

// Apply applies op to both free lists and compares everything observable.
func (d *FreeListDiff) Apply(op bank.Op) error {
	want := op.Apply(d.Model)
	return d.step(op, op.Apply(d.Impl), want, d.compare)
}

// compare checks the implementation's dump, statistics and state against the
// model's, and the implementation's invariants.
func (d *FreeListDiff) compare(after string) error {
	wb, gb := d.Model.Blocks(), d.Impl.Blocks()
	if !slices.Equal(wb, gb) {
		return d.Fail("after %s Blocks() = %v, the model %v", after, gb, wb)
	}
	if ws, gs := d.Model.Stats(), d.Impl.Stats(); ws != gs {
		return d.Fail("after %s Stats() = %+v, the model %+v", after, gs, ws)
	}
	if ws, gs := d.Model.State(), d.Impl.State(); !stateEqual(ws, gs) {
		return d.Fail("after %s State() = %v, the model %v", after, gs, ws)
	}
	if err := FreeListInvariants(d.cfg, gb, d.Impl.Stats()); err != nil {
		return d.Fail("after %s: %v", after, err)
	}
	return nil
}

// FreeAll frees every live allocation, comparing after each free, and checks
// that one free block over the whole range is left.
func (d *FreeListDiff) FreeAll() error {
	for _, r := range d.Model.State().Allocations {
		if err := d.Apply(bank.Op{Kind: bank.OpFree, Addr: r.Addr}); err != nil {
			return err
		}
	}
	want := []bank.Block{{Addr: d.cfg.Offset, Size: d.cfg.Size}}
	if got := d.Impl.Blocks(); !slices.Equal(got, want) {
		return d.Fail("after freeing everything Blocks() = %v, want one free block %v", got, want)
	}
	return nil
}

// stateEqual reports whether two states are the same: configuration and
// allocations (a nil and an empty allocation list are the same).
func stateEqual(a, b bank.State) bool {
	return a.Offset == b.Offset && a.Size == b.Size && a.Alignment == b.Alignment &&
		a.MinAllocation == b.MinAllocation && slices.Equal(a.Allocations, b.Allocations)
}

// BanksDiff is FreeListDiff for Banks: results, Buffers, Stats and Blocks
// compare exactly after every op, and the implementation's block invariants
// hold.
type BanksDiff struct {
	Model *bank.BanksModel // the reference: draw the next op from its state
	Impl  bank.Banks       // the banks under test: change them only through Apply
	cfg   bank.BanksConfig
	lockstep
}

// NewBanksDiff returns a diff of fresh model banks against factory's banks.
func NewBanksDiff(cfg bank.BanksConfig, factory BanksFactory) (*BanksDiff, error) {
	m, err := bank.NewBanksModel(cfg)
	if err != nil {
		return nil, err
	}
	impl, err := factory(cfg)
	if err != nil {
		return nil, fmt.Errorf("factory refused the valid configuration %+v: %v", cfg, err)
	}
	d := &BanksDiff{Model: m, Impl: impl, cfg: cfg}
	return d, d.compare("NewBanks")
}

// Apply applies op to both and compares everything observable.
func (d *BanksDiff) Apply(op bank.BanksOp) error {
	want := op.Apply(d.Model)
	return d.step(op, op.Apply(d.Impl), want, d.compare)
}

// compare checks buffers, statistics and blocks against the model.
func (d *BanksDiff) compare(after string) error {
	if wb, gb := d.Model.Buffers(), d.Impl.Buffers(); !reflect.DeepEqual(wb, gb) && len(wb)+len(gb) > 0 {
		return d.Fail("after %s Buffers() = %+v, the model %+v", after, gb, wb)
	}
	if ws, gs := d.Model.Stats(), d.Impl.Stats(); ws != gs {
		return d.Fail("after %s Stats() = %+v, the model %+v", after, gs, ws)
	}
	wb, gb := d.Model.Blocks(), d.Impl.Blocks()
	if !slices.Equal(wb, gb) {
		return d.Fail("after %s Blocks() = %v, the model %v", after, gb, wb)
	}
	if err := FreeListInvariants(d.cfg.List, gb, d.Impl.Stats()); err != nil {
		return d.Fail("after %s: %v", after, err)
	}
	return nil
}

// lockstep is what the two diffs share: the ops applied so far, with the
// implementation's results, and the rule of one step.
type lockstep struct{ tr trace.Trace }

// Fail formats a failure: what went wrong, then the ops applied so far with
// the implementation's results (the last is the one that went wrong).
func (l *lockstep) Fail(format string, args ...any) error {
	return fmt.Errorf("%s", trace.Failure(fmt.Sprintf(format, args...), &l.tr, ""))
}

// step records op and the implementation's result got; a result unlike the
// model's want fails, else compare checks the rest of what is observable.
func (l *lockstep) step(op fmt.Stringer, got, want any, compare func(after string) error) error {
	l.tr.Add(op, got)
	if got != want {
		return l.Fail("%v returned %v, the model %v", op, got, want)
	}
	return compare(op.String())
}
