//go:build !cgo

package main

import (
	"errors"

	"github.com/memverify/memverify/suites"
)

// librarySuites needs cgo to load a C library; this build has none.
func librarySuites(path, domain, property string) ([]suites.Suite, []string, error) {
	return nil, nil, errors.New("checking a C library needs cgo: rebuild with CGO_ENABLED=1 and a C compiler")
}
