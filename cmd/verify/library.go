package main

import (
	"fmt"
	"os"
)

// loadLibrary opens the -lib library and sets o.library to its suites, before
// any work starts, so that a library that does not load, exports no table
// or speaks another ABI version is refused at once. It returns an exit code
// ≥ 0 when the command is to end.
func loadLibrary(o *options) int {
	switch {
	case o.impl != "":
		fmt.Fprintln(os.Stderr, "verify run: -lib runs the library's implementation: -impl selects none of ours with it")
		return 2
	case o.shard != "":
		fmt.Fprintln(os.Stderr, "verify run: -lib runs on one machine: -shard deals only the suites of the implementations here")
		return 2
	}
	found, skipped, err := librarySuites(o.lib, o.domain, o.property)
	if err != nil {
		fmt.Fprintf(os.Stderr, "verify run: -lib %s: %v\n", o.lib, err)
		return 2
	}
	for _, why := range skipped {
		fmt.Printf("skipped %s\n", why)
	}
	if len(found) == 0 {
		fmt.Fprintf(os.Stderr, "verify run: -lib %s: no suite matches the filters\n", o.lib)
		return 2
	}
	o.library = found
	return -1
}
