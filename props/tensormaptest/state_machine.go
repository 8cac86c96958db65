package tensormaptest

import "pgregory.net/rapid"

// CheckStateMachine checks a map against the model, call by call. rapid
// generates sequences of Insert, Lookup, LookupAll and Retire calls, valid
// and invalid (out-of-order tasks, a full pool, small LookupAll limits, null
// storages, invalid and empty views), on a map of a drawn capacity built by
// factory with its default solver. Each call goes to the model and to the
// map, and every result and error must agree. After every call the property
// compares Len and checks that no live producer is lost: for every live
// entry, Lookup and LookupAll of its own view (with a limit that cannot be
// reached, and with a limit of 1) must agree with the model and name its
// task or a newer one. A mismatch fails t with the shrunk op trace.
//
// Views are small (a few dozen bytes within the first hundred of a
// storage), so the model's brute force is exact and an exact solver never
// gives up; CheckTooHardIsDependency covers TooHard. One run in ten is
// large: a capacity of 9 to 64, tensors written tile by tile, and views of
// kilobytes, which the model decides with an exact oracle that lists
// elements, not bytes; the map keeps its own solver, or, half the time, is
// given that oracle as its Solver.
func CheckStateMachine(t rapid.TB, factory MapFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) { newMachine(rt, factory, nil).run(rt) })
}
