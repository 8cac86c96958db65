package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestWorkflowsPassActionlint lints every workflow of .github/workflows
// with actionlint's library, as its command would (shellcheck and pyflakes
// left out: they are programs of their own, not always installed).
func TestWorkflowsPassActionlint(t *testing.T) {
	dir := filepath.Join(moduleRoot(), ".github", "workflows")
	var files []string
	for _, ext := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(dir, ext))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatalf("no workflow under %s", dir)
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		errs, err := l.LintFile(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", f, e.Line, e.Column, e.Message, e.Kind)
		}
	}
	if t.Failed() {
		t.Log(out.String())
	}
	// The linter must find what it is there to find.
	bad := "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n"
	if errs, err := l.Lint("bad.yml", []byte(bad), nil); err != nil || len(errs) == 0 {
		t.Errorf("actionlint found nothing wrong with a workflow that reads an undefined matrix (%v)", err)
	}
}

// TestVerifyWorkflowMergesEveryShard: the merge job reads the shards the
// matrix runs, and the shard count in the matrix is the one each job runs.
func TestVerifyWorkflowMergesEveryShard(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(), ".github", "workflows", "verify.yml"))
	if err != nil {
		t.Fatal(err)
	}
	y := string(data)
	for _, want := range []string{"shard: [1, 2, 3]", `-shard "${{ matrix.shard }}/3"`, "verify merge", "GITHUB_STEP_SUMMARY", "upload-artifact"} {
		if !strings.Contains(y, want) {
			t.Errorf("verify.yml lacks %q", want)
		}
	}
}
