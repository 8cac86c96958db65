/*
 * refcount_scopes.c — the refcount example's scopes: one stack of scopes
 * per registry, each the list of references handed to it, oldest first.
 */
#include "refcount_example.h"

void rc_enter(void *self) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    if (!g->closed && rc_grow((void **)&g->scopes, &g->capscopes, g->nscopes + 1, sizeof *g->scopes)) {
        g->scopes[g->nscopes++] = (scope){NULL, 0, 0};
    }
    pthread_mutex_unlock(&g->mu);
}

static memverify_status push(scope *s, memverify_addr p) {
    if (!rc_grow((void **)&s->ptrs, &s->cap, s->n + 1, sizeof *s->ptrs)) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    s->ptrs[s->n++] = p;
    return MEMVERIFY_OK;
}

memverify_status rc_track(void *self, memverify_addr p) {
    registry *g = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&g->mu);
    if (g->closed) {
        st = MEMVERIFY_E_CLOSED;
    } else if (p == 0) {
        st = MEMVERIFY_OK;
    } else if (g->nscopes == 0) {
        st = MEMVERIFY_E_NO_SCOPE;
    } else if (rc_find(g, p) < 0) {
        st = MEMVERIFY_E_NOT_REGISTERED;
    } else {
        st = push(&g->scopes[g->nscopes - 1], p);
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

static memverify_status promote_locked(registry *g, memverify_addr p) {
    if (g->closed) {
        return MEMVERIFY_E_CLOSED;
    }
    if (p == 0) {
        return MEMVERIFY_OK;
    }
    if (g->nscopes == 0) {
        return MEMVERIFY_E_NO_SCOPE;
    }
    scope *top = &g->scopes[g->nscopes - 1];
    for (size_t i = 0; i < top->n; i++) {
        if (top->ptrs[i] != p) {
            continue;
        }
        if (g->nscopes > 1 && push(&g->scopes[g->nscopes - 2], p) != MEMVERIFY_OK) {
            return MEMVERIFY_E_HOST_MEMORY;
        }
        memmove(&top->ptrs[i], &top->ptrs[i + 1], (top->n - i - 1) * sizeof *top->ptrs);
        top->n--;
        return MEMVERIFY_OK;
    }
    return MEMVERIFY_E_NOT_TRACKED;
}

memverify_status rc_promote(void *self, memverify_addr p) {
    registry *g = self;
    pthread_mutex_lock(&g->mu);
    memverify_status st = promote_locked(g, p);
    pthread_mutex_unlock(&g->mu);
    return st;
}

memverify_status rc_exit(void *self, size_t *failed) {
    registry *g = self;
    memverify_status st = MEMVERIFY_OK;
    pthread_mutex_lock(&g->mu);
    if (g->closed) {
        st = MEMVERIFY_E_CLOSED;
    } else if (g->nscopes == 0) {
        st = MEMVERIFY_E_NO_SCOPE;
    } else {
        scope top = g->scopes[--g->nscopes];
        *failed = 0;
        for (size_t i = top.n; i-- > 0;) {
            if (rc_drop(g, top.ptrs[i]) != MEMVERIFY_OK) {
                ++*failed;
            }
        }
        free(top.ptrs);
        st = *failed ? MEMVERIFY_E_NOT_REGISTERED : MEMVERIFY_OK;
    }
    pthread_mutex_unlock(&g->mu);
    return st;
}

