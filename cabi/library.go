package cabi

/*
#cgo CFLAGS: -I${SRCDIR}/include -O2
#cgo LDFLAGS: -ldl
#include "glue.h"
*/
import "C"

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"unsafe"
)

// tableSizes is the size of each domain's table in this version of the
// headers: a table of another size was built against other headers.
var tableSizes = map[string]uintptr{
	DomainRefcount:  unsafe.Sizeof(C.memverify_refcount_table{}),
	DomainSizeclass: unsafe.Sizeof(C.memverify_sizeclass_table{}),
	DomainBank:      unsafe.Sizeof(C.memverify_bank_table{}),
	DomainOverlap:   unsafe.Sizeof(C.memverify_overlap_table{}),
	DomainTensorMap: unsafe.Sizeof(C.memverify_tensormap_table{}),
}

// maxViolations bounds the log of ABI violations a library keeps.
const maxViolations = 64

// Library is a shared library loaded with dlopen. It is never unloaded: a
// program may hold instances of its tables until it exits. A Library is
// safe for concurrent use.
type Library struct {
	path   string
	base   string // the file name, used in error messages
	handle unsafe.Pointer
	tables map[string]*table

	mu         sync.Mutex
	violations []string
	dropped    int
}

// table is one domain's table in a library, its header checked.
type table struct {
	lib        *Library
	domain     string
	ptr        unsafe.Pointer
	name       string
	concurrent bool
}

// Open loads the shared library at path and checks every memverify table
// it exports: the ABI version, the table's size, and that each interface
// the table offers has all of its functions. It fails (ErrLoad, ErrNoTable,
// ErrABIVersion, ErrMissingFunction, wrapped with the detail) before any
// function of a table has been called (the library's own initialisers, C++
// static constructors say, run at load time as they always do), and then
// unloads the library again.
func Open(path string) (*Library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	h := C.mv_dlopen(cpath, &cerr)
	if h == nil {
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return nil, fmt.Errorf("%w %s: %s", ErrLoad, path, msg)
	}
	l := &Library{path: path, base: filepath.Base(path), handle: h, tables: map[string]*table{}}
	for _, d := range Domains() {
		t, err := l.lookup(d)
		if err != nil {
			C.mv_dlclose(h)
			return nil, err
		}
		if t != nil {
			l.tables[d] = t
		}
	}
	if len(l.tables) == 0 {
		C.mv_dlclose(h)
		return nil, fmt.Errorf("%w %s: it exports none of %s", ErrNoTable, path, symbolList())
	}
	return l, nil
}

func symbolList() string {
	var s string
	for i, d := range Domains() {
		if i > 0 {
			s += ", "
		}
		s += Symbol(d)
	}
	return s
}

// lookup finds and checks domain's table; nil, nil when the library does
// not export it.
func (l *Library) lookup(domain string) (*table, error) {
	sym := C.CString(Symbol(domain))
	defer C.free(unsafe.Pointer(sym))
	p := C.mv_dlsym(l.handle, sym)
	if p == nil {
		return nil, nil
	}
	hdr := (*C.memverify_header)(p)
	if v := uint32(hdr.abi_version); v != C.MEMVERIFY_ABI_VERSION {
		return nil, fmt.Errorf("%w: %s in %s says ABI version %d; this harness speaks version %d",
			ErrABIVersion, Symbol(domain), l.path, v, C.MEMVERIFY_ABI_VERSION)
	}
	if size, want := uintptr(hdr.size), tableSizes[domain]; size != want {
		return nil, fmt.Errorf("%w: %s in %s is %d bytes, version %d's table is %d (built against other headers?)",
			ErrABIVersion, Symbol(domain), l.path, size, C.MEMVERIFY_ABI_VERSION, want)
	}
	t := &table{lib: l, domain: domain, ptr: p, concurrent: uint32(hdr.flags)&C.MEMVERIFY_CONCURRENT != 0}
	t.name = l.base
	if hdr.name != nil {
		t.name = C.GoString(hdr.name)
	}
	if err := checkFunctions(domain, p); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", Symbol(domain), l.path, err)
	}
	return t, nil
}

// Path returns the path the library was opened from.
func (l *Library) Path() string { return l.path }

// Domains returns the domains whose tables the library exports, sorted.
func (l *Library) Domains() []string {
	out := make([]string, 0, len(l.tables))
	for d := range l.tables {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// Name returns the name domain's table gives its implementation (the
// library's file name if it gives none), or "" if there is no such table.
func (l *Library) Name(domain string) string {
	if t := l.tables[domain]; t != nil {
		return t.name
	}
	return ""
}

// Concurrent reports whether domain's table claims safety for concurrent
// use (MEMVERIFY_CONCURRENT). Only then do the domain's concurrent suites
// apply to it.
func (l *Library) Concurrent(domain string) bool {
	t := l.tables[domain]
	return t != nil && t.concurrent
}

func (l *Library) table(domain string) (*table, error) {
	if t := l.tables[domain]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("%w: %s does not export %s", ErrNoTable, l.path, Symbol(domain))
}

// Violations returns the messages of the ABI violations seen so far (bad
// status codes and bad values), oldest first: what a report shows beside a
// suite that failed on one.
func (l *Library) Violations() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.violations...)
	if l.dropped > 0 {
		out = append(out, fmt.Sprintf("... and %d more", l.dropped))
	}
	return out
}

// violation logs a breach of the ABI and returns it as an error wrapping
// kind (ErrBadStatus or ErrBadValue).
func (l *Library) violation(kind error, format string, args ...any) error {
	err := fmt.Errorf("%w: %s: %s", kind, l.base, fmt.Sprintf(format, args...))
	l.mu.Lock()
	if len(l.violations) < maxViolations {
		l.violations = append(l.violations, err.Error())
	} else {
		l.dropped++
	}
	l.mu.Unlock()
	return err
}

// checkFunctions checks that every interface domain's table offers has
// all of its functions.
func checkFunctions(domain string, p unsafe.Pointer) error {
	switch domain {
	case DomainRefcount:
		return checkRefcountTable((*C.memverify_refcount_table)(p))
	case DomainSizeclass:
		return checkSizeclassTable((*C.memverify_sizeclass_table)(p))
	case DomainBank:
		return checkBankTable((*C.memverify_bank_table)(p))
	case DomainOverlap:
		return checkOverlapTable((*C.memverify_overlap_table)(p))
	case DomainTensorMap:
		return checkTensorMapTable((*C.memverify_tensormap_table)(p))
	}
	return nil
}

// fn is one function pointer of a table: its field name and whether it is set.
type fn struct {
	name string
	set  bool
}

// needAll reports the first function of iface that is not set, when the
// table offers iface at all.
func needAll(iface string, offered bool, fns ...fn) error {
	if !offered {
		return nil
	}
	for _, f := range fns {
		if !f.set {
			return fmt.Errorf("%w: it offers %s but %s is NULL", ErrMissingFunction, iface, f.name)
		}
	}
	return nil
}

// errNotOffered is the error for an interface whose create is NULL.
func (t *table) errNotOffered(iface string) error {
	return fmt.Errorf("%w: %s in %s offers no %s", ErrNotOffered, Symbol(t.domain), t.lib.path, iface)
}
