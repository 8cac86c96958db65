//go:build ignore

// Seedcorpus turns the seed corpora of native Go fuzz targets
// (testdata/fuzz/<Target>/*, in the "go test fuzz v1" format) into the seed
// archives ClusterFuzzLite reads: <Target>_seed_corpus.zip in the output
// directory, one raw libFuzzer input per corpus file.
//
// A libFuzzer binary built by go-118-fuzz-build does not see the Go values
// of a corpus file: its harness decodes the raw input with go-fuzz-headers,
// which reads a []byte or string argument as a 4-byte big-endian length
// followed by that many bytes. So each value is written that way, and the
// binary hands the target exactly the arguments `go test` would. Only []byte
// and string arguments are supported (all the targets here take one
// []byte); a file with any other type, or whose last value is empty (which
// that decoding cannot express), is refused or skipped with a message.
//
// Usage: go run .clusterfuzzlite/seedcorpus.go -out DIR fuzz/testdata/fuzz
package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const header = "go test fuzz v1"

func main() {
	out := flag.String("out", "", "directory to write <Target>_seed_corpus.zip into")
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run seedcorpus.go -out DIR TESTDATA_FUZZ_DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "seedcorpus:", err)
		os.Exit(1)
	}
}

// run writes one archive per target directory under root.
func run(root, out string) error {
	targets, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if !t.IsDir() {
			continue
		}
		n, err := writeArchive(filepath.Join(root, t.Name()), filepath.Join(out, t.Name()+"_seed_corpus.zip"))
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name(), err)
		}
		fmt.Printf("seedcorpus: %s_seed_corpus.zip: %d inputs\n", t.Name(), n)
	}
	return nil
}

// writeArchive converts every corpus file of one target into an entry of a
// new zip archive and reports how many it wrote.
func writeArchive(dir, archive string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, err
		}
		raw, err := encode(src)
		if errors.Is(err, errEmptyLast) {
			fmt.Fprintf(os.Stderr, "seedcorpus: skipping %s: %v\n", name, err)
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		w, err := zw.Create(name)
		if err != nil {
			return 0, err
		}
		if _, err := w.Write(raw); err != nil {
			return 0, err
		}
		n++
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return n, os.WriteFile(archive, buf.Bytes(), 0o644)
}

var errEmptyLast = errors.New("the last value is empty, which go-fuzz-headers cannot decode")

// encode maps one corpus file onto the raw input the libFuzzer harness
// decodes back into the same values.
func encode(src []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[0]) != header {
		return nil, fmt.Errorf("not a %q corpus file", header)
	}
	var raw []byte
	var last []byte
	for _, line := range lines[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := parseValue(line)
		if err != nil {
			return nil, err
		}
		raw = binary.BigEndian.AppendUint32(raw, uint32(len(v)))
		raw = append(raw, v...)
		last = v
	}
	if len(last) == 0 {
		return nil, errEmptyLast
	}
	return raw, nil
}

// parseValue reads one value line: []byte("...") or string("...").
func parseValue(line string) ([]byte, error) {
	expr, err := parser.ParseExpr(line)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", line, err)
	}
	call, ok := expr.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || !isBytesOrString(call.Fun) {
		return nil, fmt.Errorf("%q: only []byte and string values are supported", line)
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, fmt.Errorf("%q: want a quoted literal", line)
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", line, err)
	}
	return []byte(s), nil
}

func isBytesOrString(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "string"
	case *ast.ArrayType:
		elt, ok := f.Elt.(*ast.Ident)
		return f.Len == nil && ok && (elt.Name == "byte" || elt.Name == "uint8")
	}
	return false
}
