/* loops.c — benchmark drivers: each runs one benchmark's operation n times
 * on the C side, calling the table directly, so that a figure per
 * operation is the implementation's cost and not cgo's. Each returns the
 * first status that was not OK (and stops there). */
#include "glue.h"

/* splitmix64: a small, fixed generator for the traces (the Go benchmarks
 * draw the same distributions with math/rand). */
static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

memverify_status mv_loop_rc_pairs(const memverify_refcount_table *t, void *self, memverify_addr base, int64_t span,
                                  int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        memverify_addr p = base + (memverify_addr)(i % span) * 64;
        memverify_status st = t->register_pointer(self, p, 64, MEMVERIFY_KIND_ARRAY_NEW);
        if (st == MEMVERIFY_OK) {
            st = t->unregister(self, p);
        }
        if (st != MEMVERIFY_OK) {
            return st;
        }
    }
    return MEMVERIFY_OK;
}

memverify_status mv_loop_rc_buffers(const memverify_refcount_table *t, void *self, memverify_addr base, int64_t span,
                                    int64_t n) {
    memverify_addr aliases[8];
    for (int64_t i = 0; i < n; i++) {
        memverify_addr real = base + (memverify_addr)(i % span) * 4096;
        uint64_t id;
        for (int j = 0; j < 8; j++) {
            aliases[j] = real + (memverify_addr)(j + 1) * 256;
        }
        memverify_status st = t->register_buffer(self, real, 4096, aliases, 8, MEMVERIFY_KIND_ARRAY_NEW, &id);
        for (int j = 0; j < 8 && st == MEMVERIFY_OK; j++) {
            st = t->unregister(self, aliases[j]);
        }
        if (st == MEMVERIFY_OK) {
            st = t->unregister(self, real);
        }
        if (st != MEMVERIFY_OK) {
            return st;
        }
    }
    return MEMVERIFY_OK;
}

/* mv_loop_fl_trace frees a random live block and allocates a block of
 * 1 to units alignment units in its place, n times; live holds the live
 * blocks as unit offsets from base, and is updated in place. */
memverify_status mv_loop_fl_trace(const memverify_bank_table *t, void *self, uint32_t *live, size_t nlive,
                                  memverify_addr base, int64_t align, int64_t units, int32_t dir, uint64_t seed,
                                  int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        size_t k = (size_t)(next(&seed) % nlive);
        memverify_addr a;
        memverify_status st = t->freelist_free(self, base + (memverify_addr)live[k] * (uint64_t)align);
        if (st == MEMVERIFY_OK) {
            int64_t size = align * (int64_t)(1 + next(&seed) % (uint64_t)units);
            st = t->freelist_allocate(self, size, dir, 0, &a);
        }
        if (st != MEMVERIFY_OK) {
            return st;
        }
        live[k] = (uint32_t)((a - base) / (uint64_t)align);
    }
    return MEMVERIFY_OK;
}

/* mv_loop_pool_pairs is in glue_sizeclass.c, beside the ticket it sets. */
