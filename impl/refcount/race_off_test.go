//go:build !race

package refcount_test

const raceEnabled = false
