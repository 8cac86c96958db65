package props_test

import (
	"go/importer"
	"go/token"
	"go/types"
	"os/exec"
	"strings"
	"testing"
)

// suitePackages are the suite packages a user imports; each test below holds
// every one of them to the same rule.
var suitePackages = []string{"refcounttest", "sizeclasstest", "banktest", "overlaptest", "tensormaptest"}

const module = "github.com/memverify/memverify/"

// TestSuitePackagesLinkNoImplementation: importing a domain's suites links
// that domain's model and domain-free machinery, never an implementation of
// ours, nor the wiring table or the CLI.
func TestSuitePackagesLinkNoImplementation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, name := range suitePackages {
		out, err := exec.Command("go", "list", "-deps", "./"+name).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v\n%s", name, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			rest, ours := strings.CutPrefix(dep, module)
			if ours && (strings.HasPrefix(rest, "impl/") || rest == "suites" || strings.HasPrefix(rest, "cmd/")) {
				t.Errorf("props/%s depends on %s", name, dep)
			}
		}
	}
}

// TestSuitePackagesExportOnlyNameableTypes: every type that an exported name
// of a suite package mentions (a parameter, a result, a field, a method) is
// one a user outside the module can name: not from an internal package, and
// not unexported.
func TestSuitePackagesExportOnlyNameableTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the suite packages from source")
	}
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil)
	for _, name := range suitePackages {
		pkg, err := imp.Import(module + "props/" + name)
		if err != nil {
			t.Fatalf("type-check %s: %v", name, err)
		}
		scope := pkg.Scope()
		for _, n := range scope.Names() {
			obj := scope.Lookup(n)
			if !obj.Exported() {
				continue
			}
			for _, bad := range unnameable(obj) {
				t.Errorf("%s.%s mentions %s, which a user cannot name", name, n, bad)
			}
		}
	}
}

// unnameable lists the types obj's exported surface mentions that a user
// cannot name.
func unnameable(obj types.Object) []string {
	var bad []string
	seen := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(typ types.Type) {
		if seen[typ] {
			return
		}
		seen[typ] = true
		switch typ := typ.(type) {
		case *types.Named:
			o := typ.Obj()
			if o.Pkg() != nil && (strings.Contains(o.Pkg().Path(), "/internal/") || !o.Exported()) {
				bad = append(bad, o.Pkg().Path()+"."+o.Name())
			}
			for i := 0; i < typ.TypeArgs().Len(); i++ {
				walk(typ.TypeArgs().At(i))
			}
		case *types.Pointer:
			walk(typ.Elem())
		case *types.Slice:
			walk(typ.Elem())
		case *types.Array:
			walk(typ.Elem())
		case *types.Map:
			walk(typ.Key())
			walk(typ.Elem())
		case *types.Chan:
			walk(typ.Elem())
		case *types.Signature:
			for i := 0; i < typ.Params().Len(); i++ {
				walk(typ.Params().At(i).Type())
			}
			for i := 0; i < typ.Results().Len(); i++ {
				walk(typ.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < typ.NumFields(); i++ {
				if f := typ.Field(i); f.Exported() {
					walk(f.Type())
				}
			}
		case *types.Interface:
			for i := 0; i < typ.NumMethods(); i++ {
				walk(typ.Method(i).Type())
			}
		}
	}
	switch obj := obj.(type) {
	case *types.TypeName:
		walk(obj.Type().Underlying())
		if named, ok := obj.Type().(*types.Named); ok {
			for i := 0; i < named.NumMethods(); i++ {
				if m := named.Method(i); m.Exported() {
					walk(m.Type())
				}
			}
		}
	default:
		walk(obj.Type())
	}
	return bad
}
