package tensormaptest

import (
	"errors"

	"github.com/memverify/memverify/model/overlap"
	"pgregory.net/rapid"
)

// CheckTooHardIsDependency checks that a map counts its solver's TooHard,
// and its errors, as a dependency. It runs the calls of CheckStateMachine
// with a solver, passed as Config.Solver to the model and to the factory
// alike (so the map must use the Solver it is given), that gives up on some
// of the pairs of views whose bytes are in fact disjoint although their
// byte bounds intersect (the pairs a real exact solver may give up on):
// with TooHard on about half of them, with an error on an eighth more, and
// with the truth on the rest. The model counts both as a dependency, so a
// map that treats either as independence reports fewer producers and fails.
//
// The solver answers No whenever the bounds are disjoint, as every sound
// solver does, so a map may keep its bounding-box prefilter.
func CheckTooHardIsDependency(t rapid.TB, factory MapFactory) {
	t.Helper()
	rapid.Check(t, func(rt *rapid.T) {
		salt := rapid.Uint64().Draw(rt, "salt")
		newMachine(rt, factory, tooHardChecker(salt)).run(rt)
	})
}

// tooHardChecker returns a pure, symmetric solver: the brute-force truth,
// except that a disjoint pair with intersecting bounds gets TooHard, or an
// error, when a hash of the pair (salted per run) says so.
func tooHardChecker(salt uint64) overlap.Checker {
	hashView := func(v overlap.View) uint64 {
		h := mix64(salt ^ uint64(v.Offset))
		h = mix64(h ^ uint64(v.ElemSize))
		for d := range v.Shape {
			h = mix64(h ^ uint64(v.Shape[d]))
			h = mix64(h ^ uint64(v.Strides[d]))
		}
		return h
	}
	return func(a, b overlap.View) (overlap.Verdict, error) {
		v, err := overlap.Overlap(a, b)
		if err != nil || v != overlap.No {
			return v, err
		}
		alo, ahi, aok := a.Bounds()
		blo, bhi, bok := b.Bounds()
		if !aok || !bok || ahi < blo || bhi < alo {
			return overlap.No, nil
		}
		switch h := hashView(a) ^ hashView(b); {
		case h>>63 == 1:
			return overlap.TooHard, nil
		case h>>60 == 7: // an eighth of the pairs, apart from the TooHard half
			return overlap.TooHard, errSolverGaveUp
		}
		return overlap.No, nil
	}
}

// errSolverGaveUp is tooHardChecker's error, as a solver might report running
// out of its budget.
var errSolverGaveUp = errors.New("solver gave up")

// mix64 is a fixed 64-bit finalizer (splitmix64's): deterministic, so a
// shrunk counterexample replays with the same verdicts.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
