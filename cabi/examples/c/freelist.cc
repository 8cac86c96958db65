// freelist.cc — the C++ route: a free list written as an ordinary C++
// class (std::map of blocks, a std::mutex), exported to memverify through
// a shim of one-line extern "C" functions at the end of the file. Only the
// free list is offered (banks_create is NULL).
//
// The class knows nothing of the ABI but its types and status codes; the
// shim turns void *self back into the object and exceptions (allocation
// failures) into MEMVERIFY_E_HOST_MEMORY, because no exception may cross
// into C.
#include <cstdint>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "memverify/bank.h"

namespace {

struct Range {
    uint64_t start, end;
};

class FreeList {
  public:
    explicit FreeList(const memverify_bank_config &c) : cfg_(c) { blocks_[c.offset] = Block{c.size, false}; }

    static bool Valid(const memverify_bank_config &c) {
        uint64_t min;
        return c.alignment >= 1 && c.size >= 1 && c.size % c.alignment == 0 && c.min_allocation >= 0 &&
               AlignUp(uint64_t(c.min_allocation), uint64_t(c.alignment), &min) && min <= INT64_MAX &&
               c.offset % uint64_t(c.alignment) == 0 &&
               (c.policy == MEMVERIFY_FIRST_FIT || c.policy == MEMVERIFY_BEST_FIT) &&
               c.offset <= UINT64_MAX - uint64_t(c.size);
    }

    // Allocate places align(max(size, min)) bytes at or above limit, clear
    // of avoid: by the list's policy, or by first fit when avoiding.
    memverify_status Allocate(int64_t size, int32_t dir, uint64_t limit, const std::vector<Range> &avoid,
                              bool avoiding, uint64_t *out) {
        std::lock_guard<std::mutex> lock(mu_);
        int64_t n;
        if (dir != MEMVERIFY_BOTTOM_UP && dir != MEMVERIFY_TOP_DOWN) return MEMVERIFY_E_INVALID_DIRECTION;
        if (memverify_status st = AllocSize(size, &n)) return st;
        for (const Range &r : avoid) {
            if (r.start > r.end) return MEMVERIFY_E_INVALID_ADDRESS;
        }
        int32_t policy = avoiding ? MEMVERIFY_FIRST_FIT : cfg_.policy;
        if (!Choose(n, dir, avoid, limit, policy, out)) return MEMVERIFY_E_OUT_OF_MEMORY;
        Carve(*out, n);
        return MEMVERIFY_OK;
    }

    memverify_status AllocateAt(uint64_t addr, int64_t size) {
        std::lock_guard<std::mutex> lock(mu_);
        int64_t n;
        if (memverify_status st = AllocSize(size, &n)) return st;
        if (addr % uint64_t(cfg_.alignment) != 0 || addr < cfg_.offset || addr >= End() || uint64_t(n) > End() - addr) {
            return MEMVERIFY_E_INVALID_ADDRESS;
        }
        auto it = std::prev(blocks_.upper_bound(addr));
        if (it->second.allocated || addr - it->first + uint64_t(n) > uint64_t(it->second.size)) {
            return MEMVERIFY_E_NOT_FREE;
        }
        Carve(addr, n);
        return MEMVERIFY_OK;
    }

    memverify_status Free(uint64_t addr) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = blocks_.find(addr);
        if (it == blocks_.end() || !it->second.allocated) return MEMVERIFY_E_UNKNOWN_ADDRESS;
        it->second.allocated = false;
        auto next = std::next(it);
        if (next != blocks_.end() && !next->second.allocated) {
            it->second.size += next->second.size;
            blocks_.erase(next);
        }
        if (it != blocks_.begin() && !std::prev(it)->second.allocated) {
            std::prev(it)->second.size += it->second.size;
            blocks_.erase(it);
        }
        return MEMVERIFY_OK;
    }

    void Stats(memverify_bank_stats *out) {
        std::lock_guard<std::mutex> lock(mu_);
        *out = memverify_bank_stats{cfg_.size, 0, 0, 0};
        for (const auto &b : blocks_) {
            if (b.second.allocated) {
                out->allocated += b.second.size;
            } else {
                out->free += b.second.size;
                if (b.second.size > out->largest_free) out->largest_free = b.second.size;
            }
        }
    }

    void Blocks(memverify_bank_block_fn emit, void *arg) {
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto &b : blocks_) {
            memverify_bank_block e{b.first, b.second.size, b.second.allocated};
            emit(arg, &e);
        }
    }

    void State(memverify_bank_region_fn emit, void *arg) {
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto &b : blocks_) {
            memverify_bank_region r{b.first, b.second.size};
            if (b.second.allocated) emit(arg, &r);
        }
    }

    memverify_status Restore(const memverify_bank_state &s) {
        std::lock_guard<std::mutex> lock(mu_);
        if (s.offset != cfg_.offset || s.size != cfg_.size || s.alignment != cfg_.alignment ||
            s.min_allocation != cfg_.min_allocation) {
            return MEMVERIFY_E_INCOMPATIBLE_STATE;
        }
        std::map<uint64_t, int64_t> regions;
        for (size_t i = 0; i < s.nallocations; i++) {
            if (!regions.emplace(s.allocations[i].addr, s.allocations[i].size).second) {
                return MEMVERIFY_E_INCOMPATIBLE_STATE;
            }
        }
        std::map<uint64_t, Block> out;
        uint64_t next = cfg_.offset;
        for (const auto &r : regions) {
            int64_t n;
            if (AllocSize(r.second, &n) != MEMVERIFY_OK || n != r.second || r.first % uint64_t(cfg_.alignment) != 0 ||
                r.first < next || r.first >= End() || uint64_t(n) > End() - r.first) {
                return MEMVERIFY_E_INCOMPATIBLE_STATE;
            }
            if (r.first > next) out[next] = Block{int64_t(r.first - next), false};
            out[r.first] = Block{n, true};
            next = r.first + uint64_t(n);
        }
        if (next < End()) out[next] = Block{int64_t(End() - next), false};
        blocks_.swap(out);
        return MEMVERIFY_OK;
    }

  private:
    struct Block {
        int64_t size;
        bool allocated;
    };

    static bool AlignUp(uint64_t x, uint64_t a, uint64_t *out) {
        uint64_t r = x % a;
        if (r == 0) return *out = x, true;
        if (x > UINT64_MAX - (a - r)) return false;
        return *out = x + (a - r), true;
    }

    uint64_t End() const { return cfg_.offset + uint64_t(cfg_.size); }

    memverify_status AllocSize(int64_t size, int64_t *n) const {
        uint64_t a;
        if (size <= 0) return MEMVERIFY_E_INVALID_SIZE;
        if (size < cfg_.min_allocation) size = cfg_.min_allocation;
        if (!AlignUp(uint64_t(size), uint64_t(cfg_.alignment), &a) || a > INT64_MAX) return MEMVERIFY_E_INVALID_SIZE;
        *n = int64_t(a);
        return MEMVERIFY_OK;
    }

    // Place finds the lowest (bottom-up) or highest (top-down) aligned place
    // for n bytes in free block [addr, end), at or above lo, clear of avoid.
    bool Place(uint64_t addr, uint64_t end, int64_t n, int32_t dir, const std::vector<Range> &avoid, uint64_t lo,
               uint64_t *out) const {
        std::vector<Range> segs{{addr > lo ? addr : lo, end}};
        for (const Range &r : avoid) {
            std::vector<Range> cut;
            for (const Range &s : segs) {
                if (r.end <= s.start || r.start >= s.end || r.start == r.end) {
                    cut.push_back(s);
                    continue;
                }
                if (s.start < r.start) cut.push_back({s.start, r.start});
                if (r.end < s.end) cut.push_back({r.end, s.end});
            }
            segs.swap(cut);
        }
        bool found = false;
        for (const Range &s : segs) {
            uint64_t start, a = uint64_t(cfg_.alignment);
            if (s.start >= s.end || !AlignUp(s.start, a, &start) || start > s.end || s.end - start < uint64_t(n)) continue;
            uint64_t p = dir == MEMVERIFY_TOP_DOWN ? (s.end - uint64_t(n)) / a * a : start;
            if (!found || (dir == MEMVERIFY_BOTTOM_UP ? p < *out : p > *out)) *out = p, found = true;
        }
        return found;
    }

    bool Choose(int64_t n, int32_t dir, const std::vector<Range> &avoid, uint64_t limit, int32_t policy,
                uint64_t *out) const {
        uint64_t lo;
        if (!AlignUp(limit, uint64_t(cfg_.alignment), &lo)) return false;
        bool found = false;
        int64_t best = 0;
        for (const auto &b : blocks_) {
            uint64_t p;
            if (b.second.allocated || !Place(b.first, b.first + uint64_t(b.second.size), n, dir, avoid, lo, &p)) continue;
            bool better = !found;
            if (found && policy == MEMVERIFY_BEST_FIT && b.second.size != best) {
                better = b.second.size < best;
            } else if (found) {
                better = dir == MEMVERIFY_BOTTOM_UP ? p < *out : p > *out;
            }
            if (better) *out = p, best = b.second.size, found = true;
        }
        return found;
    }

    // Carve turns [a, a+n), inside one free block, into an allocated block.
    void Carve(uint64_t a, int64_t n) {
        auto it = std::prev(blocks_.upper_bound(a));
        uint64_t start = it->first, end = it->first + uint64_t(it->second.size);
        if (a > start) {
            it->second.size = int64_t(a - start);
        } else {
            blocks_.erase(it);
        }
        blocks_[a] = Block{n, true};
        if (a + uint64_t(n) < end) blocks_[a + uint64_t(n)] = Block{int64_t(end - a - uint64_t(n)), false};
    }

    memverify_bank_config cfg_;
    std::map<uint64_t, Block> blocks_;  // tiles the range, keyed by address
    std::mutex mu_;
};

}  // namespace

// The shim: C functions that forward to the class. An exception (a failed
// allocation inside std::map or std::vector) must not cross into C.
extern "C" {

static FreeList *L(void *self) { return static_cast<FreeList *>(self); }

static memverify_status fl_create(const memverify_bank_config *c, void **self) {
    if (!FreeList::Valid(*c)) return MEMVERIFY_E_INVALID_CONFIG;
    try {
        *self = new FreeList(*c);
    } catch (const std::bad_alloc &) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
    return MEMVERIFY_OK;
}
static void fl_destroy(void *self) { delete L(self); }
static memverify_status fl_allocate(void *self, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out) {
    try {
        return L(self)->Allocate(size, dir, limit, {}, false, out);
    } catch (const std::bad_alloc &) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
}
static memverify_status fl_allocate_at(void *self, memverify_addr addr, int64_t size) {
    try {
        return L(self)->AllocateAt(addr, size);
    } catch (const std::bad_alloc &) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
}
static memverify_status fl_allocate_avoiding(void *self, int64_t size, int32_t dir, const memverify_bank_range *r,
                                             size_t n, memverify_addr limit, memverify_addr *out) {
    try {
        std::vector<Range> avoid;
        for (size_t i = 0; i < n; i++) avoid.push_back(Range{r[i].start, r[i].end});
        return L(self)->Allocate(size, dir, limit, avoid, true, out);
    } catch (const std::bad_alloc &) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
}
static memverify_status fl_free(void *self, memverify_addr addr) { return L(self)->Free(addr); }
static void fl_stats(void *self, memverify_bank_stats *out) { L(self)->Stats(out); }
static void fl_blocks(void *self, memverify_bank_block_fn emit, void *arg) { L(self)->Blocks(emit, arg); }
static void fl_state(void *self, memverify_bank_region_fn emit, void *arg) { L(self)->State(emit, arg); }
static memverify_status fl_restore(void *self, const memverify_bank_state *s) {
    try {
        return L(self)->Restore(*s);
    } catch (const std::bad_alloc &) {
        return MEMVERIFY_E_HOST_MEMORY;
    }
}

extern const memverify_bank_table memverify_bank_v1 = {
    {MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT, sizeof(memverify_bank_table), "cpp-freelist"},
    fl_create, fl_destroy, fl_allocate, fl_allocate_at, fl_allocate_avoiding, fl_free,
    fl_stats,  fl_blocks,  fl_state,    fl_restore,
    // Banks are not offered: banks_create and the rest are NULL.
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
};

}  // extern "C"
