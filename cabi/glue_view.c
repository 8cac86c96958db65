/* glue_view.c — calls through an overlap table and a tensormap table. */
#include "glue.h"

memverify_status mv_ov_overlap(const memverify_overlap_table *t, const memverify_view *a, const memverify_view *b,
                               int32_t *verdict) {
    return t->overlap(a, b, verdict);
}
memverify_status mv_ov_capped(const memverify_overlap_table *t, const memverify_view *a, const memverify_view *b,
                              int64_t max_work, int32_t *verdict, int64_t *work) {
    return t->overlap_capped(a, b, max_work, verdict, work);
}

memverify_status mv_tm_create(const memverify_tensormap_table *t, const memverify_tensormap_config *cfg, void **self) {
    return t->create(cfg, self);
}
void mv_tm_destroy(const memverify_tensormap_table *t, void *self) { t->destroy(self); }
/* The tensormap wrappers take the view by value: the map may call the
 * solver, a Go callback, so a Go pointer passed in would have to live on
 * the heap (see mv_result in glue.h). */
memverify_status mv_tm_insert(const memverify_tensormap_table *t, void *self, uint64_t storage, memverify_view v,
                              uint64_t task) {
    return t->insert(self, storage, &v, task);
}
mv_lookup_result mv_tm_lookup(const memverify_tensormap_table *t, void *self, uint64_t storage, memverify_view v) {
    mv_lookup_result r = {0, 0, 0};
    r.st = t->lookup(self, storage, &v, &r.task, &r.found);
    return r;
}
memverify_status mv_tm_lookup_all(const memverify_tensormap_table *t, void *self, uint64_t storage,
                                  memverify_view v, int64_t limit, mv_list *out) {
    return t->lookup_all(self, storage, &v, limit, mv_collect_task, out);
}
memverify_status mv_tm_retire(const memverify_tensormap_table *t, void *self, uint64_t task) {
    return t->retire(self, task);
}
int64_t mv_tm_len(const memverify_tensormap_table *t, void *self) { return t->len(self); }
