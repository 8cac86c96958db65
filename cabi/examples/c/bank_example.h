/*
 * bank_example.h — the free list both halves of the bank example share:
 * bank_freelist.c implements it (and exports it behind a mutex), and
 * bank_banks.c puts banks over one of them.
 */
#ifndef BANK_EXAMPLE_H
#define BANK_EXAMPLE_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "memverify/bank.h"

/* One block of the tiling: [addr, addr+size), free or allocated. */
typedef struct blk {
    memverify_addr addr;
    int64_t size;
    int allocated;
} blk;

/* A free list: blocks that tile [offset, offset+size) in address order, no
 * two free blocks adjacent. Not safe for concurrent use by itself. */
typedef struct flist {
    memverify_bank_config cfg;
    blk *b;
    size_t n, cap;
} flist;

memverify_status fl_init(flist *l, const memverify_bank_config *cfg);
void fl_release(flist *l);
memverify_status fl_allocate(flist *l, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out);
memverify_status fl_allocate_at(flist *l, memverify_addr addr, int64_t size);
memverify_status fl_allocate_avoiding(flist *l, int64_t size, int32_t dir, const memverify_bank_range *avoid,
                                      size_t navoid, memverify_addr limit, memverify_addr *out);
memverify_status fl_free(flist *l, memverify_addr addr);
void fl_state(const flist *l, memverify_bank_region_fn emit, void *arg);
memverify_status fl_restore(flist *l, const memverify_bank_state *s);
void fl_stats(const flist *l, memverify_bank_stats *out);
void fl_blocks(const flist *l, memverify_bank_block_fn emit, void *arg);

/* align_up rounds x up to a multiple of a >= 1; 0 if that overflows. */
static inline int align_up(uint64_t x, uint64_t a, uint64_t *out) {
    uint64_t r = x % a;
    if (r == 0) {
        *out = x;
        return 1;
    }
    if (x > UINT64_MAX - (a - r)) {
        return 0;
    }
    *out = x + (a - r);
    return 1;
}

static inline memverify_addr fl_end(const flist *l) { return l->cfg.offset + (uint64_t)l->cfg.size; }

/* The table's bank functions (bank_banks.c). */
memverify_status banks_create(const memverify_banks_config *cfg, void **self);
void banks_destroy(void *self);
memverify_status banks_allocate_buffer(void *self, int64_t size, int64_t page, int32_t dir, memverify_addr *out);
memverify_status banks_allocate_sharded(void *self, int64_t size, int64_t page, const int32_t *banks, size_t n,
                                        int32_t dir, memverify_addr *out);
memverify_status banks_free_buffer(void *self, memverify_addr addr);
memverify_status banks_page_address(void *self, memverify_addr addr, int64_t page, int32_t *bank,
                                    memverify_addr *abs);
void banks_buffers(void *self, memverify_bank_buffer_fn emit, void *arg);
void banks_stats(void *self, memverify_bank_stats *out);
void banks_blocks(void *self, memverify_bank_block_fn emit, void *arg);

#endif
