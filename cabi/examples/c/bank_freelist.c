/*
 * bank_freelist.c — a small, correct free list for memverify's bank ABI
 * (memverify/bank.h), and the table that exports it with the banks of
 * bank_banks.c.
 *
 * The list is an array of blocks tiling the range in address order,
 * searched linearly: first fit takes the lowest feasible place bottom-up
 * and the highest top-down, best fit the smallest feasible block. Exported
 * on its own it sits behind a mutex, so the table may claim
 * MEMVERIFY_CONCURRENT for both interfaces.
 *
 * Build with -DMEMVERIFY_BUG_LIMIT_AFTER for the seeded bug: allocate
 * ignores the address limit when it chooses a place, and checks it only
 * after carving the block, failing the call and leaking the block.
 */
#include "bank_example.h"

static int grow(flist *l, size_t need) {
    if (need <= l->cap) {
        return 1;
    }
    size_t n = l->cap ? l->cap * 2 : 8;
    while (n < need) {
        n *= 2;
    }
    blk *b = realloc(l->b, n * sizeof *b);
    if (b == NULL) {
        return 0;
    }
    l->b = b;
    l->cap = n;
    return 1;
}

memverify_status fl_init(flist *l, const memverify_bank_config *c) {
    uint64_t min;
    if (c->alignment < 1 || c->size < 1 || c->size % c->alignment != 0 || c->min_allocation < 0 ||
        !align_up((uint64_t)c->min_allocation, (uint64_t)c->alignment, &min) || min > INT64_MAX ||
        c->offset % (uint64_t)c->alignment != 0 || (c->policy != MEMVERIFY_FIRST_FIT && c->policy != MEMVERIFY_BEST_FIT) ||
        c->offset > UINT64_MAX - (uint64_t)c->size) {
        return MEMVERIFY_E_INVALID_CONFIG;
    }
    memset(l, 0, sizeof *l);
    l->cfg = *c;
    if (!grow(l, 1)) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    l->b[l->n++] = (blk){c->offset, c->size, 0};
    return MEMVERIFY_OK;
}

void fl_release(flist *l) {
    free(l->b);
    l->b = NULL;
    l->n = l->cap = 0;
}

/* alloc_size is align(max(size, min_allocation)). */
static memverify_status alloc_size(const flist *l, int64_t size, int64_t *n) {
    uint64_t a;
    if (size <= 0) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    if (size < l->cfg.min_allocation) {
        size = l->cfg.min_allocation;
    }
    if (!align_up((uint64_t)size, (uint64_t)l->cfg.alignment, &a) || a > INT64_MAX) {
        return MEMVERIFY_E_INVALID_SIZE;
    }
    *n = (int64_t)a;
    return MEMVERIFY_OK;
}

/* A candidate segment of a free block. */
typedef struct seg {
    memverify_addr start, end;
} seg;

/* usable cuts free block b to [lo, end) minus every avoided range, into
 * segs (room for navoid + 1); it returns the number of segments. */
static size_t usable(const blk *b, const memverify_bank_range *avoid, size_t navoid, memverify_addr lo, seg *segs,
                     seg *tmp) {
    size_t n = 0;
    segs[n++] = (seg){b->addr > lo ? b->addr : lo, b->addr + (uint64_t)b->size};
    if (segs[0].start >= segs[0].end) {
        return 0;
    }
    for (size_t i = 0; i < navoid; i++) {
        const memverify_bank_range *r = &avoid[i];
        size_t m = 0;
        for (size_t j = 0; j < n; j++) {
            seg s = segs[j];
            if (r->end <= s.start || r->start >= s.end || r->start == r->end) {
                tmp[m++] = s;
                continue;
            }
            if (s.start < r->start) {
                tmp[m++] = (seg){s.start, r->start};
            }
            if (r->end < s.end) {
                tmp[m++] = (seg){r->end, s.end};
            }
        }
        memcpy(segs, tmp, m * sizeof *segs);
        n = m;
    }
    return n;
}

/* place_in finds the lowest (bottom-up) or highest (top-down) feasible
 * place for n bytes in the segments. */
static int place_in(const flist *l, const seg *segs, size_t nsegs, int64_t n, int32_t dir, memverify_addr *out) {
    uint64_t a = (uint64_t)l->cfg.alignment;
    int found = 0;
    for (size_t i = 0; i < nsegs; i++) {
        uint64_t start;
        if (segs[i].start >= segs[i].end || !align_up(segs[i].start, a, &start) || start > segs[i].end ||
            segs[i].end - start < (uint64_t)n) {
            continue;
        }
        memverify_addr p = start;
        if (dir == MEMVERIFY_TOP_DOWN) {
            uint64_t top = segs[i].end - (uint64_t)n;
            p = top - top % a;
        }
        if (!found || (dir == MEMVERIFY_BOTTOM_UP && p < *out) || (dir == MEMVERIFY_TOP_DOWN && p > *out)) {
            *out = p;
            found = 1;
        }
    }
    return found;
}

/* choose picks where n bytes go: OK, OUT_OF_MEMORY or HOST_MEMORY. */
static memverify_status choose(const flist *l, int64_t n, int32_t dir, const memverify_bank_range *avoid,
                               size_t navoid, memverify_addr limit, int32_t policy, memverify_addr *out) {
    uint64_t lo;
    if (!align_up(limit, (uint64_t)l->cfg.alignment, &lo)) {
        return MEMVERIFY_E_OUT_OF_MEMORY;
    }
    seg *segs = malloc(2 * (navoid + 1) * sizeof *segs);
    if (segs == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    int found = 0;
    int64_t best_size = 0;
    for (size_t i = 0; i < l->n; i++) {
        const blk *b = &l->b[i];
        memverify_addr p;
        if (b->allocated || !place_in(l, segs, usable(b, avoid, navoid, lo, segs, segs + navoid + 1), n, dir, &p)) {
            continue;
        }
        int better = !found;
        if (found && policy == MEMVERIFY_BEST_FIT && b->size != best_size) {
            better = b->size < best_size;
        } else if (found) {
            better = dir == MEMVERIFY_BOTTOM_UP ? p < *out : p > *out;
        }
        if (better) {
            *out = p, best_size = b->size, found = 1;
        }
    }
    free(segs);
    return found ? MEMVERIFY_OK : MEMVERIFY_E_OUT_OF_MEMORY;
}

/* carve turns [a, a+n), inside one free block, into an allocated block. */
static memverify_status carve(flist *l, memverify_addr a, int64_t n) {
    if (!grow(l, l->n + 2)) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    size_t i = 0;
    while (l->b[i].allocated || a < l->b[i].addr || a - l->b[i].addr >= (uint64_t)l->b[i].size) {
        i++;
    }
    blk b = l->b[i];
    blk parts[3];
    size_t k = 0;
    if (a > b.addr) {
        parts[k++] = (blk){b.addr, (int64_t)(a - b.addr), 0};
    }
    parts[k++] = (blk){a, n, 1};
    memverify_addr end = a + (uint64_t)n, bend = b.addr + (uint64_t)b.size;
    if (end < bend) {
        parts[k++] = (blk){end, (int64_t)(bend - end), 0};
    }
    memmove(&l->b[i + k], &l->b[i + 1], (l->n - i - 1) * sizeof *l->b);
    memcpy(&l->b[i], parts, k * sizeof *parts);
    l->n += k - 1;
    return MEMVERIFY_OK;
}

memverify_status fl_allocate(flist *l, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out) {
    int64_t n;
    if (dir != MEMVERIFY_BOTTOM_UP && dir != MEMVERIFY_TOP_DOWN) {
        return MEMVERIFY_E_INVALID_DIRECTION;
    }
    memverify_status st = alloc_size(l, size, &n);
#ifdef MEMVERIFY_BUG_LIMIT_AFTER
    if (st == MEMVERIFY_OK && (st = choose(l, n, dir, NULL, 0, 0, l->cfg.policy, out)) == MEMVERIFY_OK &&
        (st = carve(l, *out, n)) == MEMVERIFY_OK && *out < limit) {
        st = MEMVERIFY_E_OUT_OF_MEMORY; /* the block stays allocated: leaked */
    }
    return st;
#else
    if (st == MEMVERIFY_OK && (st = choose(l, n, dir, NULL, 0, limit, l->cfg.policy, out)) == MEMVERIFY_OK) {
        st = carve(l, *out, n);
    }
    return st;
#endif
}

memverify_status fl_allocate_at(flist *l, memverify_addr addr, int64_t size) {
    int64_t n;
    memverify_status st = alloc_size(l, size, &n);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    memverify_addr end = fl_end(l);
    if (addr % (uint64_t)l->cfg.alignment != 0 || addr < l->cfg.offset || addr >= end || (uint64_t)n > end - addr) {
        return MEMVERIFY_E_INVALID_ADDRESS;
    }
    for (size_t i = 0; i < l->n; i++) {
        const blk *b = &l->b[i];
        if (b->addr <= addr && addr - b->addr < (uint64_t)b->size &&
            (b->allocated || addr - b->addr + (uint64_t)n > (uint64_t)b->size)) {
            return MEMVERIFY_E_NOT_FREE;
        }
    }
    return carve(l, addr, n);
}

memverify_status fl_allocate_avoiding(flist *l, int64_t size, int32_t dir, const memverify_bank_range *avoid,
                                             size_t navoid, memverify_addr limit, memverify_addr *out) {
    int64_t n;
    if (dir != MEMVERIFY_BOTTOM_UP && dir != MEMVERIFY_TOP_DOWN) {
        return MEMVERIFY_E_INVALID_DIRECTION;
    }
    memverify_status st = alloc_size(l, size, &n);
    if (st != MEMVERIFY_OK) {
        return st;
    }
    for (size_t i = 0; i < navoid; i++) {
        if (avoid[i].start > avoid[i].end) {
            return MEMVERIFY_E_INVALID_ADDRESS;
        }
    }
    if ((st = choose(l, n, dir, avoid, navoid, limit, MEMVERIFY_FIRST_FIT, out)) == MEMVERIFY_OK) {
        st = carve(l, *out, n);
    }
    return st;
}

memverify_status fl_free(flist *l, memverify_addr addr) {
    size_t i = 0;
    while (i < l->n && !(l->b[i].addr == addr && l->b[i].allocated)) {
        i++;
    }
    if (i == l->n) {
        return MEMVERIFY_E_UNKNOWN_ADDRESS;
    }
    l->b[i].allocated = 0;
    if (i + 1 < l->n && !l->b[i + 1].allocated) {
        l->b[i].size += l->b[i + 1].size;
        memmove(&l->b[i + 1], &l->b[i + 2], (l->n - i - 2) * sizeof *l->b);
        l->n--;
    }
    if (i > 0 && !l->b[i - 1].allocated) {
        l->b[i - 1].size += l->b[i].size;
        memmove(&l->b[i], &l->b[i + 1], (l->n - i - 1) * sizeof *l->b);
        l->n--;
    }
    return MEMVERIFY_OK;
}

void fl_stats(const flist *l, memverify_bank_stats *out) {
    *out = (memverify_bank_stats){l->cfg.size, 0, 0, 0};
    for (size_t i = 0; i < l->n; i++) {
        if (l->b[i].allocated) {
            out->allocated += l->b[i].size;
        } else {
            out->free += l->b[i].size;
            out->largest_free = l->b[i].size > out->largest_free ? l->b[i].size : out->largest_free;
        }
    }
}

void fl_blocks(const flist *l, memverify_bank_block_fn emit, void *arg) {
    for (size_t i = 0; i < l->n; i++) {
        memverify_bank_block e = {l->b[i].addr, l->b[i].size, l->b[i].allocated};
        emit(arg, &e);
    }
}

void fl_state(const flist *l, memverify_bank_region_fn emit, void *arg) {
    for (size_t i = 0; i < l->n; i++) {
        if (l->b[i].allocated) {
            memverify_bank_region r = {l->b[i].addr, l->b[i].size};
            emit(arg, &r);
        }
    }
}

static int by_addr(const void *x, const void *y) {
    const memverify_bank_region *a = x, *b = y;
    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* fl_restore checks the whole state before changing anything, then lays
 * the sorted regions out with the free gaps between them. */
memverify_status fl_restore(flist *l, const memverify_bank_state *s) {
    const memverify_bank_config *c = &l->cfg;
    if (s->offset != c->offset || s->size != c->size || s->alignment != c->alignment ||
        s->min_allocation != c->min_allocation) {
        return MEMVERIFY_E_INCOMPATIBLE_STATE;
    }
    size_t nr = s->nallocations;
    memverify_bank_region *rs = malloc((nr + 1) * sizeof *rs);
    flist out = {*c, malloc((2 * nr + 1) * sizeof(blk)), 0, 2 * nr + 1};
    if (rs == NULL || out.b == NULL) {
        free(rs);
        free(out.b);
        return MEMVERIFY_E_HOST_MEMORY;
    }
    memcpy(rs, s->allocations, nr * sizeof *rs);
    qsort(rs, nr, sizeof *rs, by_addr);
    memverify_addr next = c->offset, end = fl_end(l);
    for (size_t i = 0; i < nr; i++) {
        int64_t n;
        if (alloc_size(l, rs[i].size, &n) != MEMVERIFY_OK || n != rs[i].size ||
            rs[i].addr % (uint64_t)c->alignment != 0 || rs[i].addr < next || rs[i].addr >= end ||
            (uint64_t)n > end - rs[i].addr) {
            free(rs);
            free(out.b);
            return MEMVERIFY_E_INCOMPATIBLE_STATE;
        }
        if (rs[i].addr > next) {
            out.b[out.n++] = (blk){next, (int64_t)(rs[i].addr - next), 0};
        }
        out.b[out.n++] = (blk){rs[i].addr, n, 1};
        next = rs[i].addr + (uint64_t)n;
    }
    if (next < end) {
        out.b[out.n++] = (blk){next, (int64_t)(end - next), 0};
    }
    free(rs);
    free(l->b);
    *l = out;
    return MEMVERIFY_OK;
}
