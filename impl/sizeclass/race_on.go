//go:build race

package sizeclass

// raceEnabled reports a -race build; see race_off.go.
const raceEnabled = true
