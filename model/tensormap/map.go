package tensormap

import (
	"errors"

	"github.com/memverify/memverify/model/overlap"
)

// Storage names one storage (the base of one allocation). Views of different
// storages never overlap. 0 is null and never a valid storage.
type Storage uint64

// Task is a task id. Ids are handed out in submission order, so a map sees
// them non-decreasing.
type Task uint64

// MaxCapacity is the largest Config.Capacity. An implementation may set its
// pool up front (Ring does, about 44 bytes an entry): a valid configuration
// must be one a machine can hold, which 2^24 entries (some 700 MB) is, and
// 2^30 (some 44 GB) is not.
const MaxCapacity = 1 << 24

// Config is the contract-level configuration shared by the model and every
// implementation.
type Config struct {
	// Capacity is the most live entries the map holds: an Insert that would
	// make it hold more fails with ErrPoolExhausted. 1 ≤ Capacity ≤ MaxCapacity.
	Capacity int
	// Solver answers overlap questions, called as Solver(recorded, queried).
	// It must be pure: the same pair always gets the same answer. No means
	// independent; Yes and TooHard (the solver gave up) both mean "depend",
	// and so does an error on views the map has already validated. nil
	// selects the map's own default (BruteForce for Model, the exact solver
	// for implementations).
	Solver overlap.Checker
}

// Sentinel errors. Implementations return these, wrapped with detail;
// callers test them with errors.Is. An invalid view is reported with
// overlap.ErrInvalidView.
var (
	// ErrNullStorage: storage 0 was passed.
	ErrNullStorage = errors.New("tensormap: null storage")
	// ErrOutOfOrder: an Insert whose task is below the last inserted task or
	// below the retire threshold, or a Retire below the current threshold.
	ErrOutOfOrder = errors.New("tensormap: task id out of order")
	// ErrPoolExhausted: the map already holds Capacity live entries. No live
	// entry is ever evicted to make room: that would lose a dependency.
	ErrPoolExhausted = errors.New("tensormap: entry pool full of live entries")
	// ErrLimit: LookupAll found more distinct producers than its limit. The
	// newest limit producers are returned along with it.
	ErrLimit = errors.New("tensormap: more producers than the limit")
	// ErrInvalidLimit: a LookupAll limit below 1.
	ErrInvalidLimit = errors.New("tensormap: invalid limit")
	// ErrInvalidConfig: a Capacity outside [1, MaxCapacity].
	ErrInvalidConfig = errors.New("tensormap: invalid config")
)

// Map records which task produced which region of which storage, and answers
// which live producers a new reader depends on. Implementations need not be
// safe for concurrent use: the runtime's orchestrator is one goroutine.
type Map interface {
	// Insert records that task wrote view of storage. Tasks must come
	// non-decreasing and at or above the retire threshold (ErrOutOfOrder).
	// The view is copied.
	Insert(storage Storage, view overlap.View, task Task) error
	// Lookup returns the newest live task whose recorded view of storage
	// overlaps view (any of them when several entries share that task), and
	// whether there is one.
	Lookup(storage Storage, view overlap.View) (Task, bool, error)
	// LookupAll returns every distinct live task with a recorded view of
	// storage that overlaps view, newest first. When there are more than
	// limit, it returns the newest limit of them and ErrLimit.
	LookupAll(storage Storage, view overlap.View, limit int) ([]Task, error)
	// Retire makes every task below t no longer live: its entries are never
	// returned again and their room may be reused. t must not be below the
	// current threshold (ErrOutOfOrder); the threshold starts at 0.
	Retire(t Task) error
	// Len returns the number of live entries.
	Len() int
}
