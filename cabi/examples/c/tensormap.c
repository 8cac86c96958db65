/*
 * tensormap.c — a small, correct dependency tracker for memverify's
 * tensormap ABI (memverify/tensormap.h): the live entries in insertion
 * order (so tasks are non-decreasing along the array), searched from the
 * newest. Overlap is decided by the solver the harness hands in, or by the
 * overlap example's exact checker (overlap.c, linked in).
 *
 * It is not safe for concurrent use and does not claim to be: the table's
 * flags are 0, and the harness serializes its calls.
 *
 * Build with -DMEMVERIFY_BUG_EVICT_LIVE for the seeded bug: a full map
 * makes room by evicting its oldest entry, live or not, as a ring buffer
 * that overwrites its tail would; a dependency on that entry is lost.
 */
#include <stdlib.h>
#include <string.h>

#include "memverify/tensormap.h"
#include "overlap_example.h"

typedef struct entry {
    uint64_t storage;
    memverify_view view;
    uint64_t task;
} entry;

typedef struct tmap {
    memverify_tensormap_config cfg;
    entry *e; /* live entries, oldest first; room for cfg.capacity */
    size_t n;
    uint64_t last, threshold;
    int inserted;
} tmap;

static memverify_status create(const memverify_tensormap_config *cfg, void **self) {
    if (cfg->capacity < 1 || cfg->capacity > (1 << 24)) {
        return MEMVERIFY_E_INVALID_CONFIG;
    }
    tmap *m = calloc(1, sizeof *m);
    if (m == NULL || (m->e = malloc((size_t)cfg->capacity * sizeof *m->e)) == NULL) {
        free(m);
        return MEMVERIFY_E_HOST_MEMORY;
    }
    m->cfg = *cfg;
    *self = m;
    return MEMVERIFY_OK;
}

static void destroy(void *self) {
    tmap *m = self;
    free(m->e);
    free(m);
}

static memverify_status check_args(uint64_t storage, const memverify_view *v) {
    return storage == 0 ? MEMVERIFY_E_NULL_STORAGE : ov_validate(v);
}

/* depends: same storage, neither view empty, and the solver does not
 * answer a clean NO (TOO_HARD and a solver error are dependencies). */
static int depends(const tmap *m, const entry *e, uint64_t storage, const memverify_view *v) {
    if (e->storage != storage || ov_empty(&e->view) || ov_empty(v)) {
        return 0;
    }
    int32_t verdict = MEMVERIFY_YES;
    int64_t work;
    memverify_status st = m->cfg.solver != NULL ? m->cfg.solver(m->cfg.solver_ctx, &e->view, v, &verdict)
                                                : ov_check(&e->view, v, OV_DEFAULT_WORK, &verdict, &work);
    return st != MEMVERIFY_OK || verdict != MEMVERIFY_NO;
}

static memverify_status insert(void *self, uint64_t storage, const memverify_view *v, uint64_t task) {
    tmap *m = self;
    memverify_status st = check_args(storage, v);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    if ((m->inserted && task < m->last) || task < m->threshold) {
        return MEMVERIFY_E_OUT_OF_ORDER;
    }
    if (m->n == (size_t)m->cfg.capacity) {
#ifdef MEMVERIFY_BUG_EVICT_LIVE
        memmove(&m->e[0], &m->e[1], (m->n - 1) * sizeof *m->e);
        m->n--;
#else
        return MEMVERIFY_E_POOL_EXHAUSTED;
#endif
    }
    m->e[m->n++] = (entry){storage, *v, task};
    m->last = task;
    m->inserted = 1;
    return MEMVERIFY_OK;
}

static memverify_status lookup(void *self, uint64_t storage, const memverify_view *v, uint64_t *task,
                               int32_t *found) {
    tmap *m = self;
    memverify_status st = check_args(storage, v);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    *found = 0;
    for (size_t i = m->n; i-- > 0;) {
        if (depends(m, &m->e[i], storage, v)) {
            *task = m->e[i].task;
            *found = 1;
            break;
        }
    }
    return MEMVERIFY_OK;
}

/* Entries are in insertion order and tasks non-decreasing, so walking from
 * the newest meets producers newest first, a task's entries together. */
static memverify_status lookup_all(void *self, uint64_t storage, const memverify_view *v, int64_t limit,
                                   memverify_task_fn emit, void *arg) {
    tmap *m = self;
    memverify_status st = check_args(storage, v);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    if (limit < 1) {
        return MEMVERIFY_E_INVALID_LIMIT;
    }
    int64_t emitted = 0;
    uint64_t prev = 0;
    for (size_t i = m->n; i-- > 0;) {
        const entry *e = &m->e[i];
        if ((emitted > 0 && e->task == prev) || !depends(m, e, storage, v)) {
            continue;
        }
        if (emitted == limit) {
            return MEMVERIFY_E_LIMIT;
        }
        emit(arg, e->task);
        prev = e->task;
        emitted++;
    }
    return MEMVERIFY_OK;
}

static memverify_status retire(void *self, uint64_t t) {
    tmap *m = self;
    if (t < m->threshold) {
        return MEMVERIFY_E_OUT_OF_ORDER;
    }
    m->threshold = t;
    size_t k = 0;
    while (k < m->n && m->e[k].task < t) {
        k++;
    }
    memmove(&m->e[0], &m->e[k], (m->n - k) * sizeof *m->e);
    m->n -= k;
    return MEMVERIFY_OK;
}

static int64_t len(void *self) { return (int64_t)((tmap *)self)->n; }

const memverify_tensormap_table memverify_tensormap_v1 = {
    {MEMVERIFY_ABI_VERSION, 0, sizeof(memverify_tensormap_table), "c-tensormap"},
    create, destroy, insert, lookup, lookup_all, retire, len,
};
