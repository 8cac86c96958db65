// Package tensormap is the specification of a TensorMap: the dependency
// tracker of a task runtime, which records which task produced which region
// of which storage and answers, for a task about to read a region, which
// earlier live tasks it must wait for. It holds the contract (Map, Config, the
// sentinel errors), the reference model (Model) that every implementation in
// impl/tensormap is checked against, and the op vocabulary (Op, Result) that
// properties, fuzz targets and traces share.
//
// It models the TensorMap of seeds/tensormap-overlap.md. A region is a
// strided view (overlap.View) of a storage; two regions depend on each other
// when they are views of the same storage and touch a common byte. The model
// is a list of live (storage, view, task) entries in insertion order, searched
// from the newest, with overlap decided by the overlap model's brute force.
//
// # Decisions where the seed and DESIGN.md are silent
//
// TooHard is a dependency. A solver may give up (overlap.TooHard); a map
// must then report a dependency, since a missed dependency is a data race and
// a spurious one only costs parallelism. So does a solver error on views the
// map has already validated. The model's default solver, BruteForce, is exact
// for views within overlap.MaxTouches and for views whose byte bounds are
// disjoint, and answers TooHard otherwise, so it is conservative there. Model
// and implementation therefore agree exactly on every pair both decide: views
// within overlap.MaxTouches that the implementation's exact solver decides
// within its work cap. Beyond MaxTouches they may differ, and only in the
// model's direction (a dependency where an exact solver sees none), for pairs
// whose byte bounds meet. The differential property draws views that both
// always decide: mostly a few dozen bytes touched, ranks 0 to 8, and in its
// large runs views of kilobytes with few elements, for which it gives the
// model an exact solver that lists elements instead of bytes. A separate
// property (tensormaptest.CheckTooHardIsDependency) injects a solver that answers
// TooHard for disjoint pairs, into model and implementation alike, to prove
// that the implementation counts TooHard as a dependency. A solver must
// be exact when the views' byte bounds are disjoint (every sound one is):
// implementations may skip it there, and where the views share their lowest
// or highest byte (they overlap: every sound solver answers Yes). Neither
// the model nor an implementation asks it about an empty view, which
// overlaps nothing whatever a solver would answer.
//
// Capacity is counted in live entries. A ring pool of Capacity slots with
// tasks arriving in order is full exactly when Capacity entries are live: its
// oldest slot then holds a live entry, and evicting it would lose a
// dependency, so the Insert fails with ErrPoolExhausted and changes nothing.
// An entry with an empty view takes a slot like any other (the runtime
// recorded the write), though it overlaps nothing.
//
// Order. Insert requires its task to be at or above the last inserted task
// (equal ids are one task writing several outputs) and at or above the
// retire threshold (a retired task writes nothing more); otherwise
// ErrOutOfOrder. Retire(t) sets the threshold to t: tasks below t are no
// longer live. t may run ahead of the last inserted task; a t below the
// current threshold is refused with ErrOutOfOrder rather than ignored,
// because lowering the threshold would revive entries an implementation has
// already dropped. Retire(threshold) is a no-op.
//
// Lookup returns the newest live task among the entries that overlap; when
// that task wrote several overlapping entries any of them will do: the task
// is the answer. LookupAll lists each such task once, newest first; with
// more than limit of them it returns the newest limit and ErrLimit, never a
// silently shortened list. A limit below 1 is ErrInvalidLimit.
//
// Validation. Storage 0 is null (ErrNullStorage). Views are validated by
// overlap.View.Validate (errors wrap overlap.ErrInvalidView); an empty view
// is valid and overlaps nothing. Checks run in that order: storage, view,
// then order and capacity for Insert, limit for LookupAll. Every failed call
// leaves the map as it was. Views are copied on Insert.
//
// Concurrency: none. The runtime's orchestrator submits tasks from one
// goroutine, and the seed's TensorMap takes no locks; neither does any
// implementation here.
package tensormap
