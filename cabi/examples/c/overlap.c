/*
 * overlap.c — a small, exact overlap checker for memverify's overlap ABI
 * (memverify/overlap.h).
 *
 * After validation and a bounding-box test, it lists the start of every
 * element of the first view, sorts them and merges the byte intervals they
 * cover, then looks each element of the second view up in the merged
 * intervals by binary search. That is exact, and costs the elements of the
 * two views, not their bytes: the work cap counts elements. Addresses are
 * computed in uint64_t, where wrapping partial sums are harmless because
 * validation has put every element's final address in [0, 2^63).
 *
 * Build with -DMEMVERIFY_BUG_CLOSED_INTERVAL for the seeded bug: the
 * lookup treats a byte interval as closed at its end, so two elements that
 * merely touch (one ends where the other begins) are reported to overlap.
 */
#include <stdlib.h>

#include "overlap_example.h"

/* extent validates v and, when it is not empty, returns its lowest and
 * highest byte. Dims of extent 1 contribute nothing: their stride means
 * nothing. */
static memverify_status extent(const memverify_view *v, int64_t *lo, int64_t *hi) {
    if (v->rank < 0 || v->rank > MEMVERIFY_MAX_RANK || v->nstrides != v->rank || v->elem_size < 1 || v->offset < 0) {
        return MEMVERIFY_E_INVALID_VIEW;
    }
    for (int32_t d = 0; d < v->rank; d++) {
        if (v->shape[d] < 0) {
            return MEMVERIFY_E_INVALID_VIEW;
        }
    }
    if (ov_empty(v)) {
        return MEMVERIFY_OK;
    }
    *lo = *hi = v->offset;
    for (int32_t d = 0; d < v->rank; d++) {
        int64_t span;
        if (v->shape[d] < 2) {
            continue;
        }
        if (__builtin_mul_overflow(v->shape[d] - 1, v->strides[d], &span) ||
            (span < 0 ? __builtin_add_overflow(*lo, span, lo) : __builtin_add_overflow(*hi, span, hi)) || *lo < 0) {
            return MEMVERIFY_E_INVALID_VIEW;
        }
    }
    return __builtin_add_overflow(*hi, v->elem_size - 1, hi) ? MEMVERIFY_E_INVALID_VIEW : MEMVERIFY_OK;
}

memverify_status ov_validate(const memverify_view *v) {
    int64_t lo, hi;
    return extent(v, &lo, &hi);
}

int ov_empty(const memverify_view *v) {
    for (int32_t d = 0; d < v->rank && d < MEMVERIFY_VIEW_DIMS; d++) {
        if (v->shape[d] == 0) {
            return 1;
        }
    }
    return 0;
}

/* numel counts v's elements, saturating at limit + 1. */
static int64_t numel(const memverify_view *v, int64_t limit) {
    int64_t n = 1;
    for (int32_t d = 0; d < v->rank; d++) {
        if (__builtin_mul_overflow(n, v->shape[d], &n) || n > limit) {
            return limit + 1;
        }
    }
    return n;
}

/* starts writes the start of every element of non-empty v, in row-major
 * order, advancing the multi-index like an odometer. */
static void starts(const memverify_view *v, uint64_t *out) {
    int64_t idx[MEMVERIFY_MAX_RANK] = {0};
    size_t k = 0;
    for (;;) {
        uint64_t s = (uint64_t)v->offset;
        for (int32_t d = 0; d < v->rank; d++) {
            s += (uint64_t)idx[d] * (uint64_t)v->strides[d];
        }
        out[k++] = s;
        int32_t d = v->rank - 1;
        for (; d >= 0; d--) {
            if (++idx[d] < v->shape[d]) {
                break;
            }
            idx[d] = 0;
        }
        if (d < 0) {
            return;
        }
    }
}

static int by_value(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* merge turns n sorted starts of elements of size elem into disjoint
 * intervals [lo[i], hi[i]), in place; it returns their number. */
static size_t merge(uint64_t *lo, uint64_t *hi, size_t n, uint64_t elem) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m > 0 && lo[i] <= hi[m - 1]) {
            hi[m - 1] = lo[i] + elem > hi[m - 1] ? lo[i] + elem : hi[m - 1];
            continue;
        }
        lo[m] = lo[i];
        hi[m] = lo[i] + elem;
        m++;
    }
    return m;
}

/* hits reports whether [s, e) meets one of the m merged intervals: the
 * last interval that starts before e must end after s. */
static int hits(const uint64_t *lo, const uint64_t *hi, size_t m, uint64_t s, uint64_t e) {
    size_t i = 0, j = m; /* find the first interval starting at or after e */
    while (i < j) {
        size_t mid = i + (j - i) / 2;
#ifdef MEMVERIFY_BUG_CLOSED_INTERVAL
        if (lo[mid] <= e) {
#else
        if (lo[mid] < e) {
#endif
            i = mid + 1;
        } else {
            j = mid;
        }
    }
#ifdef MEMVERIFY_BUG_CLOSED_INTERVAL
    return i > 0 && hi[i - 1] >= s;
#else
    return i > 0 && hi[i - 1] > s;
#endif
}

memverify_status ov_check(const memverify_view *a, const memverify_view *b, int64_t max_work, int32_t *verdict,
                          int64_t *work) {
    int64_t alo, ahi, blo, bhi;
    memverify_status st = extent(a, &alo, &ahi);
    if (st == MEMVERIFY_OK) {
        st = extent(b, &blo, &bhi);
    }
    if (st != MEMVERIFY_OK) {
        return st;
    }
    *verdict = MEMVERIFY_NO;
    *work = 0;
    if (ov_empty(a) || ov_empty(b) || ahi < blo || bhi < alo) {
        return MEMVERIFY_OK;
    }
    int64_t na = numel(a, max_work), nb = numel(b, max_work);
    if (na > max_work || nb > max_work - na) {
        *verdict = MEMVERIFY_TOO_HARD;
        *work = max_work;
        return MEMVERIFY_OK;
    }
    *work = na + nb;
    uint64_t *lo = malloc((size_t)(na + na + nb) * sizeof *lo);
    if (lo == NULL) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    uint64_t *hi = lo + na, *bs = hi + na;
    starts(a, lo);
    qsort(lo, (size_t)na, sizeof *lo, by_value);
    size_t m = merge(lo, hi, (size_t)na, (uint64_t)a->elem_size);
    starts(b, bs);
    for (int64_t i = 0; i < nb && *verdict == MEMVERIFY_NO; i++) {
        if (hits(lo, hi, m, bs[i], bs[i] + (uint64_t)b->elem_size)) {
            *verdict = MEMVERIFY_YES;
        }
    }
    free(lo);
    return MEMVERIFY_OK;
}

static memverify_status overlap(const memverify_view *a, const memverify_view *b, int32_t *verdict) {
    int64_t work;
    return ov_check(a, b, OV_DEFAULT_WORK, verdict, &work);
}

const memverify_overlap_table memverify_overlap_v1 = {
    {MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT, sizeof(memverify_overlap_table), "c-overlap"},
    overlap,
    ov_check,
};
