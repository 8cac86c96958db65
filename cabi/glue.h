/* glue.h — the C half of the Go adapters: calls through a table's function
 * pointers (Go cannot call a C function pointer), the collectors that gather
 * a listing's emitted entries into C arrays, and the trampolines that turn
 * the ABI's callbacks (freer, device, solver) into calls of exported Go
 * functions. Nothing here is part of the ABI. */
#ifndef MEMVERIFY_CABI_GLUE_H
#define MEMVERIFY_CABI_GLUE_H

#include <stdint.h>
#include <stdlib.h>

#include "memverify/bank.h"
#include "memverify/overlap.h"
#include "memverify/refcount.h"
#include "memverify/sizeclass.h"
#include "memverify/tensormap.h"

/* Loading. mv_dlopen returns NULL and a copy of dlerror's text in *err
 * (free it) when the library does not load. */
void *mv_dlopen(const char *path, char **err);
void *mv_dlsym(void *handle, const char *name);
void mv_dlclose(void *handle);

/* A growable C array. failed is set when realloc failed: the entries
 * collected are then incomplete, which the Go side reports. */
typedef struct mv_vec {
    char *data;
    size_t len, cap, elem;
    int failed;
} mv_vec;

/* A listing: its entries, and the arrays that come with them (holders,
 * banks) concatenated in order. */
typedef struct mv_list {
    mv_vec items, extra;
} mv_list;

void mv_list_init(mv_list *l, size_t item, size_t extra);
void mv_list_free(mv_list *l);

/* The items of listings whose entries carry an array. */
typedef struct mv_registration_item {
    memverify_registration r;
    uint64_t nholders;
} mv_registration_item;

typedef struct mv_buffer_item {
    memverify_bank_buffer b;
    uint64_t nbanks;
} mv_buffer_item;

/* Collectors: the emit callbacks the adapters pass, arg an mv_list. */
void mv_collect_registration(void *arg, const memverify_registration *r, const memverify_addr *holders, size_t n);
void mv_collect_pool_block(void *arg, const memverify_pool_block *b);
void mv_collect_stream_block(void *arg, const memverify_stream_block *b);
void mv_collect_bank_block(void *arg, const memverify_bank_block *b);
void mv_collect_bank_region(void *arg, const memverify_bank_region *r);
void mv_collect_bank_buffer(void *arg, const memverify_bank_buffer *b, const int32_t *banks, size_t n);
void mv_collect_task(void *arg, uint64_t task);

/* Results returned by value. The tables write their results through
 * pointers; wrappers of tables that may call back into Go (refcount,
 * sizeclass, tensormap) return them by value instead, because a Go pointer
 * passed to such a call must live on the heap: one allocation per call. */
typedef struct mv_result {
    memverify_status st;
    uint64_t value;
} mv_result;

typedef struct mv_lookup_result {
    memverify_status st;
    int32_t found;
    uint64_t task;
} mv_lookup_result;

typedef struct mv_rc_stats_result {
    memverify_status st;
    memverify_refcount_stats s;
} mv_rc_stats_result;

/* Callback structs whose ctx is a runtime/cgo.Handle. */
void mv_freer_init(memverify_refcount_freer *f, uintptr_t handle);
void mv_device_init(memverify_device *d, uintptr_t handle);
void mv_solver_init(memverify_tensormap_config *c, uintptr_t handle);

/* The empty calls the benchmarks time. */
void mv_empty(void);
void mv_callback_loop(uintptr_t handle, int64_t n);

#endif
