/* glue_sizeclass.c — calls through a sizeclass table, and the device
 * trampolines.
 *
 * A failed device call must be reported as the error of the operation that
 * made it. Every wrapper that may reach the device stores the Go side's
 * ticket for the call in a thread-local variable before calling the table;
 * the device trampolines pass that ticket back to Go with the failure. The
 * implementation calls the device synchronously, on the thread that runs
 * the operation, and cgo runs a C call and the Go callbacks it makes on one
 * thread, so the ticket in force is the operation's. */
#include "glue.h"
#include "_cgo_export.h"

static _Thread_local uint64_t mv_ticket;

#define WITH_TICKET(ticket, call)                                                                                    \
    do {                                                                                                             \
        uint64_t prev_ = mv_ticket;                                                                                  \
        mv_ticket = (ticket);                                                                                        \
        memverify_status s_ = (call);                                                                                \
        mv_ticket = prev_;                                                                                           \
        return s_;                                                                                                   \
    } while (0)

static memverify_status device_malloc(void *ctx, int64_t n, memverify_addr *out) {
    return mvGoDeviceMalloc((uintptr_t)ctx, mv_ticket, n, out);
}

static memverify_status device_free(void *ctx, memverify_addr p) {
    return mvGoDeviceFree((uintptr_t)ctx, mv_ticket, p);
}

void mv_device_init(memverify_device *d, uintptr_t handle) {
    d->malloc_fn = device_malloc;
    d->free_fn = device_free;
    d->ctx = (void *)handle;
}

/* Pool */

memverify_status mv_pool_create(const memverify_sizeclass_table *t, uint64_t ticket, const memverify_device *dev,
                                const memverify_sizeclass_config *cfg, void **self) {
    WITH_TICKET(ticket, t->pool_create(dev, cfg, self));
}
void mv_pool_destroy(const memverify_sizeclass_table *t, void *self) { t->pool_destroy(self); }
mv_result mv_pool_alloc(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int64_t n) {
    mv_result r = {0, 0};
    uint64_t prev = mv_ticket;
    mv_ticket = ticket;
    r.st = t->pool_alloc(self, n, &r.value);
    mv_ticket = prev;
    return r;
}
memverify_status mv_pool_free(const memverify_sizeclass_table *t, void *self, uint64_t ticket, memverify_addr p) {
    WITH_TICKET(ticket, t->pool_free(self, p));
}
memverify_status mv_pool_set_pinned(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int32_t on) {
    WITH_TICKET(ticket, t->pool_set_pinned(self, on));
}
mv_result mv_pool_trim(const memverify_sizeclass_table *t, void *self, uint64_t ticket) {
    mv_result r = {0, 0};
    int64_t released = 0;
    uint64_t prev = mv_ticket;
    mv_ticket = ticket;
    r.st = t->pool_trim(self, &released);
    mv_ticket = prev;
    r.value = (uint64_t)released;
    return r;
}
memverify_status mv_pool_stats(const memverify_sizeclass_table *t, void *self, memverify_pool_stats *out,
                               memverify_class_stats *classes, size_t n) {
    return t->pool_stats(self, out, classes, n);
}
memverify_status mv_pool_blocks(const memverify_sizeclass_table *t, void *self, mv_list *out) {
    return t->pool_blocks(self, mv_collect_pool_block, out);
}
memverify_status mv_pool_close(const memverify_sizeclass_table *t, void *self, uint64_t ticket, mv_list *out) {
    WITH_TICKET(ticket, t->pool_close(self, mv_collect_pool_block, out));
}

/* Deferred */

memverify_status mv_deferred_create(const memverify_sizeclass_table *t, uint64_t ticket, const memverify_device *dev,
                                    uint32_t owner, void **self) {
    WITH_TICKET(ticket, t->deferred_create(dev, owner, self));
}
void mv_deferred_destroy(const memverify_sizeclass_table *t, void *self) { t->deferred_destroy(self); }
mv_result mv_deferred_alloc(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int64_t n) {
    mv_result r = {0, 0};
    uint64_t prev = mv_ticket;
    mv_ticket = ticket;
    r.st = t->deferred_alloc(self, n, &r.value);
    mv_ticket = prev;
    return r;
}
memverify_status mv_deferred_free(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t ctx,
                                  memverify_addr p) {
    WITH_TICKET(ticket, t->deferred_free(self, ctx, p));
}
memverify_status mv_deferred_gc(const memverify_sizeclass_table *t, void *self, uint64_t ticket) {
    WITH_TICKET(ticket, t->deferred_gc(self));
}
int64_t mv_deferred_pending(const memverify_sizeclass_table *t, void *self) { return t->deferred_pending(self); }
memverify_status mv_deferred_close(const memverify_sizeclass_table *t, void *self, uint64_t ticket) {
    WITH_TICKET(ticket, t->deferred_close(self));
}

/* Streams */

memverify_status mv_streams_create(const memverify_sizeclass_table *t, uint64_t ticket, const memverify_device *dev,
                                   const memverify_sizeclass_config *cfg, void **self) {
    WITH_TICKET(ticket, t->streams_create(dev, cfg, self));
}
void mv_streams_destroy(const memverify_sizeclass_table *t, void *self) { t->streams_destroy(self); }
mv_result mv_streams_alloc(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t s, int64_t n) {
    mv_result r = {0, 0};
    uint64_t prev = mv_ticket;
    mv_ticket = ticket;
    r.st = t->streams_alloc(self, s, n, &r.value);
    mv_ticket = prev;
    return r;
}
memverify_status mv_streams_free(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t s,
                                 memverify_addr p) {
    WITH_TICKET(ticket, t->streams_free(self, s, p));
}
memverify_status mv_streams_synchronize(const memverify_sizeclass_table *t, void *self, uint64_t ticket, uint32_t s) {
    WITH_TICKET(ticket, t->streams_synchronize(self, s));
}
mv_result mv_streams_trim(const memverify_sizeclass_table *t, void *self, uint64_t ticket) {
    mv_result r = {0, 0};
    int64_t released = 0;
    uint64_t prev = mv_ticket;
    mv_ticket = ticket;
    r.st = t->streams_trim(self, &released);
    mv_ticket = prev;
    r.value = (uint64_t)released;
    return r;
}
memverify_status mv_streams_blocks(const memverify_sizeclass_table *t, void *self, mv_list *out) {
    return t->streams_blocks(self, mv_collect_stream_block, out);
}
memverify_status mv_streams_close(const memverify_sizeclass_table *t, void *self, uint64_t ticket, mv_list *out) {
    WITH_TICKET(ticket, t->streams_close(self, mv_collect_stream_block, out));
}

/* The pool benchmark's driver (see loops.c): n cached allocation and free
 * pairs of size bytes. */
memverify_status mv_loop_pool_pairs(const memverify_sizeclass_table *t, void *self, uint64_t ticket, int64_t size,
                                    int64_t n) {
    uint64_t prev = mv_ticket;
    memverify_status st = MEMVERIFY_OK;
    mv_ticket = ticket;
    for (int64_t i = 0; i < n && st == MEMVERIFY_OK; i++) {
        memverify_addr p;
        st = t->pool_alloc(self, size, &p);
        if (st == MEMVERIFY_OK) {
            st = t->pool_free(self, p);
        }
    }
    mv_ticket = prev;
    return st;
}
