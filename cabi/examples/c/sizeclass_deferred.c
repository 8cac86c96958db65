/*
 * sizeclass_deferred.c — deferred frees (sizeclass.DeferredAllocator):
 * blocks come straight from the device; a free from the owning context
 * releases the block at once and drains the queue, a free from any other
 * context is queued until gc or the owner's next free. One mutex.
 */
#include "sizeclass_example.h"

typedef struct entry {
    memverify_addr addr;
    int queued;
} entry;

typedef struct deferred {
    pthread_mutex_t mu;
    memverify_device dev;
    uint32_t owner;
    entry *live; /* handed out and not released */
    size_t nlive, caplive;
    memverify_addr *queue; /* queued frees, oldest first */
    size_t nqueue, capqueue;
    int closed;
} deferred;

static entry *find(deferred *d, memverify_addr a) {
    for (size_t i = 0; i < d->nlive; i++) {
        if (d->live[i].addr == a) {
            return &d->live[i];
        }
    }
    return NULL;
}

static void forget(deferred *d, entry *e) { *e = d->live[--d->nlive]; }

memverify_status deferred_create(const memverify_device *dev, uint32_t owner, void **self) {
    deferred *d = calloc(1, sizeof *d);
    if (d == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    pthread_mutex_init(&d->mu, NULL);
    d->dev = *dev;
    d->owner = owner;
    *self = d;
    return MEMVERIFY_OK;
}

void deferred_destroy(void *self) {
    deferred *d = self;
    free(d->live);
    free(d->queue);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

memverify_status deferred_alloc(void *self, int64_t n, memverify_addr *out) {
    deferred *d = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&d->mu);
    *out = 0;
    if (d->closed) {
        st = MEMVERIFY_E_CLOSED;
    } else if (n < 0) {
        st = MEMVERIFY_E_INVALID_SIZE;
    } else if (n > 0) {
        if (!sc_grow((void **)&d->live, &d->caplive, d->nlive + 1, sizeof *d->live) ||
            !sc_grow((void **)&d->queue, &d->capqueue, d->nlive + 1, sizeof *d->queue)) {
            st = MEMVERIFY_E_HOST_MEMORY;
        } else if ((st = sc_malloc(&d->dev, n, out)) == MEMVERIFY_OK) {
            d->live[d->nlive++] = (entry){*out, 0};
        }
    }
    pthread_mutex_unlock(&d->mu);
    return st;
}

/* gc_locked empties the queue before freeing anything, so that a failed
 * free is never repeated. */
static memverify_status gc_locked(deferred *d) {
    memverify_status st = MEMVERIFY_OK;
    size_t n = d->nqueue;
    d->nqueue = 0;
    for (size_t i = 0; i < n; i++) {
        forget(d, find(d, d->queue[i]));
        if (sc_free(&d->dev, d->queue[i]) != MEMVERIFY_OK) {
            st = MEMVERIFY_E_DEVICE;
        }
    }
    return st;
}

static memverify_status free_locked(deferred *d, uint32_t ctx, memverify_addr a) {
    if (d->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (a == 0) {
        return MEMVERIFY_OK;
    }
    entry *e = find(d, a);
    if (e == NULL) {
        return MEMVERIFY_E_UNKNOWN_POINTER;
    }
    if (e->queued) {
        return MEMVERIFY_E_DOUBLE_FREE;
    }
    if (ctx != d->owner) {
        /* deferred_alloc made the queue as long as the live list */
        e->queued = 1;
        d->queue[d->nqueue++] = a;
        return MEMVERIFY_OK;
    }
    forget(d, e);
    memverify_status st = sc_free(&d->dev, a);
    memverify_status gc = gc_locked(d);
    return st != MEMVERIFY_OK ? MEMVERIFY_E_DEVICE : gc;
}

memverify_status deferred_free(void *self, uint32_t ctx, memverify_addr a) {
    deferred *d = self;
    pthread_mutex_lock(&d->mu);
    memverify_status st = free_locked(d, ctx, a);
    pthread_mutex_unlock(&d->mu);
    return st;
}

memverify_status deferred_gc(void *self) {
    deferred *d = self;
    pthread_mutex_lock(&d->mu);
    memverify_status st = d->closed ? MEMVERIFY_E_CLOSED : gc_locked(d);
    pthread_mutex_unlock(&d->mu);
    return st;
}

int64_t deferred_pending(void *self) {
    deferred *d = self;
    pthread_mutex_lock(&d->mu);
    int64_t n = (int64_t)d->nqueue;
    pthread_mutex_unlock(&d->mu);
    return n;
}

memverify_status deferred_close(void *self) {
    deferred *d = self;
    pthread_mutex_lock(&d->mu);
    memverify_status st = d->closed ? MEMVERIFY_E_CLOSED : gc_locked(d);
    d->closed = 1;
    pthread_mutex_unlock(&d->mu);
    return st;
}
