/*
 * bank_table.c — the bank example's table: the free list of
 * bank_freelist.c behind a mutex of its own, and the banks of
 * bank_banks.c.
 */
#include "bank_example.h"

typedef struct locked {
    pthread_mutex_t mu;
    flist l;
} locked;

static memverify_status create(const memverify_bank_config *cfg, void **self) {
    locked *k = malloc(sizeof *k);
    if (k == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memverify_status st = fl_init(&k->l, cfg);
    if (st != MEMVERIFY_OK) {
        free(k);
        return st;
    }
    pthread_mutex_init(&k->mu, NULL);
    *self = k;
    return MEMVERIFY_OK;
}

static void destroy(void *self) {
    locked *k = self;
    fl_release(&k->l);
    pthread_mutex_destroy(&k->mu);
    free(k);
}

static memverify_status allocate(void *self, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    memverify_status st = fl_allocate(&k->l, size, dir, limit, out);
    pthread_mutex_unlock(&k->mu);
    return st;
}

static memverify_status allocate_at(void *self, memverify_addr addr, int64_t size) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    memverify_status st = fl_allocate_at(&k->l, addr, size);
    pthread_mutex_unlock(&k->mu);
    return st;
}

static memverify_status allocate_avoiding(void *self, int64_t size, int32_t dir, const memverify_bank_range *avoid,
                                          size_t navoid, memverify_addr limit, memverify_addr *out) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    memverify_status st = fl_allocate_avoiding(&k->l, size, dir, avoid, navoid, limit, out);
    pthread_mutex_unlock(&k->mu);
    return st;
}

static memverify_status release(void *self, memverify_addr addr) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    memverify_status st = fl_free(&k->l, addr);
    pthread_mutex_unlock(&k->mu);
    return st;
}

static void stats(void *self, memverify_bank_stats *out) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    fl_stats(&k->l, out);
    pthread_mutex_unlock(&k->mu);
}

static void blocks(void *self, memverify_bank_block_fn emit, void *arg) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    fl_blocks(&k->l, emit, arg);
    pthread_mutex_unlock(&k->mu);
}

static void state(void *self, memverify_bank_region_fn emit, void *arg) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    fl_state(&k->l, emit, arg);
    pthread_mutex_unlock(&k->mu);
}

static memverify_status restore(void *self, const memverify_bank_state *s) {
    locked *k = self;
    pthread_mutex_lock(&k->mu);
    memverify_status st = fl_restore(&k->l, s);
    pthread_mutex_unlock(&k->mu);
    return st;
}

const memverify_bank_table memverify_bank_v1 = {
    {MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT, sizeof(memverify_bank_table), "c-bank"},
    create,
    destroy,
    allocate,
    allocate_at,
    allocate_avoiding,
    release,
    stats,
    blocks,
    state,
    restore,
    banks_create,
    banks_destroy,
    banks_allocate_buffer,
    banks_allocate_sharded,
    banks_free_buffer,
    banks_page_address,
    banks_buffers,
    banks_stats,
    banks_blocks,
};
