/*
 * sizeclass_streams.c — stream-ordered reuse (sizeclass.StreamAllocator):
 * a block freed on stream s may be handed out again at once on s, and on
 * another stream only once s is synchronised. One list of free blocks,
 * most recently freed last; an allocation takes the most recently freed
 * block it may have. One mutex.
 */
#include "sizeclass_example.h"

typedef struct sblock {
    memverify_addr addr;
    int64_t size;
    int32_t class_index;
    int in_use;
    uint32_t stream; /* handed out on, or freed on */
    int pending;     /* freed on stream and not synchronised since */
} sblock;

typedef struct streams {
    pthread_mutex_t mu;
    memverify_device dev;
    sc_shape shape;
    sblock *blocks;
    size_t nblocks, capblocks;
    memverify_addr *cache; /* free blocks, most recently freed last */
    size_t ncache, capcache;
    int closed;
} streams;

static sblock *find(streams *a, memverify_addr p) {
    for (size_t i = 0; i < a->nblocks; i++) {
        if (a->blocks[i].addr == p) {
            return &a->blocks[i];
        }
    }
    return NULL;
}

static void uncache(streams *a, size_t i) {
    memmove(&a->cache[i], &a->cache[i + 1], (a->ncache - i - 1) * sizeof *a->cache);
    a->ncache--;
}

memverify_status streams_create(const memverify_device *dev, const memverify_sizeclass_config *cfg, void **self) {
    streams *a = calloc(1, sizeof *a);
    if (a == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memverify_status st = sc_shape_init(&a->shape, cfg);
    if (st != MEMVERIFY_OK) {
        free(a);
        return st;
    }
    pthread_mutex_init(&a->mu, NULL);
    a->dev = *dev;
    *self = a;
    return MEMVERIFY_OK;
}

static void release_memory(streams *a) {
    free(a->blocks);
    free(a->cache);
    a->blocks = NULL, a->cache = NULL;
    a->nblocks = a->capblocks = a->ncache = a->capcache = 0;
}

void streams_destroy(void *self) {
    streams *a = self;
    release_memory(a);
    free(a->shape.classes);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

static memverify_status trim_locked(streams *a, int64_t *released) {
    memverify_status st = MEMVERIFY_OK;
    *released = 0;
    for (size_t i = 0; i < a->ncache;) {
        sblock *b = find(a, a->cache[i]);
        if (b->pending) {
            i++;
            continue;
        }
        uncache(a, i);
        *released += b->size;
        if (sc_free(&a->dev, b->addr) != MEMVERIFY_OK) {
            st = MEMVERIFY_E_DEVICE;
        }
        *b = a->blocks[--a->nblocks];
    }
    return st;
}

static memverify_status alloc_locked(streams *a, uint32_t s, int64_t n, memverify_addr *out) {
    int64_t size;
    if (a->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (!sc_round(&a->shape, n, &size)) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    *out = 0;
    if (n == 0) {
        return MEMVERIFY_OK;
    }
    int32_t c = sc_class(&a->shape, size);
    for (size_t i = a->ncache; i-- > 0;) {
        sblock *b = find(a, a->cache[i]);
        int fits = b->class_index == c && (c >= 0 || b->size >= size);
        if (fits && (b->stream == s || !b->pending)) {
            uncache(a, i);
            b->in_use = 1, b->stream = s, b->pending = 0;
            *out = b->addr;
            return MEMVERIFY_OK;
        }
    }
    if (c >= 0) {
        size = a->shape.classes[c];
    }
    if (!sc_grow((void **)&a->blocks, &a->capblocks, a->nblocks + 1, sizeof *a->blocks)) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memverify_status st = sc_malloc(&a->dev, size, out);
    if (st == MEMVERIFY_E_OUT_OF_MEMORY) {
        int64_t released;
        trim_locked(a, &released);
        if (released > 0) {
            st = sc_malloc(&a->dev, size, out);
        }
    }
    if (st == MEMVERIFY_OK) {
        a->blocks[a->nblocks++] = (sblock){*out, size, c, 1, s, 0};
    }
    return st;
}

memverify_status streams_alloc(void *self, uint32_t s, int64_t n, memverify_addr *out) {
    streams *a = self;
    pthread_mutex_lock(&a->mu);
    memverify_status st = alloc_locked(a, s, n, out);
    pthread_mutex_unlock(&a->mu);
    return st;
}

static memverify_status free_locked(streams *a, uint32_t s, memverify_addr p) {
    if (a->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (p == 0) {
        return MEMVERIFY_OK;
    }
    sblock *b = find(a, p);
    if (b == NULL) {
        return MEMVERIFY_E_UNKNOWN_POINTER;
    }
    if (!b->in_use) {
        return MEMVERIFY_E_DOUBLE_FREE;
    }
    if (!sc_grow((void **)&a->cache, &a->capcache, a->ncache + 1, sizeof *a->cache)) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    a->cache[a->ncache++] = p;
    b->in_use = 0, b->stream = s, b->pending = 1;
    return MEMVERIFY_OK;
}

memverify_status streams_free(void *self, uint32_t s, memverify_addr p) {
    streams *a = self;
    pthread_mutex_lock(&a->mu);
    memverify_status st = free_locked(a, s, p);
    pthread_mutex_unlock(&a->mu);
    return st;
}

memverify_status streams_synchronize(void *self, uint32_t s) {
    streams *a = self;
    pthread_mutex_lock(&a->mu);
    memverify_status st = a->closed ? MEMVERIFY_E_CLOSED : MEMVERIFY_OK;
    for (size_t i = 0; !a->closed && i < a->ncache; i++) {
        sblock *b = find(a, a->cache[i]);
        if (b->stream == s) {
            b->pending = 0;
        }
    }
    pthread_mutex_unlock(&a->mu);
    return st;
}

memverify_status streams_trim(void *self, int64_t *released) {
    streams *a = self;
    pthread_mutex_lock(&a->mu);
    memverify_status st = a->closed ? MEMVERIFY_E_CLOSED : trim_locked(a, released);
    pthread_mutex_unlock(&a->mu);
    return st;
}

static int by_addr(const void *x, const void *y) {
    const sblock *a = x, *b = y;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static memverify_stream_block entry(const sblock *b) {
    return (memverify_stream_block){b->addr, b->size, b->class_index, b->in_use, b->stream, b->pending, !b->in_use};
}

memverify_status streams_blocks(void *self, memverify_stream_block_fn emit, void *arg) {
    streams *a = self;
    pthread_mutex_lock(&a->mu);
    if (a->closed) {
        pthread_mutex_unlock(&a->mu);
        return MEMVERIFY_E_CLOSED;
    }
    qsort(a->blocks, a->nblocks, sizeof *a->blocks, by_addr);
    for (size_t i = 0; i < a->nblocks; i++) {
        memverify_stream_block e = entry(&a->blocks[i]);
        emit(arg, &e);
    }
    pthread_mutex_unlock(&a->mu);
    return MEMVERIFY_OK;
}

memverify_status streams_close(void *self, memverify_stream_block_fn emit, void *arg) {
    streams *a = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&a->mu);
    if (a->closed) {
        pthread_mutex_unlock(&a->mu);
        return MEMVERIFY_E_CLOSED;
    }
    qsort(a->blocks, a->nblocks, sizeof *a->blocks, by_addr);
    for (size_t i = 0; i < a->nblocks; i++) {
        const sblock *b = &a->blocks[i];
        if (b->in_use) {
            memverify_stream_block e = entry(b);
            emit(arg, &e);
        }
        if (sc_free(&a->dev, b->addr) != MEMVERIFY_OK) {
            st = MEMVERIFY_E_DEVICE;
        }
    }
    release_memory(a);
    a->closed = 1;
    pthread_mutex_unlock(&a->mu);
    return st;
}
