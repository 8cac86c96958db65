/*
 * bank_banks.c — banks over one shared free list (bank.Banks): a buffer
 * takes the same bank-local range in every bank it uses, and page i lives
 * in bank banks[i mod n] at addr + offsets[bank] + (i div n) * align(page).
 * One mutex around the list and the array of live buffers.
 */
#include "bank_example.h"

typedef struct buffer {
    memverify_bank_buffer b;
    int32_t *banks;
    size_t nbanks;
} buffer;

typedef struct banks {
    pthread_mutex_t mu;
    memverify_addr *offsets;
    size_t nbanks;
    memverify_addr limit;
    flist list;
    buffer *bufs;
    size_t nbufs, capbufs;
} banks;

memverify_status banks_create(const memverify_banks_config *cfg, void **self) {
    if (cfg->nbanks < 1 || cfg->nbanks > 1024) {
        return MEMVERIFY_E_INVALID_CONFIG;
    }
    banks *g = calloc(1, sizeof *g);
    if (g == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memverify_status st = fl_init(&g->list, &cfg->list);
    for (size_t i = 0; st == MEMVERIFY_OK && i < cfg->nbanks; i++) {
        if (cfg->offsets[i] > UINT64_MAX - fl_end(&g->list)) {
            st = MEMVERIFY_E_INVALID_CONFIG;
        }
    }
    if (st == MEMVERIFY_OK && (g->offsets = malloc(cfg->nbanks * sizeof *g->offsets)) == NULL) {
        st = MEMVERIFY_E_HOST_MEMORY;
    }
    if (st != MEMVERIFY_OK) {
        fl_release(&g->list);
        free(g);
        return st;
    }
    memcpy(g->offsets, cfg->offsets, cfg->nbanks * sizeof *g->offsets);
    g->nbanks = cfg->nbanks;
    g->limit = cfg->limit;
    pthread_mutex_init(&g->mu, NULL);
    *self = g;
    return MEMVERIFY_OK;
}

void banks_destroy(void *self) {
    banks *g = self;
    for (size_t i = 0; i < g->nbufs; i++) {
        free(g->bufs[i].banks);
    }
    free(g->bufs);
    free(g->offsets);
    fl_release(&g->list);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* layout is ceil(ceil(size / page) / nbanks) * align(page), the bytes each
 * bank holds. */
static memverify_status layout(const banks *g, int64_t size, int64_t page, size_t nbanks, int64_t *per_bank) {
    uint64_t stride, bytes;
    if (size <= 0 || page <= 0) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    int64_t rows = ceil_div(ceil_div(size, page), (int64_t)nbanks);
    if (!align_up((uint64_t)page, (uint64_t)g->list.cfg.alignment, &stride) ||
        __builtin_mul_overflow((uint64_t)rows, stride, &bytes) || bytes > INT64_MAX) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    *per_bank = (int64_t)bytes;
    return MEMVERIFY_OK;
}

static int grow_bufs(banks *g) {
    if (g->nbufs < g->capbufs) {
        return 1;
    }
    size_t cap = 2 * g->capbufs + 8;
    buffer *b = realloc(g->bufs, cap * sizeof *b);
    if (b == NULL) {
        return 0;
    }
    g->bufs = b;
    g->capbufs = cap;
    return 1;
}

/* place allocates a buffer whose pages go round list (which it owns). */
static memverify_status place(banks *g, int64_t size, int64_t page, int32_t *list, size_t n, int32_t dir,
                              memverify_addr *out) {
    int64_t per_bank;
    memverify_status st = layout(g, size, page, n, &per_bank);
    if (st == MEMVERIFY_OK && !grow_bufs(g)) {
        st = MEMVERIFY_E_HOST_MEMORY;
    }
    if (st == MEMVERIFY_OK) {
        st = fl_allocate(&g->list, per_bank, dir, g->limit, out);
    }
    if (st != MEMVERIFY_OK) {
        free(list);
        return st;
    }
    g->bufs[g->nbufs++] = (buffer){{*out, size, page, per_bank}, list, n};
    return MEMVERIFY_OK;
}

memverify_status banks_allocate_buffer(void *self, int64_t size, int64_t page, int32_t dir, memverify_addr *out) {
    banks *g = self;
    int32_t *list = malloc(g->nbanks * sizeof *list);
    if (list == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    for (size_t i = 0; i < g->nbanks; i++) {
        list[i] = (int32_t)i;
    }
    pthread_mutex_lock(&g->mu);
    memverify_status st = place(g, size, page, list, g->nbanks, dir, out);
    pthread_mutex_unlock(&g->mu);
    return st;
}

memverify_status banks_allocate_sharded(void *self, int64_t size, int64_t page, const int32_t *shards, size_t n,
                                        int32_t dir, memverify_addr *out) {
    banks *g = self;
    if (n == 0) {
        return MEMVERIFY_E_INVALID_BANK;
    }
    for (size_t i = 0; i < n; i++) {
        if (shards[i] < 0 || (size_t)shards[i] >= g->nbanks) {
            return MEMVERIFY_E_INVALID_BANK;
        }
        for (size_t j = 0; j < i; j++) {
            if (shards[j] == shards[i]) {
                return MEMVERIFY_E_INVALID_BANK;
            }
        }
    }
    int32_t *list = malloc(n * sizeof *list);
    if (list == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memcpy(list, shards, n * sizeof *list);
    pthread_mutex_lock(&g->mu);
    memverify_status st = place(g, size, page, list, n, dir, out);
    pthread_mutex_unlock(&g->mu);
    return st;
}

static buffer *find(banks *g, memverify_addr addr) {
    for (size_t i = 0; i < g->nbufs; i++) {
        if (g->bufs[i].b.addr == addr) {
            return &g->bufs[i];
        }
    }
    return NULL;
}

memverify_status banks_free_buffer(void *self, memverify_addr addr) {
    banks *g = self;
    memverify_status st = MEMVERIFY_E_UNKNOWN_ADDRESS;
    pthread_mutex_lock(&g->mu);
    buffer *b = find(g, addr);
    if (b != NULL) {
        free(b->banks);
        *b = g->bufs[--g->nbufs];
        st = fl_free(&g->list, addr);
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

memverify_status banks_page_address(void *self, memverify_addr addr, int64_t page, int32_t *bank,
                                    memverify_addr *abs) {
    banks *g = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&g->mu);
    buffer *b = find(g, addr);
    if (b == NULL) {
        st = MEMVERIFY_E_UNKNOWN_ADDRESS;
    } else if (page < 0 || page >= ceil_div(b->b.size, b->b.page_size)) {
        st = MEMVERIFY_E_INVALID_ADDRESS;
    } else {
        uint64_t stride;
        align_up((uint64_t)b->b.page_size, (uint64_t)g->list.cfg.alignment, &stride); /* layout checked it */
        int64_t n = (int64_t)b->nbanks;
        *bank = b->banks[page % n];
        *abs = addr + g->offsets[*bank] + (uint64_t)(page / n) * stride;
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

static int by_addr(const void *x, const void *y) {
    const buffer *a = x, *b = y;
    return a->b.addr < b->b.addr ? -1 : a->b.addr > b->b.addr;
}

void banks_buffers(void *self, memverify_bank_buffer_fn emit, void *arg) {
    banks *g = self;
    pthread_mutex_lock(&g->mu);
    qsort(g->bufs, g->nbufs, sizeof *g->bufs, by_addr);
    for (size_t i = 0; i < g->nbufs; i++) {
        emit(arg, &g->bufs[i].b, g->bufs[i].banks, g->bufs[i].nbanks);
    }
    pthread_mutex_unlock(&g->mu);
}

void banks_stats(void *self, memverify_bank_stats *out) {
    banks *g = self;
    pthread_mutex_lock(&g->mu);
    fl_stats(&g->list, out);
    pthread_mutex_unlock(&g->mu);
}

void banks_blocks(void *self, memverify_bank_block_fn emit, void *arg) {
    banks *g = self;
    pthread_mutex_lock(&g->mu);
    fl_blocks(&g->list, emit, arg);
    pthread_mutex_unlock(&g->mu);
}
