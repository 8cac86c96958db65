/*
 * refcount_example.h — the registry of the refcount example, shared by
 * refcount.c (registrations) and refcount_scopes.c (scopes).
 */
#ifndef REFCOUNT_EXAMPLE_H
#define REFCOUNT_EXAMPLE_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "memverify/refcount.h"

typedef struct reg {
    memverify_addr real;
    int64_t bytes;
    int32_t kind;
    uint64_t id; /* 0 for an owned pointer */
    int64_t refs;
} reg;

typedef struct holder {
    memverify_addr p;
    reg *r;
    int64_t share;
} holder;

typedef struct scope {
    memverify_addr *ptrs; /* tracked references, oldest first */
    size_t n, cap;
} scope;

typedef struct registry {
    pthread_mutex_t mu;
    memverify_refcount_freer freer;
    holder *holders;
    size_t nholders, capholders;
    reg **regs; /* live registrations */
    size_t nregs, capregs;
    scope *scopes;
    size_t nscopes, capscopes;
    uint64_t next_id;
    int closed;
} registry;

/* rc_grow makes room for need elements of size elem in *p; 0 on failure. */
int rc_grow(void **p, size_t *cap, size_t need, size_t elem);

/* rc_find is p's index in holders, or -1. */
long rc_find(const registry *g, memverify_addr p);
/* rc_drop releases one of p's references (the caller holds the lock). */
memverify_status rc_drop(registry *g, memverify_addr p);

/* The scope functions of the table (refcount_scopes.c). */
void rc_enter(void *self);
memverify_status rc_track(void *self, memverify_addr p);
memverify_status rc_promote(void *self, memverify_addr p);
memverify_status rc_exit(void *self, size_t *failed);

#endif
