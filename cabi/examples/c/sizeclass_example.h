/*
 * sizeclass_example.h — what the three allocators of the sizeclass example
 * share: growing arrays, rounding, classes, the device, and the functions
 * the table (in sizeclass_pool.c) lists.
 */
#ifndef SIZECLASS_EXAMPLE_H
#define SIZECLASS_EXAMPLE_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "memverify/sizeclass.h"

/* grow makes room for need elements of size elem in *p; 0 on failure. */
static inline int sc_grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) {
        return 1;
    }
    size_t n = *cap ? *cap * 2 : 8;
    while (n < need) {
        n *= 2;
    }
    void *q = realloc(*p, n * elem);
    if (q == NULL) {
        return 0;
    }
    *p = q;
    *cap = n;
    return 1;
}

/* The shape of a pool, copied from the caller's config. */
typedef struct sc_shape {
    int64_t alignment;
    int64_t *classes;
    size_t nclasses;
} sc_shape;

/* sc_shape_init validates and copies cfg. */
static inline memverify_status sc_shape_init(sc_shape *s, const memverify_sizeclass_config *cfg) {
    int64_t a = cfg->alignment;
    if (a <= 0 || (a & (a - 1)) != 0) {
        return MEMVERIFY_E_INVALID_CONFIG;
    }
    for (size_t i = 0; i < cfg->nclasses; i++) {
        int64_t c = cfg->classes[i];
        if (c <= 0 || c % a != 0 || (i > 0 && c <= cfg->classes[i - 1])) {
            return MEMVERIFY_E_INVALID_CONFIG;
        }
    }
    s->alignment = a;
    s->nclasses = cfg->nclasses;
    s->classes = malloc((cfg->nclasses + 1) * sizeof *s->classes);
    if (s->classes == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memcpy(s->classes, cfg->classes, cfg->nclasses * sizeof *s->classes);
    return MEMVERIFY_OK;
}

/* sc_round rounds n >= 0 up to the alignment; 0 if it does not fit.
 * The seeded bug MEMVERIFY_BUG_ROUND_WRAP is the seed's (n + a - 1) / a * a
 * with no overflow check: near the top of the range the sum wraps, and a
 * huge request becomes a small block. */
static inline int sc_round(const sc_shape *s, int64_t n, int64_t *out) {
    int64_t a = s->alignment;
#ifdef MEMVERIFY_BUG_ROUND_WRAP
    if (n < 0) {
        return 0;
    }
    *out = (int64_t)(((uint64_t)n + (uint64_t)a - 1) / (uint64_t)a * (uint64_t)a);
    return 1;
#else
    if (n < 0 || n > INT64_MAX - (a - 1)) {
        return 0;
    }
    *out = (n + a - 1) & ~(a - 1);
    return 1;
#endif
}

/* sc_class is the first class that holds size, or -1 (a large block). */
static inline int32_t sc_class(const sc_shape *s, int64_t size) {
    for (size_t i = 0; i < s->nclasses; i++) {
        if (size <= s->classes[i]) {
            return (int32_t)i;
        }
    }
    return -1;
}

static inline memverify_status sc_malloc(const memverify_device *d, int64_t n, memverify_addr *out) {
    return d->malloc_fn(d->ctx, n, out);
}

static inline memverify_status sc_free(const memverify_device *d, memverify_addr p) {
    return d->free_fn(d->ctx, p);
}

/* The table's functions, one file per allocator. */
memverify_status pool_create(const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self);
void pool_destroy(void *self);
memverify_status pool_alloc(void *self, int64_t n, memverify_addr *out);
memverify_status pool_free(void *self, memverify_addr p);
memverify_status pool_set_pinned(void *self, int32_t on);
memverify_status pool_trim(void *self, int64_t *released);
memverify_status pool_stats(void *self, memverify_pool_stats *out, memverify_class_stats *classes, size_t n);
memverify_status pool_blocks(void *self, memverify_pool_block_fn emit, void *arg);
memverify_status pool_close(void *self, memverify_pool_block_fn emit, void *arg);

memverify_status deferred_create(const memverify_device *dev, uint32_t owner, void **self);
void deferred_destroy(void *self);
memverify_status deferred_alloc(void *self, int64_t n, memverify_addr *out);
memverify_status deferred_free(void *self, uint32_t ctx, memverify_addr p);
memverify_status deferred_gc(void *self);
int64_t deferred_pending(void *self);
memverify_status deferred_close(void *self);

memverify_status streams_create(const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self);
void streams_destroy(void *self);
memverify_status streams_alloc(void *self, uint32_t s, int64_t n, memverify_addr *out);
memverify_status streams_free(void *self, uint32_t s, memverify_addr p);
memverify_status streams_synchronize(void *self, uint32_t s);
memverify_status streams_trim(void *self, int64_t *released);
memverify_status streams_blocks(void *self, memverify_stream_block_fn emit, void *arg);
memverify_status streams_close(void *self, memverify_stream_block_fn emit, void *arg);

#endif
