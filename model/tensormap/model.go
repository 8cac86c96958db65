package tensormap

import (
	"errors"
	"fmt"
	"slices"

	"github.com/memverify/memverify/model/overlap"
)

// Model is the reference TensorMap: a list of live entries in insertion
// order, searched from the newest. It is not safe for concurrent use.
type Model struct {
	capacity  int
	solver    overlap.Checker
	entries   []modelEntry // live entries, oldest first
	threshold Task         // tasks below it are retired
	last      Task         // the last inserted task, valid when inserted
	inserted  bool
}

type modelEntry struct {
	storage Storage
	view    overlap.View
	task    Task
}

var (
	_ Map             = (*Model)(nil)
	_ overlap.Checker = BruteForce
)

// New returns an empty model. cfg.Solver nil selects BruteForce.
func New(cfg Config) (*Model, error) {
	if cfg.Capacity < 1 || cfg.Capacity > MaxCapacity {
		return nil, fmt.Errorf("%w: capacity %d", ErrInvalidConfig, cfg.Capacity)
	}
	s := cfg.Solver
	if s == nil {
		s = BruteForce
	}
	return &Model{capacity: cfg.Capacity, solver: s}, nil
}

// Insert implements Map.
func (m *Model) Insert(storage Storage, view overlap.View, task Task) error {
	if err := checkArgs(storage, view); err != nil {
		return err
	}
	if m.inserted && task < m.last {
		return fmt.Errorf("%w: task %d after task %d", ErrOutOfOrder, task, m.last)
	}
	if task < m.threshold {
		return fmt.Errorf("%w: task %d is below the retire threshold %d", ErrOutOfOrder, task, m.threshold)
	}
	if len(m.entries) == m.capacity {
		return fmt.Errorf("%w: %d live entries", ErrPoolExhausted, len(m.entries))
	}
	m.entries = append(m.entries, modelEntry{storage, CloneView(view), task})
	m.last, m.inserted = task, true
	return nil
}

// Lookup implements Map.
func (m *Model) Lookup(storage Storage, view overlap.View) (Task, bool, error) {
	if err := checkArgs(storage, view); err != nil {
		return 0, false, err
	}
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.depends(m.entries[i], storage, view) {
			return m.entries[i].task, true, nil
		}
	}
	return 0, false, nil
}

// LookupAll implements Map.
func (m *Model) LookupAll(storage Storage, view overlap.View, limit int) ([]Task, error) {
	if err := checkArgs(storage, view); err != nil {
		return nil, err
	}
	if limit < 1 {
		return nil, fmt.Errorf("%w: %d", ErrInvalidLimit, limit)
	}
	var all []Task
	for i := len(m.entries) - 1; i >= 0; i-- {
		e := m.entries[i]
		if m.depends(e, storage, view) && !slices.Contains(all, e.task) {
			all = append(all, e.task)
		}
	}
	// Entries are kept in insertion order and tasks come non-decreasing, so
	// walking from the end lists producers newest first.
	if len(all) > limit {
		return all[:limit], fmt.Errorf("%w: more than %d producers", ErrLimit, limit)
	}
	return all, nil
}

// Retire implements Map.
func (m *Model) Retire(t Task) error {
	if t < m.threshold {
		return fmt.Errorf("%w: retire %d below the threshold %d", ErrOutOfOrder, t, m.threshold)
	}
	m.threshold = t
	m.entries = slices.DeleteFunc(m.entries, func(e modelEntry) bool { return e.task < t })
	return nil
}

// Len implements Map.
func (m *Model) Len() int { return len(m.entries) }

// depends reports whether a reader of view in storage depends on entry e:
// same storage, neither view empty, and the solver does not answer a clean
// No. An empty view overlaps nothing; a conservative solver (TooHard where it
// cannot prove the bounds disjoint, and an empty view has no bounds) must not
// turn it into a dependency.
func (m *Model) depends(e modelEntry, storage Storage, view overlap.View) bool {
	if e.storage != storage || e.view.Empty() || view.Empty() {
		return false
	}
	v, err := m.solver(e.view, view)
	return err != nil || v != overlap.No
}

// checkArgs validates the arguments every operation but Retire shares.
func checkArgs(storage Storage, view overlap.View) error {
	if storage == 0 {
		return ErrNullStorage
	}
	return view.Validate()
}

// BruteForce is the model's default Checker: the overlap model, which decides
// by enumerating touched bytes. Views beyond its size cap get TooHard, which
// counts as a dependency, unless their byte bounds are disjoint: the
// contract asks every solver to be exact there, and that needs no
// enumeration.
func BruteForce(a, b overlap.View) (overlap.Verdict, error) {
	alo, ahi, aok := a.Bounds() // last bytes included; false if invalid or empty
	blo, bhi, bok := b.Bounds()
	if aok && bok && (ahi < blo || bhi < alo) {
		return overlap.No, nil
	}
	v, err := overlap.Overlap(a, b)
	if errors.Is(err, overlap.ErrTooLarge) {
		return overlap.TooHard, nil
	}
	return v, err
}

// CloneView returns a copy of v that shares no memory with it.
func CloneView(v overlap.View) overlap.View {
	v.Shape = slices.Clone(v.Shape)
	v.Strides = slices.Clone(v.Strides)
	return v
}
