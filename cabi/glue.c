/* glue.c — loading, listings and callback trampolines; see glue.h. */
#include <dlfcn.h>
#include <string.h>

#include "glue.h"
#include "_cgo_export.h"

void *mv_dlopen(const char *path, char **err) {
    /* RTLD_LOCAL: two libraries under test may export the same symbols. */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    *err = NULL;
    if (h == NULL) {
        const char *msg = dlerror();
        *err = strdup(msg != NULL ? msg : "dlopen failed");
    }
    return h;
}

void mv_dlclose(void *handle) { dlclose(handle); }

void *mv_dlsym(void *handle, const char *name) {
    dlerror();
    return dlsym(handle, name);
}

static void vec_push(mv_vec *v, const void *x, size_t n) {
    if (v->failed || n == 0) {
        return;
    }
    if (v->len + n > v->cap) {
        size_t cap = v->cap ? v->cap : 16;
        while (cap < v->len + n) {
            cap *= 2;
        }
        char *d = realloc(v->data, cap * v->elem);
        if (d == NULL) {
            v->failed = 1;
            return;
        }
        v->data = d;
        v->cap = cap;
    }
    memcpy(v->data + v->len * v->elem, x, n * v->elem);
    v->len += n;
}

void mv_list_init(mv_list *l, size_t item, size_t extra) {
    memset(l, 0, sizeof *l);
    l->items.elem = item;
    l->extra.elem = extra ? extra : 1;
}

void mv_list_free(mv_list *l) {
    free(l->items.data);
    free(l->extra.data);
    memset(l, 0, sizeof *l);
}

void mv_collect_registration(void *arg, const memverify_registration *r, const memverify_addr *holders, size_t n) {
    mv_list *l = arg;
    mv_registration_item it = {*r, n};
    vec_push(&l->items, &it, 1);
    vec_push(&l->extra, holders, n);
}

void mv_collect_pool_block(void *arg, const memverify_pool_block *b) { vec_push(&((mv_list *)arg)->items, b, 1); }
void mv_collect_stream_block(void *arg, const memverify_stream_block *b) { vec_push(&((mv_list *)arg)->items, b, 1); }
void mv_collect_bank_block(void *arg, const memverify_bank_block *b) { vec_push(&((mv_list *)arg)->items, b, 1); }
void mv_collect_bank_region(void *arg, const memverify_bank_region *r) { vec_push(&((mv_list *)arg)->items, r, 1); }
void mv_collect_task(void *arg, uint64_t task) { vec_push(&((mv_list *)arg)->items, &task, 1); }

void mv_collect_bank_buffer(void *arg, const memverify_bank_buffer *b, const int32_t *banks, size_t n) {
    mv_list *l = arg;
    mv_buffer_item it = {*b, n};
    vec_push(&l->items, &it, 1);
    vec_push(&l->extra, banks, n);
}

static void freer_free(void *ctx, memverify_addr real, int64_t bytes, int32_t kind) {
    mvGoFree((uintptr_t)ctx, real, bytes, kind);
}

void mv_freer_init(memverify_refcount_freer *f, uintptr_t handle) {
    f->free = freer_free;
    f->ctx = (void *)handle;
}

static memverify_status solver_solve(void *ctx, const memverify_view *a, const memverify_view *b, int32_t *verdict) {
    return mvGoSolve((uintptr_t)ctx, (memverify_view *)a, (memverify_view *)b, verdict);
}

void mv_solver_init(memverify_tensormap_config *c, uintptr_t handle) {
    c->solver = handle ? solver_solve : NULL;
    c->solver_ctx = (void *)handle;
}

void mv_empty(void) {}

void mv_callback_loop(uintptr_t handle, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        mvGoEmpty(handle);
    }
}
