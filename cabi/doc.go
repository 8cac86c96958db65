// Package cabi lets memverify check a memory manager written in C or C++.
//
// The implementation is a shared library that exports, per domain, a table
// of function pointers under a documented symbol (memverify_refcount_v1,
// memverify_sizeclass_v1, memverify_bank_v1, memverify_overlap_v1,
// memverify_tensormap_v1), declared in the plain C99 headers under
// include/memverify/ (common.h says what every domain shares: the ABI
// version, status codes, ownership, listings, callbacks and threading).
// Open loads the library with dlopen and checks each table's header before
// anything runs; the table accessors (Library.Refcount, .Sizeclass, .Bank,
// .Overlap, .TensorMap) then give one factory per interface, in the shapes
// the suites of props/<domain>test take, so every suite runs unchanged
// against the C code:
//
//	lib, err := cabi.Open("./libmine.so")
//	bt, err := lib.Bank()
//	banktest.CheckFreeListStateMachine(t, bt.FreeListFactory())
//
// # How a call crosses
//
// Go cannot call a C function pointer, so each table function has a small
// C wrapper (glue_*.c) that calls through the table; the adapters (one Go
// type per interface: Registry, Pool, Deferred, Streams, FreeList, Banks,
// Map, and overlap's Checker) call the wrappers, turn status codes into the
// model's sentinel errors (codeTable, one to one per domain) and C structs
// into the model's types. Listings come back through emit callbacks that
// are C functions of the glue (mv_collect_*), which gather the entries into
// C arrays: a listing costs no call into Go per entry.
//
// Callbacks into the harness (the refcount Freer, the sizeclass Device, a
// tensormap solver) are C trampolines whose ctx is a runtime/cgo.Handle of
// the Go value. A device call that fails is recorded under the ticket of
// the operation that made it (a thread-local variable the wrapper sets;
// see glue_sizeclass.c), so each operation reports exactly the device
// errors of its own calls, also when several run at once.
//
// # Trust
//
// The harness does not trust the library's values: an unknown status code
// (ErrBadStatus), an address outside the managed range, a verdict or flag
// that does not exist, more entries than a limit allows (ErrBadValue) come
// back as errors that the suites report as failures, and are logged in
// Library.Violations for the report. A table that does not claim
// MEMVERIFY_CONCURRENT is called under a mutex per instance, so that a
// suite calling it from several goroutines cannot make it race; the
// concurrent suites are meant only for tables that claim concurrency. A
// crash inside the library still ends the process.
//
// Instances are destroyed by a cleanup (runtime.AddCleanup) once their Go
// adapter is unreachable; a library is never unloaded.
//
// The C and C++ examples, one per domain with one seeded bug each, are in
// package examples, which builds them with the machine's compiler.
package cabi
