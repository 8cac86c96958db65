// Package tensormaptest checks a tensor map: the index a runtime keeps of
// which task produced which region of which storage, to find the producers
// a new task depends on (a tensormap.Map). Point its Check functions at your
// own map, built by a MapFactory from the configuration the property draws:
//
//	func TestMine(t *testing.T) {
//		tensormaptest.CheckStateMachine(t, func(cfg tensormap.Config) (tensormap.Map, error) {
//			return mine.New(cfg)
//		})
//	}
//
// Each Check function is one property, named as the suite that runs it
// (tensormap/<Property>/impl=<Impl>, see `go run ./cmd/verify list`). Both
// take a MapFactory:
//
//	CheckStateMachine         every call agrees with the model, and no live producer is ever lost
//	CheckTooHardIsDependency  a solver's TooHard, or its error, counts as a dependency
//
// Both are sequential: the Map contract asks for no safety under concurrent
// use (a runtime's orchestrator is one goroutine), so there are no
// concurrent properties here.
//
// # What the generators draw
//
// A run draws a capacity of 1 to 8 and applies about 30 calls (rapid's
// -rapid.steps) to the model and to the map: Inserts (twice as often as the
// rest, so pools fill up), Lookups, LookupAlls with limits of 0 to 4, and
// Retires. Storages come from a list of five, so views of one storage meet
// often and small hash tables see collisions; the null storage is drawn
// rarely. Views are mostly small and near the start of their storage: a
// repeat of an earlier view (what a consumer reads is what a producer
// wrote), sometimes moved by a few bytes; a contiguous run of elements; a
// strided view of rank 0 to 3 with negative, zero and sub-element strides
// and now and then an empty dim; rarely a view of rank 5 to 8, a sparse
// view spanning more than 2^32 bytes or an element on the far byte of one;
// and about one time in eight an invalid view. Tasks mostly repeat or step
// by one or two and jump now and then; about one Insert in four goes below
// the last task or the retire threshold (ErrOutOfOrder).
//
// One run in ten is large: a capacity of 9 to 64, tensors written tile by
// tile (so that a storage's chain passes 8 entries), and views of kilobytes,
// which the model decides with an exact oracle that costs elements, not
// bytes.
//
// # How a failure prints
//
// A failing property prints what went wrong and the calls made so far, each
// with the result the map under test gave, as an op trace:
//
//	Lookup(0x1000, {off=0 elem=1 shape=[1] strides=[1]}) returned task 0, the model task 1
//	op trace (last step failed):
//	   1  Insert(0x1000, {off=0 elem=1 shape=[1] strides=[1]}, 0) -> ok
//	   2  Insert(0x1000, {off=0 elem=1 shape=[1] strides=[1]}, 1) -> ok
//
// followed by rapid's seed to replay it. When the state check after a call
// fails (Len, or a lookup of a live entry's own view), the last step listed
// is the call before it. Every draw puts its simplest choice at rapid's
// minimum (the first storage, a one-byte view at offset 0, the same task
// again) and its rare branches behind a draw that shrinks to off, so a
// shrunk trace keeps a null storage, an invalid view, an empty dim or an
// out-of-order task only where the failure needs one.
//
// # Budgets
//
// Each property runs rapid's default 100 checks of about 30 calls each. On
// a map with a fast exact solver (this module's Ring) both take well under
// a second; a map whose solver lists bytes, as the model's does, spends a
// few seconds in the large runs.
package tensormaptest
