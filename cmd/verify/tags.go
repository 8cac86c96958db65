package main

import "github.com/memverify/memverify/sched"

// mutantTags are the build tags of the campaign's mutant binary: the seeded
// bugs, and the scheduler, under which the scheduled suites choose their
// interleavings. Without it they would be stress runs, and the concurrency
// bugs, whose seams widen no window, would mostly go unseen.
const mutantTags = "mutants," + sched.Tag

// bugTags are the build tags a command that replays a seeded bug of this
// binary needs: its own (mutantTags in a campaign's child, mutants alone in
// a binary built with -tags mutants).
func bugTags() string {
	if sched.Enabled {
		return mutantTags
	}
	return "mutants"
}
