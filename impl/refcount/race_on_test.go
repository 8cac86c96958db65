//go:build race

package refcount_test

// raceEnabled: the race detector slows every atomic access; the long random
// tests shorten themselves under it.
const raceEnabled = true
