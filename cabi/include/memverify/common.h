/*
 * memverify/common.h — what every domain's C ABI shares.
 *
 * memverify checks a memory manager written in C or C++ against the
 * reference model of its domain. The implementation is a shared library that
 * exports one table of function pointers per domain it implements, under a
 * documented symbol name (memverify_refcount_v1, memverify_sizeclass_v1,
 * memverify_bank_v1, memverify_overlap_v1, memverify_tensormap_v1; see each
 * domain's header). The harness opens the library with dlopen, finds the
 * table with dlsym, checks its header, and runs every suite of the domain
 * against it. A library may export several domains.
 *
 * Plain C99; C++ includes it as is (every declaration is extern "C").
 *
 * THE TABLE
 *   Each table starts with a memverify_header: the ABI version the library
 *   was built against (MEMVERIFY_ABI_VERSION), the size of the table
 *   (sizeof the domain's table type: a library built against another
 *   revision of the header is refused), flags, and a name for reports. The
 *   table is constant data: define it with a static initializer, e.g.
 *
 *       const memverify_bank_table memverify_bank_v1 = {
 *           { MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT,
 *             sizeof(memverify_bank_table), "my-banks" },
 *           my_freelist_create, ...
 *       };
 *
 *   An interface of a domain (a bank domain has a free list and banks) is
 *   offered when its create function is not NULL; every other function of
 *   an offered interface must then be set (the harness refuses the library
 *   otherwise, before anything runs).
 *
 * STATUS CODES
 *   Every operation that can fail returns a memverify_status: MEMVERIFY_OK
 *   or an error code. Codes 1 to 99 are common to all domains (below); each
 *   domain's header adds its own (refcount 100-199, sizeclass 200-299, bank
 *   300-399, overlap 400-499, tensormap 500-599). Each code stands for one
 *   sentinel error of the domain's Go model (the table in each header), so
 *   "the same error" means the same code. A code the domain does not know
 *   is reported as a failure of the implementation. A failed call must
 *   change nothing, unless its domain says otherwise.
 *
 * OWNERSHIP
 *   Pointers the harness passes in (configs, alias and range arrays, views,
 *   states) are valid for the duration of the call only: copy what you keep.
 *   Out-parameters point to caller memory the callee writes before
 *   returning OK; on an error their content is ignored.
 *   Instances belong to the implementation: create allocates one, destroy
 *   (called exactly once, after every other call on it has returned) frees
 *   it. Close, where a domain has it, is an ordinary operation: the harness
 *   still calls queries on a closed instance (they answer their zero value
 *   or MEMVERIFY_E_CLOSED) and destroys it later.
 *
 * LISTINGS
 *   Queries that list entries (blocks, live registrations, buffers, a leak
 *   report) take an emit callback and an opaque arg: call emit(arg, &entry,
 *   ...) once per entry, in the documented order, before returning. The
 *   entry and any array passed with it need only live during the emit call:
 *   the harness copies them. emit never fails and never calls back into the
 *   instance, so it may be called with the instance's locks held (which is
 *   how a listing is made a consistent snapshot). Do not keep arg.
 *
 * CALLBACKS INTO THE HARNESS
 *   Where the contract has them (the refcount Freer, the sizeclass Device)
 *   the harness passes a struct of function pointers and a void *ctx to
 *   create; pass ctx back on every call. Callbacks may be made from any
 *   thread that is running one of the instance's operations, during that
 *   operation (the harness attributes a failed device call to the operation
 *   running on the same thread; a call from a thread of your own is served
 *   but its failure cannot be reported). Callbacks are safe for concurrent
 *   use and never call back into the instance.
 *
 * THREADING
 *   Set MEMVERIFY_CONCURRENT in the header's flags only if every operation
 *   of every interface in the table is safe for concurrent use, and
 *   linearizable where the domain's contract asks for it. The harness then
 *   calls the instance from several threads at once and runs the domain's
 *   concurrent suites (linearizability, races, parallel differential
 *   checks). Without the flag the harness serializes every call on an
 *   instance and runs only the sequential suites. Different instances are
 *   never assumed to share state: create and destroy may run concurrently
 *   for different instances either way.
 *
 * FAILURES THE HARNESS REPORTS
 *   An unknown status code, an out-of-range value (an address outside the
 *   managed range, an enum value that does not exist, more entries than a
 *   limit allows) is reported as a failure of the implementation with a
 *   message that names the function and the value; the harness does not
 *   crash. A crash inside the library (a segmentation fault) does end the
 *   process that loaded it.
 */
#ifndef MEMVERIFY_COMMON_H
#define MEMVERIFY_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. The symbol names carry it too
 * (memverify_<domain>_v1), so that a library may export two versions. */
#define MEMVERIFY_ABI_VERSION 1

/* An opaque address; 0 is null (in the bank domain 0 is a real address). */
typedef uint64_t memverify_addr;

/* MEMVERIFY_OK or an error code. */
typedef int32_t memverify_status;

#define MEMVERIFY_OK 0
/* A size <= 0 where one is required, or one whose rounding overflows. */
#define MEMVERIFY_E_INVALID_SIZE 1
/* create was given a configuration the implementation cannot serve. */
#define MEMVERIFY_E_INVALID_CONFIG 2
/* The managed resource is exhausted (no feasible place, device full). */
#define MEMVERIFY_E_OUT_OF_MEMORY 3
/* The instance was closed; every later call answers this. */
#define MEMVERIFY_E_CLOSED 4
/* A device call failed with an error other than out of memory (sizeclass):
 * return it as the device returned it; the harness attaches the device's
 * own error. */
#define MEMVERIFY_E_DEVICE 5
/* The implementation could not get host memory for its own bookkeeping.
 * Not an outcome of any contract: the harness reports it as a failure. */
#define MEMVERIFY_E_HOST_MEMORY 6

/* Header flags. */
#define MEMVERIFY_CONCURRENT 1u

/* The first member of every domain's table. */
typedef struct memverify_header {
    uint32_t abi_version; /* MEMVERIFY_ABI_VERSION */
    uint32_t flags;       /* MEMVERIFY_CONCURRENT or 0 */
    size_t size;          /* sizeof the domain's table type */
    const char *name;     /* the implementation's name in reports; may be NULL */
} memverify_header;

#ifdef __cplusplus
}
#endif

#endif /* MEMVERIFY_COMMON_H */
