/*
 * memverify/sizeclass.h — the C ABI of the sizeclass domain: a size-class
 * caching pool over a device, and (optional) the deferred-free and
 * stream-ordered allocators. The contracts are model/sizeclass's Pool,
 * DeferredAllocator and StreamAllocator; read that package's documentation
 * for every decided detail (rounding, classes, pin mode, trim, stats).
 *
 * Export:  const memverify_sizeclass_table memverify_sizeclass_v1 = { ... };
 * Each of the three interfaces is offered when its create is not NULL.
 *
 * Status codes and the Go sentinel each stands for:
 *   MEMVERIFY_E_INVALID_SIZE       sizeclass.ErrInvalidSize
 *   MEMVERIFY_E_INVALID_CONFIG     sizeclass.ErrInvalidConfig
 *   MEMVERIFY_E_OUT_OF_MEMORY      sizeclass.ErrOutOfMemory
 *   MEMVERIFY_E_UNKNOWN_POINTER    sizeclass.ErrUnknownPointer
 *   MEMVERIFY_E_DOUBLE_FREE        sizeclass.ErrDoubleFree
 *   MEMVERIFY_E_CLOSED             sizeclass.ErrClosed
 *   MEMVERIFY_E_DEVICE             the device's own error (below)
 *
 * THE DEVICE
 * Blocks come from the harness's simulated device, through the callbacks
 * of the memverify_device given to create. It records every misuse: a
 * second free of a block, a free of an address it never handed out, and the
 * blocks still held after close (leaks) fail the suites.
 *   malloc_fn returns OK with a fresh block of n > 0 bytes in *out (never
 *   null), MEMVERIFY_E_OUT_OF_MEMORY when the device is full (the pool may
 *   trim and retry once), or MEMVERIFY_E_DEVICE for any other failure (no
 *   retry).
 *   free_fn returns OK or MEMVERIFY_E_DEVICE; either way the block is gone:
 *   never free it again.
 * When an operation fails because of a device call, return the status the
 * device call returned (OUT_OF_MEMORY or DEVICE): the harness then reports
 * the device's own errors for it — the last failed malloc of the call, and
 * every failed free of the call, joined. A Trim, Close, GC or Free whose
 * device frees failed returns DEVICE after finishing its work (the failed
 * blocks are dropped, the rest freed).
 *
 * Threading: the Go contract requires every allocator safe for concurrent
 * use (Alloc and Free linearizable); set MEMVERIFY_CONCURRENT when yours is.
 * Call the device only from the thread running the operation that needs it.
 *
 * destroy frees the instance's own memory and never calls the device (the
 * harness's device may be gone by then): blocks still held are forgotten.
 */
#ifndef MEMVERIFY_SIZECLASS_H
#define MEMVERIFY_SIZECLASS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMVERIFY_SIZECLASS_SYMBOL "memverify_sizeclass_v1"

/* Status codes of the sizeclass domain (see the table above). */
#define MEMVERIFY_E_UNKNOWN_POINTER 201
#define MEMVERIFY_E_DOUBLE_FREE 202

/* The harness's device. Both callbacks are safe for concurrent use. */
typedef struct memverify_device {
    memverify_status (*malloc_fn)(void *ctx, int64_t n, memverify_addr *out);
    memverify_status (*free_fn)(void *ctx, memverify_addr p);
    void *ctx;
} memverify_device;

/* A pool's shape: requests round up to a multiple of alignment (a power of
 * two), then go to the first class that holds them, or above the largest
 * class to a large block of exactly the rounded size. classes (nclasses
 * entries, possibly none) are strictly increasing multiples of alignment;
 * anything else is MEMVERIFY_E_INVALID_CONFIG. */
typedef struct memverify_sizeclass_config {
    int64_t alignment;
    const int64_t *classes;
    size_t nclasses;
} memverify_sizeclass_config;

typedef struct memverify_pool_stats {
    int64_t reserved;      /* bytes held from the device */
    int64_t in_use;        /* block bytes of live allocations */
    int64_t requested;     /* requested bytes of live allocations */
    int64_t cached;        /* reserved - in_use */
    int64_t hits;          /* allocations served from a cache */
    int64_t misses;        /* allocations that went to the device */
    int64_t blocks;        /* blocks held from the device */
    int64_t frozen;        /* of which frozen */
    int64_t free_failures; /* device frees that failed */
} memverify_pool_stats;

/* One class's counts; the last entry counts large blocks (size 0). */
typedef struct memverify_class_stats {
    int64_t size;
    int64_t blocks; /* held from the device */
    int64_t in_use; /* handed out */
} memverify_class_stats;

/* One block held from the device, as the pool sees it. */
typedef struct memverify_pool_block {
    memverify_addr addr;
    int64_t size;
    int32_t class_index; /* index into the config's classes; -1 for a large block */
    int32_t in_use;      /* 0 or 1 */
    int64_t requested;   /* the raw size it serves; 0 when free */
    int32_t frozen;      /* 0 or 1 */
    int32_t cached;      /* cache entries that hold it: 1 when free, 0 in use */
} memverify_pool_block;

typedef void (*memverify_pool_block_fn)(void *arg, const memverify_pool_block *b);

/* One block of a stream-ordered allocator. */
typedef struct memverify_stream_block {
    memverify_addr addr;
    int64_t size;
    int32_t class_index; /* -1 for a large block */
    int32_t in_use;      /* 0 or 1 */
    uint32_t stream;     /* handed out on (in use) or freed on (free) */
    int32_t pending;     /* 1 while its free on stream is not synchronised */
    int32_t cached;      /* 1 when free, 0 in use */
} memverify_stream_block;

typedef void (*memverify_stream_block_fn)(void *arg, const memverify_stream_block *b);

typedef struct memverify_sizeclass_table {
    memverify_header header;

    /* Pool (sizeclass.Pool). create copies *dev and *cfg. INVALID_CONFIG,
     * HOST_MEMORY. */
    memverify_status (*pool_create)(const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self);
    void (*pool_destroy)(void *self);
    /* n == 0: OK with *out = 0. INVALID_SIZE (n < 0 or rounding overflows),
     * OUT_OF_MEMORY, DEVICE, CLOSED. */
    memverify_status (*pool_alloc)(void *self, int64_t n, memverify_addr *out);
    /* Null: OK. UNKNOWN_POINTER (not the start of a block the pool holds),
     * DOUBLE_FREE (a block not in use), CLOSED. */
    memverify_status (*pool_free)(void *self, memverify_addr p);
    memverify_status (*pool_set_pinned)(void *self, int32_t on);
    /* Returns every cached, unfrozen block to the device; *released is the
     * bytes released (set also when the status is DEVICE). */
    memverify_status (*pool_trim)(void *self, int64_t *released);
    /* Fills *out and classes[0..nclasses) (nclasses is the config's count
     * plus one, for large blocks). OK or CLOSED. */
    memverify_status (*pool_stats)(void *self, memverify_pool_stats *out, memverify_class_stats *classes, size_t nclasses);
    /* Emits every block held from the device, sorted by address. OK or CLOSED. */
    memverify_status (*pool_blocks)(void *self, memverify_pool_block_fn emit, void *arg);
    /* Returns every block to the device, emitting those still in use (the
     * leak report) in address order, and closes: OK, DEVICE, CLOSED. */
    memverify_status (*pool_close)(void *self, memverify_pool_block_fn emit, void *arg);

    /* Deferred (sizeclass.DeferredAllocator): blocks come straight from the
     * device, owned by context owner; a free from the owner releases at once
     * and then drains the queue, a free from another context is queued. */
    memverify_status (*deferred_create)(const memverify_device *dev, uint32_t owner, void **self);
    void (*deferred_destroy)(void *self);
    /* n == 0: OK with *out = 0; INVALID_SIZE, OUT_OF_MEMORY, DEVICE, CLOSED. */
    memverify_status (*deferred_alloc)(void *self, int64_t n, memverify_addr *out);
    /* Null: OK. UNKNOWN_POINTER, DOUBLE_FREE (already queued), DEVICE, CLOSED. */
    memverify_status (*deferred_free)(void *self, uint32_t ctx, memverify_addr p);
    /* Frees every queued block: OK, DEVICE, CLOSED. */
    memverify_status (*deferred_gc)(void *self);
    /* The number of queued blocks. */
    int64_t (*deferred_pending)(void *self);
    /* Runs GC and refuses every later call: OK, DEVICE, CLOSED. */
    memverify_status (*deferred_close)(void *self);

    /* Streams (sizeclass.StreamAllocator): a block freed on stream s is
     * reusable at once on s, on another stream only after synchronize(s). */
    memverify_status (*streams_create)(const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self);
    void (*streams_destroy)(void *self);
    memverify_status (*streams_alloc)(void *self, uint32_t stream, int64_t n, memverify_addr *out);
    memverify_status (*streams_free)(void *self, uint32_t stream, memverify_addr p);
    memverify_status (*streams_synchronize)(void *self, uint32_t stream);
    memverify_status (*streams_trim)(void *self, int64_t *released);
    /* Emits every block held from the device, sorted by address. OK or CLOSED. */
    memverify_status (*streams_blocks)(void *self, memverify_stream_block_fn emit, void *arg);
    /* Returns every block, emitting those in use, in address order: OK,
     * DEVICE, CLOSED. */
    memverify_status (*streams_close)(void *self, memverify_stream_block_fn emit, void *arg);
} memverify_sizeclass_table;

extern const memverify_sizeclass_table memverify_sizeclass_v1;

#ifdef __cplusplus
}
#endif

#endif /* MEMVERIFY_SIZECLASS_H */
