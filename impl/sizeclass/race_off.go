//go:build !race

package sizeclass

// raceEnabled reports a -race build. The race detector does not see the
// happens-before that the scheduler gives two goroutines pinned to one P in
// turn, so in a -race build per-P data is guarded by a mutex or atomics
// instead of the pin alone (see Sharded and LockFree).
const raceEnabled = false
