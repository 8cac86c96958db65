// Package draw holds the few drawing helpers every domain's generators share,
// chosen so that a counterexample shrinks to the simplest case.
//
// rapid shrinks every draw toward its minimum. A rare branch written as
// `rapid.IntRange(0, k).Draw(t, l) == 0` is therefore switched *on* by
// shrinking: a failure found without a burst, a fault or a Close is reported
// with one in every step that drew it. Rarely puts the rare branch at the top
// of the range instead, so that shrinking switches it off and the shrunk trace
// keeps a rare step only where the failure needs it.
package draw

import "pgregory.net/rapid"

// Rarely reports true about once in n draws (n ≥ 2), and shrinks to false.
func Rarely(t *rapid.T, n int, label string) bool {
	return rapid.IntRange(1, n).Draw(t, label) == n
}

// Often reports true except about once in n draws (n ≥ 2), and shrinks to
// true: the common branch is the simplest one.
func Often(t *rapid.T, n int, label string) bool {
	return !Rarely(t, n, label)
}
