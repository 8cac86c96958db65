//go:build race

package sizeclasstest_test

// The race detector slows every step tenfold, and shrinking takes thousands
// of them: the shrink bounds are measured, and hold, without it.
func init() { raceDetector = true }
