// Package examples holds memverify's C and C++ examples of the C ABI (one
// small implementation per domain, under c/) and builds them into shared
// libraries. Each example is correct; each has one realistic seeded bug,
// compiled in by a macro (see Bugs), that a named suite must kill. The
// tests of package cabi and the benchmarks in bench/ build them with the C
// compiler the machine has.
//
// The examples are written to be read against the contracts, not to be
// fast: plain arrays, linear searches, one mutex where the contract asks
// for safety under concurrent use.
package examples

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memverify/memverify/cabi"
)

//go:embed c
var sources embed.FS

// ErrNoCompiler: no C (or C++) compiler was found.
var ErrNoCompiler = errors.New("examples: no C compiler found (set CC, or install gcc)")

// Example describes one example library.
type Example struct {
	Name    string   // the library's name: lib<Name>.so
	Domains []string // the domains whose tables it exports
	Sources []string // files under c/
	CPlus   bool     // compiled as C++
	// Bug is the macro that compiles its seeded bug in, and Killer the
	// suite that must kill it, as <domain>/<Property> (both empty for an
	// example without a seeded bug).
	Bug, Killer string
}

// All lists the examples.
var All = []Example{
	{Name: "refcount", Domains: []string{cabi.DomainRefcount}, Sources: []string{"refcount_example.h", "refcount.c", "refcount_scopes.c"},
		Bug: "MEMVERIFY_BUG_ALIAS_SET", Killer: "refcount/StateMachine"},
	{Name: "sizeclass", Domains: []string{cabi.DomainSizeclass},
		Sources: []string{"sizeclass_example.h", "sizeclass_pool.c", "sizeclass_deferred.c", "sizeclass_streams.c"},
		Bug:     "MEMVERIFY_BUG_ROUND_WRAP", Killer: "sizeclass/StateMachine"},
	{Name: "bank", Domains: []string{cabi.DomainBank},
		Sources: []string{"bank_example.h", "bank_freelist.c", "bank_banks.c", "bank_table.c"},
		Bug:     "MEMVERIFY_BUG_LIMIT_AFTER", Killer: "bank/FreeListStateMachine"},
	{Name: "overlap", Domains: []string{cabi.DomainOverlap}, Sources: []string{"overlap_example.h", "overlap.c"},
		Bug: "MEMVERIFY_BUG_CLOSED_INTERVAL", Killer: "overlap/MatchesModel"},
	// The tensormap example decides overlap with the overlap example's
	// checker, so its library exports both domains.
	{Name: "tensormap", Domains: []string{cabi.DomainOverlap, cabi.DomainTensorMap},
		Sources: []string{"overlap_example.h", "overlap.c", "tensormap.c"},
		Bug:     "MEMVERIFY_BUG_EVICT_LIVE", Killer: "tensormap/StateMachine"},
	// The C++ route: a free list written as a C++ class, exported through
	// an extern "C" shim. It has no seeded bug.
	{Name: "freelist-cpp", Domains: []string{cabi.DomainBank}, Sources: []string{"freelist.cc"}, CPlus: true},
}

// Lookup returns the example called name.
func Lookup(name string) (Example, bool) {
	i := slices.IndexFunc(All, func(e Example) bool { return e.Name == name })
	if i < 0 {
		return Example{}, false
	}
	return All[i], true
}

// Compiler returns the C compiler (or, for cplus, the C++ compiler) a
// build uses: $CC (or $CXX), else gcc (g++), else cc (c++).
func Compiler(cplus bool) (string, error) {
	env, names := "CC", []string{"gcc", "cc"}
	if cplus {
		env, names = "CXX", []string{"g++", "c++"}
	}
	if c := os.Getenv(env); c != "" {
		names = append([]string{c}, names...)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", ErrNoCompiler
}

// Build compiles the example called name into dir/lib<name>.so, with each
// of bugs defined as a macro (e.g. the example's Bug), and returns the
// library's path. It writes the sources and the ABI headers under dir
// first, so that it works from a module cache as well as a checkout.
func Build(dir, name string, bugs ...string) (string, error) {
	e, ok := Lookup(name)
	if !ok {
		return "", fmt.Errorf("examples: no example %q", name)
	}
	variant := name
	for _, b := range bugs {
		variant += "-" + strings.ToLower(strings.TrimPrefix(b, "MEMVERIFY_BUG_"))
	}
	files := map[string][]byte{}
	for _, s := range e.Sources {
		data, err := sources.ReadFile("c/" + s)
		if err != nil {
			return "", err
		}
		files[s] = data
	}
	return compile(dir, variant, e.CPlus, files, bugs)
}

// BuildSource compiles one C file's text (C++ if cplus) against the ABI
// headers into dir/lib<name>.so and returns the library's path: a quick way
// to try a table, or to make a deliberately broken one.
func BuildSource(dir, name string, cplus bool, src string) (string, error) {
	file := name + ".c"
	if cplus {
		file = name + ".cc"
	}
	return compile(dir, name, cplus, map[string][]byte{file: []byte(src)}, nil)
}

// compile writes files and the headers under dir/src-<name> and builds
// them (headers, *.h, are included, not compiled) into dir/lib<name>.so.
func compile(dir, name string, cplus bool, files map[string][]byte, defines []string) (string, error) {
	cc, err := Compiler(cplus)
	if err != nil {
		return "", err
	}
	src := filepath.Join(dir, "src-"+name)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := cabi.WriteHeaders(src); err != nil {
		return "", err
	}
	args := []string{"-O2", "-Wall", "-Wextra", "-shared", "-fPIC", "-I", src}
	if cplus {
		args = append(args, "-std=c++11")
	} else {
		args = append(args, "-std=c99", "-D_POSIX_C_SOURCE=200809L")
	}
	for _, d := range defines {
		args = append(args, "-D"+d)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		path := filepath.Join(src, n)
		if err := os.WriteFile(path, files[n], 0o644); err != nil {
			return "", err
		}
		if !strings.HasSuffix(n, ".h") {
			args = append(args, path)
		}
	}
	lib := filepath.Join(dir, "lib"+name+".so")
	args = append(args, "-o", lib, "-lpthread")
	cmd := exec.Command(cc, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("examples: %s %s: %v\n%s", cc, strings.Join(args, " "), err, out.String())
	}
	return lib, nil
}
