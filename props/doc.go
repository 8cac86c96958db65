// Package props holds the property suites of memverify: one exported Check
// function per property, each parameterised by a factory so that it runs
// against the reference model, against every implementation in impl/, and
// against a user's own implementation of the same interface:
//
//	func TestMine(t *testing.T) {
//		props.CheckRegistry(t, func(f spec.Freer) spec.Registry { return mine.New(f) })
//	}
//
// Properties take a rapid.TB, so *testing.T works, and so does cmd/verify's
// runner outside go test. A failing property reports the shrunk op trace, one
// numbered call a line, followed by how to reproduce it.
//
// Kinds of property, cheapest first: rapid state machines that apply generated
// ops to the model and the implementation and compare results, errors and
// state after every op; parallel runs on disjoint objects diffed against the
// model; short racy histories checked for linearizability (internal/linear);
// targeted races (the last references of a buffer dropped at once). Which
// implementations each property runs against is wired in internal/catalog.
package props
