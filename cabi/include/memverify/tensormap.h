/*
 * memverify/tensormap.h — the C ABI of the tensormap domain: the dependency
 * tracker that records which task produced which region of which storage.
 * The contract is model/tensormap's Map; read that package's documentation
 * for every decided detail (order, capacity, TooHard as a dependency).
 *
 * Export:  const memverify_tensormap_table memverify_tensormap_v1 = { ... };
 *
 * Status codes and the Go sentinel each stands for:
 *   MEMVERIFY_E_INVALID_CONFIG     tensormap.ErrInvalidConfig
 *   MEMVERIFY_E_NULL_STORAGE       tensormap.ErrNullStorage
 *   MEMVERIFY_E_INVALID_VIEW       overlap.ErrInvalidView
 *   MEMVERIFY_E_OUT_OF_ORDER       tensormap.ErrOutOfOrder
 *   MEMVERIFY_E_POOL_EXHAUSTED     tensormap.ErrPoolExhausted
 *   MEMVERIFY_E_LIMIT              tensormap.ErrLimit
 *   MEMVERIFY_E_INVALID_LIMIT      tensormap.ErrInvalidLimit
 *
 * Checks run in this order: storage (0 is null), view, then order and
 * capacity for insert, the limit for lookup_all. A failed call changes
 * nothing. Views are memverify_view (overlap.h), copied on insert.
 *
 * Threading: a map need not be safe for concurrent use (the runtime's
 * orchestrator is one thread); the harness serializes calls unless the
 * header says MEMVERIFY_CONCURRENT.
 */
#ifndef MEMVERIFY_TENSORMAP_H
#define MEMVERIFY_TENSORMAP_H

#include "common.h"
#include "overlap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMVERIFY_TENSORMAP_SYMBOL "memverify_tensormap_v1"

/* Status codes of the tensormap domain (see the table above). */
#define MEMVERIFY_E_NULL_STORAGE 501
#define MEMVERIFY_E_OUT_OF_ORDER 502
#define MEMVERIFY_E_POOL_EXHAUSTED 503
#define MEMVERIFY_E_LIMIT 504
#define MEMVERIFY_E_INVALID_LIMIT 505
/* Returned by a solver, never by a map: the solver could not decide. */
#define MEMVERIFY_E_SOLVER 506

/* A solver the harness supplies, called as solver(ctx, recorded, queried,
 * &verdict). Any status but OK, and any verdict but MEMVERIFY_NO, means the
 * views depend on each other. It is pure, and exact when the views' byte
 * bounds are disjoint; it is never asked about an empty view by a correct
 * map. The views need only live during the call. */
typedef memverify_status (*memverify_solver_fn)(void *ctx, const memverify_view *recorded,
                                                const memverify_view *queried, int32_t *verdict);

typedef struct memverify_tensormap_config {
    int64_t capacity;           /* most live entries, 1 to 2^24 (else INVALID_CONFIG) */
    memverify_solver_fn solver; /* NULL: the map's own exact solver */
    void *solver_ctx;
} memverify_tensormap_config;

typedef void (*memverify_task_fn)(void *arg, uint64_t task);

typedef struct memverify_tensormap_table {
    memverify_header header;

    /* Creates an empty map (copy *cfg): INVALID_CONFIG, HOST_MEMORY. */
    memverify_status (*create)(const memverify_tensormap_config *cfg, void **self);
    void (*destroy)(void *self);
    /* Records that task wrote view of storage. Tasks come non-decreasing and
     * at or above the retire threshold (OUT_OF_ORDER); a map holding
     * capacity live entries refuses (POOL_EXHAUSTED) and never evicts a live
     * entry. */
    memverify_status (*insert)(void *self, uint64_t storage, const memverify_view *view, uint64_t task);
    /* The newest live task whose recorded view of storage overlaps view:
     * *found is 1 and *task set, or *found is 0. */
    memverify_status (*lookup)(void *self, uint64_t storage, const memverify_view *view,
                               uint64_t *task, int32_t *found);
    /* Emits every distinct live task with an overlapping recorded view of
     * storage, newest first. With more than limit of them, emits the newest
     * limit and returns MEMVERIFY_E_LIMIT. limit < 1 is INVALID_LIMIT. */
    memverify_status (*lookup_all)(void *self, uint64_t storage, const memverify_view *view,
                                   int64_t limit, memverify_task_fn emit, void *arg);
    /* Tasks below t are no longer live; t below the threshold is
     * OUT_OF_ORDER. */
    memverify_status (*retire)(void *self, uint64_t t);
    /* The number of live entries. */
    int64_t (*len)(void *self);
} memverify_tensormap_table;

extern const memverify_tensormap_table memverify_tensormap_v1;

#ifdef __cplusplus
}
#endif

#endif /* MEMVERIFY_TENSORMAP_H */
