/*
 * refcount.c — a small, correct pointer registry for memverify's refcount
 * ABI (memverify/refcount.h): one mutex around plain arrays. Scopes are in
 * refcount_scopes.c.
 *
 * Every pointer that holds a share of a registration has a holder entry;
 * a registration's count is the sum of its holders' shares. Searches are
 * linear: the registry is meant to be read against the contract, not to be
 * fast. The freer runs with the mutex held, which the ABI allows.
 *
 * Build with -DMEMVERIFY_BUG_ALIAS_SET for the seeded bug: register_buffer
 * keeps each listed pointer once, as a set would, while still counting
 * every listing, so a buffer whose alias is listed twice is never freed.
 */
#include "refcount_example.h"

/* rc_grow makes room for need elements of size elem in *p; 0 on failure. */
int rc_grow(void **p, size_t *cap, size_t need, size_t elem) {
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

long rc_find(const registry *g, memverify_addr p) {
    for (size_t i = 0; i < g->nholders; i++) {
        if (g->holders[i].p == p) {
            return (long)i;
        }
    }
    return -1;
}

static memverify_status check_range(memverify_addr p, int64_t bytes, int32_t kind) {
    if (bytes <= 0 || p > UINT64_MAX - (uint64_t)bytes + 1) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    if (kind < MEMVERIFY_KIND_ARRAY_NEW || kind > MEMVERIFY_KIND_CUSTOM) {
        return MEMVERIFY_E_INVALID_KIND;
    }
    return MEMVERIFY_OK;
}

static void release_reg(registry *g, reg *r) {
    for (size_t i = 0; i < g->nregs; i++) {
        if (g->regs[i] == r) {
            g->regs[i] = g->regs[--g->nregs];
            break;
        }
    }
    if (g->freer.free != NULL) {
        g->freer.free(g->freer.ctx, r->real, r->bytes, r->kind);
    }
    free(r);
}

/* rc_drop releases one of p's references (the caller holds the lock). */
memverify_status rc_drop(registry *g, memverify_addr p) {
    long i = rc_find(g, p);
    if (i < 0) {
        return MEMVERIFY_E_NOT_REGISTERED;
    }
    reg *r = g->holders[i].r;
    r->refs--;
    if (--g->holders[i].share == 0) {
        g->holders[i] = g->holders[--g->nholders];
    }
    if (r->refs == 0) {
        release_reg(g, r);
    }
    return MEMVERIFY_OK;
}

static memverify_status rc_create(const memverify_refcount_freer *freer, void **self) {
    registry *g = calloc(1, sizeof *g);
    if (g == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    pthread_mutex_init(&g->mu, NULL);
    g->freer = *freer;
    *self = g;
    return MEMVERIFY_OK;
}

static void free_all(registry *g) {
    for (size_t i = 0; i < g->nregs; i++) {
        free(g->regs[i]);
    }
    for (size_t i = 0; i < g->nscopes; i++) {
        free(g->scopes[i].ptrs);
    }
    free(g->regs);
    free(g->holders);
    free(g->scopes);
    g->regs = NULL, g->holders = NULL, g->scopes = NULL;
    g->nregs = g->nholders = g->nscopes = 0;
    g->capregs = g->capholders = g->capscopes = 0;
}

static void rc_destroy(void *self) {
    registry *g = self;
    free_all(g);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

/* add_reg makes a registration and room for n more holders. */
static reg *add_reg(registry *g, memverify_addr real, int64_t bytes, int32_t kind, uint64_t id, size_t n) {
    if (!rc_grow((void **)&g->regs, &g->capregs, g->nregs + 1, sizeof *g->regs) ||
        !rc_grow((void **)&g->holders, &g->capholders, g->nholders + n, sizeof *g->holders)) {
        return NULL;
    }
    reg *r = malloc(sizeof *r);
    if (r != NULL) {
        *r = (reg){real, bytes, kind, id, 0};
        g->regs[g->nregs++] = r;
    }
    return r;
}

/* hold gives p one more reference of r, listed in holders[from:] or new. */
static void hold(registry *g, reg *r, memverify_addr p, size_t from) {
    r->refs++;
    for (size_t i = from; i < g->nholders; i++) {
        if (g->holders[i].p == p) {
#ifndef MEMVERIFY_BUG_ALIAS_SET
            g->holders[i].share++;
#endif
            return;
        }
    }
    g->holders[g->nholders++] = (holder){p, r, 1};
}

static memverify_status register_locked(registry *g, memverify_addr p, int64_t bytes, int32_t kind) {
    if (g->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (p == 0) {
        return MEMVERIFY_OK;
    }
    memverify_status st = check_range(p, bytes, kind);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    if (rc_find(g, p) >= 0) {
        return MEMVERIFY_E_ALREADY_REGISTERED;
    }
    reg *r = add_reg(g, p, bytes, kind, 0, 1);
    if (r == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    hold(g, r, p, g->nholders);
    return MEMVERIFY_OK;
}

static memverify_status rc_register(void *self, memverify_addr p, int64_t bytes, int32_t kind) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    memverify_status st = register_locked(g, p, bytes, kind);
    pthread_mutex_unlock(&g->mu);
    return st;
}

static memverify_status buffer_locked(registry *g, memverify_addr real, int64_t bytes, const memverify_addr *aliases,
                                      size_t n, int32_t kind, uint64_t *id) {
    if (g->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (real == 0) {
        return MEMVERIFY_E_NULL_POINTER;
    }
    memverify_status st = check_range(real, bytes, kind);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    for (size_t i = 0; i < n; i++) {
        if (aliases[i] < real || aliases[i] - real >= (uint64_t)bytes) {
            return MEMVERIFY_E_ALIAS_OUT_OF_RANGE;
        }
    }
    if (rc_find(g, real) >= 0) {
        return MEMVERIFY_E_ALREADY_REGISTERED;
    }
    for (size_t i = 0; i < n; i++) {
        if (rc_find(g, aliases[i]) >= 0) {
            return MEMVERIFY_E_ALREADY_REGISTERED;
        }
    }
    reg *r = add_reg(g, real, bytes, kind, ++g->next_id, n + 1);
    if (r == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    size_t from = g->nholders;
    hold(g, r, real, from);
    for (size_t i = 0; i < n; i++) {
        hold(g, r, aliases[i], from);
    }
    *id = r->id;
    return MEMVERIFY_OK;
}

static memverify_status rc_register_buffer(void *self, memverify_addr real, int64_t bytes,
                                           const memverify_addr *aliases, size_t n, int32_t kind, uint64_t *id) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    memverify_status st = buffer_locked(g, real, bytes, aliases, n, kind, id);
    pthread_mutex_unlock(&g->mu);
    return st;
}

static memverify_status rc_retain(void *self, memverify_addr p) {
    registry *g = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&g->mu);
    if (g->closed) {
        st = MEMVERIFY_E_CLOSED;
    } else if (p != 0) {
        long i = rc_find(g, p);
        if (i < 0) {
            st = MEMVERIFY_E_NOT_REGISTERED;
        } else {
            g->holders[i].share++;
            g->holders[i].r->refs++;
        }
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

static memverify_status rc_unregister(void *self, memverify_addr p) {
    registry *g = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&g->mu);
    if (g->closed) {
        st = MEMVERIFY_E_CLOSED;
    } else if (p != 0) {
        st = rc_drop(g, p);
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

static int32_t rc_is_registered(void *self, memverify_addr p) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    int32_t yes = !g->closed && rc_find(g, p) >= 0;
    pthread_mutex_unlock(&g->mu);
    return yes;
}

static int64_t rc_refs(void *self, memverify_addr p) {
    registry *g = self;
    int64_t n = 0;
    pthread_mutex_lock(&g->mu);
    long i = g->closed ? -1 : rc_find(g, p);
    if (i >= 0) {
        n = g->holders[i].r->refs;
    }
    pthread_mutex_unlock(&g->mu);
    return n;
}

static memverify_status rc_stats(void *self, memverify_refcount_stats *out) {
    registry *g = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&g->mu);
    if (g->closed) {
        st = MEMVERIFY_E_CLOSED;
    } else {
        *out = (memverify_refcount_stats){0, 0, 0};
        for (size_t i = 0; i < g->nregs; i++) {
            const reg *r = g->regs[i];
            *(r->id ? &out->buffers : &out->pointers) += 1;
            out->bytes = out->bytes > INT64_MAX - r->bytes ? INT64_MAX : out->bytes + r->bytes;
        }
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

/* Live's order: by address; at one address buffers newest first, then an
 * owned pointer (id 0 sorts last). */
static int by_live_order(const void *a, const void *b) {
    const reg *x = *(reg *const *)a, *y = *(reg *const *)b;
    if (x->real != y->real) {
        return x->real < y->real ? -1 : 1;
    }
    return x->id > y->id ? -1 : x->id < y->id;
}

static int by_addr(const void *a, const void *b) {
    memverify_addr x = *(const memverify_addr *)a, y = *(const memverify_addr *)b;
    return x < y ? -1 : x > y;
}

/* emit_all emits every registration in live's order, with its holders,
 * and frees each through the freer when release is set. */
static memverify_status emit_all(registry *g, memverify_registration_fn emit, void *arg, int release) {
    memverify_addr *holders = malloc((g->nholders + 1) * sizeof *holders);
    if (holders == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    qsort(g->regs, g->nregs, sizeof *g->regs, by_live_order);
    for (size_t i = 0; i < g->nregs; i++) {
        const reg *r = g->regs[i];
        size_t n = 0;
        for (size_t j = 0; j < g->nholders; j++) {
            if (g->holders[j].r == r) {
                holders[n++] = g->holders[j].p;
            }
        }
        qsort(holders, n, sizeof *holders, by_addr);
        memverify_registration e = {r->real, r->bytes, r->kind, r->refs, r->id};
        emit(arg, &e, holders, n);
        if (release && g->freer.free != NULL) {
            g->freer.free(g->freer.ctx, r->real, r->bytes, r->kind);
        }
    }
    free(holders);
    return MEMVERIFY_OK;
}

static memverify_status rc_live(void *self, memverify_registration_fn emit, void *arg) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    memverify_status st = g->closed ? MEMVERIFY_E_CLOSED : emit_all(g, emit, arg, 0);
    pthread_mutex_unlock(&g->mu);
    return st;
}

static memverify_status rc_close(void *self, memverify_registration_fn emit, void *arg) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    memverify_status st = g->closed ? MEMVERIFY_E_CLOSED : emit_all(g, emit, arg, 1);
    if (st == MEMVERIFY_OK) {
        free_all(g);
        g->closed = 1;
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

const memverify_refcount_table memverify_refcount_v1 = {
    {MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT, sizeof(memverify_refcount_table), "c-refcount"},
    rc_create,
    rc_destroy,
    rc_register,
    rc_register_buffer,
    rc_retain,
    rc_unregister,
    rc_is_registered,
    rc_refs,
    rc_stats,
    rc_live,
    rc_close,
    rc_enter,
    rc_track,
    rc_promote,
    rc_exit,
};
