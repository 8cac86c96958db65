//go:build cgo

package cabi_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memverify/memverify/cabi"
	"github.com/memverify/memverify/cabi/examples"
	bk "github.com/memverify/memverify/model/bank"
	ov "github.com/memverify/memverify/model/overlap"
	"github.com/memverify/memverify/props"
	"github.com/memverify/memverify/props/banktest"
	"github.com/memverify/memverify/props/overlaptest"
	"pgregory.net/rapid"
)

// source builds one C file's text into a library; it skips the test when
// the machine has no C compiler.
func source(t *testing.T, name, src string) string {
	t.Helper()
	path, err := examples.BuildSource(buildDir, name, false, src)
	if errors.Is(err, examples.ErrNoCompiler) {
		t.Skipf("needs a C compiler: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

const overlapHeader = `#include "memverify/overlap.h"
static memverify_status no(const memverify_view *a, const memverify_view *b, int32_t *v) {
    (void)a, (void)b;
    *v = MEMVERIFY_NO;
    return MEMVERIFY_OK;
}
`

// TestOpenRefuses: a library that does not load, exports no table, or
// exports one of another ABI version or with a function missing is refused
// by Open, with the sentinel and a message that says which.
func TestOpenRefuses(t *testing.T) {
	notELF := filepath.Join(buildDir, "not-a-library.so")
	if err := os.WriteFile(notELF, []byte("not a shared object"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, src string // src "" opens path instead
		path      string
		want      error
		says      string
	}{
		{name: "missing-file", path: filepath.Join(buildDir, "no-such-library.so"), want: cabi.ErrLoad, says: "no-such-library.so"},
		{name: "not-elf", path: notELF, want: cabi.ErrLoad, says: "not-a-library.so"},
		{name: "no-table", src: "int memverify_nothing_here;\n", want: cabi.ErrNoTable, says: "memverify_bank_v1"},
		{name: "version-2", src: overlapHeader + `const memverify_overlap_table memverify_overlap_v1 = {
    {2, 0, sizeof(memverify_overlap_table), "v2"}, no, 0};
`, want: cabi.ErrABIVersion, says: "ABI version 2"},
		{name: "short-table", src: overlapHeader + `const memverify_overlap_table memverify_overlap_v1 = {
    {MEMVERIFY_ABI_VERSION, 0, sizeof(memverify_overlap_table) - 8, "short"}, no, 0};
`, want: cabi.ErrABIVersion, says: "built against other headers"},
		{name: "no-function", src: overlapHeader + `const memverify_overlap_table memverify_overlap_v1 = {
    {MEMVERIFY_ABI_VERSION, 0, sizeof(memverify_overlap_table), "none"}, 0, 0};
static void unused(void) { (void)no; }
`, want: cabi.ErrMissingFunction, says: "overlap is NULL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.path
			if c.src != "" {
				path = source(t, c.name, c.src)
			}
			lib, err := cabi.Open(path)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Open(%s) = %v, %v; want an error wrapping %v that says %q", path, lib, err, c.want, c.says)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// misbehaving is a library that breaks the ABI's rules on purpose: a free
// list that hands out an address outside its range, answers an unknown
// status code and lists a block whose flag is neither 0 nor 1, and a
// checker that answers a verdict that does not exist.
const misbehaving = overlapHeader + `#include "memverify/bank.h"
#include <stdlib.h>
static int instance;
static memverify_status create(const memverify_bank_config *c, void **self) { (void)c; *self = &instance; return 0; }
static void destroy(void *self) { (void)self; }
static memverify_status allocate(void *self, int64_t size, int32_t dir, memverify_addr limit, memverify_addr *out) {
    (void)self, (void)size, (void)dir, (void)limit;
    *out = 1ull << 62;
    return MEMVERIFY_OK;
}
static memverify_status allocate_at(void *self, memverify_addr a, int64_t size) { (void)self, (void)a, (void)size; return 999; }
static memverify_status avoiding(void *self, int64_t size, int32_t dir, const memverify_bank_range *r, size_t n,
                                 memverify_addr limit, memverify_addr *out) {
    (void)r, (void)n;
    return allocate(self, size, dir, limit, out);
}
static memverify_status release(void *self, memverify_addr a) { (void)self, (void)a; return 999; }
static void stats(void *self, memverify_bank_stats *out) { (void)self; *out = (memverify_bank_stats){0, 0, 0, 0}; }
static void blocks(void *self, memverify_bank_block_fn emit, void *arg) {
    (void)self;
    memverify_bank_block b = {0, 64, 5};
    emit(arg, &b);
}
static void state(void *self, memverify_bank_region_fn emit, void *arg) { (void)self, (void)emit, (void)arg; }
static memverify_status restore(void *self, const memverify_bank_state *s) { (void)self, (void)s; return 0; }
const memverify_bank_table memverify_bank_v1 = {
    {MEMVERIFY_ABI_VERSION, 0, sizeof(memverify_bank_table), "misbehaving"},
    create, destroy, allocate, allocate_at, avoiding, release, stats, blocks, state, restore,
};
static memverify_status seven(const memverify_view *a, const memverify_view *b, int32_t *v) {
    (void)a, (void)b, (void)no;
    *v = 7;
    return MEMVERIFY_OK;
}
const memverify_overlap_table memverify_overlap_v1 = {
    {MEMVERIFY_ABI_VERSION, MEMVERIFY_CONCURRENT, sizeof(memverify_overlap_table), "misbehaving"}, seven, 0};
`

// TestBadValuesAreFailures: values the ABI rules out come back as errors
// that say what was wrong (and in the library's violation log), and a
// suite run against such a library fails instead of taking the harness
// down.
func TestBadValuesAreFailures(t *testing.T) {
	lib, err := cabi.Open(source(t, "misbehaving", misbehaving))
	if err != nil {
		t.Fatal(err)
	}
	if got := lib.Domains(); strings.Join(got, ",") != "bank,overlap" {
		t.Fatalf("Domains() = %v", got)
	}
	bt, _ := lib.Bank()
	if bt.HasBanks() || !bt.HasFreeList() {
		t.Fatalf("HasBanks %v, HasFreeList %v: want a free list only", bt.HasBanks(), bt.HasFreeList())
	}
	if _, err := bt.NewBanks(bk.BanksConfig{}); !errors.Is(err, cabi.ErrNotOffered) {
		t.Errorf("NewBanks: %v, want ErrNotOffered", err)
	}
	l, err := bt.NewFreeList(bk.Config{Offset: 0, Size: 1 << 20, Alignment: 32})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Allocate(64, bk.BottomUp, 0); !errors.Is(err, cabi.ErrBadValue) || !strings.Contains(err.Error(), "outside the managed range") {
		t.Errorf("Allocate: %v, want ErrBadValue for an address outside the range", err)
	}
	if err := l.Free(0); !errors.Is(err, cabi.ErrBadStatus) || !strings.Contains(err.Error(), "status 999") {
		t.Errorf("Free: %v, want ErrBadStatus naming 999", err)
	}
	l.Blocks()
	ot, _ := lib.Overlap()
	v := ov.View{ElemSize: 1, Shape: []int64{1}, Strides: []int64{1}}
	if _, err := ot.Checker()(v, v); !errors.Is(err, cabi.ErrBadValue) || !strings.Contains(err.Error(), "verdict 7") {
		t.Errorf("overlap: %v, want ErrBadValue for verdict 7", err)
	}
	log := strings.Join(lib.Violations(), "\n")
	for _, want := range []string{"outside the managed range", "status 999", "allocated = 5", "verdict 7"} {
		if !strings.Contains(log, want) {
			t.Errorf("the violation log does not mention %q:\n%s", want, log)
		}
	}
	runs := map[string]func(rapid.TB){
		"bank/FreeListStateMachine": func(t rapid.TB) { banktest.CheckFreeListStateMachine(t, bt.FreeListFactory()) },
		"overlap/MatchesModel":      func(t rapid.TB) { overlaptest.CheckMatchesModel(t, ot.Checker()) },
	}
	defer setFlag(t, "rapid.nofailfile", "true")()
	defer setFlag(t, "rapid.shrinktime", "1s")()
	for name, run := range runs {
		if res := props.Run(name, run); res.Outcome != props.Failed {
			t.Errorf("%s against the misbehaving library: %s, want a failure\n%s", name, res.Outcome, res.Output)
		}
	}
}

// TestCodeTables: every domain's codes map to distinct sentinels.
func TestCodeTables(t *testing.T) {
	for _, d := range cabi.Domains() {
		seen := map[error]int32{}
		for code, err := range cabi.CodeTable(d) {
			if other, dup := seen[err]; dup {
				t.Errorf("%s: codes %d and %d both stand for %v", d, other, code, err)
			}
			seen[err] = code
		}
		if len(seen) == 0 {
			t.Errorf("%s: no codes", d)
		}
	}
}
