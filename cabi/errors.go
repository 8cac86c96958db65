package cabi

/*
#include "memverify/refcount.h"
#include "memverify/sizeclass.h"
#include "memverify/bank.h"
#include "memverify/overlap.h"
#include "memverify/tensormap.h"
*/
import "C"

import (
	"errors"
	"fmt"

	bk "github.com/memverify/memverify/model/bank"
	ov "github.com/memverify/memverify/model/overlap"
	rc "github.com/memverify/memverify/model/refcount"
	sc "github.com/memverify/memverify/model/sizeclass"
	tm "github.com/memverify/memverify/model/tensormap"
)

// Errors of the adapters themselves. Each is wrapped with the detail (the
// path, the symbol, the function, the value); test them with errors.Is.
var (
	// ErrLoad: the shared library could not be loaded (dlopen's message follows).
	ErrLoad = errors.New("cabi: cannot load the library")
	// ErrNoTable: the library exports no table of the domain asked for (or,
	// from Open, of any domain).
	ErrNoTable = errors.New("cabi: no memverify table in the library")
	// ErrABIVersion: the table's header names another ABI version, or its
	// size is not the size of this version's table (a library built against
	// another revision of the headers).
	ErrABIVersion = errors.New("cabi: wrong ABI version")
	// ErrMissingFunction: an interface the table offers (its create is set)
	// lacks one of its functions.
	ErrMissingFunction = errors.New("cabi: function missing from the table")
	// ErrNotOffered: the table does not offer the interface asked for (its
	// create is NULL).
	ErrNotOffered = errors.New("cabi: interface not offered by the table")
	// ErrBadStatus: a function returned a status code its domain does not have.
	ErrBadStatus = errors.New("cabi: unknown status code")
	// ErrBadValue: a function returned a value the ABI rules out (an address
	// outside the managed range, an enum value that does not exist, more
	// entries than a limit allows, a device error with no failed device
	// call). The library's Violations log keeps each one's message.
	ErrBadValue = errors.New("cabi: value outside the ABI")
	// ErrHostMemory: the implementation reported MEMVERIFY_E_HOST_MEMORY.
	ErrHostMemory = errors.New("cabi: the implementation ran out of host memory")
)

// The common status codes, as Go values.
const (
	statusOK          = int32(C.MEMVERIFY_OK)
	statusOutOfMemory = int32(C.MEMVERIFY_E_OUT_OF_MEMORY)
	statusDevice      = int32(C.MEMVERIFY_E_DEVICE)
	statusHostMemory  = int32(C.MEMVERIFY_E_HOST_MEMORY)
)

// codeTable maps a domain's status codes to its model's sentinel errors,
// one to one.
type codeTable map[int32]error

var refcountCodes = codeTable{
	C.MEMVERIFY_E_INVALID_SIZE:       rc.ErrInvalidSize,
	C.MEMVERIFY_E_INVALID_KIND:       rc.ErrInvalidKind,
	C.MEMVERIFY_E_NULL_POINTER:       rc.ErrNullPointer,
	C.MEMVERIFY_E_ALREADY_REGISTERED: rc.ErrAlreadyRegistered,
	C.MEMVERIFY_E_ALIAS_OUT_OF_RANGE: rc.ErrAliasOutOfRange,
	C.MEMVERIFY_E_NOT_REGISTERED:     rc.ErrNotRegistered,
	C.MEMVERIFY_E_NOT_TRACKED:        rc.ErrNotTracked,
	C.MEMVERIFY_E_NO_SCOPE:           rc.ErrNoScope,
	C.MEMVERIFY_E_CLOSED:             rc.ErrClosed,
}

var sizeclassCodes = codeTable{
	C.MEMVERIFY_E_INVALID_SIZE:    sc.ErrInvalidSize,
	C.MEMVERIFY_E_INVALID_CONFIG:  sc.ErrInvalidConfig,
	C.MEMVERIFY_E_OUT_OF_MEMORY:   sc.ErrOutOfMemory,
	C.MEMVERIFY_E_UNKNOWN_POINTER: sc.ErrUnknownPointer,
	C.MEMVERIFY_E_DOUBLE_FREE:     sc.ErrDoubleFree,
	C.MEMVERIFY_E_CLOSED:          sc.ErrClosed,
}

var bankCodes = codeTable{
	C.MEMVERIFY_E_INVALID_SIZE:       bk.ErrInvalidSize,
	C.MEMVERIFY_E_INVALID_CONFIG:     bk.ErrInvalidConfig,
	C.MEMVERIFY_E_OUT_OF_MEMORY:      bk.ErrOutOfMemory,
	C.MEMVERIFY_E_NOT_FREE:           bk.ErrNotFree,
	C.MEMVERIFY_E_INVALID_ADDRESS:    bk.ErrInvalidAddress,
	C.MEMVERIFY_E_UNKNOWN_ADDRESS:    bk.ErrUnknownAddress,
	C.MEMVERIFY_E_INCOMPATIBLE_STATE: bk.ErrIncompatibleState,
	C.MEMVERIFY_E_INVALID_DIRECTION:  bk.ErrInvalidDirection,
	C.MEMVERIFY_E_INVALID_BANK:       bk.ErrInvalidBank,
}

var overlapCodes = codeTable{
	C.MEMVERIFY_E_INVALID_VIEW: ov.ErrInvalidView,
	C.MEMVERIFY_E_TOO_LARGE:    ov.ErrTooLarge,
}

var tensormapCodes = codeTable{
	C.MEMVERIFY_E_INVALID_CONFIG: tm.ErrInvalidConfig,
	C.MEMVERIFY_E_INVALID_VIEW:   ov.ErrInvalidView,
	C.MEMVERIFY_E_NULL_STORAGE:   tm.ErrNullStorage,
	C.MEMVERIFY_E_OUT_OF_ORDER:   tm.ErrOutOfOrder,
	C.MEMVERIFY_E_POOL_EXHAUSTED: tm.ErrPoolExhausted,
	C.MEMVERIFY_E_LIMIT:          tm.ErrLimit,
	C.MEMVERIFY_E_INVALID_LIMIT:  tm.ErrInvalidLimit,
}

// CodeTable returns the status codes of domain and the sentinel error each
// stands for (nil for an unknown domain). MEMVERIFY_E_HOST_MEMORY, common
// to all, stands for ErrHostMemory and is not listed; neither is
// MEMVERIFY_E_DEVICE, which stands for the device's own error.
func CodeTable(domain string) map[int32]error {
	var t codeTable
	switch domain {
	case DomainRefcount:
		t = refcountCodes
	case DomainSizeclass:
		t = sizeclassCodes
	case DomainBank:
		t = bankCodes
	case DomainOverlap:
		t = overlapCodes
	case DomainTensorMap:
		t = tensormapCodes
	default:
		return nil
	}
	out := make(map[int32]error, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}

// err turns a status code returned by fn into nil, the domain's sentinel
// (wrapped with fn's name and the library's), ErrHostMemory, or ErrBadStatus.
func (t codeTable) err(lib *Library, fn string, code int32) error {
	if code == statusOK {
		return nil
	}
	if e, ok := t[code]; ok {
		return fmt.Errorf("%s: %s: %w", lib.base, fn, e)
	}
	if code == statusHostMemory {
		return fmt.Errorf("%s: %s: %w", lib.base, fn, ErrHostMemory)
	}
	return lib.violation(ErrBadStatus, "%s returned status %d, which is not a code of its domain", fn, code)
}
