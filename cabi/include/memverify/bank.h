/*
 * memverify/bank.h — the C ABI of the bank domain: a free-list allocator of
 * a bank's address space, and banks that interleave a buffer's pages over
 * one shared free list. The contracts are model/bank's FreeList and Banks;
 * read that package's documentation for every decided detail (alignment,
 * minimum allocation, the limit, first and best fit, state and restore).
 *
 * Export:  const memverify_bank_table memverify_bank_v1 = { ... };
 * Each of the two interfaces is offered when its create is not NULL.
 *
 * Status codes and the Go sentinel each stands for:
 *   MEMVERIFY_E_INVALID_SIZE          bank.ErrInvalidSize
 *   MEMVERIFY_E_INVALID_CONFIG        bank.ErrInvalidConfig
 *   MEMVERIFY_E_OUT_OF_MEMORY         bank.ErrOutOfMemory
 *   MEMVERIFY_E_NOT_FREE              bank.ErrNotFree
 *   MEMVERIFY_E_INVALID_ADDRESS       bank.ErrInvalidAddress
 *   MEMVERIFY_E_UNKNOWN_ADDRESS       bank.ErrUnknownAddress
 *   MEMVERIFY_E_INCOMPATIBLE_STATE    bank.ErrIncompatibleState
 *   MEMVERIFY_E_INVALID_DIRECTION     bank.ErrInvalidDirection
 *   MEMVERIFY_E_INVALID_BANK          bank.ErrInvalidBank
 *
 * Every address is real here, 0 included. An address an allocation returns
 * must lie in the managed range: the harness reports one outside it.
 *
 * Threading: a free list need not be safe for concurrent use; banks are
 * when the header says MEMVERIFY_CONCURRENT (the flag covers both: set it
 * only if the free list is safe too, or keep the free list behind the
 * banks' lock and offer no free list).
 */
#ifndef MEMVERIFY_BANK_H
#define MEMVERIFY_BANK_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MEMVERIFY_BANK_SYMBOL "memverify_bank_v1"

/* Status codes of the bank domain (see the table above). */
#define MEMVERIFY_E_NOT_FREE 301
#define MEMVERIFY_E_INVALID_ADDRESS 302
#define MEMVERIFY_E_UNKNOWN_ADDRESS 303
#define MEMVERIFY_E_INCOMPATIBLE_STATE 304
#define MEMVERIFY_E_INVALID_DIRECTION 305
#define MEMVERIFY_E_INVALID_BANK 306

/* Directions; any other value is MEMVERIFY_E_INVALID_DIRECTION. */
#define MEMVERIFY_BOTTOM_UP 0
#define MEMVERIFY_TOP_DOWN 1

/* Placement policies. */
#define MEMVERIFY_FIRST_FIT 0
#define MEMVERIFY_BEST_FIT 1

/* One free list over [offset, offset+size). */
typedef struct memverify_bank_config {
    memverify_addr offset;  /* a multiple of alignment */
    int64_t size;           /* a positive multiple of alignment */
    int64_t alignment;      /* >= 1, any value (not only powers of two) */
    int64_t min_allocation; /* >= 0 */
    int32_t policy;         /* MEMVERIFY_FIRST_FIT or MEMVERIFY_BEST_FIT */
} memverify_bank_config;

/* One block of the dump: [addr, addr+size), free or allocated. */
typedef struct memverify_bank_block {
    memverify_addr addr;
    int64_t size;
    int32_t allocated; /* 0 or 1 */
} memverify_bank_block;

/* An absolute half-open range [start, end). */
typedef struct memverify_bank_range {
    memverify_addr start, end;
} memverify_bank_range;

/* One allocation of a state. */
typedef struct memverify_bank_region {
    memverify_addr addr;
    int64_t size;
} memverify_bank_region;

/* What state extracts and restore overrides. */
typedef struct memverify_bank_state {
    memverify_addr offset;
    int64_t size, alignment, min_allocation;
    const memverify_bank_region *allocations; /* sorted by address as extracted; any order on restore */
    size_t nallocations;
} memverify_bank_state;

typedef struct memverify_bank_stats {
    int64_t total_allocatable; /* the configured size */
    int64_t allocated;         /* sum of allocated block sizes */
    int64_t free;              /* sum of free block sizes */
    int64_t largest_free;      /* 0 if nothing is free */
} memverify_bank_stats;

/* Banks over one shared free list (bank.BanksConfig). */
typedef struct memverify_banks_config {
    const memverify_addr *offsets; /* one per bank, 1 to 1024 banks */
    size_t nbanks;
    memverify_bank_config list; /* the shared list; its alignment also rounds pages */
    memverify_addr limit;       /* every buffer allocation observes it; 0: none */
} memverify_banks_config;

/* One live buffer; the banks its pages go round come with it. */
typedef struct memverify_bank_buffer {
    memverify_addr addr; /* bank-local, the same in every bank it uses */
    int64_t size;        /* bytes requested */
    int64_t page_size;   /* as requested */
    int64_t per_bank;    /* ceil(pages / nbanks) * align(page_size) */
} memverify_bank_buffer;

typedef void (*memverify_bank_block_fn)(void *arg, const memverify_bank_block *b);
typedef void (*memverify_bank_region_fn)(void *arg, const memverify_bank_region *r);
typedef void (*memverify_bank_buffer_fn)(void *arg, const memverify_bank_buffer *b,
                                         const int32_t *banks, size_t nbanks);

typedef struct memverify_bank_table {
    memverify_header header;

    /* FreeList (bank.FreeList). Errors of each call, in check order:
     * direction (INVALID_DIRECTION), size (INVALID_SIZE), addresses or
     * avoided ranges (INVALID_ADDRESS), placement (OUT_OF_MEMORY, NOT_FREE). */
    memverify_status (*freelist_create)(const memverify_bank_config *cfg, void **self);
    void (*freelist_destroy)(void *self);
    /* Takes align(max(size, min_allocation)) bytes by the policy, at or
     * above limit (0: none). */
    memverify_status (*freelist_allocate)(void *self, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out);
    /* Takes align(max(size, min_allocation)) bytes at addr (aligned, the
     * range inside the managed range, else INVALID_ADDRESS; inside one free
     * block, else NOT_FREE). */
    memverify_status (*freelist_allocate_at)(void *self, memverify_addr addr, int64_t size);
    /* First fit clear of every avoided range (absolute, any order, possibly
     * overlapping; start > end is INVALID_ADDRESS). avoid may be NULL when
     * navoid is 0. */
    memverify_status (*freelist_allocate_avoiding)(void *self, int64_t size, int32_t dir,
                                                   const memverify_bank_range *avoid, size_t navoid,
                                                   memverify_addr limit, memverify_addr *out);
    /* Frees the allocation starting at addr (UNKNOWN_ADDRESS otherwise);
     * coalesces with free neighbours. */
    memverify_status (*freelist_free)(void *self, memverify_addr addr);
    void (*freelist_stats)(void *self, memverify_bank_stats *out);
    /* Emits every block, free and allocated, in address order. */
    void (*freelist_blocks)(void *self, memverify_bank_block_fn emit, void *arg);
    /* Emits every live allocation as its own region, in address order (the
     * configuration of the state is the one given to create). */
    void (*freelist_state)(void *self, memverify_bank_region_fn emit, void *arg);
    /* Replaces the whole state (INCOMPATIBLE_STATE, nothing changed, for a
     * state of another configuration or an invalid layout). */
    memverify_status (*freelist_restore)(void *self, const memverify_bank_state *s);

    /* Banks (bank.Banks). */
    memverify_status (*banks_create)(const memverify_banks_config *cfg, void **self);
    void (*banks_destroy)(void *self);
    /* Places a buffer's pages round all banks; *out is its bank-local address. */
    memverify_status (*banks_allocate_buffer)(void *self, int64_t size, int64_t page_size, int32_t dir, memverify_addr *out);
    /* Round the listed banks (distinct, existing, at least one; else
     * INVALID_BANK, checked before the size). */
    memverify_status (*banks_allocate_sharded)(void *self, int64_t size, int64_t page_size,
                                               const int32_t *banks, size_t nbanks, int32_t dir, memverify_addr *out);
    /* UNKNOWN_ADDRESS if no buffer starts at addr. */
    memverify_status (*banks_free_buffer)(void *self, memverify_addr addr);
    /* Where page of the buffer at addr lives: in bank banks[page mod n] at
     * addr + offsets[bank] + (page div n) * align(page_size).
     * UNKNOWN_ADDRESS, INVALID_ADDRESS (page outside the buffer). */
    memverify_status (*banks_page_address)(void *self, memverify_addr addr, int64_t page, int32_t *bank, memverify_addr *abs);
    /* Emits the live buffers sorted by address, each with its bank list. */
    void (*banks_buffers)(void *self, memverify_bank_buffer_fn emit, void *arg);
    /* One bank's statistics and dump (every bank holds the same layout). */
    void (*banks_stats)(void *self, memverify_bank_stats *out);
    void (*banks_blocks)(void *self, memverify_bank_block_fn emit, void *arg);
} memverify_bank_table;

extern const memverify_bank_table memverify_bank_v1;

#ifdef __cplusplus
}
#endif

#endif /* MEMVERIFY_BANK_H */
