/*
 * overlap_example.h — the overlap example's checker, which the tensormap
 * example uses as its own solver.
 */
#ifndef OVERLAP_EXAMPLE_H
#define OVERLAP_EXAMPLE_H

#include "memverify/overlap.h"

/* The work cap of the uncapped entry point, in elements listed. */
#define OV_DEFAULT_WORK (1 << 20)

/* ov_validate: MEMVERIFY_OK or MEMVERIFY_E_INVALID_VIEW. */
memverify_status ov_validate(const memverify_view *v);
/* ov_empty: 1 if some extent is 0 (the view touches nothing). */
int ov_empty(const memverify_view *v);
/* ov_check answers whether a and b share a byte, listing at most max_work
 * elements (else MEMVERIFY_TOO_HARD); *work is the elements it listed. */
memverify_status ov_check(const memverify_view *a, const memverify_view *b, int64_t max_work, int32_t *verdict,
                          int64_t *work);

#endif
