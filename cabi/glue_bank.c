/* glue_bank.c — calls through a bank table. */
#include "glue.h"

memverify_status mv_fl_create(const memverify_bank_table *t, const memverify_bank_config *cfg, void **self) {
    return t->freelist_create(cfg, self);
}
void mv_fl_destroy(const memverify_bank_table *t, void *self) { t->freelist_destroy(self); }
memverify_status mv_fl_allocate(const memverify_bank_table *t, void *self, int64_t size, int32_t dir,
                                memverify_addr limit, memverify_addr *out) {
    return t->freelist_allocate(self, size, dir, limit, out);
}
memverify_status mv_fl_allocate_at(const memverify_bank_table *t, void *self, memverify_addr addr, int64_t size) {
    return t->freelist_allocate_at(self, addr, size);
}
memverify_status mv_fl_allocate_avoiding(const memverify_bank_table *t, void *self, int64_t size, int32_t dir,
                                         const memverify_bank_range *avoid, size_t n, memverify_addr limit,
                                         memverify_addr *out) {
    return t->freelist_allocate_avoiding(self, size, dir, avoid, n, limit, out);
}
memverify_status mv_fl_free(const memverify_bank_table *t, void *self, memverify_addr addr) {
    return t->freelist_free(self, addr);
}
void mv_fl_stats(const memverify_bank_table *t, void *self, memverify_bank_stats *out) { t->freelist_stats(self, out); }
void mv_fl_blocks(const memverify_bank_table *t, void *self, mv_list *out) {
    t->freelist_blocks(self, mv_collect_bank_block, out);
}
void mv_fl_state(const memverify_bank_table *t, void *self, mv_list *out) {
    t->freelist_state(self, mv_collect_bank_region, out);
}
memverify_status mv_fl_restore(const memverify_bank_table *t, void *self, const memverify_bank_state *s) {
    return t->freelist_restore(self, s);
}

memverify_status mv_bk_create(const memverify_bank_table *t, const memverify_banks_config *cfg, void **self) {
    return t->banks_create(cfg, self);
}
void mv_bk_destroy(const memverify_bank_table *t, void *self) { t->banks_destroy(self); }
memverify_status mv_bk_allocate_buffer(const memverify_bank_table *t, void *self, int64_t size, int64_t page,
                                       int32_t dir, memverify_addr *out) {
    return t->banks_allocate_buffer(self, size, page, dir, out);
}
memverify_status mv_bk_allocate_sharded(const memverify_bank_table *t, void *self, int64_t size, int64_t page,
                                        const int32_t *banks, size_t n, int32_t dir, memverify_addr *out) {
    return t->banks_allocate_sharded(self, size, page, banks, n, dir, out);
}
memverify_status mv_bk_free_buffer(const memverify_bank_table *t, void *self, memverify_addr addr) {
    return t->banks_free_buffer(self, addr);
}
memverify_status mv_bk_page_address(const memverify_bank_table *t, void *self, memverify_addr addr, int64_t page,
                                    int32_t *bank, memverify_addr *abs) {
    return t->banks_page_address(self, addr, page, bank, abs);
}
void mv_bk_buffers(const memverify_bank_table *t, void *self, mv_list *out) {
    t->banks_buffers(self, mv_collect_bank_buffer, out);
}
void mv_bk_stats(const memverify_bank_table *t, void *self, memverify_bank_stats *out) { t->banks_stats(self, out); }
void mv_bk_blocks(const memverify_bank_table *t, void *self, mv_list *out) {
    t->banks_blocks(self, mv_collect_bank_block, out);
}
