package gate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ParallelBenchmarks returns the top-level benchmarks (BenchmarkX) of the
// Go package in dir that may call b.RunParallel: in their own body, in a
// closure there, or in any function or package variable of the package
// they reach by name, directly or through others. Their sub-benchmarks
// are all taken as parallel: the source decides per top-level function,
// not per sub-benchmark, and a benchmark wrongly taken as parallel is only
// timed, while one wrongly counted would be measured with one goroutine
// where it means several.
//
// The search follows names, not types: a method call x.f() reaches every
// method f of the package. It does not see through a function value that
// comes from outside the package; a benchmark that gets its RunParallel
// that way is counted like a sequential one.
func ParallelBenchmarks(dir string) (map[string]bool, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	refs := map[string]map[string]bool{} // declaration → names it refers to
	direct := map[string]bool{}          // declarations that call RunParallel themselves
	var benchmarks []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("reading the benchmarks' source: %w", err)
		}
		for _, d := range f.Decls {
			for name, body := range declBodies(d) {
				if refs[name] == nil {
					refs[name] = map[string]bool{}
				}
				if scan(body, refs[name]) {
					direct[name] = true
				}
				if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(name, "Benchmark") {
					benchmarks = append(benchmarks, name)
				}
			}
		}
	}
	out := map[string]bool{}
	for _, b := range benchmarks {
		if reaches(b, refs, direct) {
			out[b] = true
		}
	}
	return out, nil
}

// declBodies names the parts of a declaration that code can reach by
// name: a function or method (by its name), a package variable (by its
// name; its initializer may hold function literals).
func declBodies(d ast.Decl) map[string]ast.Node {
	out := map[string]ast.Node{}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Body != nil {
			out[d.Name.Name] = d.Body
		}
	case *ast.GenDecl:
		if d.Tok != token.VAR {
			break
		}
		for _, s := range d.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					out[n.Name] = vs.Values[i]
				} else if len(vs.Values) == 1 {
					out[n.Name] = vs.Values[0]
				}
			}
		}
	}
	return out
}

// scan records in names every identifier and selected name under n, and
// reports whether n calls a method named RunParallel.
func scan(n ast.Node, names map[string]bool) (parallel bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			names[n.Name] = true
		case *ast.SelectorExpr:
			names[n.Sel.Name] = true
		case *ast.CallExpr:
			if s, ok := n.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "RunParallel" {
				parallel = true
			}
		}
		return true
	})
	return parallel
}

// reaches reports whether from, or a declaration it refers to, directly or
// not, calls RunParallel.
func reaches(from string, refs map[string]map[string]bool, direct map[string]bool) bool {
	seen := map[string]bool{from: true}
	queue := []string{from}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if direct[d] {
			return true
		}
		next := make([]string, 0, len(refs[d]))
		for n := range refs[d] {
			next = append(next, n)
		}
		sort.Strings(next)
		for _, n := range next {
			if _, declared := refs[n]; declared && !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return false
}

// TopLevel is the top-level benchmark of a full benchmark name.
func TopLevel(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}
