package main

// The seeded-bug campaign in the format mutation-testing tools share: the
// mutation-testing-report-schema of Stryker's mutation-testing-elements
// (a copy, with its licence, in reports/schema/), which Stryker's HTML
// viewer and its dashboard read. Each seeded bug is a mutant at the file
// and line of its first bugs.On seam, found in the module's source; its
// status is Killed, Survived, Timeout (its run hung) or RuntimeError (it
// crashed); killedBy and coveredBy name the properties, as
// "<domain>/<Property>", which testFiles lists as the tests.

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memverify/memverify/internal/bugs"
	"github.com/memverify/memverify/suites"
)

const mutationReportName = "mutation-report.json"

// The parts of the schema memverify fills.
type (
	mutationReport struct {
		Schema        string                       `json:"$schema"`
		SchemaVersion string                       `json:"schemaVersion"`
		Thresholds    mutationThresholds           `json:"thresholds"`
		ProjectRoot   string                       `json:"projectRoot,omitempty"`
		Files         map[string]*mutationFile     `json:"files"`
		TestFiles     map[string]*mutationTestFile `json:"testFiles,omitempty"`
		Framework     mutationFramework            `json:"framework"`
		System        mutationSystem               `json:"system"`
	}
	mutationThresholds struct {
		High int `json:"high"`
		Low  int `json:"low"`
	}
	mutationFile struct {
		Language string          `json:"language"`
		Source   string          `json:"source"`
		Mutants  []mutationEntry `json:"mutants"`
	}
	mutationEntry struct {
		ID             string           `json:"id"`
		MutatorName    string           `json:"mutatorName"`
		Description    string           `json:"description,omitempty"`
		Location       mutationLocation `json:"location"`
		Status         string           `json:"status"`
		StatusReason   string           `json:"statusReason,omitempty"`
		KilledBy       []string         `json:"killedBy,omitempty"`
		CoveredBy      []string         `json:"coveredBy,omitempty"`
		TestsCompleted int              `json:"testsCompleted"`
		Duration       float64          `json:"duration"`
	}
	mutationLocation struct {
		Start mutationPosition `json:"start"`
		End   mutationPosition `json:"end"`
	}
	mutationPosition struct {
		Line   int `json:"line"`
		Column int `json:"column"`
	}
	mutationTestFile struct {
		Tests []mutationTest `json:"tests"`
	}
	mutationTest struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	mutationFramework struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	mutationSystem struct {
		CI  bool `json:"ci"`
		CPU struct {
			LogicalCores int    `json:"logicalCores"`
			Model        string `json:"model,omitempty"`
		} `json:"cpu"`
		OS struct {
			Platform string `json:"platform"`
		} `json:"os"`
	}
)

// mutationReport renders the campaign in the shared format.
func (r *Report) mutationReport() ([]byte, error) {
	root := moduleRoot()
	seams := findSeams(root)
	out := mutationReport{
		Schema:        "https://git.io/mutation-testing-report-schema",
		SchemaVersion: "2",
		Thresholds:    mutationThresholds{High: 100, Low: 95}, // a surviving bug is a gap in the suite
		Files:         map[string]*mutationFile{},
		TestFiles:     map[string]*mutationTestFile{},
		Framework:     mutationFramework{Name: "memverify", Version: r.Summary.Commit},
	}
	out.System.CI = os.Getenv("CI") != ""
	out.System.CPU.LogicalCores, out.System.CPU.Model = r.Summary.Machine.CPUs, r.Summary.Machine.CPUModel
	out.System.OS.Platform = r.Summary.Machine.OS
	for _, m := range r.Campaign.Mutants {
		s, ok := seams[m.Bug.ID]
		if !ok {
			s = seam{file: "(no bugs.On seam found)", start: mutationPosition{1, 1}, end: mutationPosition{1, 2}}
		}
		f := out.Files[s.file]
		if f == nil {
			src, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(s.file)))
			f = &mutationFile{Language: "go", Source: string(src)}
			out.Files[s.file] = f
		}
		f.Mutants = append(f.Mutants, mutationEntryOf(m, s, r.Run.Filters.Property))
		addTests(out.TestFiles, m)
	}
	return json.MarshalIndent(out, "", "  ")
}

func mutationEntryOf(m MutantResult, s seam, property string) mutationEntry {
	e := mutationEntry{ID: string(m.Bug.ID), MutatorName: "SeededBug(" + m.Bug.Impl + ")", Description: m.Bug.Summary,
		Location: mutationLocation{s.start, s.end}, TestsCompleted: m.Checks, Duration: float64(m.Duration.Milliseconds())}
	for _, p := range m.KilledBy {
		e.KilledBy = append(e.KilledBy, m.Bug.Domain+"/"+p)
	}
	for _, su := range suites.Select(m.Bug.Domain, property, m.Bug.Impl) {
		e.CoveredBy = append(e.CoveredBy, su.Domain+"/"+su.Property)
	}
	switch {
	case m.Error != "" && strings.HasPrefix(m.Error, "timed out"):
		e.Status, e.StatusReason = "Timeout", firstLine(m.Error)
	case m.Error != "":
		e.Status, e.StatusReason = "RuntimeError", firstLine(m.Error)
	case m.Killed:
		e.Status, e.StatusReason = "Killed", "killed first by "+m.By+": "+failureLine(m.Trace)
	default:
		e.Status, e.StatusReason = "Survived", "no property failed; expected killer "+m.Bug.Killer
	}
	return e
}

// addTests lists the properties of m's domain as the tests of the domain's
// suite package.
func addTests(files map[string]*mutationTestFile, m MutantResult) {
	key := "props/" + m.Bug.Domain + "test"
	if files[key] != nil {
		return
	}
	tf := &mutationTestFile{}
	seen := map[string]bool{}
	for _, s := range suites.Select(m.Bug.Domain, "", "") {
		if id := s.Domain + "/" + s.Property; !seen[id] {
			seen[id] = true
			tf.Tests = append(tf.Tests, mutationTest{ID: id, Name: s.Property})
		}
	}
	files[key] = tf
}

// seam is where a bug is planted: the first bugs.On call that names it.
type seam struct {
	file       string // slash-separated, relative to the module root
	start, end mutationPosition
}

// findSeams parses the module's non-test Go files for bugs.On(X) calls,
// X a constant of type bugs.ID declared in the same package or a string
// literal, and returns the first seam of each bug, files in walk order.
func findSeams(root string) map[bugs.ID]seam {
	out := map[bugs.ID]seam{}
	pkgs := map[string][]*ast.File{} // by directory
	fset := token.NewFileSet()
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "reports"):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		if f, err := parser.ParseFile(fset, path, nil, 0); err == nil {
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], f)
		}
		return nil
	})
	for _, files := range pkgs {
		consts := idConstants(files)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || !isBugsOn(call) || len(call.Args) != 1 {
					return true
				}
				id, ok := idOf(call.Args[0], consts)
				if _, seen := out[id]; ok && !seen {
					start, end := fset.Position(call.Pos()), fset.Position(call.End())
					rel, _ := filepath.Rel(root, start.Filename)
					out[id] = seam{filepath.ToSlash(rel), mutationPosition{start.Line, start.Column}, mutationPosition{end.Line, end.Column}}
				}
				return true
			})
		}
	}
	return out
}

func isBugsOn(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "On" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "bugs"
}

// idConstants maps each constant declared with a string value in files to
// that value.
func idConstants(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := stringLit(vs.Values[i]); ok {
							out[name.Name] = s
						}
					}
				}
			}
		}
	}
	return out
}

// idOf is the bug ID expression e names: a constant, a literal, or a
// conversion bugs.ID("...").
func idOf(e ast.Expr, consts map[string]string) (bugs.ID, bool) {
	if id, ok := e.(*ast.Ident); ok {
		s, ok := consts[id.Name]
		return bugs.ID(s), ok
	}
	s, ok := stringLit(e)
	return bugs.ID(s), ok
}

func stringLit(e ast.Expr) (string, bool) {
	if call, ok := e.(*ast.CallExpr); ok && len(call.Args) == 1 {
		e = call.Args[0] // bugs.ID("...")
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
