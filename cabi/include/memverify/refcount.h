/*
 * memverify/refcount.h — the C ABI of the refcount domain: a pointer
 * registry with reference counts, shared buffers with aliases, and scopes.
 * The contract is model/refcount's Registry (read its package documentation
 * for every decided detail); this header restates what C needs.
 *
 * Export:  const memverify_refcount_table memverify_refcount_v1 = { ... };
 *
 * Status codes and the Go sentinel each stands for:
 *   MEMVERIFY_E_INVALID_SIZE          refcount.ErrInvalidSize
 *   MEMVERIFY_E_INVALID_KIND          refcount.ErrInvalidKind
 *   MEMVERIFY_E_NULL_POINTER          refcount.ErrNullPointer
 *   MEMVERIFY_E_ALREADY_REGISTERED    refcount.ErrAlreadyRegistered
 *   MEMVERIFY_E_ALIAS_OUT_OF_RANGE    refcount.ErrAliasOutOfRange
 *   MEMVERIFY_E_NOT_REGISTERED        refcount.ErrNotRegistered
 *   MEMVERIFY_E_NOT_TRACKED           refcount.ErrNotTracked
 *   MEMVERIFY_E_NO_SCOPE              refcount.ErrNoScope
 *   MEMVERIFY_E_CLOSED                refcount.ErrClosed
 *
 * In short: register_pointer(p) gives p one reference; register_buffer gives
 * real and every listed alias one reference per listing; retain adds one to
 * p's share, unregister drops one; when a registration's last reference goes,
 * the freer is called exactly once with the real pointer, size and kind,
 * before the call that dropped it returns. Null is a no-op for
 * register_pointer, retain, unregister, track and promote (after the closed
 * check). After close every call answers MEMVERIFY_E_CLOSED and queries
 * answer 0 or list nothing.
 *
 * Threading: the Go contract requires a registry safe for concurrent use and
 * linearizable; set MEMVERIFY_CONCURRENT when yours is. The freer may be
 * called with your locks held: it never calls back into the registry.
 */
#ifndef MEMVERIFY_REFCOUNT_H
#define MEMVERIFY_REFCOUNT_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMVERIFY_REFCOUNT_SYMBOL "memverify_refcount_v1"

/* Status codes of the refcount domain (see the table above). */
#define MEMVERIFY_E_INVALID_KIND 101
#define MEMVERIFY_E_NULL_POINTER 102
#define MEMVERIFY_E_ALREADY_REGISTERED 103
#define MEMVERIFY_E_ALIAS_OUT_OF_RANGE 104
#define MEMVERIFY_E_NOT_REGISTERED 105
#define MEMVERIFY_E_NOT_TRACKED 106
#define MEMVERIFY_E_NO_SCOPE 107

/* How the memory behind a registration is released (refcount.Kind). Any
 * other value is MEMVERIFY_E_INVALID_KIND. */
#define MEMVERIFY_KIND_ARRAY_NEW 0
#define MEMVERIFY_KIND_SCALAR_NEW 1
#define MEMVERIFY_KIND_ALIGNED_ALLOC 2
#define MEMVERIFY_KIND_CUSTOM 3

/* The harness's Freer. free may be NULL: memory is then never released,
 * only forgotten. */
typedef struct memverify_refcount_freer {
    void (*free)(void *ctx, memverify_addr real, int64_t bytes, int32_t kind);
    void *ctx;
} memverify_refcount_freer;

typedef struct memverify_refcount_stats {
    int64_t pointers; /* live owned pointers (register_pointer) */
    int64_t buffers;  /* live shared buffers (register_buffer) */
    int64_t bytes;    /* sum of their sizes, saturating at INT64_MAX */
} memverify_refcount_stats;

/* One live registration of the leak report. */
typedef struct memverify_registration {
    memverify_addr real; /* the pointer the freer receives */
    int64_t bytes;
    int32_t kind;
    int64_t refs;    /* the whole count: every holder's share */
    uint64_t buffer; /* the buffer's id; 0 for an owned pointer */
} memverify_registration;

/* Emits one registration and the pointers that still hold references,
 * sorted, each once (at least one). */
typedef void (*memverify_registration_fn)(void *arg, const memverify_registration *r,
                                          const memverify_addr *holders, size_t nholders);

typedef struct memverify_refcount_table {
    memverify_header header;

    /* Creates an empty registry that releases memory through *freer (copy
     * it). OK or MEMVERIFY_E_HOST_MEMORY. */
    memverify_status (*create)(const memverify_refcount_freer *freer, void **self);
    void (*destroy)(void *self);

    /* An owned pointer with one reference. Errors, in check order:
     * CLOSED; (p == 0: OK, nothing happens); INVALID_SIZE (bytes <= 0 or
     * [p, p+bytes) past the top of the address space); INVALID_KIND;
     * ALREADY_REGISTERED (p already holds a share). */
    memverify_status (*register_pointer)(void *self, memverify_addr p, int64_t bytes, int32_t kind);
    /* A shared buffer [real, real+bytes): real holds one reference and each
     * listed alias one per listing. All or nothing. Errors, in check order:
     * CLOSED; NULL_POINTER (real == 0); INVALID_SIZE; INVALID_KIND;
     * ALIAS_OUT_OF_RANGE (a null alias or one outside the buffer);
     * ALREADY_REGISTERED. On OK *id is the buffer's id: nonzero and distinct
     * among live buffers. aliases may be NULL when naliases is 0. */
    memverify_status (*register_buffer)(void *self, memverify_addr real, int64_t bytes,
                                        const memverify_addr *aliases, size_t naliases,
                                        int32_t kind, uint64_t *id);
    /* Adds a reference held by p: CLOSED, NOT_REGISTERED. */
    memverify_status (*retain)(void *self, memverify_addr p);
    /* Drops one of p's references; the last of the registration calls the
     * freer before returning: CLOSED, NOT_REGISTERED. */
    memverify_status (*unregister)(void *self, memverify_addr p);

    /* 1 if p holds a share, else 0. */
    int32_t (*is_registered)(void *self, memverify_addr p);
    /* The whole count of p's registration (0 if none). */
    int64_t (*refs)(void *self, memverify_addr p);
    /* OK, or CLOSED (the harness then reports zero stats). */
    memverify_status (*stats)(void *self, memverify_refcount_stats *out);
    /* Emits every live registration sorted by real; at one real, buffers
     * newest first, then an owned pointer. OK or CLOSED. */
    memverify_status (*live)(void *self, memverify_registration_fn emit, void *arg);
    /* Frees everything still registered, in live's order, emitting each
     * registration it frees (the leak report), and closes: OK or CLOSED. */
    memverify_status (*close)(void *self, memverify_registration_fn emit, void *arg);

    /* Opens a scope (nothing happens after close). */
    void (*enter)(void *self);
    /* Hands one reference p already holds to the innermost scope:
     * CLOSED; (null: OK); NO_SCOPE; NOT_REGISTERED. */
    memverify_status (*track)(void *self, memverify_addr p);
    /* Moves p's oldest tracked reference to the enclosing scope (or back to
     * the caller at the outermost): CLOSED; (null: OK); NO_SCOPE; NOT_TRACKED. */
    memverify_status (*promote)(void *self, memverify_addr p);
    /* Closes the innermost scope, releasing what it still tracks, newest
     * first; every release is made even when some fail. CLOSED or NO_SCOPE
     * (nothing released, *failed untouched); else *failed is the number of
     * releases that failed (their pointers were no longer registered) and
     * the status is OK when it is 0, NOT_REGISTERED otherwise. */
    memverify_status (*exit)(void *self, size_t *failed);
} memverify_refcount_table;

extern const memverify_refcount_table memverify_refcount_v1;

#ifdef __cplusplus
}
#endif

#endif /* MEMVERIFY_REFCOUNT_H */
