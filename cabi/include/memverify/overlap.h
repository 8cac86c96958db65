/*
 * memverify/overlap.h — the C ABI of the overlap domain: do two strided
 * views of one storage touch a common byte? The contract is model/overlap's
 * Checker; read that package's documentation for every decided detail
 * (validity, empty views, negative and zero strides, size-1 dims).
 *
 * Export:  const memverify_overlap_table memverify_overlap_v1 = { ... };
 *
 * Status codes and the Go sentinel each stands for:
 *   MEMVERIFY_E_INVALID_VIEW    overlap.ErrInvalidView
 *   MEMVERIFY_E_TOO_LARGE       overlap.ErrTooLarge
 *
 * A checker is a pure function: the same views always get the same answer.
 * Threading: set MEMVERIFY_CONCURRENT when it may be called from several
 * threads at once (the Go contract requires it; without the flag the
 * harness serializes the calls).
 */
#ifndef MEMVERIFY_OVERLAP_H
#define MEMVERIFY_OVERLAP_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMVERIFY_OVERLAP_SYMBOL "memverify_overlap_v1"

/* Status codes of the overlap domain (see the table above). */
#define MEMVERIFY_E_INVALID_VIEW 401
#define MEMVERIFY_E_TOO_LARGE 402

/* The largest rank a valid view has. */
#define MEMVERIFY_MAX_RANK 8
/* The room a view has for dims: more than MEMVERIFY_MAX_RANK, so that views
 * of rank 9 and up reach the implementation, which must refuse them. (A
 * view with more dims than this room reaches it as one of rank
 * MEMVERIFY_MAX_RANK + 1, as invalid as the original.) */
#define MEMVERIFY_VIEW_DIMS 16

/* Verdicts. */
#define MEMVERIFY_NO 0
#define MEMVERIFY_YES 1
#define MEMVERIFY_TOO_HARD 2 /* gave up within a work cap; callers treat it as YES */

/* A strided view, every quantity in bytes from the storage base: element i
 * (a multi-index) touches [offset + sum i[d]*strides[d], that + elem_size).
 * It is valid when rank <= MEMVERIFY_MAX_RANK, nstrides == rank,
 * elem_size >= 1, offset >= 0, no extent is negative and (non-empty) every
 * byte touched lies in [0, 2^63). Any zero extent makes it empty: it
 * touches nothing. Entries past rank (and past nstrides) are zero. */
typedef struct memverify_view {
    int64_t offset;
    int64_t elem_size;
    int32_t rank;     /* entries of shape, 0 to MEMVERIFY_VIEW_DIMS */
    int32_t nstrides; /* entries of strides, 0 to MEMVERIFY_VIEW_DIMS */
    int64_t shape[MEMVERIFY_VIEW_DIMS];
    int64_t strides[MEMVERIFY_VIEW_DIMS];
} memverify_view;

typedef struct memverify_overlap_table {
    memverify_header header;

    /* Whether a and b touch a common byte: *verdict is MEMVERIFY_NO,
     * MEMVERIFY_YES or MEMVERIFY_TOO_HARD. INVALID_VIEW if either view is
     * invalid (both are validated before anything else is decided); an
     * empty view overlaps nothing. */
    memverify_status (*overlap)(const memverify_view *a, const memverify_view *b, int32_t *verdict);
    /* Optional (NULL: not offered): the same with a cap on the search. It
     * answers as overlap does using at most max_work units of search
     * (else TOO_HARD) and reports in *work the units it used, 0 when it
     * decided without searching. Deterministic: the same views, the same
     * work; a cap at or above that work gives the uncapped answer. */
    memverify_status (*overlap_capped)(const memverify_view *a, const memverify_view *b,
                                       int64_t max_work, int32_t *verdict, int64_t *work);
} memverify_overlap_table;

extern const memverify_overlap_table memverify_overlap_v1;

#ifdef __cplusplus
}
#endif

#endif /* MEMVERIFY_OVERLAP_H */
