/* glue_refcount.c — calls through a refcount table. */
#include <string.h>

#include "glue.h"

memverify_status mv_rc_create(const memverify_refcount_table *t, const memverify_refcount_freer *f, void **self) {
    return t->create(f, self);
}
void mv_rc_destroy(const memverify_refcount_table *t, void *self) { t->destroy(self); }
memverify_status mv_rc_register(const memverify_refcount_table *t, void *self, memverify_addr p, int64_t bytes,
                                int32_t kind) {
    return t->register_pointer(self, p, bytes, kind);
}
mv_result mv_rc_register_buffer(const memverify_refcount_table *t, void *self, memverify_addr real, int64_t bytes,
                                const memverify_addr *aliases, size_t n, int32_t kind) {
    mv_result r = {0, 0};
    r.st = t->register_buffer(self, real, bytes, aliases, n, kind, &r.value);
    return r;
}
memverify_status mv_rc_retain(const memverify_refcount_table *t, void *self, memverify_addr p) {
    return t->retain(self, p);
}
memverify_status mv_rc_unregister(const memverify_refcount_table *t, void *self, memverify_addr p) {
    return t->unregister(self, p);
}
int32_t mv_rc_is_registered(const memverify_refcount_table *t, void *self, memverify_addr p) {
    return t->is_registered(self, p);
}
int64_t mv_rc_refs(const memverify_refcount_table *t, void *self, memverify_addr p) { return t->refs(self, p); }
mv_rc_stats_result mv_rc_stats(const memverify_refcount_table *t, void *self) {
    mv_rc_stats_result r;
    memset(&r, 0, sizeof r);
    r.st = t->stats(self, &r.s);
    return r;
}
memverify_status mv_rc_live(const memverify_refcount_table *t, void *self, mv_list *out) {
    return t->live(self, mv_collect_registration, out);
}
memverify_status mv_rc_close(const memverify_refcount_table *t, void *self, mv_list *out) {
    return t->close(self, mv_collect_registration, out);
}
void mv_rc_enter(const memverify_refcount_table *t, void *self) { t->enter(self); }
memverify_status mv_rc_track(const memverify_refcount_table *t, void *self, memverify_addr p) {
    return t->track(self, p);
}
memverify_status mv_rc_promote(const memverify_refcount_table *t, void *self, memverify_addr p) {
    return t->promote(self, p);
}
mv_result mv_rc_exit(const memverify_refcount_table *t, void *self) {
    mv_result r = {0, 0};
    size_t failed = 0;
    r.st = t->exit(self, &failed);
    r.value = failed;
    return r;
}
