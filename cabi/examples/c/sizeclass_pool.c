/*
 * sizeclass_pool.c — a small, correct size-class caching pool for
 * memverify's sizeclass ABI (memverify/sizeclass.h), and the table that
 * exports it with the deferred and stream-ordered allocators of the two
 * other files.
 *
 * One mutex guards plain arrays: the blocks held from the device, one LIFO
 * stack of free blocks per class, and the large blocks in the order they
 * were made (first fit reuses the oldest). Device calls are made with the
 * mutex held; the device is safe for that.
 */
#include "sizeclass_example.h"

typedef struct block {
    memverify_addr addr;
    int64_t size;
    int32_t class_index; /* -1: large */
    int64_t requested;   /* 0 when free */
    int in_use, frozen;
} block;

typedef struct stack {
    memverify_addr *a;
    size_t n, cap;
} stack;

typedef struct pool {
    pthread_mutex_t mu;
    memverify_device dev;
    sc_shape shape;
    block *blocks; /* every block held, unsorted */
    size_t nblocks, capblocks;
    stack *free;  /* per class: free blocks, the last handed out next */
    stack large;  /* every large block, free or not, oldest first */
    int64_t hits, misses, fails;
    int pinned, closed;
} pool;

static block *find(pool *p, memverify_addr a) {
    for (size_t i = 0; i < p->nblocks; i++) {
        if (p->blocks[i].addr == a) {
            return &p->blocks[i];
        }
    }
    return NULL;
}

static int push(stack *s, memverify_addr a) {
    if (!sc_grow((void **)&s->a, &s->cap, s->n + 1, sizeof *s->a)) {
        return 0;
    }
    s->a[s->n++] = a;
    return 1;
}

static void remove_at(stack *s, size_t i) {
    memmove(&s->a[i], &s->a[i + 1], (s->n - i - 1) * sizeof *s->a);
    s->n--;
}

memverify_status pool_create(const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self) {
    pool *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memverify_status st = sc_shape_init(&p->shape, cfg);
    if (st == MEMVERIFY_OK && (p->free = calloc(cfg->nclasses + 1, sizeof *p->free)) == NULL) {
        free(p->shape.classes);
        st = MEMVERIFY_E_HOST_MEMORY;
    }
    if (st != MEMVERIFY_OK) {
        free(p);
        return st;
    }
    pthread_mutex_init(&p->mu, NULL);
    p->dev = *dev;
    *self = p;
    return MEMVERIFY_OK;
}

static void release_memory(pool *p) {
    for (size_t c = 0; c < p->shape.nclasses; c++) {
        free(p->free[c].a);
        p->free[c] = (stack){NULL, 0, 0};
    }
    free(p->large.a);
    free(p->blocks);
    p->large = (stack){NULL, 0, 0};
    p->blocks = NULL;
    p->nblocks = p->capblocks = 0;
}

void pool_destroy(void *self) {
    pool *p = self;
    release_memory(p);
    free(p->free);
    free(p->shape.classes);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* drop returns free, unfrozen block b to the device and forgets it. */
static memverify_status drop(pool *p, block *b, int64_t *released) {
    *released += b->size;
    memverify_status st = sc_free(&p->dev, b->addr);
    if (st != MEMVERIFY_OK) {
        p->fails++;
    }
    *b = p->blocks[--p->nblocks];
    return st;
}

/* trim_locked frees every cached, unfrozen block: class by class, oldest
 * first, then the large blocks in the order they were made. */
static memverify_status trim_locked(pool *p, int64_t *released) {
    memverify_status st = MEMVERIFY_OK;
    *released = 0;
    for (size_t c = 0; c <= p->shape.nclasses; c++) {
        stack *s = c < p->shape.nclasses ? &p->free[c] : &p->large;
        for (size_t i = 0; i < s->n;) {
            block *b = find(p, s->a[i]);
            if (b->in_use || b->frozen) {
                i++;
                continue;
            }
            remove_at(s, i);
            if (drop(p, b, released) != MEMVERIFY_OK) {
                st = MEMVERIFY_E_DEVICE;
            }
        }
    }
    return st;
}

static void hand_out(pool *p, block *b, int64_t n) {
    b->in_use = 1;
    b->requested = n;
    b->frozen = b->frozen || p->pinned;
}

/* alloc_new mallocs a block of size for n, trimming and retrying once when
 * the device is full. */
static memverify_status alloc_new(pool *p, int64_t n, int64_t size, int32_t c, memverify_addr *out) {
    if (!sc_grow((void **)&p->blocks, &p->capblocks, p->nblocks + 1, sizeof *p->blocks) ||
        (c < 0 && !sc_grow((void **)&p->large.a, &p->large.cap, p->large.n + 1, sizeof *p->large.a))) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memverify_addr a;
    memverify_status st = sc_malloc(&p->dev, size, &a);
    if (st == MEMVERIFY_E_OUT_OF_MEMORY) {
        int64_t released;
        trim_locked(p, &released);
        if (released > 0) {
            st = sc_malloc(&p->dev, size, &a);
        }
    }
    if (st != MEMVERIFY_OK) {
        return st;
    }
    block *b = &p->blocks[p->nblocks++];
    *b = (block){a, size, c, 0, 0, 0};
    if (c < 0) {
        push(&p->large, a);
    }
    p->misses++;
    hand_out(p, b, n);
    *out = a;
    return MEMVERIFY_OK;
}

static memverify_status alloc_locked(pool *p, int64_t n, memverify_addr *out) {
    int64_t size;
    if (p->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (!sc_round(&p->shape, n, &size)) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    *out = 0;
    if (n == 0) {
        return MEMVERIFY_OK;
    }
    int32_t c = sc_class(&p->shape, size);
    if (c >= 0) {
        size = p->shape.classes[c];
        stack *s = &p->free[c];
        if (s->n > 0) {
            block *b = find(p, s->a[--s->n]);
            p->hits++;
            hand_out(p, b, n);
            *out = b->addr;
            return MEMVERIFY_OK;
        }
    } else {
        for (size_t i = 0; i < p->large.n; i++) {
            block *b = find(p, p->large.a[i]);
            if (!b->in_use && b->size >= size) {
                p->hits++;
                hand_out(p, b, n);
                *out = b->addr;
                return MEMVERIFY_OK;
            }
        }
    }
    return alloc_new(p, n, size, c, out);
}

memverify_status pool_alloc(void *self, int64_t n, memverify_addr *out) {
    pool *p = self;
    pthread_mutex_lock(&p->mu);
    memverify_status st = alloc_locked(p, n, out);
    pthread_mutex_unlock(&p->mu);
    return st;
}

static memverify_status free_locked(pool *p, memverify_addr a) {
    if (p->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (a == 0) {
        return MEMVERIFY_OK;
    }
    block *b = find(p, a);
    if (b == NULL) {
        return MEMVERIFY_E_UNKNOWN_POINTER;
    }
    if (!b->in_use) {
        return MEMVERIFY_E_DOUBLE_FREE;
    }
    if (b->class_index >= 0 && !push(&p->free[b->class_index], a)) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    b->in_use = 0;
    b->requested = 0;
    return MEMVERIFY_OK;
}

memverify_status pool_free(void *self, memverify_addr a) {
    pool *p = self;
    pthread_mutex_lock(&p->mu);
    memverify_status st = free_locked(p, a);
    pthread_mutex_unlock(&p->mu);
    return st;
}

memverify_status pool_set_pinned(void *self, int32_t on) {
    pool *p = self;
    pthread_mutex_lock(&p->mu);
    memverify_status st = p->closed ? MEMVERIFY_E_CLOSED : MEMVERIFY_OK;
    if (!p->closed) {
        p->pinned = on != 0;
    }
    pthread_mutex_unlock(&p->mu);
    return st;
}

memverify_status pool_trim(void *self, int64_t *released) {
    pool *p = self;
    pthread_mutex_lock(&p->mu);
    memverify_status st = p->closed ? MEMVERIFY_E_CLOSED : trim_locked(p, released);
    pthread_mutex_unlock(&p->mu);
    return st;
}

memverify_status pool_stats(void *self, memverify_pool_stats *out, memverify_class_stats *classes, size_t n) {
    pool *p = self;
    pthread_mutex_lock(&p->mu);
    if (p->closed) {
        pthread_mutex_unlock(&p->mu);
        return MEMVERIFY_E_CLOSED;
    }
    *out = (memverify_pool_stats){0};
    out->hits = p->hits, out->misses = p->misses, out->free_failures = p->fails;
    for (size_t c = 0; c < n; c++) {
        classes[c] = (memverify_class_stats){c < p->shape.nclasses ? p->shape.classes[c] : 0, 0, 0};
    }
    for (size_t i = 0; i < p->nblocks; i++) {
        const block *b = &p->blocks[i];
        size_t c = b->class_index >= 0 ? (size_t)b->class_index : p->shape.nclasses;
        if (c < n) {
            classes[c].blocks++;
            classes[c].in_use += b->in_use;
        }
        out->blocks++;
        out->reserved += b->size;
        out->frozen += b->frozen;
        if (b->in_use) {
            out->in_use += b->size;
            out->requested += b->requested;
        }
    }
    out->cached = out->reserved - out->in_use;
    pthread_mutex_unlock(&p->mu);
    return MEMVERIFY_OK;
}

static int by_addr(const void *x, const void *y) {
    const block *a = x, *b = y;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static memverify_pool_block entry(const block *b) {
    return (memverify_pool_block){b->addr, b->size, b->class_index, b->in_use, b->requested, b->frozen, !b->in_use};
}

memverify_status pool_blocks(void *self, memverify_pool_block_fn emit, void *arg) {
    pool *p = self;
    pthread_mutex_lock(&p->mu);
    if (p->closed) {
        pthread_mutex_unlock(&p->mu);
        return MEMVERIFY_E_CLOSED;
    }
    qsort(p->blocks, p->nblocks, sizeof *p->blocks, by_addr);
    for (size_t i = 0; i < p->nblocks; i++) {
        memverify_pool_block e = entry(&p->blocks[i]);
        emit(arg, &e);
    }
    pthread_mutex_unlock(&p->mu);
    return MEMVERIFY_OK;
}

memverify_status pool_close(void *self, memverify_pool_block_fn emit, void *arg) {
    pool *p = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&p->mu);
    if (p->closed) {
        pthread_mutex_unlock(&p->mu);
        return MEMVERIFY_E_CLOSED;
    }
    qsort(p->blocks, p->nblocks, sizeof *p->blocks, by_addr);
    for (size_t i = 0; i < p->nblocks; i++) {
        const block *b = &p->blocks[i];
        if (b->in_use) {
            memverify_pool_block e = entry(b);
            emit(arg, &e);
        }
        if (sc_free(&p->dev, b->addr) != MEMVERIFY_OK) {
            st = MEMVERIFY_E_DEVICE;
        }
    }
    release_memory(p);
    p->closed = 1;
    pthread_mutex_unlock(&p->mu);
    return st;
}

const memverify_sizeclass_table memverify_sizeclass_v1 = {
    {MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT, sizeof(memverify_sizeclass_table), "c-sizeclass"},
    pool_create,
    pool_destroy,
    pool_alloc,
    pool_free,
    pool_set_pinned,
    pool_trim,
    pool_stats,
    pool_blocks,
    pool_close,
    deferred_create,
    deferred_destroy,
    deferred_alloc,
    deferred_free,
    deferred_gc,
    deferred_pending,
    deferred_close,
    streams_create,
    streams_destroy,
    streams_alloc,
    streams_free,
    streams_synchronize,
    streams_trim,
    streams_blocks,
    streams_close,
};
