//go:build cgo

package main

import (
	"fmt"

	"github.com/memverify/memverify/cabi"
	"github.com/memverify/memverify/suites"
)

// librarySuites opens the C or C++ library at path and returns its suites of
// every domain it exports that matches the filters, and the concurrent
// suites left out because its tables do not claim safety for concurrent use.
func librarySuites(path, domain, property string) (found []suites.Suite, skipped []string, err error) {
	lib, err := cabi.Open(path)
	if err != nil {
		return nil, nil, err
	}
	var exported []string
	for _, d := range lib.Domains() {
		exported = append(exported, d)
		if !suites.Matches(domain, d) {
			continue
		}
		run, left, err := suites.Library(lib, d)
		if err != nil {
			return nil, nil, err
		}
		skipped = append(skipped, left...)
		for _, s := range run {
			if suites.Matches(property, s.Property) {
				found = append(found, s)
			}
		}
	}
	if len(found) == 0 && domain != "" {
		return nil, nil, fmt.Errorf("the library exports no table of -domain %s (it exports %v)", domain, exported)
	}
	return found, skipped, nil
}
